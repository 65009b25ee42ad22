// The frame of one rasterize call on arrays (tandem.rasterize in the Python package): the inputs
// copied into render::ClipRaster's buffers, its draws, the output copied out. Host arrays go
// through GL uploads and a read-back (which blocks). CUDA arrays go through the handoff on the
// caller's stream, which stays mapped between calls: a call copies its inputs in while the
// previous call's mapping is still open, unmaps, draws, maps and copies the output out, so it
// costs one round trip (~325 µs of GPU time on an H200) and one device-to-device copy per
// array. Render thread, the GL context current.
#pragma once
#include "engine/interop/Pass.h"
#include "engine/render/ClipRaster.h"
#include "engine/render/TriangleRaster.h"
#include <cstdint>
#include <memory>

namespace tandem::interop {
class Handoff;
}
namespace tandem::profile {
class Profiler;
}

namespace tandem::frame {

class TensorRaster {
public:
    /// Compiles the raster programs. Throws GlError on shader errors.
    explicit TensorRaster(render::TriangleIds ids = render::TriangleIds::PrimitiveId);
    /// Unmaps if mapped.
    ~TensorRaster();
    TensorRaster(const TensorRaster&) = delete;
    TensorRaster& operator=(const TensorRaster&) = delete;

    /// Host memory: `positions` [B, V, 4] floats, `triangles` [T, 3] uint32, `output` [B, H, W,
    /// 4] floats (render::ClipRaster's layouts). Blocks until the output is written (a read-back,
    /// counted as a stall).
    void rasterizeHost(const float* positions, const std::uint32_t* triangles, float* output,
                       const render::ClipRasterShape& shape);

    /// CUDA device memory of the context's device, the same layouts, every copy and the GL work
    /// ordered on `stream` (a cudaStream_t as given: null is the legacy default stream, which
    /// is what PyTorch's default stream is) by the handoff: nothing blocks, nothing synchronizes
    /// the device. Expects a CUDA build with working GL-CUDA interop, and indices below the
    /// vertex count (the indexed draw does not check them). Throws CudaError.
    void rasterizeCuda(const float* positions, const std::uint32_t* triangles, float* output,
                       const render::ClipRasterShape& shape, void* stream);

    /// The same on CUDA device memory, drawn by CUDA kernels (render::TriangleRaster) rather than
    /// GL: no handoff, no GL work, only kernels on `stream`. Indices past the vertex count draw
    /// nothing. Throws CudaError (and Error in a build without CUDA).
    void rasterizeInCuda(const float* positions, const std::uint32_t* triangles, float* output,
                         const render::ClipRasterShape& shape, void* stream);

    /// Ends a mapping kept open after a CUDA call (on the stream it was mapped on), so GL may
    /// use the buffers. Never throws.
    void unmap() noexcept;

    /// Times each call as one profiler frame (null: none): a CPU span "tandem.rasterize", the GL
    /// draws ("raster", per item "raster.visibility" and "raster.resolve" debug groups), the
    /// handoff and the output copy ("raster.copy-out" on the caller's stream); or the CUDA
    /// rasterizer's kernels ("raster.cuda" on the caller's stream). It must outlive
    /// its use or be replaced first.
    void setProfiler(profile::Profiler* profiler) { m_profiler = profiler; }

    /// Map+unmap round trips so far: one per CUDA call, plus one when its shape grows.
    std::uint64_t handoffs() const { return m_handoffs; }
    render::ClipRaster& raster() { return m_raster; }

private:
    const interop::MappedView& map(void* stream);

    render::ClipRaster m_raster;
    std::unique_ptr<render::TriangleRaster> m_kernels; ///< made on first use
    std::unique_ptr<interop::Handoff> m_handoff;
    interop::Uses m_uses;
    interop::BufferRef m_positions;
    interop::BufferRef m_triangles;
    interop::BufferRef m_output;
    const interop::MappedView* m_view = nullptr;
    profile::Profiler* m_profiler = nullptr;
    std::uint64_t m_handoffs = 0;
};

} // namespace tandem::frame
