// One frame of the engine: the geometry pass (GL) when GL draws anything, then every enabled
// pass between GL passes — the mesh pass when meshes are not drawn by GL, the point pass when
// points are not, the splat pass when the scene has splats, post-processing, then any the app
// added —
// in that order, consecutive CUDA passes inside ONE handoff the frame owns (one map, one unmap,
// one stream), host passes on the GL side, then present. When nothing in a frame needs GL (GL
// draws nothing, every pass runs on CUDA, no capture), the frame runs resident on CUDA: the same
// passes on the CUDA-resident copies of the targets and scene buffers, no map at all, and
// either no present (headless: the output is read back by CUDA copies) or one map that copies
// the output into GL to be presented (a window).
// Each stage is a profiler span and a KHR_debug group of the same name. The frame is the only
// place a handoff is created. Render thread, the GL context current.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/Registration.h"
#include "engine/frame/Channel.h"
#include "engine/frame/RasterDecision.h"
#include "engine/frame/Residence.h"
#include "engine/interop/Handoff.h"
#include "engine/interop/Pass.h"
#include "engine/postfx/Chain.h"
#include "engine/postfx/PixelStages.h"
#include "engine/render/Camera.h"
#include "engine/render/GeometryPass.h"
#include "engine/render/MeshPass.h"
#include "engine/render/PointPass.h"
#include "engine/render/SplatPass.h"

namespace tandem::postfx {
class PostProcessor;
}
namespace tandem::profile {
class Profiler;
}
namespace tandem::render {
class GpuScene;
class SceneRenderer;
} // namespace tandem::render

namespace tandem::frame {

/// The camera as post-processing sees it, for a `width`×`height` region.
postfx::FrameInfo frameInfo(const render::Camera& camera, int width, int height);

class Frame {
public:
    /// A frame drawing into `renderer`'s targets where `residence` says (chooseResidence()),
    /// post-processing with the chain's pass on that path, timed by `profiler`. Resident on CUDA
    /// it creates its handoff (and stream) now; throws CudaError if it cannot. `renderer` and
    /// `profiler` must outlive it.
    Frame(render::SceneRenderer& renderer, const Residence& residence, profile::Profiler& profiler);
    ~Frame();
    Frame(const Frame&) = delete;
    Frame& operator=(const Frame&) = delete;

    /// Times the following frames with `profiler` instead (benchmarks comparing profilers on one
    /// frame, one stream). It must outlive the frame or be replaced first.
    void setProfiler(profile::Profiler& profiler);

    /// Who draws the scene's point clouds: Gl (GL_POINTS in the geometry pass, the default),
    /// Cuda (the point pass, in the frame's handoff: the frame must be on the CUDA path) or
    /// Host (the point pass's host twin: exact, slow; for machines without CUDA).
    void setPointPath(render::PointPath path);
    render::PointPath pointPath() const;
    /// The point pass (null while GL draws the points); for tests and benchmarks.
    render::PointPass* pointPass() { return m_points.get(); }
    /// The splat pass: on the frame's path (CUDA, else the host), after meshes and points; for
    /// tests, benchmarks and reports.
    render::SplatPass& splatPass() { return *m_splats; }

    /// Who draws the scene's meshes (chooseDrawPaths() squares it with the points): Gl (the
    /// geometry pass), Cuda (the mesh pass in the frame's handoff: the frame must be on the CUDA
    /// path), Host (its host twin: exact, slow), or Auto: on the first frame with triangles
    /// both GL and CUDA draw the scene a few times, timed on the GPU (a short calibration that
    /// blocks, counted as stalls), and the faster is kept, CUDA's time with the handoff it adds
    /// where nothing else of the frame runs on CUDA; rasterDecision() says which and why.
    /// Meshes off GL need the points off GL too (setPointPath()). `reason` says why this choice
    /// (reports).
    void setRaster(render::RasterChoice choice, std::string reason);
    /// Who draws the meshes now (Gl while auto has not measured).
    render::RasterPath rasterPath() const { return m_raster.path; }
    /// Why, with auto's times once measured.
    const RasterDecision& rasterDecision() const { return m_raster; }
    /// Auto measures again on the next frame with triangles (a new scene was loaded); nothing
    /// for the other choices.
    void remeasureRaster();
    /// For tests: auto's calibration calls `measure` for the times instead of timing the GPU.
    void setRasterMeasure(std::function<RasterTimes()> measure) { m_measure = std::move(measure); }
    /// The mesh pass (null while GL draws the meshes); for tests and benchmarks.
    render::MeshPass* meshPass() { return m_meshes.get(); }

