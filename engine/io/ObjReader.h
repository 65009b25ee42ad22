// Reads Wavefront OBJ meshes (through tinyobjloader) into MeshData: polygons triangulated,
// vertex colours ("v x y z r g b") where present, normals and texture coordinates. A missing
// .mtl is a warning. Any thread.
#pragma once

#include <filesystem>

#include "engine/core/Result.h"
#include "engine/io/MeshData.h"

namespace tandem::io {

/// Reads an OBJ file. A file with vertices and no faces becomes a point cloud. Fails with a
/// message naming the file for missing files, parse errors, indices out of range and non-finite
/// coordinates.
Result<MeshData> readObj(const std::filesystem::path& path);

} // namespace tandem::io
