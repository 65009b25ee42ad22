#include "engine/frame/StillFrame.h"

#include <cstring>

#include "engine/core/Error.h"
#include "engine/core/Stall.h"
#include "engine/frame/Frame.h"
#include "engine/frame/detail/CallFrame.h"
#include "engine/gl/Debug.h"
#include "engine/gl/Gl.h"
#include "engine/postfx/HookPass.h"
#include "engine/postfx/PostProcessor.h"
#include "engine/render/GpuScene.h"
#include "engine/render/SceneRenderer.h"

namespace tandem::frame {
namespace {

profile::ProfilerOptions profilerOff()
{
    profile::ProfilerOptions options;
    options.enabled = false;
    return options;
}

Residence residenceFor(const interop::InteropStatus& doctor)
{
    auto residence = chooseResidence(postfx::BackendChoice::Auto, doctor);
    if (!residence)
        throw Error(residence.error(), "frame::chooseResidence");
    return residence.value();
}

/// Reads a texture's drawn region and turns its rows top first.
void readTexture(const gl::Texture& texture, GLenum format, GLenum type, std::size_t pixelBytes,
                 int width, int height, void* out)
{
    const std::size_t row = pixelBytes * static_cast<std::size_t>(width);
    std::vector<std::uint8_t> pixels(row * static_cast<std::size_t>(height));
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    recordStall(StallCause::Readback);
    glGetTextureSubImage(texture.id(), 0, 0, 0, 0, width, height, 1, format, type,
                         static_cast<GLsizei>(pixels.size()), pixels.data());
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    gl::check("glGetTextureSubImage");
    auto* target = static_cast<std::uint8_t*>(out);
    for (int y = 0; y < height; ++y)
        std::memcpy(target + row * static_cast<std::size_t>(height - 1 - y),
                    pixels.data() + row * static_cast<std::size_t>(y), row);
}

} // namespace

std::size_t bytesPerPixel(StillChannel channel)
{
    return channel == StillChannel::Normal ? 16 : 4;
}

StillFrame::StillFrame(const interop::InteropStatus& doctor)
    : m_residence(residenceFor(doctor)),
      m_paths(chooseDrawPaths(render::RasterChoice::Auto, render::PointChoice::Auto, m_residence)
                  .value()),
      m_off(profilerOff())
{}

StillFrame::~StillFrame()
{
    // The frame (and its handoff) before the targets and the scene it drew.
    m_frame.reset();
    m_renderer.reset();
    m_scene.reset();
}

void StillFrame::render(const render::Scene& scene, const render::Camera& camera,
                        const postfx::Chain& chain, Channel channel,
                        const render::GeometryOptions& options, int width, int height,
                        const RegionSplats& splats, void* stream)
{
    if (!m_renderer) {
        m_renderer = std::make_unique<render::SceneRenderer>(
            width, height, render::ColorFormat::Rgba8, true, render::Headroom::Exact);
        m_frame = std::make_unique<Frame>(*m_renderer, m_residence, m_off);
        // As the apps do (--points auto, --raster as set).
        m_frame->setPointPath(m_paths.points);
        m_frame->setRaster(m_paths.raster, m_paths.rasterReason);
        // read() takes every channel from GL's targets.
        m_frame->setReadsTargets(true);
        if (m_profiler)
            m_frame->setProfiler(*m_profiler);
    } else {
        m_renderer->resize(width, height);
    }
    if (m_added != m_hook) {
        m_addedPass.reset();
        if (m_hook)
            m_addedPass = m_frame->addPass(*m_hook);
        m_added = m_hook;
    }
    if (m_hook) {
        m_hook->setFrame(m_renderer->gbuffer().frameTextures());
        channel = Channel::Output; // what the hook may have written
    }
    detail::CallFrame call(m_profiler, "tandem.render");
    m_scene = std::make_unique<render::GpuScene>(scene, "still.scene");
    if (splats.region)
        attachSplats(*m_scene, splats, m_frame->splatPass(), stream, m_splatsReady);
    m_frame->render(*m_scene, camera, chain, channel, options);
    if (splats.region)
        m_frame->splatPass().setDeviceSplats({}); // the tensor is the caller's after the call
}

void StillFrame::read(StillChannel channel, void* out) const
{
    TANDEM_ASSERT(m_renderer, "frame::StillFrame::read(): nothing rendered");
    const render::GBuffer& g = m_renderer->gbuffer();
    const int w = g.width(), h = g.height();
    switch (channel) {
    case StillChannel::Image: {
        const io::Image image = m_renderer->readPresented(); // rows top first already
        std::memcpy(out, image.pixels.data(), image.pixels.size());
        return;
    }
    case StillChannel::Color:
        readTexture(g.color(), GL_RGBA, GL_UNSIGNED_BYTE, 4, w, h, out);
        return;
    case StillChannel::Depth:
        readTexture(g.linearDepth(), GL_RED, GL_FLOAT, 4, w, h, out);
        return;
    case StillChannel::Normal:
        readTexture(g.normal(), GL_RGBA, GL_FLOAT, 16, w, h, out);
        return;
    case StillChannel::Id:
        readTexture(g.id(), GL_RED_INTEGER, GL_UNSIGNED_INT, 4, w, h, out);
        return;
    case StillChannel::Output:
        readTexture(g.output(), GL_RGBA, GL_UNSIGNED_BYTE, 4, w, h, out);
        return;
    }
}

void StillFrame::setRaster(render::RasterChoice choice)
{
    auto paths = chooseDrawPaths(choice, render::PointChoice::Auto, m_residence, "raster=");
    if (!paths)
        throw Error(paths.error(), "tandem.render");
    const bool changed =
        paths.value().raster != m_paths.raster || paths.value().points != m_paths.points;
    m_paths = paths.value();
    if (m_frame && changed) {
        m_frame->setPointPath(m_paths.points);
        m_frame->setRaster(m_paths.raster, m_paths.rasterReason);
    }
}

const RasterDecision& StillFrame::rasterDecision() const
{
    return m_frame ? m_frame->rasterDecision() : m_notRendered;
}

void StillFrame::setProfiler(profile::Profiler* profiler)
{
    m_profiler = profiler;
    if (m_frame)
        m_frame->setProfiler(profiler ? *profiler : m_off);
}

int StillFrame::width() const
{
    return m_renderer ? m_renderer->width() : 0;
}

int StillFrame::height() const
{
    return m_renderer ? m_renderer->height() : 0;
}

interop::Path StillFrame::path() const
{
    return m_residence.path;
}

} // namespace tandem::frame
