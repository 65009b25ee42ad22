// How a pack frame's bytes are compressed: LZ4 (block format) and zstd, with per-thread
// compression contexts (loader and encoder threads live long). Private to stream/'s pack.
// Any thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/core/Result.h"
#include "engine/stream/PackFormat.h"

namespace tandem::stream::detail {

/// `in` compressed with `codec` (Lz4 or Zstd; zstd at `zstdLevel`). Fails naming `name` when
/// the codec cannot (LZ4 takes at most LZ4_MAX_INPUT_SIZE bytes).
Result<std::vector<std::uint8_t>> compress(std::span<const std::uint8_t> in, Codec codec,
                                           int zstdLevel, const std::string& name);

/// Decompresses `in` (Lz4 or Zstd) into exactly `out.size()` bytes; fails (damaged), naming
/// `name`, when the data does not decompress to that many.
Result<bool> decompress(std::span<const std::uint8_t> in, Codec codec, std::span<std::uint8_t> out,
                        const std::string& name);

} // namespace tandem::stream::detail
