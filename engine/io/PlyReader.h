// Reads PLY meshes and point clouds (ascii, binary little and big endian) into MeshData.
// Malformed input gives a Failure naming the file and the problem, never a crash or a huge
// allocation. Any thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "engine/core/Result.h"
#include "engine/io/MeshData.h"

namespace tandem::io {

/// Reads a PLY file: positions (x y z), normals (nx ny nz), colours (red green blue [alpha],
/// uchar or float), texture coordinates (u v, s t, texture_u texture_v), and faces
/// (vertex_indices or vertex_index lists, triangulated as fans). Comments, obj_info and unknown
/// elements and properties are skipped.
Result<MeshData> readPly(const std::filesystem::path& path);

/// Same, from bytes already in memory; `name` is used in messages.
Result<MeshData> readPly(std::span<const std::uint8_t> bytes, const std::string& name);

} // namespace tandem::io
