#include "engine/frame/RasterDecision.h"

#include <algorithm>

#include <fmt/format.h>

namespace tandem::frame {

namespace {

double median(std::vector<double> ms)
{
    std::sort(ms.begin(), ms.end());
    const std::size_t n = ms.size();
    return n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
}

} // namespace

Result<DrawPaths> chooseDrawPaths(render::RasterChoice raster, render::PointChoice points,
                                  const Residence& residence, std::string_view rasterOption)
{
    using render::PointChoice;
    using render::PointPath;
    using render::RasterChoice;
    const bool cudaFrame = residence.path == interop::Path::Cuda;
    if (points == PointChoice::Cuda && !cudaFrame)
        return fail("--points cuda needs the passes on CUDA, and they run on the host: " +
                    residence.reason);
    if (raster == RasterChoice::Cuda && !cudaFrame)
        return fail(std::string(rasterOption) +
                    "cuda needs the passes on CUDA, and they run on the host: " + residence.reason);
    const bool meshesOffGl = raster == RasterChoice::Cuda || raster == RasterChoice::Host;
    if (meshesOffGl && points == PointChoice::Gl)
        return fail(fmt::format("{}{} draws meshes outside GL's geometry pass, where "
                                "--points gl would draw the points: use --points auto, cuda or "
                                "host",
                                rasterOption, render::RasterChoices.name(raster)));
    DrawPaths paths;
    paths.points = points == PointChoice::Gl      ? PointPath::Gl
                   : points == PointChoice::Host  ? PointPath::Host
                   : points == PointChoice::Cuda  ? PointPath::Cuda
                   : cudaFrame                    ? PointPath::Cuda
                   : raster == RasterChoice::Host ? PointPath::Host
                                                  : PointPath::Gl;
    paths.raster = raster;
    if (raster != RasterChoice::Auto) {
        paths.rasterReason =
            fmt::format("asked for with --raster {}", render::RasterChoices.name(raster));
    } else if (!cudaFrame) {
        paths.raster = RasterChoice::Gl;
        paths.rasterReason = "--raster auto: GL, as the passes do not run on CUDA";
    } else if (paths.points == PointPath::Gl) {
        paths.raster = RasterChoice::Gl;
        paths.rasterReason = "--raster auto: GL, as GL draws the points (--points gl)";
    } else {
        paths.rasterReason = "--raster auto: GL and CUDA timed on the first scene with triangles";
    }
    return paths;
}

RasterDecision decideRaster(const RasterTimes& times)
{
    RasterDecision d;
    if (times.glMs.empty() || times.cudaMs.empty()) {
        d.reason = "GL's hardware rasterizer (--raster auto: no times measured)";
        return d;
    }
    d.measured = true;
    d.glMs = median(times.glMs);
    const double handoff = times.handoffMs.empty() ? 0.0 : median(times.handoffMs);
    d.cudaMs = median(times.cudaMs) + handoff;
    const std::size_t frames = std::min(times.glMs.size(), times.cudaMs.size());
    const std::string added =
        times.handoffMs.empty()
            ? ""
            : fmt::format(", CUDA's with the handoff it adds ({:.3f} ms)", handoff);
    if (d.cudaMs < d.glMs) {
        d.path = render::RasterPath::Cuda;
        d.reason = fmt::format("CUDA rasterizer: {:.3f} ms a frame against GL's {:.3f} ms "
                               "(medians of {} frames each{}, --raster auto)",
                               d.cudaMs, d.glMs, frames, added);
    } else {
        d.reason = fmt::format("GL's hardware rasterizer: {:.3f} ms a frame against CUDA's "
                               "{:.3f} ms (medians of {} frames each{}, --raster auto)",
                               d.glMs, d.cudaMs, frames, added);
    }
    return d;
}

} // namespace tandem::frame
