// Reads Wavefront OBJ meshes (through tinyobjloader) into MeshData: polygons triangulated,
// vertex colours ("v x y z r g b") where present, normals, texture coordinates, and the texture
// its materials name (mtllib, usemtl, map_Kd: io/MtlReader). A missing or unreadable .mtl is a
// warning naming it. Any thread.
#pragma once

#include <filesystem>

#include "engine/core/Result.h"
#include "engine/io/MeshData.h"

namespace tandem::io {

/// Reads an OBJ file (a regular file: core's readFile). A file with vertices and no faces
/// becomes a point cloud. The texture image of the materials its faces use is named in
/// MeshData::textureFile (not read: io::loadMesh does that), when every face uses the same one
/// and the mesh has texture coordinates; faces with several textures are a warning and no
/// texture. Vertices whose position is NaN, infinite or beyond ±MaxCoordinate are dropped with
/// the faces that use them, with one warning that counts them. Fails with a message naming the
/// file for missing files, parse errors, indices out of range, and non-finite normals, texture
/// coordinates and colours.
Result<MeshData> readObj(const std::filesystem::path& path);

} // namespace tandem::io
