// Reading .tdpk packs (PackFormat.h): the header and index, read and validated; every frame
// checked (its checksum, and that it decodes into a valid frame block); and a Source over a
// pack. Packs are opened as regular files only: a FIFO or a device named like a pack is
// refused, never waited on. No GL; any thread.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/Result.h"
#include "engine/stream/PackFormat.h"
#include "engine/stream/Source.h"

namespace tandem::stream {

/// Reads and validates a pack's header and index: magic, version (a pack of another version
/// fails saying which version it has and which this build reads), flags, checksums, sizes
/// within the file, frames in order and aligned, the frame rate within
/// [MinFps, MaxFps], every bounds finite and within ±MaxBoundsCoordinate (or
/// empty). Fails naming the file, and the field, and the problem.
Result<PackInfo> readPackInfo(const std::filesystem::path& path);

/// Called with (frames checked, frame count) as verifyPack() goes.
using PackProgress = std::function<void(int done, int total)>;

/// A frame verifyPack() found unusable.
struct PackDamage {
    int frame = 0;
    /// Why, starting with "frame N (its name): ": "checksum mismatch (damaged)", what does not
    /// decode, what the decoded block gets wrong.
    std::string reason;
};

/// Checks every frame as a player would load it: reads it, checks its CRC-32, decodes it
/// (decompression, u16 positions) and validates the frame block (render::validateScene).
/// Returns the frames that fail, each with why (empty: all good). A frame whose index entry
/// states a block larger than `frameBudgetBytes` (0: this machine's physical memory) is one
/// that fails, unread: a forged size never becomes an allocation. Fails as readPackInfo() does,
/// or naming the file on a read error. Blocks on the disk.
Result<std::vector<PackDamage>> verifyPack(const std::filesystem::path& path,
                                           const PackProgress& progress = {},
                                           std::uint64_t frameBudgetBytes = 0);

/// Whether `path` is a regular file starting with the pack magic.
bool isPackFile(const std::filesystem::path& path);

/// A Source over a pack (its header and index read and validated now). load() preads the
/// frame (from several loader threads at once; straight into the sink's memory when it is
/// stored as an uncompressed f32 block), checks its CRC-32 (a mismatch fails with "frame 12 of
/// seq.tdpk: checksum mismatch (damaged)"), decompresses and dequantizes. Keeps the file open.
Result<std::unique_ptr<Source>> openPack(const std::filesystem::path& path);

} // namespace tandem::stream
