// Frames a frame::OutputRing hands on, kept for a test to compare: their indices and pixels (rows
// top first, as SceneRenderer::readPresented(); YCbCr planes as they are), each slot released
// once copied.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/frame/OutputRing.h"

namespace tandem::test {

struct RingFrames {
    std::vector<std::uint64_t> indices;
    std::vector<std::vector<std::uint8_t>> pixels;
};

/// A sink for `ring` that appends each frame to `out`.
inline frame::OutputRing::Sink collectInto(RingFrames& out, frame::OutputRing& ring)
{
    return [&out, &ring](const frame::ReadyFrame& ready) {
        out.indices.push_back(ready.index);
        if (ready.format == frame::PixelFormat::Yuv420) { // planes: rows top first already
            out.pixels.emplace_back(ready.pixels, ready.pixels + ready.bytes());
            ring.release(ready.slot);
            return;
        }
        std::vector<std::uint8_t> rows(ready.rowBytes() * static_cast<std::size_t>(ready.height));
        for (int y = 0; y < ready.height; ++y)
            std::memcpy(
                rows.data() + static_cast<std::size_t>(ready.height - 1 - y) * ready.rowBytes(),
                ready.pixels + static_cast<std::size_t>(y) * ready.rowBytes(), ready.rowBytes());
        out.pixels.push_back(std::move(rows));
        ring.release(ready.slot);
    };
}

/// Bytes that differ between two images (every byte of the longer past the shorter's end).
inline std::size_t differingBytes(const std::vector<std::uint8_t>& a,
                                  const std::vector<std::uint8_t>& b)
{
    std::size_t n =
        a.size() != b.size() ? std::max(a.size(), b.size()) - std::min(a.size(), b.size()) : 0;
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
        n += a[i] != b[i];
    return n;
}

} // namespace tandem::test
