#include "engine/io/MeshData.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace tandem::io {

namespace {

/// Keeps the elements of `values` whose `keep` entry is set, in order (nothing when empty).
template <class T> void keepMarked(std::vector<T>& values, const std::vector<bool>& keep)
{
    if (values.empty())
        return;
    std::size_t out = 0;
    for (std::size_t i = 0; i < values.size(); ++i)
        if (keep[i])
            values[out++] = values[i];
    values.resize(out);
}

} // namespace

DroppedVertices dropUnusableVertices(MeshData& mesh)
{
    DroppedVertices dropped;
    dropped.before = mesh.positions.size();
    dropped.pointCloud = mesh.isPointCloud();
    std::vector<bool> keep;
    for (std::size_t i = 0; i < mesh.positions.size(); ++i) {
        const glm::vec3& p = mesh.positions[i];
        if (isUsablePosition(p))
            continue;
        if (keep.empty())
            keep.assign(mesh.positions.size(), true);
        keep[i] = false;
        ++dropped.vertices;
        dropped.nonFinite += !(std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z));
    }
    if (!dropped.any())
        return dropped;

    constexpr std::uint32_t Gone = std::numeric_limits<std::uint32_t>::max();
    std::vector<std::uint32_t> renumbered(mesh.positions.size(), Gone);
    std::uint32_t next = 0;
    for (std::size_t i = 0; i < keep.size(); ++i)
        if (keep[i])
            renumbered[i] = next++;
    std::size_t out = 0;
    for (std::size_t t = 0; t + 2 < mesh.indices.size(); t += 3) {
        const std::uint32_t a = renumbered[mesh.indices[t]], b = renumbered[mesh.indices[t + 1]],
                            c = renumbered[mesh.indices[t + 2]];
        if (a == Gone || b == Gone || c == Gone) {
            ++dropped.triangles;
            continue;
        }
        mesh.indices[out++] = a;
        mesh.indices[out++] = b;
        mesh.indices[out++] = c;
    }
    mesh.indices.resize(out);
    keepMarked(mesh.positions, keep);
    keepMarked(mesh.normals, keep);
    keepMarked(mesh.colors, keep);
    keepMarked(mesh.texcoords, keep);
    if (!dropped.pointCloud && mesh.indices.empty()) {
        mesh.positions.clear();
        mesh.normals.clear();
        mesh.colors.clear();
        mesh.texcoords.clear();
    }
    dropped.emptied = mesh.positions.empty();
    return dropped;
}

std::string droppedWarning(const std::string& name, const DroppedVertices& dropped)
{
    if (!dropped.any())
        return {};
    const std::size_t far = dropped.vertices - dropped.nonFinite;
    std::string why;
    if (dropped.nonFinite > 0)
        why = fmt::format("{} with NaN or infinite coordinates", dropped.nonFinite);
    if (far > 0)
        why += fmt::format("{}{} beyond ±{:g}", why.empty() ? "" : ", ", far, MaxCoordinate);
    const char* kind = dropped.pointCloud ? "point" : "vertex";
    const char* kinds = dropped.pointCloud ? "points" : "vertices";
    std::string text = fmt::format("{}: dropped {} of {} {} ({})", name, dropped.vertices,
                                   dropped.before, dropped.before == 1 ? kind : kinds, why);
    if (dropped.triangles > 0)
        text += fmt::format(" and the {} triangle{} using them", dropped.triangles,
                            dropped.triangles == 1 ? "" : "s");
    if (dropped.emptied)
        text += dropped.pointCloud ? ": nothing is left to draw, the frame is empty"
                                   : ": no triangle is left, the mesh is empty";
    return text;
}

Bounds MeshData::bounds() const
{
    Bounds bounds;
    for (const auto& p : positions)
        bounds.extend(p);
    return bounds;
}

void computeVertexNormals(std::span<const glm::vec3> positions,
                          std::span<const std::uint32_t> triangles, std::span<glm::vec3> normals)
{
    std::vector<glm::vec3> sums(positions.size(), glm::vec3(0.0f));
    for (std::size_t i = 0; i + 2 < triangles.size(); i += 3) {
        const std::uint32_t a = triangles[i], b = triangles[i + 1], c = triangles[i + 2];
        // The cross product's length is twice the area: larger faces weigh more.
        const glm::vec3 n = glm::cross(positions[b] - positions[a], positions[c] - positions[a]);
        sums[a] += n;
        sums[b] += n;
        sums[c] += n;
    }
    for (std::size_t i = 0; i < sums.size(); ++i) {
        const float length = glm::length(sums[i]);
        normals[i] = length > 0.0f ? sums[i] / length : glm::vec3(0.0f, 0.0f, 1.0f);
    }
}

void computeVertexNormals(MeshData& mesh)
{
    mesh.normals.resize(mesh.positions.size());
    computeVertexNormals(mesh.positions, mesh.indices, mesh.normals);
}

} // namespace tandem::io
