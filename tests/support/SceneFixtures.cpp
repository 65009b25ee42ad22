#include "tests/support/SceneFixtures.h"

#include <cmath>

namespace tandem::test {

io::MeshData colouredCube()
{
    io::MeshData mesh;
    const glm::vec3 normals[6] = {{1, 0, 0},  {-1, 0, 0}, {0, 1, 0},
                                  {0, -1, 0}, {0, 0, 1},  {0, 0, -1}};
    const glm::u8vec4 colors[6] = {{230, 60, 60, 255},  {60, 230, 60, 255},  {60, 60, 230, 255},
                                   {230, 230, 60, 255}, {60, 230, 230, 255}, {230, 60, 230, 255}};
    for (int f = 0; f < 6; ++f) {
        const glm::vec3 n = normals[f];
        const glm::vec3 u = std::abs(n.x) > 0.5f ? glm::vec3(0, 1, 0) : glm::vec3(1, 0, 0);
        const glm::vec3 v = glm::cross(n, u);
        const auto base = static_cast<std::uint32_t>(mesh.positions.size());
        for (int k = 0; k < 4; ++k) {
            const float su = (k == 1 || k == 2) ? 1.0f : -1.0f;
            const float sv = (k >= 2) ? 1.0f : -1.0f;
            mesh.positions.push_back(n + su * u + sv * v);
            mesh.normals.push_back(n);
            mesh.colors.push_back(colors[f]);
        }
        for (std::uint32_t i : {0u, 1u, 2u, 0u, 2u, 3u})
            mesh.indices.push_back(base + i);
    }
    return mesh;
}

io::MeshData pointGrid()
{
    io::MeshData mesh;
    for (int y = 0; y < 20; ++y)
        for (int x = 0; x < 20; ++x)
            mesh.positions.emplace_back(x * 0.1f, y * 0.1f, std::sin(x * 0.5f) * 0.2f);
    return mesh;
}

io::MeshData pointSheet(int n, float s, float z, glm::u8vec4 colour)
{
    io::MeshData mesh;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            mesh.positions.emplace_back(-s + 2.0f * s * (i + 0.5f) / n,
                                        -s + 2.0f * s * (j + 0.5f) / n, z);
            mesh.colors.push_back(colour);
        }
    return mesh;
}

io::MeshData cubeOnFloor()
{
    io::MeshData mesh = colouredCube();
    // A second, smaller cube leaning into the first, and a floor under both: concave creases
    // for the occlusion and depth-guided stages.
    const io::MeshData small = colouredCube();
    auto append = [&](const io::MeshData& part, float scale, glm::vec3 offset) {
        const auto base = static_cast<std::uint32_t>(mesh.positions.size());
        for (std::size_t i = 0; i < part.positions.size(); ++i) {
            mesh.positions.push_back(part.positions[i] * scale + offset);
            mesh.normals.push_back(part.normals[i]);
            mesh.colors.push_back(part.colors[i]);
        }
        for (std::uint32_t index : part.indices)
            mesh.indices.push_back(index + base);
    };
    append(small, 0.5f, glm::vec3(1.3f, -0.5f, 0.6f));
    const auto base = static_cast<std::uint32_t>(mesh.positions.size());
    for (glm::vec2 corner :
         {glm::vec2(-3, -3), glm::vec2(3, -3), glm::vec2(3, 3), glm::vec2(-3, 3)}) {
        mesh.positions.emplace_back(corner.x, -1.0f, corner.y);
        mesh.normals.emplace_back(0, 1, 0);
        mesh.colors.emplace_back(200, 200, 200, 255);
    }
    for (std::uint32_t i : {0u, 2u, 1u, 0u, 3u, 2u})
        mesh.indices.push_back(base + i);
    return mesh;
}

render::Scene texturedQuad()
{
    render::Scene scene;
    io::MeshData quad;
    quad.positions = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}};
    quad.normals.assign(4, glm::vec3(0, 0, 1));
    quad.texcoords = {{0, 0}, {2, 0}, {2, 2}, {0, 2}};
    quad.colors = {
        {255, 255, 255, 255}, {255, 200, 160, 255}, {160, 255, 200, 255}, {255, 255, 255, 255}};
    quad.indices = {0, 1, 2, 0, 2, 3};
    scene.objects.push_back({"quad", quad});
    scene.texture.width = 16;
    scene.texture.height = 16;
    for (int y = 0; y < 16; ++y)
        for (int x = 0; x < 16; ++x) {
            const bool check = ((x / 4) + (y / 4)) % 2 == 0;
            scene.texture.pixels.insert(scene.texture.pixels.end(),
                                        {static_cast<std::uint8_t>(x * 16),
                                         static_cast<std::uint8_t>(y * 16),
                                         static_cast<std::uint8_t>(check ? 220 : 40), 255});
        }
    return scene;
}

render::Camera insideFloorCamera()
{
    render::Camera camera;
    camera.eye = {0.2f, 0.15f, 1.2f};
    camera.target = {0.0f, 0.0f, -1.0f};
    camera.nearPlane = 0.05f;
    camera.fovY = 80.0f;
    return camera;
}

} // namespace tandem::test
