#include "engine/render/GpuScene.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
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

std::size_t SceneCounts::bytes() const
{
    const std::size_t vertex =
        compact ? sizeof(glm::vec3) + sizeof(PointAttributes) : sizeof(Vertex);
    return std::size_t{objects} * sizeof(GpuObject) + std::size_t{vertices} * vertex +
           (std::size_t{indices} + provokingOffsets + provokingTriangles) * sizeof(std::uint32_t) +
           textureBytes();
}

SceneCounts SceneCounts::max(const SceneCounts& a, const SceneCounts& b)
{
    return {std::max(a.objects, b.objects),
            std::max(a.vertices, b.vertices),
            std::max(a.indices, b.indices),
            std::max(a.provokingOffsets, b.provokingOffsets),
            std::max(a.provokingTriangles, b.provokingTriangles),
            a.compact && b.compact,
            std::max(a.textureWidth, b.textureWidth),
            std::max(a.textureHeight, b.textureHeight)};
}

bool SceneCounts::fitsIn(const SceneCounts& c) const
{
    return objects <= c.objects && vertices <= c.vertices && indices <= c.indices &&
           provokingOffsets <= c.provokingOffsets && provokingTriangles <= c.provokingTriangles;
}

SceneCounts SceneView::counts() const
{
    return {static_cast<std::uint32_t>(objects.size()),
            static_cast<std::uint32_t>(isCompact() ? positions.size() : vertices.size()),
            static_cast<std::uint32_t>(indices.size()),
            static_cast<std::uint32_t>(provokingOffsets.size()),
            static_cast<std::uint32_t>(provokingTriangles.size()),
            isCompact(),
            textureWidth,
            textureHeight};
}

namespace {

/// Throws when `scene` cannot be indexed with 32 bits.
void checkIndexable(std::size_t vertices, std::size_t indices)
{
    if (vertices > std::numeric_limits<std::uint32_t>::max() - 1 ||
        indices > std::numeric_limits<std::uint32_t>::max())
        throw Error(fmt::format("a scene of {} vertices and {} indices exceeds 32-bit indexing",
                                vertices, indices),
                    "render::GpuScene");
}

Vertex vertexOf(const io::MeshData& mesh, std::size_t i)
{
    Vertex v;
    v.position = mesh.positions[i];
    v.normal = mesh.normals.empty() ? glm::vec3(0.0f) : mesh.normals[i];
    v.color = mesh.colors.empty() ? glm::u8vec4(255) : mesh.colors[i];
    v.texcoord = mesh.texcoords.empty() ? glm::vec2(0.0f) : mesh.texcoords[i];
    return v;
}

/// The object records of `scene` (objects without vertices skipped), calling
/// `object(record, mesh)` for each in order. Triangles are numbered first (in object order, as
/// they lie in the index buffer), then points.
template <class F> void forEachRecord(const Scene& scene, F&& object)
{
    const std::size_t triangles = scene.triangleCount();
    std::uint32_t nextPoint = static_cast<std::uint32_t>(triangles);
    std::uint32_t nextTriangle = 0, firstVertex = 0;
    const bool textured = !scene.texture.pixels.empty();
    for (const auto& o : scene.objects) {
        const io::MeshData& mesh = o.mesh;
        if (mesh.positions.empty())
            continue;
        GpuObject record{};
        record.firstVertex = firstVertex;
        record.vertexCount = static_cast<std::uint32_t>(mesh.positions.size());
        const bool points = mesh.isPointCloud();
        record.flags = (points ? ObjectIsPoints : 0u) |
                       (!mesh.colors.empty() ? ObjectHasColors : 0u) |
                       (!mesh.normals.empty() ? ObjectHasNormals : 0u) |
                       (textured && !points && !mesh.texcoords.empty() ? ObjectHasTexture : 0u);
        if (points) {
            record.firstPrimitive = nextPoint;
            nextPoint += record.vertexCount;
        } else {
            record.firstPrimitive = nextTriangle;
            nextTriangle += static_cast<std::uint32_t>(mesh.triangleCount());
        }
        firstVertex += record.vertexCount;
        object(record, o);
    }
}

/// Counting sort of triangles by their last vertex (GL_LAST_VERTEX_CONVENTION), over the
/// vertices up to the last mesh's: point clouds have no triangles and need no entries.
/// `offsets` has meshVertexEnd + 1 entries, `byVertex` one per triangle.
void buildProvokingTable(std::span<const std::uint32_t> indices, std::span<std::uint32_t> offsets,
                         std::span<std::uint32_t> byVertex)
{
    const std::size_t triangles = indices.size() / 3;
    std::fill(offsets.begin(), offsets.end(), 0u);
    for (std::size_t t = 0; t < triangles; ++t)
        ++offsets[indices[3 * t + 2] + 1];
    for (std::size_t v = 0; v + 1 < offsets.size(); ++v)
        offsets[v + 1] += offsets[v];
    std::vector<std::uint32_t> next(offsets.begin(), offsets.end() - (offsets.empty() ? 0 : 1));
    for (std::size_t t = 0; t < triangles; ++t)
        byVertex[next[indices[3 * t + 2]]++] = static_cast<std::uint32_t>(t);
}

} // namespace

