#include "engine/io/MeshData.h"

namespace tandem::io {

Bounds MeshData::bounds() const
{
    Bounds bounds;
    for (const auto& p : positions)
        bounds.extend(p);
    return bounds;
}

void computeVertexNormals(MeshData& mesh)
{
    std::vector<glm::vec3> sums(mesh.positions.size(), glm::vec3(0.0f));
    for (std::size_t i = 0; i + 2 < mesh.indices.size(); i += 3) {
        const std::uint32_t a = mesh.indices[i], b = mesh.indices[i + 1], c = mesh.indices[i + 2];
        // The cross product's length is twice the area: larger faces weigh more.
        const glm::vec3 n = glm::cross(mesh.positions[b] - mesh.positions[a],
                                       mesh.positions[c] - mesh.positions[a]);
        sums[a] += n;
        sums[b] += n;
        sums[c] += n;
    }
    mesh.normals.resize(sums.size());
    for (std::size_t i = 0; i < sums.size(); ++i) {
        const float length = glm::length(sums[i]);
        mesh.normals[i] = length > 0.0f ? sums[i] / length : glm::vec3(0.0f, 0.0f, 1.0f);
    }
}

} // namespace tandem::io
