// The CUDA backend: runs a prepared chain's pixel functions as kernels on the frame's stream,
// on the G-buffer mapped by the frame's handoff (read through surfaces), writing the output
// texture through a surface. It maps nothing itself: it declares what it reads and writes, and
// the frame maps everything in one call. No CUDA types here; CudaBackend.cu holds the kernels.
// Render thread, CUDA builds only.
#pragma once

#include <memory>

#include "engine/interop/FrameTextures.h"
#include "engine/interop/Pass.h"
#include "engine/postfx/Prepared.h"

namespace tandem::postfx {

class CudaBackend {
public:
    /// The declared G-buffer targets and output.
    struct Refs {
        interop::ImageRef color, depth, normal, id, output;
    };

    CudaBackend();
    ~CudaBackend();
    CudaBackend(const CudaBackend&) = delete;
    CudaBackend& operator=(const CudaBackend&) = delete;

    /// Declares the G-buffer targets as read and the output as fully written.
    static Refs declare(interop::Uses& uses, const interop::FrameTextures& textures);

    /// Enqueues `chain` on view.stream(): one kernel per stage pass (blur: both fused), then the
    /// encode into the output. Does not block. Throws CudaError on a failed launch.
    void run(const PreparedChain& chain, const interop::FrameTextures& textures, const Refs& refs,
             const interop::MappedView& view, interop::PassHooks* hooks);

private:
    struct State;
    std::unique_ptr<State> m_state;
};

} // namespace tandem::postfx
