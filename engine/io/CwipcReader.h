// Reads CWIPC point-cloud dumps (.cwipcdump, cwi-dis/cwipc's cwipc_util): a 32-byte
// little-endian header, "cpcd", version 0x20210208, a timestamp, the cell size, an unused word
// and the byte count of the points, then 16-byte points (float x, y, z, uchar r, g, b, tile).
// Malformed input gives a Failure naming the file and the problem. Any thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "engine/core/Result.h"
#include "engine/io/MeshData.h"

namespace tandem::io {

/// The header's version this reader takes (the only one cwipc has written).
inline constexpr std::uint32_t CwipcDumpVersion = 0x20210208u;

/// Whether `bytes` start as a CWIPC dump ("cpcd").
bool isCwipcDump(std::span<const std::uint8_t> bytes);

/// Reads a CWIPC dump: positions and colours (the tile byte is not kept). Points that are not
/// usable (NaN, infinite, beyond ±MaxCoordinate) are dropped with one warning, as PLY's are.
/// Fails on a wrong magic or version, or a byte count that does not match the file (cut short,
/// longer, or not whole points).
Result<MeshData> readCwipcDump(std::span<const std::uint8_t> bytes, const std::string& name);
Result<MeshData> readCwipcDump(const std::filesystem::path& path);

} // namespace tandem::io
