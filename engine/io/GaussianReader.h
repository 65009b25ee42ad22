// Reads 3D Gaussian splat scenes: the 3DGS PLY as training writes it, the 32-byte .splat,
// PlayCanvas's compressed PLY and Niantic's SPZ.
// Malformed input gives a Failure naming the file and the problem, never a crash or a huge
// allocation. Any thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "engine/core/Result.h"
#include "engine/io/GaussianData.h"

namespace tandem::io {

/// Whether `bytes` begin a PLY whose `vertex` element has a 3DGS Gaussian's properties
/// (f_dc_0..2, opacity, scale_0..2, rot_0..3): a splat file is known by what it holds, not its
/// extension. Reads the header only.
bool isGaussianPly(std::span<const std::uint8_t> bytes);

/// Reads a 3DGS PLY (ascii or binary of either byte order; properties in any order and of any
/// scalar type; normals and other scalar properties ignored, a list refused): x y z; f_dc_0..2
/// and f_rest_0..N (each once), where
/// N + 1 = 3 × (shCoefficients(d) − 1) for SH degree d from 0 to 3, channel by channel (red's
/// first); opacity as a logit (sigmoid applied); scale_0..2 as logs (exp applied); rot_0..3 as
/// a quaternion (w, x, y, z), normalized. A Gaussian with a value that is not finite (as a
/// float), a position beyond ±MaxCoordinate, a scale that overflows or underflows to 0 or a
/// rotation of length 0 (or beyond a double) is dropped, with one warning
/// that counts them. Header comments that place points in the world (readPly's) place the
/// Gaussians: world = s · position + t, scales × s.
Result<GaussianData> readGaussianPly(std::span<const std::uint8_t> bytes, const std::string& name);

/// Reads a .splat (antimatter15/splat: no header, 32 bytes a splat, little endian: float32
/// position[3], float32 scale[3] (linear), uint8 RGBA (A the opacity), uint8 rotation[4] as
/// q × 128 + 128, w first). Its colour becomes a degree-0 SH coefficient ((rgb/255 − 0.5) / ShC0,
/// so the reference's colour rule gives the stored colour back). Dropped as for the PLY.
Result<GaussianData> readSplat(std::span<const std::uint8_t> bytes, const std::string& name);

/// Whether `bytes` begin a PlayCanvas compressed PLY (a `chunk` element and a `vertex` element of
/// packed_position, packed_rotation...). Reads the header only.
bool isCompressedPly(std::span<const std::uint8_t> bytes);

/// Reads a PlayCanvas/SuperSplat compressed PLY (binary little endian; 256-splat chunks of
/// position and log-scale bounds, and colour bounds in newer files; per splat four packed
/// uint32; optional uchar SH of degree 1 to 3). Its quantization is kept: positions to 1/2047
/// of a chunk's extent (1/1023 in y), rotations to 10 bits a component, SH to 1/32. Dropped as
/// for the PLY.
Result<GaussianData> readCompressedPly(std::span<const std::uint8_t> bytes,
                                       const std::string& name);

/// Whether `bytes` begin a gzip stream (as SPZ files of versions 2 and 3 do).
bool isSpz(std::span<const std::uint8_t> bytes);

/// Reads Niantic's SPZ, versions 2 and 3 (a gzip stream; see SpzReader.cpp for the layout), SH
/// degree 0 to 3, into the 3DGS PLY's axes (the file's RUB turned to RDF: y and z negated, with
/// the rotations and SH to match). Version 4 (zstd streams) and a corrupt or truncated stream
/// fail with the reason. Dropped as for the PLY.
Result<GaussianData> readSpz(std::span<const std::uint8_t> bytes, const std::string& name);

/// Whether the file at `path` holds Gaussian splats (its first 64 KiB: a 3DGS or compressed PLY
/// header, a gzip stream), or is named .splat or .spz; false when it cannot be read (reading it
/// says why).
bool isSplatFile(const std::filesystem::path& path);

/// The bytes of a file isSplatFile() looks at.
constexpr std::size_t SplatSniffBytes = 64 * 1024;

/// Same, from what isSplatFile() reads of a file (its first SplatSniffBytes, or all of it), for a
/// caller that read them already; the extension is the caller's to check.
bool isSplatStart(std::span<const std::uint8_t> start);

/// Reads a splat file, known by what it holds: a 3DGS PLY, a compressed PLY, an SPZ (a gzip
/// stream), else a .splat by its extension. Fails naming the file when it is none of them (a
/// PLY of points or a mesh says so).
Result<GaussianData> readGaussians(const std::filesystem::path& path);

} // namespace tandem::io
