// Opens any sequence source from what a user types: the built-in sample ("sample",
// "sample:mesh"), a .tdpk pack (by its magic), a folder of PLY/OBJ frames, a JSON manifest, a
// glob or printf pattern, or a single file. Any thread.
#pragma once

#include <memory>
#include <string>

#include "engine/core/Result.h"
#include "engine/core/StopToken.h"
#include "engine/stream/FolderSource.h"
#include "engine/stream/Source.h"

namespace tandem::stream {

/// The source `spec` names; `options` for file sequences (a pack and the sample carry their
/// own frame rate unless options.fpsGiven). Fails with what is wrong (missing files listed),
/// or when `stop` asks while a file sequence's frames are listed (openFileSequence()).
Result<std::unique_ptr<Source>> openSource(const std::string& spec, const SequenceOptions& options,
                                           const StopToken& stop = {});

} // namespace tandem::stream
