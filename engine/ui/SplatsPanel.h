// The splats panel: the Gaussians shown (their count, the SH degree they carry, who draws them),
// the SH degree drawn (a slider to lower it) and the scale modifier, and what the CUDA
// rasterizer reported of its latest frame (Gaussians that reached a tile, tile entries, frames
// drawn the slow way). The pass's stages (splats.unpack, splats.project, splats.sort,
// splats.blend) are rows of the timings panel. Render thread, inside Overlay::draw().
#pragma once

#include <cstdint>
#include <string>

#include "engine/render/SplatRaster.h"

namespace tandem::ui {

/// What the panel shows of the scene's splats.
struct SplatsShown {
    std::uint64_t count = 0; ///< Gaussians in the scene (or the streamed frame)
    int storedDegree = 0;    ///< the SH degree they carry
    std::string path;        ///< who draws them (render::SplatPaths' names)
    render::SplatCounts counts;
};

/// Draws the panel; the sliders edit `shDegree` (0 to the stored degree; a higher value, as
/// --sh-degree 3 on a degree-1 scene, shows as the stored one until moved) and `scale` (0.01 to
/// 100). Returns whether either changed.
bool splatsPanel(const SplatsShown& shown, int& shDegree, float& scale);

} // namespace tandem::ui
