// A mesh or point cloud in host memory, as loaders produce it and render/ uploads it. Per-vertex
// arrays are either empty or as long as positions. No GL, any thread.
#pragma once

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "engine/io/Image.h"

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
    /// The image its texture coordinates sample (io::loadMesh reads it); empty (0×0) when none.
    Image texture;
    /// The file `texture` comes from, or the one the mesh's file names (an OBJ's map_Kd, a
    /// PLY's TextureFile comment) before loadMesh reads it; empty when none.
    std::filesystem::path textureFile;

    bool isPointCloud() const { return indices.empty(); }
    std::size_t vertexCount() const { return positions.size(); }
    std::size_t triangleCount() const { return indices.size() / 3; }
    Bounds bounds() const;
};

/// The largest coordinate magnitude a position may have. Beyond it a float32 coordinate is no
/// geometry a renderer can draw beside anything else (its spacing there is 64 units, and a
/// squared length overflows float near 1.8e19): such values are sentinels or corrupt data (the
/// ±1e20 and FLT_MAX some tools write for invalid points), and one of them would stretch a
/// frame's bounds until its real points fit in no pixel (camera fit, pack quantization).
inline constexpr float MaxCoordinate = 1e9f;

/// Whether a position can be drawn: finite, each coordinate within ±MaxCoordinate. Inline: a
/// reader asks it of every point.
inline bool isUsablePosition(const glm::vec3& p)
{
    // NaN fails every comparison.
    return std::abs(p.x) <= MaxCoordinate && std::abs(p.y) <= MaxCoordinate &&
           std::abs(p.z) <= MaxCoordinate;
}

/// What dropUnusableVertices() removed.
struct DroppedVertices {
    std::size_t vertices = 0;  ///< of `before`
    std::size_t nonFinite = 0; ///< of `vertices`: NaN or infinite coordinates
    std::size_t triangles = 0; ///< triangles that used one of them
    std::size_t before = 0;    ///< vertices before
    bool pointCloud = false;   ///< the mesh was a point cloud
    bool emptied = false;      ///< nothing is left to draw

    bool any() const { return vertices > 0; }
};

/// Removes the vertices whose position is not usable (isUsablePosition()) with their attributes,
/// and every triangle that uses one (a face cannot be drawn without all its corners); the other
/// indices are renumbered. A mesh left without any triangle is emptied (its vertices too), so it
/// does not turn into a point cloud of its corners.
DroppedVertices dropUnusableVertices(MeshData& mesh);

/// The one warning for what was dropped from the file `name` ("scan.ply: dropped 2 of 1000
/// points: NaN or infinite coordinates"), or empty when nothing was.
std::string droppedWarning(const std::string& name, const DroppedVertices& dropped);

/// Fills `mesh.normals` with area-weighted vertex normals of its triangles (vertices used by no
/// triangle get +Z). Expects a triangle mesh.
void computeVertexNormals(MeshData& mesh);

/// The same for part of a mesh: area-weighted normals of `triangles` (3 indices each, into
/// `positions`) written to `normals` (as long as `positions`); vertices no triangle uses get +Z.
void computeVertexNormals(std::span<const glm::vec3> positions,
                          std::span<const std::uint32_t> triangles, std::span<glm::vec3> normals);

} // namespace tandem::io
