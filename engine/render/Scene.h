// A scene in host memory: several named objects (meshes and point clouds, in world
// coordinates) and Gaussian splat scenes that render together into one G-buffer. Loaders fill
// it; GpuScene uploads it.
// No GL, any thread.
#pragma once

#include <string>
#include <vector>

#include "engine/io/GaussianData.h"
#include "engine/io/Image.h"
#include "engine/io/MeshData.h"

namespace tandem::render {

struct SceneObject {
    std::string name; ///< for logs, labels and the overlay (a file name, say)
    io::MeshData mesh;
};

/// Gaussian splats (a 3DGS scene, one frame of a splat sequence), drawn by the splat pass.
struct SplatObject {
    std::string name;
    io::GaussianData gaussians;
};

struct Scene {
    std::vector<SceneObject> objects;
    std::vector<SplatObject> splats;
    /// The colour texture of the meshes that have texture coordinates (a frame's texture image,
    /// say; (0, 0) is the image's bottom-left corner, as in OBJ): it multiplies their vertex
    /// colours. Empty (0×0) when none.
    io::Image texture;

    /// The union of the objects' bounds and the splats' centres.
    io::Bounds bounds() const;
    std::size_t vertexCount() const;
    std::size_t triangleCount() const;
    /// Gaussians of all splat objects.
    std::size_t gaussianCount() const;
};

} // namespace tandem::render