SceneCounts sceneCounts(const Scene& scene)
{
    SceneCounts c;
    forEachRecord(scene, [&](const GpuObject&, const SceneObject&) { ++c.objects; });
    checkIndexable(scene.vertexCount(), scene.triangleCount() * 3);
    c.vertices = static_cast<std::uint32_t>(scene.vertexCount());
    c.indices = static_cast<std::uint32_t>(scene.triangleCount() * 3);
    const std::size_t end = meshVertexEnd(scene);
    c.provokingOffsets = c.indices > 0 ? static_cast<std::uint32_t>(end + 1) : 0u;
    c.provokingTriangles = c.indices / 3;
    c.compact = c.vertices > 0 && c.indices == 0;
    for (const auto& object : scene.objects)
        c.compact = c.compact && object.mesh.isPointCloud();
    if (!scene.texture.pixels.empty()) {
        c.textureWidth = static_cast<std::uint32_t>(scene.texture.width);
        c.textureHeight = static_cast<std::uint32_t>(scene.texture.height);
    }
    return c;
}

void layOutScene(const Scene& scene, const SceneArrays& out)
{
    std::size_t object = 0, vertex = 0, index = 0;
    const bool compact = !out.positions.empty();
    forEachRecord(scene, [&](const GpuObject& record, const SceneObject& o) {
        out.objects[object++] = record;
        const io::MeshData& mesh = o.mesh;
        for (std::size_t i = 0; i < mesh.positions.size(); ++i, ++vertex) {
            const Vertex v = vertexOf(mesh, i);
            if (!compact) {
                out.vertices[vertex] = v;
                continue;
            }
            // The attributes the CUDA point pass would pack from the vertex, packed now.
            PointVertex p;
            std::memcpy(&p, &v, sizeof(p));
            out.positions[vertex] = v.position;
            out.attributes[vertex] = packPoint(p, record.flags);
        }
        for (std::uint32_t i : mesh.indices)
            out.indices[index++] = record.firstVertex + i;
    });
    if (!out.provokingOffsets.empty())
        buildProvokingTable(out.indices, out.provokingOffsets, out.provokingTriangles);
    if (!out.texels.empty())
        std::memcpy(out.texels.data(), scene.texture.pixels.data(), out.texels.size());
}