    /// Adds a pass that runs after post-processing, before present, on the path it says (CUDA
    /// passes next to other CUDA passes share the frame's handoff). The handle removes it again:
    /// hold it no longer than the pass lives (the frame may die first). A pass already added is
    /// not added twice (the second handle holds nothing).
    Registration addPass(interop::Pass& pass);
    /// Adds a pass that runs first, before the point pass (a streamed frame's upload starts
    /// there, so its copies overlap the passes after it in the same handoff). As addPass().
    Registration addFirstPass(interop::Pass& pass);
    /// Passes added and not yet removed, first passes first (tests).
    std::size_t passCount() const { return m_firstPasses.size() + m_extraPasses.size(); }

    /// Times the geometry pass as two spans (geometry.visibility, geometry.resolve) instead of
    /// one. Each GL timestamp between passes is a sync point that stops the GPU from
    /// overlapping them, so the finer split costs frame time (measured on an H200: the whole
    /// profiler cost 1.06 % of the frame with it).
    void setGeometryDetail(bool detail) { m_geometryDetail = detail; }
    /// For frames a capture tool records (RenderDoc does not see CUDA's writes): every image a
    /// CUDA pass wrote is also copied back and uploaded through GL, inside debug group
    /// "handoff.capture-upload", so the capture replays what the user saw. Blocks (a counted
    /// stall): captured frames only.
    void setCaptureFaithful(bool enabled) { m_captureFaithful = enabled; }

    /// Whether GL shows or reads what the frame draws after it: a window, a compare view, a
    /// 16-bit PNG read from the colour target, a read-back of the presented image (the
    /// default). False: a headless run that reads its output through residentOutput() or not
    /// at all; a frame whose passes all run on CUDA then has no handoff and no present.
    void setPresents(bool presents) { m_presents = presents; }
    bool presents() const { return m_presents; }
    /// Presenting, a frame whose passes all run on CUDA either runs resident on CUDA and copies
    /// its output into GL in one map (true, the default), or runs its passes inside one handoff
    /// on GL's targets (false). Benchmarks compare the two.
    void setPresentCopy(bool copy) { m_presentCopy = copy; }
    /// Whether GL reads the G-buffer's targets after the frame (16-bit PNG output from the colour
    /// target, Python's channels, a tensor scene written through GL's buffers each update):
    /// frames then stay on GL's memory.
    void setReadsTargets(bool reads) { m_readsTargets = reads; }
    /// Whether the colour channel, when no stage is enabled, nothing is presented and the colour
    /// target is 8-bit (sRGB-encoded already), is written as an empty chain's output (a copy:
    /// the bytes GL would present) where that lets the frame run all on CUDA: its output is
    /// then read back from CUDA memory with no GL at all (the browser view). Off: the colour is
    /// presented through GL.
    void setColorAsOutput(bool asOutput) { m_colorAsOutput = asOutput; }
    /// Whether a capture tool records this frame (it sees GL only: the frame stays on GL's
    /// memory, whether or not setCaptureFaithful() uploads CUDA's writes).
    void setCaptured(bool captured) { m_captured = captured; }
    /// Whether frames may run resident on CUDA (--frame-memory).
    void setMemoryChoice(MemoryChoice choice) { m_memoryChoice = choice; }
    /// Where the last frame's targets lived (chooseMemory()), and why.
    Memory memory() const { return m_memory; }
    const std::string& memoryReason() const { return m_memoryReason; }
    /// Frames rendered so far resident on CUDA.
    std::uint64_t residentFrames() const { return m_residentFrames; }
    /// The last frame's output in CUDA memory, when it ran resident on CUDA and was not
    /// presented: the image its read-back copies (OutputRing::readResident()), and the stream
    /// that wrote it.
    struct ResidentOutput {
        interop::ResidentImage image;
        void* stream = nullptr;
    };
    std::optional<ResidentOutput> residentOutput();

