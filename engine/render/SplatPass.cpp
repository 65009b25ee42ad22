#include "engine/render/SplatPass.h"

#include "engine/interop/HostTransfer.h"
#include "engine/render/GBuffer.h"
#include "engine/render/GpuScene.h"
#include "engine/render/detail/HostTargets.h"

namespace tandem::render {

struct SplatPass::Host {
    interop::HostTransfer transfer;
    detail::HostTargets targets;
};

SplatPass::SplatPass(SplatPath path) : m_path(path)
{
    if (path == SplatPath::Cuda)
        m_raster = std::make_unique<SplatRaster>();
    else
        m_host = std::make_unique<Host>();
}

SplatPass::~SplatPass() = default;

void SplatPass::setFrame(const GpuScene& scene, GBuffer& gbuffer, const Camera& camera,
                         const GeometryOptions& options, bool targetsDrawn)
{
    m_scene = &scene;
    m_gbuffer = &gbuffer;
    SplatLook look;
    look.scaleModifier = options.splatScale;
    look.shDegree = options.splatShDegree;
    look.debug = options.splatDebug;
    look.storedDegree = scene.splats().shDegree();
    for (int c = 0; c < 3; ++c)
        look.background[c] = options.background[c];
    m_frame = makeSplatFrame(camera, gbuffer.width(), gbuffer.height(),
                             gbuffer.colorFormat() == ColorFormat::Rgba16F, look, targetsDrawn);
}

bool SplatPass::isEnabled() const
{
    return m_scene && m_scene->hasSplats();
}

interop::Path SplatPass::path() const
{
    return m_path == SplatPath::Cuda ? interop::Path::Cuda : interop::Path::Host;
}

void SplatPass::declare(interop::Uses& uses)
{
    using interop::Intent;
    const interop::FrameTextures t = m_gbuffer->frameTextures();
    // Read where meshes or points drew (the surface), written where Gaussians reach; all of
    // them written when nothing drew first.
    const Intent intent = m_frame.targetsDrawn ? Intent::ReadWrite : Intent::Write;
    m_colorRef = uses.image(*t.color, *t.registrations, intent);
    m_depthRef = uses.image(*t.depth, *t.registrations, intent);
    m_normalRef = uses.image(*t.normal, *t.registrations, intent);
    m_idRef = uses.image(*t.id, *t.registrations, intent);
}

void SplatPass::run(const interop::MappedView* view, interop::PassHooks& hooks)
{
    if (m_path == SplatPath::Host) {
        runHost(hooks);
        return;
    }
    const SplatTargets targets{view->surface(m_colorRef),
                               view->surface(m_depthRef),
                               view->surface(m_normalRef),
                               view->surface(m_idRef),
                               nullptr,
                               0};
    const SplatScene scene = m_device.region ? m_raster->sceneOf(m_device, view->stream(), hooks)
                                             : m_scene->splats().device();
    m_raster->render(scene, m_frame, targets, view->stream(), hooks);
}

void SplatPass::runHost(interop::PassHooks& hooks)
{
    Host& h = *m_host;
    const interop::FrameTextures t = m_gbuffer->frameTextures();
    const std::size_t pixels = static_cast<std::size_t>(m_frame.width) * m_frame.height;
    if (m_frame.targetsDrawn) {
        h.targets.assign(h.transfer.download(t), pixels);
        h.transfer.release();
    }
    hooks.beginStage("splats.host", nullptr);
    renderSplatsHost(m_scene->splats().host().scene(), m_frame, h.targets);
    hooks.endStage("splats.host", nullptr);
    h.targets.upload(t, m_frame.width, m_frame.height, "splats.host.upload");
}

} // namespace tandem::render
