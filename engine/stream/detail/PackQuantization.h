// A pack frame's u16 positions: a mesh block's vertex records become the box of its positions,
// 16-bit unsigned normalized positions in that box (padded to 4 bytes) and the other vertex
// attributes as arrays (normals, colours, texture coordinates); the rest of the block stays as
// it is. Decoded back into a normal block. Private to stream/'s pack. Any thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/core/Result.h"
#include "engine/stream/Block.h"
#include "engine/stream/PackFormat.h"

namespace tandem::stream::detail {

/// The bytes of a u16 frame before compression, for a block of `blockBytes` with `vertices`
/// vertices.
std::uint64_t quantizedBytes(std::uint64_t blockBytes, std::uint64_t vertices);

/// `block`'s u16 form (`h` its header: a block of render::Vertex records). Fails naming `name`
/// when a position is not finite.
Result<std::vector<std::uint8_t>> quantize(std::span<const std::uint8_t> block,
                                           const BlockHeader& h, const std::string& name);

/// Decodes a u16 frame's bytes into the block `out` (entry.blockBytes long). Fails (damaged),
/// naming `name`, when the sizes or the block header do not match the entry.
Result<bool> dequantize(std::span<const std::uint8_t> in, std::span<std::uint8_t> out,
                        const PackFrame& entry, const std::string& name);

} // namespace tandem::stream::detail