    /// Renders one frame of `scene` seen by `camera` and presents `channel`: the chain's output
    /// (Output), a debug view (Depth, Normal, Id: their view stage replaces the chain), or the
    /// G-buffer colour (Color: the chain still runs if it has stages, as the overlay may show
    /// its timings, but its output is not shown). Does not block on the GPU (the host path's
    /// read-back excepted).
    void render(const render::GpuScene& scene, const render::Camera& camera,
                const postfx::Chain& chain, Channel channel,
                const render::GeometryOptions& options);

    /// Waits for the frame's CUDA work (nothing on the host path). Blocks (counted as a stall):
    /// benchmarks and tests.
    void synchronize();

    /// Where passes run.
    interop::Path path() const { return m_residence.path; }
    /// Where the frame runs, and why.
    const Residence& residence() const { return m_residence; }
    /// The post-processing pass the frame runs (on its path).
    postfx::PostProcessor& postProcessor() { return *m_processor; }
    /// The handoff, on the CUDA path (null on the host path); for tests and benchmarks.
    const interop::Handoff* handoff() const { return m_handoff.get(); }
    /// Handoffs (map+unmap pairs) the frame has made: one per rendered frame on GL's memory, plus
    /// one where GL draws a scene a frame resident on CUDA wrote (its buffers brought over); none
    /// for a frame resident on CUDA but the one that brings GL's contents over after GL wrote
    /// them, and the one that copies its output into GL to be presented; and those of --raster
    /// auto's calibration (one, six where it times the handoff CUDA meshes add).
    std::uint64_t handoffs() const { return m_handoffs; }

private:
    class Hooks;
    void runPasses(const std::vector<interop::Pass*>& passes);
    /// Every pass (all on CUDA) on the CUDA-resident copies; the output into GL if presented.
    void runResident(const std::vector<interop::Pass*>& passes);
    /// Before GL draws `scene`: its buffers' CUDA-resident copies, where newer, into GL.
    void glSees(const render::GpuScene& scene);
    /// --raster auto's decision on this frame's scene, `shown` the chain it runs.
    void chooseRaster(const render::GpuScene& scene, const render::Camera& camera,
                      const postfx::Chain& shown, const render::GeometryOptions& options);
    /// --raster auto's calibration on `scene`: GL's geometry pass and the CUDA mesh pass, timed,
    /// and the handoff when CUDA meshes would add one (`addsHandoff`).
    RasterTimes measureRasters(const render::GpuScene& scene, const render::Camera& camera,
                               const render::GeometryOptions& options, bool addsHandoff);

    render::SceneRenderer& m_renderer;
    Residence m_residence;
    std::unique_ptr<postfx::PostProcessor> m_processor;
    profile::Profiler* m_profiler;
    std::unique_ptr<Hooks> m_hooks;
    std::unique_ptr<interop::Handoff> m_handoff;
    std::vector<interop::Pass*> m_firstPasses;
    std::vector<interop::Pass*> m_extraPasses;
    std::unique_ptr<render::PointPass> m_points;
    std::unique_ptr<render::SplatPass> m_splats;
    std::unique_ptr<render::MeshPass> m_meshes;
    RasterDecision m_raster{render::RasterPath::Gl, "GL's hardware rasterizer"};
    bool m_rasterAuto = false;    ///< --raster auto
    bool m_rasterPending = false; ///< auto has yet to measure
    std::function<RasterTimes()> m_measure;
    std::vector<interop::Pass*> m_active;
    std::vector<interop::Pass*> m_group;
    interop::Uses m_uses;
    postfx::Chain m_debugChain;
    bool m_geometryDetail = false;
    bool m_captureFaithful = false;
    bool m_presents = true;
    bool m_readsTargets = false;
    bool m_colorAsOutput = false;
    bool m_captured = false;
    bool m_presentCopy = true;
    MemoryChoice m_memoryChoice = MemoryChoice::Auto;
    Memory m_memory = Memory::Gl;
    std::string m_memoryReason = "GL-resident: no frame rendered yet";
    std::uint64_t m_residentFrames = 0;
    interop::Uses m_publish;
    std::uint64_t m_handoffs = 0;
    /// Expires with the frame: handles of passes added to it then do nothing.
    RegistrationOwner m_registrations;
};

} // namespace tandem::frame
