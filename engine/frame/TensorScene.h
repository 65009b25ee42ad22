// A scene a program replaces every step from arrays it holds (tensors a training loop changes,
// shown by tandem.Viewer), already in the GPU layout: render::Vertex records, triangle indices
// and the provoking-vertex table. Arrays in CUDA memory are copied device to device into the
// scene's GL buffers through a handoff on the caller's stream (one map+unmap per update, after
// the work that wrote them), never through the host; host arrays are written through GL. The
// GpuScene keeps its capacity and is made again, larger, when an update needs more. Render
// thread, the GL context current.
#pragma once
#include <cstdint>
#include <memory>
#include <span>

#include "engine/interop/Pass.h"
#include "engine/render/GpuScene.h"

namespace tandem::interop {
class Handoff;
}

namespace tandem::frame {

class TensorScene {
public:
    /// Where the arrays of one update are.
    struct Arrays {
        const void* vertices = nullptr;                    ///< render::Vertex × counts.vertices
        const std::uint32_t* indices = nullptr;            ///< counts.indices
        const std::uint32_t* provokingOffsets = nullptr;   ///< counts.provokingOffsets
        const std::uint32_t* provokingTriangles = nullptr; ///< counts.provokingTriangles
        bool onDevice = false;                             ///< CUDA memory (else host memory)
    };

    TensorScene();
    ~TensorScene();
    TensorScene(const TensorScene&) = delete;
    TensorScene& operator=(const TensorScene&) = delete;

    /// Replaces the contents: `objects` (host records, render::GpuObject), `counts` (the arrays'
    /// lengths; not compact), `bounds`, and `arrays`. Device arrays are copied on `stream` (a
    /// cudaStream_t as given; null is the legacy default stream) and must stay unchanged until
    /// that stream has passed this point; it does not block. Host arrays are written before it
    /// returns. Throws Error when it does not fit in GPU memory, CudaError on CUDA failures.
    void set(std::span<const render::GpuObject> objects, const render::SceneCounts& counts,
             const io::Bounds& bounds, const Arrays& arrays, void* stream);

    /// The scene to draw (null before the first update).
    const render::GpuScene* scene() const { return m_scene.get(); }
    /// Map+unmap round trips made by device updates.
    std::uint64_t handoffs() const { return m_handoffs; }

private:
    std::unique_ptr<render::GpuScene> m_scene;
    std::unique_ptr<interop::Handoff> m_handoff;
    interop::Uses m_uses;
    std::uint64_t m_handoffs = 0;
};

} // namespace tandem::frame
