// The CUDA backend: runs the chain's per-pixel functions as kernels on the G-buffer mapped
// through one interop handoff per frame, writing the output texture through a surface. No CUDA
// types in this header; CudaBackend.cu holds the kernels. Render thread, CUDA builds only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/interop/FrameTextures.h"
#include "engine/postfx/Chain.h"
#include "engine/postfx/HostBackend.h"
#include "engine/postfx/PixelStages.h"
#include "engine/postfx/StageHooks.h"

namespace tandem::interop {
class Handoff;
}

namespace tandem::postfx {

class CudaBackend {
public:
    /// Creates the post-process stream and events on the current CUDA device. Throws CudaError.
    CudaBackend();
    ~CudaBackend();
    CudaBackend(const CudaBackend&) = delete;
    CudaBackend& operator=(const CudaBackend&) = delete;

    /// Registers `textures` if needed (again only after reallocation), maps them in one call,
    /// runs `chain` and unmaps in one call, all on the post-process stream. Does not block.
    /// With `outputCopy`, also copies the output (RGBA8, rows bottom to top) to host memory
    /// before the unmap, waiting for it (a counted stall): for capture-faithful frames.
    void run(const Chain& chain, const FrameInfo& frame, const interop::FrameTextures& textures,
             StageHooks* hooks = nullptr, std::vector<std::uint8_t>* outputCopy = nullptr);

    /// Runs `chain` on a G-buffer in host memory (uploaded to device buffers, no GL), returning
    /// RGBA8 rows bottom to top. Blocks. For the CUDA-vs-host comparison.
    std::vector<std::uint8_t> process(const Chain& chain, const FrameInfo& frame,
                                      const interop::HostFrame& input);

    /// Records a pair of CUDA events around each stage of the following runs.
    void setStageTiming(bool enabled);
    /// Per-stage GPU times of the last run. Blocks until that run finished.
    std::vector<StageTime> stageTimes();
    /// Waits for the post-process stream. Blocks.
    void synchronize();
    /// Drops the texture registrations; call before the registered textures are destroyed.
    void releaseRegistrations();
    /// How many times textures were (re-)registered.
    std::uint64_t registrations() const;
    /// The post-process stream (a cudaStream_t), for callers that order work after it.
    void* stream() const;

private:
    void runMapped(const Chain& chain, const FrameInfo& frame, const interop::FrameTextures& t,
                   const interop::Handoff& handoff, StageHooks* hooks);

    struct State;
    std::unique_ptr<State> m_state;
};

} // namespace tandem::postfx
