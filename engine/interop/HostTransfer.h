// The host fallback's side of the handoff: reads the G-buffer region into host memory through
// pixel-pack buffers and uploads the processed result into the output texture. GL only (no
// CUDA), render thread.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/gl/Buffer.h"
#include "engine/interop/FrameTextures.h"

namespace tandem::interop {

/// Host pointers to a read-back G-buffer region, rows bottom to top, tightly packed. Valid until
/// the next download() or release().
struct HostFrame {
    const void* color = nullptr; ///< RGBA8 bytes, or RGBA16F halves (colorIsHalf)
    bool colorIsHalf = false;
    const float* depth = nullptr;          ///< R32F
    const std::uint16_t* normal = nullptr; ///< RGBA16F halves
    const std::uint32_t* id = nullptr;     ///< R32UI
    int width = 0;
    int height = 0;
};

class HostTransfer {
public:
    HostTransfer() = default;

    /// Reads the region of every input texture into one pixel-pack buffer and maps it. Blocks
    /// until the GPU has drawn the G-buffer (the map waits): a stall by design of this path.
    HostFrame download(const FrameTextures& textures);
    /// Unmaps what download() mapped.
    void release();
    /// Uploads `rgba8` (width×height, rows bottom to top) into the output texture's region.
    void upload(const FrameTextures& textures, const std::uint8_t* rgba8);

private:
    gl::Buffer m_pack{gl::NoCreate};
    bool m_mapped = false;
};

} // namespace tandem::interop
