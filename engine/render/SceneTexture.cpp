#include "engine/render/SceneTexture.h"

#include <utility>

#include <fmt/format.h>

#include "engine/render/SceneLayout.h"

namespace tandem::render {

namespace {

/// What a warning calls the image of `object`.
std::string imageName(const SceneObject& object)
{
    return object.mesh.textureFile.empty() ? std::string("its image")
                                           : object.mesh.textureFile.filename().string();
}

} // namespace

Result<bool> addObject(Scene& scene, SceneObject object)
{
    io::MeshData& mesh = object.mesh;
    std::vector<std::string> warnings;
    const bool hasTexture = !mesh.texture.pixels.empty();
    if (hasTexture && scene.texture.pixels.empty()) {
        const auto side = static_cast<int>(MaxTextureSize);
        if (mesh.texture.width > side || mesh.texture.height > side)
            return fail(fmt::format("{}: a {}x{} texture exceeds {}x{} (the texture of {})",
                                    imageName(object), mesh.texture.width, mesh.texture.height,
                                    side, side, object.name));
        for (SceneObject& other : scene.objects)
            other.mesh.texcoords.clear();
        scene.texture = std::move(mesh.texture);
    } else if (hasTexture) {
        std::string first = "another object";
        for (const SceneObject& other : scene.objects)
            if (!other.mesh.texcoords.empty())
                first = fmt::format("{}'s ({})", other.name, imageName(other));
        warnings.push_back(fmt::format("{}: texture {} not drawn: a scene draws one texture and "
                                       "{} came first; {} is drawn with its vertex colours",
                                       object.name, imageName(object), first, object.name));
        mesh.texcoords.clear();
    } else if (!scene.texture.pixels.empty()) {
        mesh.texcoords.clear();
    }
    mesh.texture = io::Image{};
    scene.objects.push_back(std::move(object));
    Result<bool> result(true);
    for (std::string& warning : warnings)
        result.addWarning(std::move(warning));
    return result;
}

} // namespace tandem::render
