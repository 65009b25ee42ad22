#include "engine/render/GpuScene.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "engine/render/Bindings.h"

namespace tandem::render {

io::Bounds Scene::bounds() const
{
    io::Bounds b;
    for (const auto& object : objects) {
        const io::Bounds o = object.mesh.bounds();
        if (!o.isEmpty()) {
            b.extend(o.min);
            b.extend(o.max);
        }
    }
    return b;
}

std::size_t Scene::vertexCount() const
{
    std::size_t n = 0;
    for (const auto& object : objects)
        n += object.mesh.vertexCount();
    return n;
}

std::size_t Scene::triangleCount() const
{
    std::size_t n = 0;
    for (const auto& object : objects)
        n += object.mesh.triangleCount();
    return n;
}

namespace {

/// "3.62 GiB", "12.4 MiB".
std::string formatBytes(std::size_t bytes)
{
    const double mib = static_cast<double>(bytes) / (1024.0 * 1024.0);
    return mib >= 1024.0 ? fmt::format("{:.2f} GiB", mib / 1024.0) : fmt::format("{:.1f} MiB", mib);
}

/// One past the last vertex of a mesh (not a point cloud): the provoking table's extent.
std::size_t meshVertexEnd(const Scene& scene)
{
    std::size_t first = 0, end = 0;
    for (const auto& object : scene.objects) {
        const std::size_t count = object.mesh.positions.size();
        if (count > 0 && !object.mesh.isPointCloud())
            end = first + count;
        first += count;
    }
    return end;
}

} // namespace

std::size_t gpuBytesOf(const Scene& scene)
{
    const std::size_t triangles = scene.triangleCount();
    return scene.vertexCount() * sizeof(Vertex) + triangles * 3 * sizeof(std::uint32_t) +
           (meshVertexEnd(scene) + 1 + triangles) * sizeof(std::uint32_t) +
           scene.objects.size() * sizeof(GpuObject);
}

Result<std::size_t> checkGpuMemory(const Scene& scene, std::size_t freeBytes)
{
    const std::size_t needed = gpuBytesOf(scene);
    if (freeBytes > 0 && needed > freeBytes)
        return fail(fmt::format("the scene ({} vertices, {} triangles) needs {} of GPU memory, "
                                "and the GPU has {} free",
                                scene.vertexCount(), scene.triangleCount(), formatBytes(needed),
                                formatBytes(freeBytes)));
    return needed;
}

GpuScene::GpuScene(const Scene& scene, std::string_view label) : m_bounds(scene.bounds())
{
    static std::atomic<std::uint64_t> serials{0};
    m_serial = ++serials;
    const std::size_t vertexTotal = scene.vertexCount();
    const std::size_t indexTotal = scene.triangleCount() * 3;
    if (vertexTotal > std::numeric_limits<std::uint32_t>::max() - 1 ||
        indexTotal > std::numeric_limits<std::uint32_t>::max())
        throw Error(fmt::format("a scene of {} vertices and {} indices exceeds 32-bit indexing",
                                vertexTotal, indexTotal),
                    "render::GpuScene");
    auto fits = checkGpuMemory(scene, gl::freeVideoMemory());
    if (!fits)
        throw Error(fits.error(), "render::GpuScene");
    m_gpuBytes = fits.value();
    const std::string name(label);
    // Vertices go up in chunks through one staging block: a 100 M-point cloud never exists
    // twice in host memory.
    m_vertices = gl::Buffer(vertexTotal * sizeof(Vertex), nullptr, GL_DYNAMIC_STORAGE_BIT,
                            name + " vertices");
    constexpr std::size_t ChunkVertices = std::size_t{1} << 20;
    std::vector<Vertex> staging;
    std::vector<std::uint32_t> indices;
    indices.reserve(indexTotal);
    // Triangles are numbered first (in object order, as they lie in the index buffer), then
    // points: count the triangles before numbering the points.
    std::uint32_t nextPoint = static_cast<std::uint32_t>(indexTotal / 3);
    std::size_t uploaded = 0;
    for (const auto& object : scene.objects) {
        const io::MeshData& mesh = object.mesh;
        if (mesh.positions.empty())
            continue;
        GpuObject record{};
        record.firstVertex = static_cast<std::uint32_t>(uploaded);
        record.vertexCount = static_cast<std::uint32_t>(mesh.positions.size());
        const bool points = mesh.isPointCloud();
        record.flags = (points ? ObjectIsPoints : 0u) |
                       (!mesh.colors.empty() ? ObjectHasColors : 0u) |
                       (!mesh.normals.empty() ? ObjectHasNormals : 0u);
        for (std::size_t begin = 0; begin < mesh.positions.size(); begin += ChunkVertices) {
            const std::size_t end = std::min(mesh.positions.size(), begin + ChunkVertices);
            staging.resize(end - begin);
            for (std::size_t i = begin; i < end; ++i) {
                Vertex& v = staging[i - begin];
                v.position = mesh.positions[i];
                v.normal = mesh.normals.empty() ? glm::vec3(0.0f) : mesh.normals[i];
                v.color = mesh.colors.empty() ? glm::u8vec4(255) : mesh.colors[i];
                v.texcoord = mesh.texcoords.empty() ? glm::vec2(0.0f) : mesh.texcoords[i];
            }
            m_vertices.write(uploaded * sizeof(Vertex), staging.data(),
                             staging.size() * sizeof(Vertex));
            uploaded += staging.size();
        }
        if (points) {
            record.firstPrimitive = nextPoint;
            nextPoint += record.vertexCount;
        } else {
            record.firstPrimitive = static_cast<std::uint32_t>(indices.size() / 3);
            for (std::uint32_t index : mesh.indices)
                indices.push_back(record.firstVertex + index);
        }
        m_objects.push_back(record);
        m_names.push_back(object.name);
    }
    m_vertexCount = static_cast<std::uint32_t>(uploaded);
    m_indexCount = static_cast<std::uint32_t>(indices.size());

    m_vertexArray = gl::VertexArray(name + " layout");
    m_vertexArray.setVertexBuffer(0, m_vertices, 0, sizeof(Vertex));
    m_vertexArray.setAttribute(binding::AttrPosition, 0, 3, GL_FLOAT, false,
                               offsetof(Vertex, position));
    m_vertexArray.setAttribute(binding::AttrNormal, 0, 3, GL_FLOAT, false,
                               offsetof(Vertex, normal));
    m_vertexArray.setAttribute(binding::AttrColor, 0, 4, GL_UNSIGNED_BYTE, true,
                               offsetof(Vertex, color));
    m_vertexArray.setAttribute(binding::AttrTexcoord, 0, 2, GL_FLOAT, false,
                               offsetof(Vertex, texcoord));
    m_objectBuffer =
        gl::Buffer(m_objects.size() * sizeof(GpuObject), m_objects.data(), 0, name + " objects");
    // Counting sort of triangles by their last vertex (GL_LAST_VERTEX_CONVENTION), over the
    // vertices up to the last mesh's: point clouds have no triangles and need no entries.
    const std::size_t triangles = indices.size() / 3;
    std::vector<std::uint32_t> offsets(meshVertexEnd(scene) + 1, 0);
    for (std::size_t t = 0; t < triangles; ++t)
        ++offsets[indices[3 * t + 2] + 1];
    for (std::size_t v = 0; v + 1 < offsets.size(); ++v)
        offsets[v + 1] += offsets[v];
    std::vector<std::uint32_t> byVertex(triangles);
    std::vector<std::uint32_t> next(offsets.begin(), offsets.end() - 1);
    for (std::size_t t = 0; t < triangles; ++t)
        byVertex[next[indices[3 * t + 2]]++] = static_cast<std::uint32_t>(t);
    m_indices =
        gl::Buffer(indices.size() * sizeof(std::uint32_t), indices.data(), 0, name + " indices");
    if (!indices.empty())
        m_vertexArray.setIndexBuffer(m_indices);
    m_provokingOffsets = gl::Buffer(offsets.size() * sizeof(std::uint32_t), offsets.data(), 0,
                                    name + " provoking offsets");
    m_provokingTriangles = gl::Buffer(byVertex.size() * sizeof(std::uint32_t), byVertex.data(), 0,
                                      name + " provoking triangles");
}

std::uint32_t GpuScene::pointCount() const
{
    std::uint32_t n = 0;
    for (const auto& object : m_objects)
        if (object.flags & ObjectIsPoints)
            n += object.vertexCount;
    return n;
}

bool GpuScene::hasPoints() const
{
    for (const auto& object : m_objects)
        if (object.flags & ObjectIsPoints)
            return true;
    return false;
}

} // namespace tandem::render