Result<bool> validateScene(const SceneView& view, const std::string& name)
{
    if (view.isCompact() && (view.attributes.size() != view.positions.size() ||
                             !view.vertices.empty() || !view.indices.empty()))
        return fail(fmt::format("{}: compact points with {} positions, {} attributes, {} "
                                "vertices and {} indices",
                                name, view.positions.size(), view.attributes.size(),
                                view.vertices.size(), view.indices.size()));
    const std::size_t vertices = view.isCompact() ? view.positions.size() : view.vertices.size();
    if (view.textureWidth > MaxTextureSize || view.textureHeight > MaxTextureSize ||
        (view.textureWidth == 0) != (view.textureHeight == 0) ||
        view.texels.size() != view.counts().textureBytes())
        return fail(fmt::format("{}: a {}x{} texture with {} bytes", name, view.textureWidth,
                                view.textureHeight, view.texels.size()));
    std::size_t triangles = 0, vertexEnd = 0;
    for (const GpuObject& o : view.objects) {
        if (std::size_t{o.firstVertex} + o.vertexCount > vertices)
            return fail(fmt::format("{}: an object's vertices {}..{} lie past the {} vertices",
                                    name, o.firstVertex, std::size_t{o.firstVertex} + o.vertexCount,
                                    vertices));
        if (view.isCompact() && !(o.flags & ObjectIsPoints))
            return fail(fmt::format("{}: a mesh object among compact points", name));
        if ((o.flags & ObjectHasTexture) && view.texels.empty())
            return fail(fmt::format("{}: a textured object and no texture", name));
        if (!(o.flags & ObjectIsPoints))
            vertexEnd =
                std::max<std::size_t>(vertexEnd, std::size_t{o.firstVertex} + o.vertexCount);
    }
    if (view.indices.size() % 3 != 0)
        return fail(
            fmt::format("{}: {} indices are not whole triangles", name, view.indices.size()));
    triangles = view.indices.size() / 3;
    for (std::uint32_t i : view.indices)
        if (i >= vertices)
            return fail(fmt::format("{}: triangle index {} is out of range ({} vertices)", name, i,
                                    vertices));
    if (triangles > 0) {
        if (view.provokingTriangles.size() != triangles ||
            view.provokingOffsets.size() < vertexEnd + 1 ||
            view.provokingOffsets.size() > vertices + 1)
            return fail(
                fmt::format("{}: the provoking-vertex table does not match the triangles", name));
        std::uint32_t previous = 0;
        for (std::uint32_t offset : view.provokingOffsets) {
            if (offset < previous || offset > triangles)
                return fail(fmt::format("{}: the provoking-vertex table is out of order", name));
            previous = offset;
        }
        for (std::uint32_t t : view.provokingTriangles)
            if (t >= triangles)
                return fail(fmt::format("{}: the provoking-vertex table names triangle {} of {}",
                                        name, t, triangles));
    }
    return true;
}

