// Who draws a frame's meshes and points: what the user asked for (--raster, --points) squared
// with where the frame's passes run, and --raster auto's decision from measured times (the
// frame measures; this decides, so a test can feed it the times). Plain data, any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/core/Result.h"
#include "engine/frame/Residence.h"
#include "engine/render/MeshPass.h"
#include "engine/render/PointPass.h"

namespace tandem::frame {

/// Who draws meshes and points, and why.
struct DrawPaths {
    /// Gl, Cuda or Host; Auto: the frame measures GL against CUDA on its first scene with
    /// triangles and keeps the faster.
    render::RasterChoice raster = render::RasterChoice::Gl;
    std::string rasterReason = "GL's hardware rasterizer";
    render::PointPath points = render::PointPath::Gl;
};

/// Squares `raster` and `points` with `residence`: CUDA meshes or points need the passes on
/// CUDA; meshes drawn off GL need the points off GL too (GL_POINTS draw in the geometry pass,
/// which then does not run). Auto points are CUDA on a CUDA frame, else the host twin when the
/// meshes are on the host, else GL; auto meshes are GL wherever CUDA cannot draw them or GL
/// draws the points. Fails with the reason (an input error) when the asked-for paths cannot be,
/// naming the choice as `rasterOption` and its value ("--raster cuda", Python's "raster=cuda").
Result<DrawPaths> chooseDrawPaths(render::RasterChoice raster, render::PointChoice points,
                                  const Residence& residence,
                                  std::string_view rasterOption = "--raster ");

/// GPU times of the two rasterizers on one scene, a frame each, milliseconds.
struct RasterTimes {
    std::vector<double> glMs;   ///< the GL geometry pass (visibility and resolve)
    std::vector<double> cudaMs; ///< the mesh pass on CUDA (clip, raster, resolve)
    /// A GL-CUDA round trip (map+unmap), where CUDA meshes would be the frame's only CUDA pass
    /// and so add one; empty where the frame has a handoff anyway.
    std::vector<double> handoffMs;
};

/// --raster auto's decision.
struct RasterDecision {
    render::RasterPath path = render::RasterPath::Gl;
    /// One sentence: "CUDA rasterizer: 0.151 ms a frame against GL's 3.204 ms (medians of 5
    /// frames each, --raster auto)".
    std::string reason;
    double glMs = 0.0;   ///< median, 0 when not measured
    double cudaMs = 0.0; ///< median, 0 when not measured (the added handoff included)
    bool measured = false;
};

/// The faster of the two by their medians, CUDA's with the handoff it adds (GL when they tie,
/// or when either has no time).
RasterDecision decideRaster(const RasterTimes& times);

} // namespace tandem::frame
