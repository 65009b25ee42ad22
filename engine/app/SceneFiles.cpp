#include "engine/app/SceneFiles.h"

#include <filesystem>

#include "engine/core/File.h"
#include "engine/core/Log.h"
#include "engine/io/MeshLoader.h"

namespace tandem::app {

Result<SceneFiles> loadSceneFiles(const std::vector<std::string>& files)
{
    SceneFiles loaded;
    loaded.files = files;
    if (loaded.files.empty()) {
        loaded.files.push_back((dataRoot() / "assets" / "sample.ply").string());
        log::info("no file given: showing the built-in sample {}", loaded.files.front());
    }
    for (const std::string& file : loaded.files) {
        auto mesh = io::loadMesh(file);
        if (!mesh)
            return fail(mesh.error());
        for (const auto& warning : mesh.warnings())
            log::warning("{}", warning);
        log::info("{}: {} vertices, {} triangles{}{}", file, mesh.value().vertexCount(),
                  mesh.value().triangleCount(), mesh.value().colors.empty() ? "" : ", colours",
                  mesh.value().normals.empty() ? "" : ", normals");
        loaded.scene.objects.push_back(
            {std::filesystem::path(file).filename().string(), std::move(mesh.value())});
    }
    return loaded;
}

} // namespace tandem::app
