// Gaussian splats drawn into the G-buffer by the splat rasterizer (render/SplatRaster.h): on
// CUDA inside the frame's handoff (or resident), or on the host by the same functions (reads the
// G-buffer back: slow, exact). Runs after the mesh and point passes, so a Gaussian behind the
// surface they left at a pixel does not contribute there and the surface is seen through the
// remaining transmittance; where nothing drew, over the background. Writes colour and alpha,
// and where Gaussians reach half opacity their median depth, an id (SplatIdBit | index + 1) and
// a normal facing the camera, so post-processing, channels and the compare views work on
// splats. A pass of the frame. Render thread.
#pragma once

#include <memory>

#include "engine/core/EnumTable.h"
#include "engine/interop/Pass.h"
#include "engine/render/Camera.h"
#include "engine/render/GeometryPass.h"
#include "engine/render/SplatRaster.h"

namespace tandem::render {

class GBuffer;
class GpuScene;

/// Who draws the splats.
enum class SplatPath {
    Cuda, ///< the CUDA rasterizer, in the frame's handoff or resident
    Host, ///< the same functions on CPU threads
};
inline constexpr EnumTable<SplatPath, 2> SplatPaths{
    "splat path",
    {{{SplatPath::Cuda, "cuda", "the CUDA splat rasterizer"},
      {SplatPath::Host, "host", "the splat rasterizer's functions on the CPU"}}}};

class SplatPass final : public interop::Pass {
public:
    explicit SplatPass(SplatPath path);
    ~SplatPass() override;

    /// This frame: the scene's splats into `gbuffer` seen by `camera`, as `options` say (the
    /// background, the splat scale and SH degree); `targetsDrawn`: meshes or points drew the
    /// G-buffer first, else every pixel starts from the background.
    void setFrame(const GpuScene& scene, GBuffer& gbuffer, const Camera& camera,
                  const GeometryOptions& options, bool targetsDrawn);

    /// Where a streamed frame's Gaussians lie in device memory (the CUDA path; its copy put
    /// them there), or none (region null): the scene's own (GpuSplats::device()). Set after
    /// each sequence update, as the point pass's device points are.
    void setDeviceSplats(const DeviceSplatRegion& splats) { m_device = splats; }

    const char* name() const override { return "splats"; }
    bool isEnabled() const override;
    interop::Path path() const override;
    void declare(interop::Uses& uses) override;
    void run(const interop::MappedView* view, interop::PassHooks& hooks) override;

    SplatPath splatPath() const { return m_path; }
    /// The frame data the last setFrame() prepared (tests).
    const splats::SplatFrame& frame() const { return m_frame; }
    /// What the CUDA rasterizer reported of its latest frames (zeros on the host path).
    SplatCounts counts() { return m_raster ? m_raster->counts() : SplatCounts{}; }
    /// A cudaEvent_t recorded after the pass's last frame read the Gaussians (the CUDA path), or
    /// null: none yet, or the host path.
    void* lastFrameDone() const { return m_raster ? m_raster->lastFrameDone() : nullptr; }

private:
    void runHost(interop::PassHooks& hooks);

    SplatPath m_path;
    const GpuScene* m_scene = nullptr;
    GBuffer* m_gbuffer = nullptr;
    splats::SplatFrame m_frame{};
    DeviceSplatRegion m_device;
    interop::ImageRef m_colorRef, m_depthRef, m_normalRef, m_idRef;
    std::unique_ptr<SplatRaster> m_raster; ///< CUDA
    struct Host;
    std::unique_ptr<Host> m_host; ///< host
};

} // namespace tandem::render
