// The host backend: runs the chain's per-pixel functions on CPU threads over a G-buffer read
// back through pixel-pack buffers (interop::HostTransfer), then uploads the result into the
// output texture. Used without CUDA or a GPU, or with --backend host. Render thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/ThreadPool.h"
#include "engine/interop/HostTransfer.h"
#include "engine/postfx/Chain.h"
#include "engine/postfx/PixelStages.h"
#include "engine/postfx/Prepare.h"
#include "engine/postfx/StageHooks.h"

namespace tandem::postfx {

/// Time one stage took on the last run.
struct StageTime {
    std::string name;
    double milliseconds = 0;
};

class HostBackend {
public:
    /// `threads` 0: one per hardware thread.
    explicit HostBackend(unsigned threads = 0);

    /// Reads the G-buffer region of `textures`, runs `chain`, writes the output texture. Blocks
    /// on the GPU (the read-back) and on the CPU work.
    void run(const Chain& chain, const FrameInfo& frame, const interop::FrameTextures& textures,
             StageHooks* hooks = nullptr);

    /// Runs `chain` on a G-buffer already in host memory and returns RGBA8 (rows bottom to top).
    /// No GL: tests and the CUDA comparison use this directly.
    std::vector<std::uint8_t> process(const Chain& chain, const FrameInfo& frame,
                                      const interop::HostFrame& input);

    /// Per-stage CPU times of the last run, in chain order.
    const std::vector<StageTime>& stageTimes() const { return m_times; }

private:
    ThreadPool m_pool;
    interop::HostTransfer m_transfer;
    std::vector<Rgba> m_buffers[3];
    std::vector<std::uint8_t> m_output;
    std::vector<StageTime> m_times;
    TonemapCache m_tonemaps;
};

} // namespace tandem::postfx
