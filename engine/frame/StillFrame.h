// One frame rendered on request and read back to host memory (tandem.render in the Python
// package): a scene of host meshes, a camera, the post-process chain, then the G-buffer's
// channels and the presented image copied out, rows top first. The frame is the engine's own
// (geometry pass, the passes in one handoff, present), so the image equals what tandem-raster
// writes for the same scene and camera. Reading back blocks (counted as stalls). Render thread,
// the GL context current.
#pragma once
#include <cstddef>
#include <memory>
#include <optional>
#include <string_view>

#include "engine/core/Registration.h"
#include "engine/frame/Channel.h"
#include "engine/frame/RasterDecision.h"
#include "engine/frame/Residence.h"
#include "engine/frame/TensorScene.h"
#include "engine/interop/Doctor.h"
#include "engine/postfx/Chain.h"
#include "engine/profile/Profiler.h"
#include "engine/render/Camera.h"
#include "engine/render/GeometryPass.h"
#include "engine/render/Scene.h"

namespace tandem::postfx {
class HookPass;
} // namespace tandem::postfx
namespace tandem::render {
class GpuScene;
class SceneRenderer;
} // namespace tandem::render

namespace tandem::frame {

class Frame;

/// What can be read back, and its layout per pixel.
enum class StillChannel {
    Image,  ///< the presented channel, RGBA8 (what tandem-raster writes)
    Color,  ///< the G-buffer colour, RGBA8
    Depth,  ///< linear view depth, float (0: background)
    Normal, ///< world normal, 4 floats (w = 1 where covered)
    Id,     ///< primitive id + 1, uint32 (0: background; points carry render::PointIdBit)
    Output, ///< the post-process output, RGBA8
};

/// Bytes one pixel of `channel` takes.
std::size_t bytesPerPixel(StillChannel channel);
/// The names tandem.render's `channels` take: the frame's channels' names, and "image".
inline constexpr EnumTable<StillChannel, 6> StillChannels{
    "channel",
    {{{StillChannel::Image, "image", "the presented channel"},
      {StillChannel::Color, Channels.name(Channel::Color), "the G-buffer colour"},
      {StillChannel::Depth, Channels.name(Channel::Depth), "linear view depth"},
      {StillChannel::Normal, Channels.name(Channel::Normal), "world normals"},
      {StillChannel::Id, Channels.name(Channel::Id), "primitive ids + 1"},
      {StillChannel::Output, Channels.name(Channel::Output), "the post-process output"}}}};

class StillFrame {
public:
    /// Post-processing on the path `doctor` found (CUDA where interop works, else the host).
    /// Throws Error when it cannot be set up.
    explicit StillFrame(const interop::InteropStatus& doctor);
    ~StillFrame();
    StillFrame(const StillFrame&) = delete;
    StillFrame& operator=(const StillFrame&) = delete;

    /// Uploads `scene` and renders it seen by `camera` at `width`×`height`, presenting
    /// `channel` through `chain` as tandem-raster does; `splats` (tensors' Gaussians) drawn with
    /// it, a device region read in place after `stream` passed this point (attachSplats()).
    /// Does not block.
    void render(const render::Scene& scene, const render::Camera& camera,
                const postfx::Chain& chain, Channel channel, const render::GeometryOptions& options,
                int width, int height, const RegionSplats& splats = {}, void* stream = nullptr);

    /// Copies `channel` of the last frame into `out` (width × height × bytesPerPixel bytes),
    /// rows top first. Blocks until the frame is done (a read-back, counted as a stall).
    void read(StillChannel channel, void* out) const;

    /// Times the following frames with `profiler` (its frames begun and ended here) instead of
    /// none; null: none again. It must outlive its use or be replaced first.
    void setProfiler(profile::Profiler* profiler);

    /// Who draws the meshes in the following frames (tandem.render's `raster`, as --raster):
    /// auto (the default) times GL against CUDA on the first frame with triangles. Throws Error
    /// when `choice` cannot be had here (CUDA without GL-CUDA interop).
    void setRaster(render::RasterChoice choice);
    /// Who draws the meshes, and why.
    const RasterDecision& rasterDecision() const;

    /// Runs `hook` (not owned; null: none) in the following frames, after the chain, and
    /// presents the output it may have written. Its path must be path()'s.
    void setHook(postfx::HookPass* hook) { m_hook = hook; }

    int width() const;
    int height() const;
    /// Where the passes run.
    interop::Path path() const;

private:
    Residence m_residence;
    DrawPaths m_paths;
    RasterDecision m_notRendered;
    profile::Profiler m_off;
    profile::Profiler* m_profiler = nullptr;
    postfx::HookPass* m_hook = nullptr;
    postfx::HookPass* m_added = nullptr; ///< the hook the frame has now
    Registration m_addedPass;            ///< removes m_added from the frame
    std::unique_ptr<render::SceneRenderer> m_renderer;
    std::unique_ptr<Frame> m_frame;
    /// The scene drawn last, alive until the next one replaces it.
    std::unique_ptr<render::GpuScene> m_scene;
    cuda::StreamEvent m_splatsReady; ///< the caller's stream reached a device region
};

} // namespace tandem::frame
