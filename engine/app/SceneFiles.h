// Meshes, point clouds and Gaussian splats read from files (PLY, OBJ; splat PLY, compressed
// PLY, SPZ, .splat, known by what they hold) as the objects of one scene: what tandem-raster
// draws. Any thread (no GL).
#pragma once

#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "engine/core/EnumTable.h"
#include "engine/core/Result.h"
#include "engine/render/Scene.h"

namespace tandem::app {

/// Which axis of the files points up (--up): the scene is turned so it points up on screen (a
/// COLMAP or 3DGS training scene: -y; a z-up capture: z).
enum class UpAxis { PlusY, MinusY, PlusZ, MinusZ, PlusX, MinusX };
inline constexpr EnumTable<UpAxis, 6> UpAxes{
    "up axis",
    {{{UpAxis::PlusY, "y", "as stored"},
      {UpAxis::MinusY, "-y", "y down (COLMAP, 3DGS training): turned 180 degrees about x"},
      {UpAxis::PlusZ, "z", "z up: turned -90 degrees about x"},
      {UpAxis::MinusZ, "-z", "z down: turned 90 degrees about x"},
      {UpAxis::PlusX, "x", "x up: turned 90 degrees about z"},
      {UpAxis::MinusX, "-x", "x down: turned -90 degrees about z"}}}};

/// The turn that brings `up` to +y.
glm::dmat3 upTurn(UpAxis up);

/// A scene and the files it came from.
struct SceneFiles {
    render::Scene scene;
    std::vector<std::string> files;
};

/// Loads `files` (the built-in sample when none), one object each, logging what each holds
/// and the readers' warnings, turned so that `up` points up. Fails naming the file and the
/// problem.
Result<SceneFiles> loadSceneFiles(const std::vector<std::string>& files, UpAxis up = UpAxis::PlusY);

} // namespace tandem::app
