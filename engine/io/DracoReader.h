// Reads Draco-compressed point clouds and triangle meshes (.drc, google/draco's bitstream, through
// Debian's libdraco 1.5.5, linked statically): positions, normals, colours, texture coordinates
// and faces. Other attributes (generic ones, a second colour set) and Draco's metadata are not
// kept. Malformed input gives a Failure naming the file and Draco's message. Any thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "engine/core/Result.h"
#include "engine/io/MeshData.h"

namespace tandem::io {

/// The most points (or faces) a Draco file may declare for each of its bytes: 1/8 bit a point,
/// far below what Draco's codecs reach on real geometry (draco_encoder's defaults store
/// tests/data/draco/cloud_dense.drc's points, with normals and colours, in 8.9 bytes each); only
/// degenerate data (many identical points) compresses that far. A file that declares more is
/// refused before Draco allocates for it (20 bytes can declare 2^31 points, whose ids alone would
/// take 8 GiB).
inline constexpr std::uint64_t MaxDracoElementsPerByte = 64;

/// The most bytes of attribute values a Draco point cloud may declare (its points times the
/// bytes of a point's attributes, from its attribute descriptors) for each byte of the file;
/// checked with the count, before decoding. cloud_dense.drc decodes to 3 times its size. Mesh
/// attributes follow the connectivity and are bounded by the face count only.
inline constexpr std::uint64_t MaxDracoExpansion = 1024;

/// Whether `bytes` start as a Draco file does ("DRACO").
bool isDraco(std::span<const std::uint8_t> bytes);

/// Reads a Draco point cloud or triangle mesh: POSITION (required: 3 numbers of any type, not
/// bool; quantized ones come back dequantized, as Draco decodes them), NORMAL (3 numbers, made
/// unit length; a zero or non-finite one becomes +Z, as PLY's), COLOR (3 or 4 components of
/// uint8, as stored; uint16, /257; float, ·255; rounded and clamped as PLY's; alpha 255 when
/// there is none), TEX_COORD (2 numbers), and the faces as triangles. A normal, colour or texture
/// coordinate attribute of another shape or type is left out with a warning naming it. Points
/// that are not usable (NaN, infinite, beyond ±MaxCoordinate) are dropped with their triangles
/// and one warning, as PLY's are.
/// Fails, naming `name`, on a file that is empty, not Draco or whose header Draco cannot parse
/// ("not a Draco file: ..."), on one that declares more than the Max* above allow, on a bitstream
/// version libdraco 1.5.5 does not read, on data Draco cannot decode ("corrupt Draco data: " and
/// Draco's message), without a usable POSITION, or with no points. Nothing Draco does escapes:
/// its allocation failures and exceptions become failures too.
Result<MeshData> readDraco(std::span<const std::uint8_t> bytes, const std::string& name);
Result<MeshData> readDraco(const std::filesystem::path& path);

} // namespace tandem::io