std::size_t gpuBytesOf(const Scene& scene)
{
    const std::size_t triangles = scene.triangleCount();
    return scene.vertexCount() * sizeof(Vertex) + triangles * 3 * sizeof(std::uint32_t) +
           (meshVertexEnd(scene) + 1 + triangles) * sizeof(std::uint32_t) +
           scene.objects.size() * sizeof(GpuObject) + scene.texture.pixels.size();
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

namespace {

std::uint64_t nextSerial()
{
    static std::atomic<std::uint64_t> serials{0};
    return ++serials;
}

} // namespace

void GpuScene::makeLayout(const std::string& name, bool indexed)
{
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
    if (indexed)
        m_vertexArray.setIndexBuffer(m_indices);
}

GpuScene::GpuScene(const Scene& scene, std::string_view label)
    : m_serial(nextSerial()), m_bounds(scene.bounds())
{
    checkIndexable(scene.vertexCount(), scene.triangleCount() * 3);
    auto fits = checkGpuMemory(scene, gl::freeVideoMemory());
    if (!fits)
        throw Error(fits.error(), "render::GpuScene");
    m_gpuBytes = fits.value() - scene.texture.pixels.size();
    const std::string name(label);
    // Vertices go up in chunks through one staging block: a 100 M-point cloud never exists
    // twice in host memory.
    const std::size_t vertexTotal = scene.vertexCount();
    m_vertices = gl::Buffer(vertexTotal * sizeof(Vertex), nullptr, GL_DYNAMIC_STORAGE_BIT,
                            name + " vertices");
    constexpr std::size_t ChunkVertices = std::size_t{1} << 20;
    std::vector<Vertex> staging;
    std::vector<std::uint32_t> indices;
    indices.reserve(scene.triangleCount() * 3);
    std::size_t uploaded = 0;
    forEachRecord(scene, [&](const GpuObject& record, const SceneObject& object) {
        const io::MeshData& mesh = object.mesh;
        for (std::size_t begin = 0; begin < mesh.positions.size(); begin += ChunkVertices) {
            const std::size_t end = std::min(mesh.positions.size(), begin + ChunkVertices);
            staging.resize(end - begin);
            for (std::size_t i = begin; i < end; ++i)
                staging[i - begin] = vertexOf(mesh, i);
            m_vertices.write(uploaded * sizeof(Vertex), staging.data(),
                             staging.size() * sizeof(Vertex));
            uploaded += staging.size();
        }
        for (std::uint32_t index : mesh.indices)
            indices.push_back(record.firstVertex + index);
        m_objects.push_back(record);
        m_names.push_back(object.name);
    });
    m_vertexCount = static_cast<std::uint32_t>(uploaded);
    m_indexCount = static_cast<std::uint32_t>(indices.size());
    m_objectBuffer =
        gl::Buffer(m_objects.size() * sizeof(GpuObject), m_objects.data(), 0, name + " objects");
    std::vector<std::uint32_t> offsets(meshVertexEnd(scene) + 1, 0);
    std::vector<std::uint32_t> byVertex(indices.size() / 3);
    buildProvokingTable(indices, offsets, byVertex);
    m_indices =
        gl::Buffer(indices.size() * sizeof(std::uint32_t), indices.data(), 0, name + " indices");
    m_provokingOffsets = gl::Buffer(offsets.size() * sizeof(std::uint32_t), offsets.data(), 0,
                                    name + " provoking offsets");
    m_provokingTriangles = gl::Buffer(byVertex.size() * sizeof(std::uint32_t), byVertex.data(), 0,
                                      name + " provoking triangles");
    m_capacity = {static_cast<std::uint32_t>(m_objects.size()), m_vertexCount, m_indexCount,
                  static_cast<std::uint32_t>(offsets.size()),
                  static_cast<std::uint32_t>(byVertex.size())};
    makeLayout(name, !indices.empty());
    if (!scene.texture.pixels.empty())
        setTexture(static_cast<std::uint32_t>(scene.texture.width),
                   static_cast<std::uint32_t>(scene.texture.height), scene.texture.pixels.data());
}

GpuScene::GpuScene(const SceneCounts& capacity, std::string_view label)
    : m_capacity(capacity), m_serial(nextSerial())
{
    checkIndexable(capacity.vertices, capacity.indices);
    const std::size_t needed = capacity.bytes();
    const std::size_t freeBytes = gl::freeVideoMemory();
    if (freeBytes > 0 && needed > freeBytes)
        throw Error(fmt::format("a streamed frame's buffers need {} of GPU memory, and the GPU "
                                "has {} free",
                                formatBytes(needed), formatBytes(freeBytes)),
                    "render::GpuScene");
    m_gpuBytes = needed - capacity.textureBytes();
    const std::string name(label);
    // Zero-sized storage is an error in GL: every buffer holds at least one record.
    const auto bytes = [](std::size_t count, std::size_t size) {
        return std::max<std::size_t>(count, 1) * size;
    };
    // Compact points are expanded into vertices for GL (the CUDA point pass reads them from
    // CUDA memory instead).
    m_vertices = gl::Buffer(bytes(capacity.vertices, sizeof(Vertex)), nullptr,
                            GL_DYNAMIC_STORAGE_BIT, name + " vertices");
    m_indices =
        gl::Buffer(bytes(capacity.indices, 4), nullptr, GL_DYNAMIC_STORAGE_BIT, name + " indices");
    m_provokingOffsets = gl::Buffer(bytes(capacity.provokingOffsets, 4), nullptr,
                                    GL_DYNAMIC_STORAGE_BIT, name + " provoking offsets");
    m_provokingTriangles = gl::Buffer(bytes(capacity.provokingTriangles, 4), nullptr,
                                      GL_DYNAMIC_STORAGE_BIT, name + " provoking triangles");
    m_objectBuffer = gl::Buffer(bytes(capacity.objects, sizeof(GpuObject)), nullptr,
                                GL_DYNAMIC_STORAGE_BIT, name + " objects");
    makeLayout(name, capacity.indices > 0);
}

void GpuScene::setContents(const SceneView& view, bool writeArrays)
{
    TANDEM_ASSERT(view.counts().fitsIn(m_capacity),
                  "render::GpuScene::setContents(): the view exceeds the capacity");
    const auto write = [](gl::Buffer& buffer, const auto& span) {
        if (!span.empty())
            buffer.write(0, span.data(), span.size_bytes());
    };
    write(m_objectBuffer, view.objects);
    if (writeArrays && view.isCompact()) {
        m_expanded.resize(view.positions.size());
        for (std::size_t i = 0; i < view.positions.size(); ++i) {
            const PointAttributes a = view.attributes[i];
            Vertex& v = m_expanded[i];
            v.position = view.positions[i];
            float n[3] = {0.0f, 0.0f, 0.0f};
            if (a.color & PointHasNormal)
                decodeOctahedral(a.normal, n);
            v.normal = {n[0], n[1], n[2]};
            v.color = {static_cast<std::uint8_t>(a.color), static_cast<std::uint8_t>(a.color >> 8),
                       static_cast<std::uint8_t>(a.color >> 16), 255};
            v.texcoord = {0.0f, 0.0f};
        }
        write(m_vertices, std::span<const Vertex>(m_expanded));
    } else if (writeArrays) {
        write(m_vertices, view.vertices);
        write(m_indices, view.indices);
        write(m_provokingOffsets, view.provokingOffsets);
        write(m_provokingTriangles, view.provokingTriangles);
    }
    if (!view.texels.empty())
        setTexture(view.textureWidth, view.textureHeight, view.texels.data());
    m_objects.assign(view.objects.begin(), view.objects.end());
    m_names.assign(m_objects.size(), std::string());
    m_vertexCount = view.counts().vertices;
    m_indexCount = static_cast<std::uint32_t>(view.indices.size());
    m_bounds = view.bounds;
    m_serial = nextSerial();
}

void GpuScene::setTexture(std::uint32_t width, std::uint32_t height, const std::uint8_t* rgba)
{
    const int w = static_cast<int>(width), h = static_cast<int>(height);
    if (m_texture.width() != w || m_texture.height() != h) {
        // Texels are sRGB, as in their files: sampling decodes them to linear colour.
        m_texture = gl::Texture(GL_SRGB8_ALPHA8, w, h, "scene texture");
        glTextureParameteri(m_texture.id(), GL_TEXTURE_MIN_FILTER, GL_LINEAR);
        glTextureParameteri(m_texture.id(), GL_TEXTURE_MAG_FILTER, GL_LINEAR);
        glTextureParameteri(m_texture.id(), GL_TEXTURE_WRAP_S, GL_REPEAT);
        glTextureParameteri(m_texture.id(), GL_TEXTURE_WRAP_T, GL_REPEAT);
        gl::check("glTextureParameteri (scene texture)");
    }
    m_texture.upload(GL_RGBA, GL_UNSIGNED_BYTE, rgba);
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
