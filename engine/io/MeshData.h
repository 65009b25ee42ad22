// A mesh or point cloud in host memory, as loaders produce it and render/ uploads it. Per-vertex
// arrays are either empty or as long as positions. No GL, any thread.
#pragma once

#include <cstdint>
#include <vector>

#include <glm/glm.hpp>

namespace tandem::io {

/// Axis-aligned bounds; empty (min > max) when there are no points.
struct Bounds {
    glm::vec3 min{1e30f};
    glm::vec3 max{-1e30f};

    bool isEmpty() const { return min.x > max.x; }
    glm::vec3 center() const { return 0.5f * (min + max); }
    /// Half the diagonal; 0 when empty.
    float radius() const { return isEmpty() ? 0.0f : 0.5f * glm::length(max - min); }
    void extend(const glm::vec3& p)
    {
        min = glm::min(min, p);
        max = glm::max(max, p);
    }
};

/// Vertices plus optional triangles. With no triangles it is a point cloud.
struct MeshData {
    std::vector<glm::vec3> positions;
    std::vector<glm::vec3> normals;     ///< unit length, or empty
    std::vector<glm::u8vec4> colors;    ///< RGBA 0..255, or empty
    std::vector<glm::vec2> texcoords;   ///< or empty
    std::vector<std::uint32_t> indices; ///< triangle list, 3 per triangle; empty for points

    bool isPointCloud() const { return indices.empty(); }
    std::size_t vertexCount() const { return positions.size(); }
    std::size_t triangleCount() const { return indices.size() / 3; }
    Bounds bounds() const;
};

/// Fills `mesh.normals` with area-weighted vertex normals of its triangles (vertices used by no
/// triangle get +Z). Expects a triangle mesh.
void computeVertexNormals(MeshData& mesh);

} // namespace tandem::io
