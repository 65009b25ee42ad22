#include "engine/frame/TensorScene.h"

#include "engine/core/Error.h"
#include "engine/cuda/Copy.h"
#include "engine/gl/Debug.h"
#include "engine/interop/Handoff.h"
#include "engine/render/SplatPass.h"

namespace tandem::frame {

TensorScene::TensorScene() = default;

TensorScene::~TensorScene()
{
    // The handoff's stream and registrations go before the scene's buffers.
    m_handoff.reset();
    m_scene.reset();
}

void TensorScene::set(std::span<const render::GpuObject> objects, const render::SceneCounts& counts,
                      const io::Bounds& bounds, const Arrays& arrays, void* stream)
{
    gl::DebugGroup group("tensor.upload");
    if (!m_scene || !counts.fitsIn(m_scene->capacity())) {
        // Room for some growth: a loop adding points should not reallocate every step.
        render::SceneCounts capacity = counts;
        capacity.objects = std::max<std::uint32_t>(counts.objects, 8);
        capacity.vertices += counts.vertices / 4;
        capacity.indices += counts.indices / 4;
        capacity.provokingOffsets += counts.provokingOffsets / 4;
        capacity.provokingTriangles += counts.provokingTriangles / 4;
        m_scene.reset(); // its registrations and buffers first
        m_scene = std::make_unique<render::GpuScene>(capacity, "tensor scene");
    }
    // The view's spans carry the counts; their data is read only for host arrays.
    const auto* vertices = static_cast<const render::Vertex*>(arrays.vertices);
    render::SceneView view;
    view.objects = objects;
    view.vertices = {vertices, counts.vertices};
    view.indices = {arrays.indices, counts.indices};
    view.provokingOffsets = {arrays.provokingOffsets, counts.provokingOffsets};
    view.provokingTriangles = {arrays.provokingTriangles, counts.provokingTriangles};
    view.bounds = bounds;
    m_scene->setContents(view, !arrays.onDevice);
    if (!arrays.onDevice)
        return;
    if (!m_handoff)
        m_handoff = std::make_unique<interop::Handoff>();
    m_uses.clear();
    interop::Registrations& owner = m_scene->registrations();
    // A buffer declared ReadWrite registers without a hint, so the CUDA passes that read the
    // scene (the point pass) share the registration.
    const auto use = [&](const gl::Buffer& buffer) {
        return m_uses.buffer(buffer, owner, interop::Intent::ReadWrite);
    };
    const interop::BufferRef refs[] = {use(m_scene->vertexBuffer()), use(m_scene->indexBuffer()),
                                       use(m_scene->provokingOffsets()),
                                       use(m_scene->provokingTriangles())};
    const void* sources[] = {arrays.vertices, arrays.indices, arrays.provokingOffsets,
                             arrays.provokingTriangles};
    const std::size_t bytes[] = {counts.vertices * sizeof(render::Vertex),
                                 counts.indices * sizeof(std::uint32_t),
                                 counts.provokingOffsets * sizeof(std::uint32_t),
                                 counts.provokingTriangles * sizeof(std::uint32_t)};
    const interop::MappedView& mapped = m_handoff->map(m_uses, stream);
    try {
        for (int i = 0; i < 4; ++i)
            if (bytes[i] > 0)
                cuda::copyAsync(mapped.pointer(refs[i]), sources[i], bytes[i], stream);
    } catch (...) {
        m_handoff->unmap(stream);
        throw;
    }
    m_handoff->unmap(stream);
    ++m_handoffs;
}

void attachSplats(render::GpuScene& scene, const RegionSplats& splats, render::SplatPass& pass,
                  void* stream, cuda::StreamEvent& ready)
{
    if (!splats.region || splats.count == 0) {
        scene.setSplats({});
        pass.setDeviceSplats({});
        return;
    }
    if (!splats.onDevice) {
        const render::SplatRegion layout = render::splatRegion(
            splats.count, splats.shDegree, render::SplatEncoding::F32, render::SplatAlign);
        const render::SplatView view{
            {static_cast<const std::uint8_t*>(splats.region), layout.bytes},
            splats.count,
            splats.shDegree,
            render::SplatEncoding::F32};
        scene.setSplats(render::GpuSplats(view));
        pass.setDeviceSplats({});
        return;
    }
    if (pass.splatPath() != render::SplatPath::Cuda)
        throw Error("Gaussians in CUDA memory need the splat pass on CUDA (GL-CUDA interop), "
                    "which this frame does not have");
    // The region the pass read last becomes the caller's to reuse once its stream passes here.
    cuda::streamWait(stream, pass.lastFrameDone());
    ready.record(stream);
    scene.setSplats(render::GpuSplats::elsewhere(splats.count, splats.shDegree));
    pass.setDeviceSplats(
        {splats.region, splats.count, splats.shDegree, render::SplatEncoding::F32, ready.handle()});
}

void TensorScene::setSplats(const RegionSplats& splats, render::SplatPass& pass, void* stream)
{
    TANDEM_ASSERT(m_scene, "frame::TensorScene::setSplats(): set() a scene first");
    attachSplats(*m_scene, splats, pass, stream, m_splatsReady);
}

} // namespace tandem::frame
