// What the host twins of the drawing passes (render::MeshPass, render::PointPass) share: keeping
// a pixel's least visibility key across threads, and the G-buffer's targets as host arrays that
// a resolve stores ResolvedPixels into and that are uploaded into the G-buffer after. Private to
// render/. The upload needs the GL context current (render thread).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/render/PointSplat.h"

namespace tandem::interop {
struct FrameTextures;
struct HostFrame;
} // namespace tandem::interop

namespace tandem::render::detail {

/// Lowers `slot` to `key` if it is smaller, whatever other threads do at the same time (the
/// host's atomicMin): the result does not depend on the order they run in.
inline void keepLeast(std::atomic<std::uint64_t>& slot, std::uint64_t key)
{
    std::uint64_t seen = slot.load(std::memory_order_relaxed);
    while (key < seen && !slot.compare_exchange_weak(seen, key, std::memory_order_relaxed)) {
    }
}

/// The G-buffer's colour (RGBA8 or RGBA16F bytes), normal (RGBA16F halves), linear depth and id
/// targets in host memory, a drawn region's worth, rows from the bottom.
struct HostTargets {
    std::vector<std::uint8_t> color;
    std::vector<float> depth;
    std::vector<std::uint16_t> normal;
    std::vector<std::uint32_t> id;

    void resize(std::size_t pixels, bool colorIsHalf)
    {
        color.resize(pixels * (colorIsHalf ? 8 : 4));
        depth.resize(pixels);
        normal.resize(pixels * 4);
        id.resize(pixels);
    }
    /// Stores `r` at `pixel` as the targets hold it (only the colour target's format).
    void store(std::size_t pixel, const ResolvedPixel& r, bool colorIsHalf)
    {
        if (colorIsHalf)
            std::memcpy(color.data() + pixel * 8, r.color16, 8);
        else
            std::memcpy(color.data() + pixel * 4, r.color8, 4);
        std::memcpy(normal.data() + pixel * 4, r.normal, 8);
        depth[pixel] = r.depth;
        id[pixel] = r.id;
    }
    /// Copies the four targets of `in` (a G-buffer read back, `pixels` of it) in.
    void assign(const interop::HostFrame& in, std::size_t pixels);
    /// Uploads the four into `targets`' textures (width × height from the bottom left), inside
    /// debug group `group`. Throws GlError.
    void upload(const interop::FrameTextures& targets, int width, int height,
                const char* group) const;
};

} // namespace tandem::render::detail
