#include "engine/render/GpuMesh.h"

#include <cstddef>
#include <string>
#include <vector>

#include "engine/render/Bindings.h"

namespace tandem::render {

GpuMesh::GpuMesh(const io::MeshData& mesh, std::string_view label)
    : m_vertexCount(static_cast<std::uint32_t>(mesh.positions.size())),
      m_indexCount(static_cast<std::uint32_t>(mesh.indices.size())),
      m_hasColors(!mesh.colors.empty()), m_hasNormals(!mesh.normals.empty()),
      m_bounds(mesh.bounds())
{
    std::vector<Vertex> vertices(mesh.positions.size());
    for (std::size_t i = 0; i < vertices.size(); ++i) {
        vertices[i].position = mesh.positions[i];
        vertices[i].normal = m_hasNormals ? mesh.normals[i] : glm::vec3(0.0f);
        vertices[i].color = m_hasColors ? mesh.colors[i] : glm::u8vec4(255);
        vertices[i].texcoord = mesh.texcoords.empty() ? glm::vec2(0.0f) : mesh.texcoords[i];
    }
    const std::string name(label);
    m_vertices =
        gl::Buffer(vertices.size() * sizeof(Vertex), vertices.data(), 0, name + " vertices");
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
    if (m_indexCount > 0) {
        m_indices = gl::Buffer(mesh.indices.size() * sizeof(std::uint32_t), mesh.indices.data(), 0,
                               name + " indices");
        m_vertexArray.setIndexBuffer(m_indices);
        // Counting sort of triangles by their last vertex (GL_LAST_VERTEX_CONVENTION).
        const std::size_t triangles = mesh.indices.size() / 3;
        std::vector<std::uint32_t> offsets(vertices.size() + 1, 0);
        for (std::size_t t = 0; t < triangles; ++t)
            ++offsets[mesh.indices[3 * t + 2] + 1];
        for (std::size_t v = 0; v < vertices.size(); ++v)
            offsets[v + 1] += offsets[v];
        std::vector<std::uint32_t> byVertex(triangles);
        std::vector<std::uint32_t> next(offsets.begin(), offsets.end() - 1);
        for (std::size_t t = 0; t < triangles; ++t)
            byVertex[next[mesh.indices[3 * t + 2]]++] = static_cast<std::uint32_t>(t);
        m_provokingOffsets = gl::Buffer(offsets.size() * sizeof(std::uint32_t), offsets.data(), 0,
                                        name + " provoking offsets");
        m_provokingTriangles = gl::Buffer(byVertex.size() * sizeof(std::uint32_t), byVertex.data(),
                                          0, name + " provoking triangles");
    }
}

} // namespace tandem::render
