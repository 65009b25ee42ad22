#include "engine/frame/Frame.h"

#include <algorithm>
#include <cmath>

#include <glm/glm.hpp>

#include "engine/core/Log.h"
#include "engine/core/Stall.h"
#include "engine/gl/Debug.h"
#include "engine/gl/Query.h"
#include "engine/gl/Texture.h"
#include "engine/interop/Handoff.h"
#include "engine/postfx/PostProcessor.h"
#include "engine/profile/Profiler.h"
#include "engine/render/GpuScene.h"
#include "engine/render/SceneRenderer.h"

namespace tandem::frame {

namespace {

/// Frames a frame resident on CUDA may run ahead of the GPU, headless (as GL drivers let a
/// window's frames).
constexpr int FramesAhead = 3;

} // namespace

postfx::FrameInfo frameInfo(const render::Camera& camera, int width, int height)
{
    const glm::mat4 view = camera.view();
    // glm is column-major: view[c][r]. FrameInfo wants the rotation row-major.
    float rotation[9];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            rotation[r * 3 + c] = view[c][r];
    return postfx::makeFrameInfo(width, height, camera.nearPlane, camera.farPlane,
                                 std::tan(glm::radians(camera.fovY) * 0.5f), rotation);
}

/// Names every stage a pass reports as a KHR_debug group (empty for CUDA and host stages, but
/// RenderDoc and Nsight show the structure) and times it: CUDA stages as event pairs on their
/// stream (plus NVTX), host stages as CPU scopes.
class Frame::Hooks final : public interop::PassHooks {
public:
    explicit Hooks(profile::Profiler& profiler) : m_profiler(&profiler) {}
    void setProfiler(profile::Profiler& profiler) { m_profiler = &profiler; }

    void beginStage(const char* name, void* stream) override
    {
        glPushDebugGroup(GL_DEBUG_SOURCE_APPLICATION, 0, -1, name);
        m_open.push_back(
            {stream ? m_profiler->beginCuda(name, stream) : m_profiler->beginCpu(name), stream});
    }
    void endStage(const char*, void*) override
    {
        TANDEM_ASSERT(!m_open.empty(), "frame::Frame: endStage() without a beginStage()");
        end(); // on the stream it began on
    }
    /// Runs `pass` with these hooks. The stages it leaves open when it throws (a Python hook
    /// that raised) are ended, innermost first, before the exception goes on: the debug groups
    /// stay balanced and the profiler's scopes closed, whatever a pass does.
    void run(interop::Pass& pass, const interop::MappedView* view)
    {
        const std::size_t before = m_open.size();
        try {
            pass.run(view, *this);
        } catch (...) {
            while (m_open.size() > before)
                end();
            throw;
        }
    }

private:
    struct Open {
        std::size_t token;
        void* stream; ///< null: a CPU scope
    };
    void end()
    {
        const Open open = m_open.back();
        m_open.pop_back();
        if (open.stream)
            m_profiler->endCuda(open.token, open.stream);
        else
            m_profiler->endCpu(open.token);
        glPopDebugGroup();
    }

