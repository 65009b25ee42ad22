// The host backend: runs a prepared chain's pixel functions on CPU threads over a G-buffer read
// back through a pixel-pack buffer (interop::HostTransfer), then uploads the result into the
// output texture. Used without CUDA or a GPU, or with --backend host. Render thread.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/core/ThreadPool.h"
#include "engine/interop/FrameTextures.h"
#include "engine/interop/HostTransfer.h"
#include "engine/interop/Pass.h"
#include "engine/postfx/PixelStages.h"
#include "engine/postfx/Prepared.h"

namespace tandem::postfx {

class HostBackend {
public:
    /// `threads` 0: one per hardware thread.
    explicit HostBackend(unsigned threads = 0);

    /// Reads the G-buffer region of `textures`, runs `chain`, writes the output texture. Blocks
    /// on the GPU (the read-back, counted as a stall) and on the CPU work. `hooks` hear about
    /// each stage (host stages: a null stream).
    void run(const PreparedChain& chain, const interop::FrameTextures& textures,
             interop::PassHooks* hooks = nullptr);

    /// Runs `chain` on a G-buffer already in host memory and returns RGBA8 (sRGB-encoded
    /// colour, or a debug view's data as it is), rows bottom to top. No GL.
    const std::vector<std::uint8_t>& process(const PreparedChain& chain,
                                             const interop::HostFrame& input,
                                             interop::PassHooks* hooks = nullptr);

private:
    ThreadPool m_pool;
    interop::HostTransfer m_transfer;
    std::vector<Rgba> m_buffers[3];
    std::vector<std::uint8_t> m_output;
};

} // namespace tandem::postfx
