// Reads Wavefront OBJ meshes into MeshData in one pass (tandem's own parser, numbers by
// std::from_chars): polygons triangulated, vertex colours ("v x y z r g b") where present,
// normals, texture coordinates, and the texture its materials name (mtllib, usemtl, map_Kd:
// io/MtlReader). A missing or unreadable .mtl is a warning naming it. Any thread.
#pragma once

#include <filesystem>

#include "engine/core/Result.h"
#include "engine/io/MeshData.h"

namespace tandem::io {

/// Reads an OBJ file (a regular file: core's readFile). A file with vertices and no faces
/// becomes a point cloud. Where some v lines have a colour, the others are white; "x y z w" is
/// no colour. A quad is cut along its shorter diagonal (the other where that one cuts outside
/// it), a larger polygon by ear clipping in the plane it mostly lies in, concave ones inside
/// their outline; where no ear is found (a self-crossing polygon) or the file has spent its
/// clipping budget (64 tests a face corner), the rest is a fan. Normals and texture coordinates
/// are kept when every face corner has one. Every library a mtllib line names is read once (a
/// material's first definition counts); a usemtl naming a material none defines is a warning.
/// A UTF-8 byte-order mark and comments after a line's numbers are skipped. The texture image
/// of the materials its faces use is named in MeshData::textureFile (not read: io::loadMesh
/// does that), when every face uses the same one and the mesh has texture coordinates; faces
/// with several textures are a warning and no texture. Vertices whose position is NaN,
/// infinite or beyond ±MaxCoordinate are dropped with the faces that use them, with one
/// warning that counts them. Fails with a message naming the file and line for parse errors,
/// v and vn lines of fewer than 3 numbers, indices out of range, and non-finite normals,
/// texture coordinates and colours; and for missing files.
Result<MeshData> readObj(const std::filesystem::path& path);

} // namespace tandem::io
