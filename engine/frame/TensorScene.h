// A scene a program replaces every step from arrays it holds (tensors a training loop changes,
// shown by tandem.Viewer), already in the GPU layout: render::Vertex records, triangle indices
// and the provoking-vertex table. Arrays in CUDA memory are copied device to device into the
// scene's GL buffers through a handoff on the caller's stream (one map+unmap per update, after
// the work that wrote them), never through the host; host arrays are written through GL.
// Gaussians come as a splat region the splat pass reads where it is (setSplats()). The
// GpuScene keeps its capacity and is made again, larger, when an update needs more. Render
// thread, the GL context current.
#pragma once
#include <cstdint>
#include <memory>
#include <span>

#include "engine/cuda/Copy.h"
#include "engine/interop/Pass.h"
#include "engine/render/GpuScene.h"

namespace tandem::interop {
class Handoff;
}
namespace tandem::render {
class SplatPass;
}

namespace tandem::frame {

/// Gaussians given as an F32 splat region (render/SplatPacking.h:
/// splatRegion(count, shDegree, F32, SplatAlign)) in host memory or CUDA memory: tensors.
struct RegionSplats {
    const void* region = nullptr; ///< null: no Gaussians
    std::uint32_t count = 0;
    int shDegree = 0;
    bool onDevice = false;
};

/// Gives `scene` the Gaussians `splats` holds, drawn by `pass` (the frame's splat pass): a host
/// region is unpacked into the scene's Gaussians before it returns; a device region is read in
/// place by the pass's CUDA path on the frame's stream once `stream` (the caller's, a
/// cudaStream_t) has passed this point (`ready` recorded there), and later work on `stream`
/// waits until the pass's last frame is done with the region it read before (so the caller may
/// free or reuse that one). Throws Error for a device region when the pass does not run on
/// CUDA, CudaError on CUDA failures.
void attachSplats(render::GpuScene& scene, const RegionSplats& splats, render::SplatPass& pass,
                  void* stream, cuda::StreamEvent& ready);

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

    /// Gives the scene set() made `splats`, drawn by `pass` (the frame's splat pass), as
    /// attachSplats() says; the region must stay unchanged until the next update.
    void setSplats(const RegionSplats& splats, render::SplatPass& pass, void* stream);

    /// The scene to draw (null before the first update).
    const render::GpuScene* scene() const { return m_scene.get(); }
    /// Map+unmap round trips made by device updates.
    std::uint64_t handoffs() const { return m_handoffs; }

private:
    std::unique_ptr<render::GpuScene> m_scene;
    std::unique_ptr<interop::Handoff> m_handoff;
    interop::Uses m_uses;
    std::uint64_t m_handoffs = 0;
    cuda::StreamEvent m_splatsReady; ///< the caller's stream reached a device region's update
};

} // namespace tandem::frame
