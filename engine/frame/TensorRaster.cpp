#include "engine/frame/TensorRaster.h"

#include <optional>

#include "engine/core/Stall.h"
#include "engine/cuda/Copy.h"
#include "engine/frame/detail/CallFrame.h"
#include "engine/gl/Debug.h"
#include "engine/interop/Handoff.h"
#include "engine/profile/Profiler.h"

namespace tandem::frame {

TensorRaster::TensorRaster(render::TriangleIds ids) : m_raster(ids) {}

TensorRaster::~TensorRaster()
{
    unmap();
}

void TensorRaster::rasterizeHost(const float* positions, const std::uint32_t* triangles,
                                 float* output, const render::ClipRasterShape& shape)
{
    detail::CallFrame call(m_profiler, "tandem.rasterize");
    unmap();
    m_raster.reserve(shape);
    call.gl("raster.upload", [&] {
        if (shape.positionBytes() > 0)
            m_raster.positions().write(0, positions, shape.positionBytes());
        if (shape.triangleBytes() > 0)
            m_raster.triangles().write(0, triangles, shape.triangleBytes());
    });
    call.gl("raster", [&] { m_raster.draw(shape); });
    gl::DebugGroup group("raster.readback");
    recordStall(StallCause::Readback); // the caller asked for host memory
    glGetNamedBufferSubData(m_raster.output().id(), 0, static_cast<GLsizeiptr>(shape.outputBytes()),
                            output);
}

const interop::MappedView& TensorRaster::map(void* stream)
{
    if (!m_handoff)
        m_handoff = std::make_unique<interop::Handoff>();
    m_uses.clear();
    // The inputs are overwritten whole; the output is only read.
    m_positions =
        m_uses.buffer(m_raster.positions(), m_raster.registrations(), interop::Intent::Write);
    m_triangles =
        m_uses.buffer(m_raster.triangles(), m_raster.registrations(), interop::Intent::Write);
    m_output = m_uses.buffer(m_raster.output(), m_raster.registrations(), interop::Intent::Read);
    m_view = &m_handoff->map(m_uses, stream);
    ++m_handoffs;
    return *m_view;
}

void TensorRaster::rasterizeCuda(const float* positions, const std::uint32_t* triangles,
                                 float* output, const render::ClipRasterShape& shape, void* stream)
{
    detail::CallFrame call(m_profiler, "tandem.rasterize");
    const bool fits = m_raster.positions().size() >= shape.positionBytes() &&
                      m_raster.triangles().size() >= shape.triangleBytes() &&
                      m_raster.output().size() >= shape.outputBytes();
    if (!fits || !m_view) {
        // Growing reallocates (and unregisters) buffers: only while GL owns them.
        if (m_view)
            m_handoff->unmap(stream);
        m_view = nullptr;
        m_raster.reserve(shape);
        map(stream);
    } else {
        // Targets of another size are GL's alone; the mapped buffers keep their size.
        m_raster.reserve(shape);
    }
    // Inside the mapping the previous call left open.
    cuda::copyAsync(m_view->pointer(m_positions), positions, shape.positionBytes(), stream);
    cuda::copyAsync(m_view->pointer(m_triangles), triangles, shape.triangleBytes(), stream);
    m_handoff->unmap(stream);
    m_view = nullptr;
    call.gl("raster", [&] { m_raster.draw(shape); });
    if (m_profiler)
        m_profiler->beginHandoff();
    map(stream);
    if (m_profiler) {
        m_profiler->anchorHandoff(stream);
        {
            profile::CudaScope scope(*m_profiler, "raster.copy-out", stream);
            cuda::copyAsync(output, m_view->pointer(m_output), shape.outputBytes(), stream);
        }
        m_profiler->endHandoff();
    } else {
        cuda::copyAsync(output, m_view->pointer(m_output), shape.outputBytes(), stream);
    }
    // Stays mapped: the next call copies its inputs in this window.
}

void TensorRaster::rasterizeInCuda(const float* positions, const std::uint32_t* triangles,
                                   float* output, const render::ClipRasterShape& shape,
                                   void* stream)
{
    detail::CallFrame call(m_profiler, "tandem.rasterize");
    if (!m_kernels)
        m_kernels = std::make_unique<render::TriangleRaster>();
    std::optional<profile::CudaScope> scope;
    if (m_profiler)
        scope.emplace(*m_profiler, "raster.cuda", stream);
    m_kernels->rasterize(positions, triangles, output, shape, stream);
}

void TensorRaster::unmap() noexcept
{
    if (m_handoff && m_view)
        m_handoff->unmap();
    m_view = nullptr;
}

} // namespace tandem::frame