    profile::Profiler* m_profiler;
    std::vector<Open> m_open;
};

Frame::Frame(render::SceneRenderer& renderer, const Residence& residence,
             profile::Profiler& profiler)
    : m_renderer(renderer), m_residence(residence),
      m_processor(std::make_unique<postfx::PostProcessor>(residence.path)), m_profiler(&profiler),
      m_hooks(std::make_unique<Hooks>(profiler))
{
    if (residence.path == interop::Path::Cuda) {
        m_handoff = std::make_unique<interop::Handoff>();
        m_profiler->nameStream(m_handoff->stream(), "frame stream");
    }
    m_splats = std::make_unique<render::SplatPass>(m_handoff ? render::SplatPath::Cuda
                                                             : render::SplatPath::Host);
}

void Frame::setProfiler(profile::Profiler& profiler)
{
    m_profiler = &profiler;
    m_hooks->setProfiler(profiler);
    if (m_handoff)
        m_profiler->nameStream(m_handoff->stream(), "frame stream");
}

Frame::~Frame() = default;

void Frame::synchronize()
{
    if (m_handoff)
        m_handoff->synchronize();
}

void Frame::setPointPath(render::PointPath path)
{
    TANDEM_ASSERT(path != render::PointPath::Cuda || m_handoff,
                  "frame::Frame::setPointPath(): CUDA points on the host path");
    if (path == render::PointPath::Gl)
        m_points.reset();
    else if (!m_points || m_points->pointPath() != path)
        m_points = std::make_unique<render::PointPass>(path);
}

render::PointPath Frame::pointPath() const
{
    return m_points ? m_points->pointPath() : render::PointPath::Gl;
}

void Frame::setRaster(render::RasterChoice choice, std::string reason)
{
    using render::RasterChoice;
    using render::RasterPath;
    TANDEM_ASSERT((choice != RasterChoice::Cuda && choice != RasterChoice::Auto) || m_handoff,
                  "frame::Frame::setRaster(): CUDA meshes on the host path");
    const RasterPath pass = choice == RasterChoice::Host ? RasterPath::Host : RasterPath::Cuda;
    if (choice == RasterChoice::Gl)
        m_meshes.reset();
    else if (!m_meshes || m_meshes->rasterPath() != pass)
        m_meshes = std::make_unique<render::MeshPass>(pass);
    m_raster = RasterDecision{};
    m_raster.path =
        choice == RasterChoice::Gl || choice == RasterChoice::Auto ? RasterPath::Gl : pass;
    m_raster.reason = std::move(reason);
    m_rasterAuto = choice == RasterChoice::Auto;
    m_rasterPending = m_rasterAuto;
}

void Frame::remeasureRaster()
{
    if (!m_rasterAuto || m_rasterPending)
        return;
    if (!m_meshes) // auto kept GL and let the CUDA pass go
        m_meshes = std::make_unique<render::MeshPass>(render::RasterPath::Cuda);
    m_raster = RasterDecision{};
    m_raster.reason = "--raster auto: GL and CUDA to be timed on the new scene";
    m_rasterPending = true;
}

void Frame::chooseRaster(const render::GpuScene& scene, const render::Camera& camera,
                         const postfx::Chain& shown, const render::GeometryOptions& options)
{
    // Where nothing else of the frame runs on CUDA, CUDA meshes would add a handoff: timed too.
    bool otherCuda = !shown.stages.empty() ||
                     (m_points && scene.hasPoints() && m_points->path() == interop::Path::Cuda);
    for (const auto* passes : {&m_firstPasses, &m_extraPasses})
        for (const interop::Pass* pass : *passes)
            otherCuda = otherCuda || (pass->isEnabled() && pass->path() == interop::Path::Cuda);
    m_raster = frame::decideRaster(m_measure ? m_measure()
                                             : measureRasters(scene, camera, options, !otherCuda));
    m_rasterPending = false;
    log::info("meshes: {}", m_raster.reason);
    if (m_raster.path == render::RasterPath::Gl)
        m_meshes.reset(); // its scratch memory (keys, clip positions) is not needed
}

RasterTimes Frame::measureRasters(const render::GpuScene& scene, const render::Camera& camera,
                                  const render::GeometryOptions& options, bool addsHandoff)
{
    constexpr int Rounds = 5;
    gl::DebugGroup group("raster.calibration");
    RasterTimes times;
    // GL: the geometry pass (meshes only: the point pass draws the points either way), once
    // untimed, then between timestamps.
    render::GeometryOptions meshesOnly = options;
    meshesOnly.drawPoints = false;
    glSees(scene);
    std::vector<gl::Query> stamps;
    for (int i = 0; i <= Rounds; ++i)
        stamps.emplace_back(GL_TIMESTAMP, "raster calibration");
    m_renderer.drawGeometry(scene, camera, meshesOnly);
    stamps[0].timestamp();
    for (int r = 0; r < Rounds; ++r) {
        m_renderer.drawGeometry(scene, camera, meshesOnly);
        stamps[static_cast<std::size_t>(r) + 1].timestamp();
    }
    recordStall(StallCause::Finish);
    glFinish();
    gl::check("glFinish (raster calibration)");
    for (int r = 0; r < Rounds; ++r) {
        const auto begin = stamps[static_cast<std::size_t>(r)].tryResult();
        const auto end = stamps[static_cast<std::size_t>(r) + 1].tryResult();
        if (begin && end)
            times.glMs.push_back(static_cast<double>(*end - *begin) * 1e-6);
    }
    // CUDA: the mesh pass in one handoff of its own.
    m_meshes->setFrame(scene, m_renderer.gbuffer(), camera, options);
    m_uses.clear();
    m_meshes->declare(m_uses);
    const interop::MappedView& view = m_handoff->map(m_uses);
    try {
        times.cudaMs = m_meshes->time(view, Rounds);
    } catch (...) {
        m_handoff->unmap();
        throw;
    }
    m_handoff->unmap();
    ++m_handoffs;
    if (addsHandoff) {
        // Round trips of the same resources with nothing in between, GL timestamps around each.
        std::vector<gl::Query> around;
        for (int i = 0; i < 2 * Rounds; ++i)
            around.emplace_back(GL_TIMESTAMP, "raster calibration handoff");
        for (int r = 0; r < Rounds; ++r) {
            around[2 * static_cast<std::size_t>(r)].timestamp();
            m_handoff->map(m_uses);
            m_handoff->unmap();
            ++m_handoffs;
            around[2 * static_cast<std::size_t>(r) + 1].timestamp();
        }
        recordStall(StallCause::Finish);
        glFinish();
        gl::check("glFinish (raster calibration)");
        for (int r = 0; r < Rounds; ++r) {
            const auto begin = around[2 * static_cast<std::size_t>(r)].tryResult();
            const auto end = around[2 * static_cast<std::size_t>(r) + 1].tryResult();
            if (begin && end)
                times.handoffMs.push_back(static_cast<double>(*end - *begin) * 1e-6);
        }
    }
    return times;
}

Registration Frame::addPass(interop::Pass& pass)
{
    if (std::find(m_extraPasses.begin(), m_extraPasses.end(), &pass) != m_extraPasses.end())
        return {};
    m_extraPasses.push_back(&pass);
    return m_registrations.make([this, &pass] { std::erase(m_extraPasses, &pass); });
}

Registration Frame::addFirstPass(interop::Pass& pass)
{
    if (std::find(m_firstPasses.begin(), m_firstPasses.end(), &pass) != m_firstPasses.end())
        return {};
    m_firstPasses.push_back(&pass);
    return m_registrations.make([this, &pass] { std::erase(m_firstPasses, &pass); });
}

void Frame::render(const render::GpuScene& scene, const render::Camera& camera,
                   const postfx::Chain& chain, Channel channel,
                   const render::GeometryOptions& options)
{
    render::GBuffer& gbuffer = m_renderer.gbuffer();
    const bool meshes = scene.triangleCount() > 0;
    // A debug channel is its view stage in place of the chain (one definition of each view).
    const postfx::Chain* shown = &chain;
    if (const char* stage = debugStageOf(channel)) {
        const int kind = postfx::findStage(stage);
        if (m_debugChain.stages.size() != 1 || m_debugChain.stages[0].kind != kind)
            m_debugChain.stages = {postfx::Stage::make(kind)};
        shown = &m_debugChain;
    }
    if (m_rasterPending && meshes)
        chooseRaster(scene, camera, *shown, options);
    // Meshes and points drawn by their passes are left out of the geometry pass; with nothing
    // else to draw it does not run (the first of those passes then writes every pixel of the
    // G-buffer).
    const bool passMeshes = meshes && m_meshes && m_raster.path != render::RasterPath::Gl;
    const bool passPoints = m_points && scene.hasPoints();
    const bool passSplats = scene.hasSplats();
    TANDEM_ASSERT(!passMeshes || !scene.hasPoints() || passPoints,
                  "frame::Frame: meshes off GL with GL_POINTS (chooseDrawPaths() refuses it)");
    render::GeometryOptions geometry = options;
    geometry.drawPoints = options.drawPoints && !passPoints;
    geometry.splatDebug = splatDebugOf(channel);
    const bool glDraws = (meshes && !passMeshes) || (scene.hasPoints() && !passPoints) ||
                         (!passMeshes && !passPoints && !passSplats);
    if (glDraws)
        glSees(scene);
    if (!glDraws) {
        // Nothing for GL to draw.
    } else if (m_geometryDetail) {
        {
            profile::GlScope scope(*m_profiler, "geometry.visibility");
            m_renderer.geometry().drawVisibility(gbuffer, scene, camera, geometry);
        }
        profile::GlScope scope(*m_profiler, "geometry.resolve");
        m_renderer.geometry().resolve(gbuffer, scene);
    } else {
        profile::GlScope scope(*m_profiler, "geometry");
        m_renderer.drawGeometry(scene, camera, geometry);
    }
    if (passMeshes)
        m_meshes->setFrame(scene, gbuffer, camera, options);
    if (passPoints)
        m_points->setFrame(scene, gbuffer, camera, options, meshes);
    if (passSplats)
        m_splats->setFrame(scene, gbuffer, camera, geometry, glDraws || passMeshes || passPoints);

    // The colour as an empty chain's output, if that lets the frame stay on CUDA (below). An
    // 8-bit colour only: sRGB-encoded already, its copy is the bytes GL presents (a float colour
    // encoded on CUDA differed from GL's present in 5 % of bytes on an H100).
    const bool colorAsOutput = m_colorAsOutput && channel == Channel::Color && !m_presents &&
                               shown->enabledCount() == 0 &&
                               gbuffer.colorFormat() == render::ColorFormat::Rgba8;
    const postfx::FrameInfo info = frameInfo(camera, gbuffer.width(), gbuffer.height());
    m_processor->setFrame(*shown, info, gbuffer.frameTextures(),
                          !showsColor(channel) || colorAsOutput);
    m_active.clear();
    for (interop::Pass* pass : m_firstPasses)
        if (pass->isEnabled())
            m_active.push_back(pass);
    if (passMeshes && m_meshes->isEnabled())
        m_active.push_back(m_meshes.get());
    if (passPoints && m_points->isEnabled())
        m_active.push_back(m_points.get());
    if (passSplats && m_splats->isEnabled())
        m_active.push_back(m_splats.get());
    if (m_processor->pass().isEnabled())
        m_active.push_back(&m_processor->pass());
    for (interop::Pass* pass : m_extraPasses)
        if (pass->isEnabled())
            m_active.push_back(pass);
    MemoryNeeds needs;
    needs.choice = m_memoryChoice;
    needs.cudaPath = m_handoff != nullptr;
    needs.glDraws = glDraws;
    for (const interop::Pass* pass : m_active)
        (pass->path() == interop::Path::Cuda ? needs.cudaPasses : needs.hostPasses) = true;
    needs.captured = m_captured || m_captureFaithful;
    needs.readsTargets = m_readsTargets;
    needs.showsOutput = (!showsColor(channel) || colorAsOutput) && m_processor->pass().isEnabled();
    needs.presents = m_presents;
    needs.presentCopy = m_presentCopy;
    m_memory = chooseMemory(needs, &m_memoryReason);
    if (m_memory == Memory::Gl && colorAsOutput) {
        // On GL the colour is presented as it is: no copy, and no handoff for it.
        m_processor->setFrame(*shown, info, gbuffer.frameTextures(), false);
        if (!m_processor->pass().isEnabled())
            std::erase(m_active, &m_processor->pass());
    }
    if (m_memory == Memory::Cuda) {
        ++m_residentFrames;
        runResident(m_active);
        if (m_presents) {
            profile::GlScope scope(*m_profiler, "present");
            m_renderer.present(render::PresentSource::Output);
        }
        return;
    }
    // In order; each run of passes on one path together (a run of CUDA passes: one handoff).
    for (std::size_t begin = 0; begin < m_active.size();) {
        std::size_t end = begin + 1;
        while (end < m_active.size() && m_active[end]->path() == m_active[begin]->path())
            ++end;
        m_group.assign(m_active.begin() + static_cast<std::ptrdiff_t>(begin),
                       m_active.begin() + static_cast<std::ptrdiff_t>(end));
        runPasses(m_group);
        begin = end;
    }

    profile::GlScope scope(*m_profiler, "present");
    m_renderer.present(showsColor(channel) ? render::PresentSource::Color
                                           : render::PresentSource::Output);
}

void Frame::runResident(const std::vector<interop::Pass*>& passes)
{
    interop::Uses& uses = m_uses;
    uses.clear();
    for (interop::Pass* pass : passes)
        pass->declare(uses);
    // GL drew what the passes read (a new scene, GL-resident frames before): one map brings it
    // over, a handoff like any other in the profile.
    const bool sync = m_handoff->needsGlContents(uses);
    if (sync)
        m_profiler->beginHandoff();
    const interop::MappedView& view = m_handoff->resident(uses);
    if (sync) {
        m_profiler->anchorHandoff(view.stream());
        ++m_handoffs;
    }
    for (interop::Pass* pass : passes) {
        profile::CpuScope scope(*m_profiler, pass->name());
        m_hooks->run(*pass, &view);
    }
    if (sync)
        m_profiler->endHandoff();
    if (!m_presents) {
        // Nothing GL does paces the frames now (a read-back ring may, when frames are written).
        m_handoff->pace(FramesAhead);
        return;
    }
    // The output into GL's texture, to be presented: one map of one texture.
    render::GBuffer& gbuffer = m_renderer.gbuffer();
    gl::DebugGroup group("handoff.present-copy");
    m_profiler->beginHandoff();
    m_profiler->anchorHandoff(m_handoff->stream());
    m_publish.clear();
    m_publish.image(gbuffer.output(), gbuffer.registrations(), interop::Intent::Write);
    m_handoff->publish(m_publish);
    m_profiler->endHandoff();
    ++m_handoffs;
}

void Frame::glSees(const render::GpuScene& scene)
{
    // A frame resident on CUDA wrote the scene's buffers (a streamed frame's upload) and GL is
    // to draw from them: one map brings them over.
    if (!m_handoff || !scene.registrations().cudaIsNewer())
        return;
    m_publish.clear();
    for (const gl::Buffer* buffer :
         {&scene.vertexBuffer(), &scene.indexBuffer(), &scene.objectBuffer(),
          &scene.provokingOffsets(), &scene.provokingTriangles()})
        if (buffer->id() != 0 && scene.registrations().cudaIsNewer(*buffer))
            m_publish.buffer(*buffer, scene.registrations(), interop::Intent::Read);
    gl::DebugGroup group("handoff.scene-to-gl");
    m_profiler->beginHandoff();
    m_handoff->map(m_publish);
    m_handoff->unmap();
    m_profiler->endHandoff();
    ++m_handoffs;
}

std::optional<Frame::ResidentOutput> Frame::residentOutput()
{
    if (m_memory != Memory::Cuda || m_presents)
        return std::nullopt;
    render::GBuffer& gbuffer = m_renderer.gbuffer();
    return ResidentOutput{
        interop::Handoff::residentImage(gbuffer.output(), gbuffer.registrations()),
        m_handoff->stream()};
}

void Frame::runPasses(const std::vector<interop::Pass*>& passes)
{
    // Named like the profiler's span, for RenderDoc and Nsight.
    gl::DebugGroup group("handoff");
    m_profiler->beginHandoff();
    bool anyCuda = false;
    for (interop::Pass* pass : passes)
        anyCuda = anyCuda || pass->path() == interop::Path::Cuda;
    std::vector<std::pair<const gl::Texture*, std::vector<std::uint8_t>>> uploads;
    if (anyCuda) {
        TANDEM_ASSERT(m_handoff, "frame::Frame: a CUDA pass on the host path");
        interop::Uses& uses = m_uses;
        uses.clear();
        for (interop::Pass* pass : passes)
            if (pass->path() == interop::Path::Cuda)
                pass->declare(uses);
        const interop::MappedView& view = m_handoff->map(uses);
        m_profiler->anchorHandoff(view.stream());
        try {
            for (interop::Pass* pass : passes)
                if (pass->path() == interop::Path::Cuda) {
                    profile::CpuScope scope(*m_profiler, pass->name());
                    m_hooks->run(*pass, &view);
                }
            if (m_captureFaithful)
                for (std::size_t i = 0; i < uses.all().size(); ++i) {
                    const interop::Uses::Use& use = uses.all()[i];
                    if (!use.texture || use.intent == interop::Intent::Read)
                        continue;
                    uploads.emplace_back(use.texture, std::vector<std::uint8_t>{});
                    m_handoff->copyToHost(uses, interop::ImageRef{static_cast<int>(i)},
                                          uploads.back().second);
                }
        } catch (...) {
            m_handoff->unmap();
            throw;
        }
        m_handoff->unmap();
        ++m_handoffs;
    }
    bool hostRan = false;
    for (interop::Pass* pass : passes)
        if (pass->path() == interop::Path::Host) {
            profile::CpuScope scope(*m_profiler, pass->name());
            m_hooks->run(*pass, nullptr);
            hostRan = true;
        }
    // Host passes upload what they wrote through GL: the CUDA-resident copies are stale.
    if (hostRan)
        m_renderer.gbuffer().registrations().wroteByGl();
    if (!uploads.empty()) {
        gl::DebugGroup upload("handoff.capture-upload");
        for (const auto& [texture, pixels] : uploads) {
            const gl::PixelTransfer transfer = gl::pixelTransferOf(texture->internalFormat());
            glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
            glTextureSubImage2D(texture->id(), 0, 0, 0, texture->width(), texture->height(),
                                transfer.format, transfer.type, pixels.data());
            glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
        }
        gl::check("glTextureSubImage2D (capture upload)");
    }
    m_profiler->endHandoff();
}

} // namespace tandem::frame
