// Meshes, point clouds and Gaussian splats read from files (PLY, OBJ; splat PLY, compressed
// PLY, SPZ, .splat, known by what they hold) as the objects of one scene: what tandem-raster
// draws. Any thread (no GL).
#pragma once

#include <string>
#include <vector>

#include "engine/core/Result.h"
#include "engine/io/GaussianTransform.h"
#include "engine/render/Scene.h"

namespace tandem::app {

/// Which axis of the files points up (--up): io/GaussianTransform.h.
using io::UpAxes;
using io::UpAxis;
using io::upTurn;

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
