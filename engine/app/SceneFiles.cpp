#include "engine/app/SceneFiles.h"

#include <filesystem>

#include "engine/core/File.h"
#include "engine/core/Log.h"
#include "engine/io/GaussianReader.h"
#include "engine/io/GaussianTransform.h"
#include "engine/io/MeshLoader.h"
#include "engine/render/SceneTexture.h"

namespace tandem::app {

Result<SceneFiles> loadSceneFiles(const std::vector<std::string>& files, UpAxis up)
{
    SceneFiles loaded;
    loaded.files = files;
    if (loaded.files.empty()) {
        loaded.files.push_back((dataRoot() / "assets" / "sample.ply").string());
        log::info("no file given: showing the built-in sample {}", loaded.files.front());
    }
    for (const std::string& file : loaded.files) {
        if (io::isSplatFile(file)) {
            auto gaussians = io::readGaussians(file);
            if (!gaussians)
                return fail(gaussians.error());
            for (const auto& warning : gaussians.warnings())
                log::warning("{}", warning);
            log::info("{}: {} Gaussians, SH degree {}", file, gaussians.value().count(),
                      gaussians.value().shDegree);
            loaded.scene.splats.push_back(
                {std::filesystem::path(file).filename().string(), std::move(gaussians.value())});
            continue;
        }
        auto mesh = io::loadMesh(file);
        if (!mesh)
            return fail(mesh.error());
        for (const auto& warning : mesh.warnings())
            log::warning("{}", warning);
        log::info("{}: {} vertices, {} triangles{}{}", file, mesh.value().vertexCount(),
                  mesh.value().triangleCount(), mesh.value().colors.empty() ? "" : ", colours",
                  mesh.value().normals.empty() ? "" : ", normals");
        // Its .mtl texture (map_Kd) comes with it.
        auto added =
            render::addObject(loaded.scene, {std::filesystem::path(file).filename().string(),
                                             std::move(mesh.value())});
        if (!added)
            return fail(added.error());
        for (const auto& warning : added.warnings())
            log::warning("{}", warning);
    }
    if (up != UpAxis::PlusY) {
        const glm::dmat3 turn = upTurn(up);
        for (render::SceneObject& object : loaded.scene.objects)
            io::turnMesh(object.mesh, turn);
        for (render::SplatObject& splat : loaded.scene.splats)
            io::turnGaussians(splat.gaussians, turn);
        log::info("scene turned: its {} axis up", UpAxes.name(up));
    }
    return loaded;
}

} // namespace tandem::app
