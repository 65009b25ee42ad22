#include "engine/render/GpuScene.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "engine/render/Bindings.h"

namespace tandem::render {

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
    : m_splats(scene.splats), m_serial(nextSerial()), m_bounds(scene.bounds())
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
                                formatGpuBytes(needed), formatGpuBytes(freeBytes)),
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
    // What GL gets from the host, CUDA-resident copies of the buffers get too.
    const auto write = [this](gl::Buffer& buffer, const auto& span) {
        if (span.empty())
            return;
        buffer.write(0, span.data(), span.size_bytes());
        m_registrations.wroteFromHost(buffer, 0, span.data(), span.size_bytes());
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
    m_texels.assign(rgba, rgba + std::size_t{width} * height * 4);
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
