// A scene in host memory: several named objects (meshes and point clouds, in world
// coordinates) that render together into one G-buffer. Loaders fill it; GpuScene uploads it.
// No GL, any thread.
#pragma once

#include <string>
#include <vector>

#include "engine/io/Image.h"
#include "engine/io/MeshData.h"

namespace tandem::render {

struct SceneObject {
    std::string name; ///< for logs, labels and the overlay (a file name, say)
    io::MeshData mesh;
};

struct Scene {
    std::vector<SceneObject> objects;
    /// The colour texture of the meshes that have texture coordinates (a frame's texture image,
    /// say; (0, 0) is the image's bottom-left corner, as in OBJ): it multiplies their vertex
    /// colours. Empty (0×0) when none.
    io::Image texture;

    /// The union of the objects' bounds.
    io::Bounds bounds() const;
    std::size_t vertexCount() const;
    std::size_t triangleCount() const;
};

} // namespace tandem::render
