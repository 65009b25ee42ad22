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
/// uchar or float; or PCL's packed `rgb`/`rgba`, the bytes 0x00RRGGBB of a 4-byte float, int or
/// uint), texture coordinates (u v, s t, texture_u texture_v), and faces (vertex_indices or
/// vertex_index lists, triangulated as fans). Comments, obj_info and unknown elements and
/// properties are skipped; a UTF-8 byte-order mark before "ply" is too. Coordinates may be any
/// scalar type (float and double included); float colours are 0..1. `comment TextureFile
/// name.png` (MeshLab's) sets MeshData::textureFile (relative to the file; loadMesh reads it).
///
/// Vertices whose position is not usable (NaN or infinite, as depth sensors and PCL write for
/// invalid points, or beyond ±MaxCoordinate) are dropped with the triangles that use them, with
/// one warning that counts them (MeshData.h, dropUnusableVertices()); a file left with nothing
/// to draw gives an empty mesh and that warning, not a failure.
///
/// Header comments that place the points in the world are applied to positions, as
/// world = scale · position + translation (in double precision, then stored as float):
/// - `comment frame_to_world_scale S` and `comment frame_to_world_translation X Y Z`, as the
///   8i voxelized full bodies write them (voxel indices to centimetres);
/// - `comment scale S`, and `comment translation X Y Z` or `comment offset X Y Z`.
/// The last of each kind wins. S must be positive, so normals stay as they are (a positive
/// uniform scale does not turn them). A malformed comment (not a number, a wrong count, a scale
/// of 0 or less) is a warning on the result and is ignored, not an error.
Result<MeshData> readPly(const std::filesystem::path& path);

/// How readPly() reads the vertex element.
enum class PlyDecoding {
    /// A chunk of vertices at a time: binary bodies as strided loads, one loop per property;
    /// ascii ones with a tokenizer made for numbers. Where the vertex element has a list among
    /// its properties, or a value cannot be read, value by value instead (which names the
    /// problem).
    Fast,
    /// One value at a time: the reader the fast one is tested against (the same mesh, warnings
    /// and failures on every input).
    ValueByValue,
};

/// Same, for the file `path` whose contents the caller has read (`bytes`).
Result<MeshData> readPly(const std::filesystem::path& path, std::span<const std::uint8_t> bytes);

/// Same, from bytes already in memory; `name` is used in messages.
Result<MeshData> readPly(std::span<const std::uint8_t> bytes, const std::string& name,
                         PlyDecoding decoding = PlyDecoding::Fast);

/// The vertex count a PLY file's header states, reading the header only (at most 1 MiB), so a
/// caller can tell a frame too large for its memory before decoding it. Fails as readPly does
/// on a bad header.
Result<std::uint64_t> plyVertexCount(const std::filesystem::path& path);

/// The bytes of a file plyVertexCount() reads: the header's bound and a little more, so its
/// end_header line is in.
constexpr std::size_t PlyHeaderBytes = (std::size_t{1} << 20) + 64;

/// Same, from the file's first bytes (`name` in messages): the same count or failure as from the
/// file where `start` holds its first PlyHeaderBytes bytes (or all of it), or holds its header
/// whole when that succeeds.
Result<std::uint64_t> plyVertexCount(std::span<const std::uint8_t> start, const std::string& name);

} // namespace tandem::io
