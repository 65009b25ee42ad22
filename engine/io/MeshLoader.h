// Loads a mesh or point cloud from a file, choosing the reader by content and extension, and
// completes what rendering needs (vertex normals for meshes without them). Any thread.
#pragma once

#include <filesystem>

#include "engine/core/Result.h"
#include "engine/io/MeshData.h"

namespace tandem::io {

/// Loads a .ply or .obj file (PLY is also recognised by its "ply" magic whatever the
/// extension). Fails with a message naming the file for unknown formats and bad content.
Result<MeshData> loadMesh(const std::filesystem::path& path);

} // namespace tandem::io
