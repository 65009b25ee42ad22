#include "engine/io/MeshLoader.h"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <system_error>

#include <fmt/format.h>

#include "engine/core/File.h"
#include "engine/io/CwipcReader.h"
#include "engine/io/DracoReader.h"
#include "engine/io/GltfReader.h"
#include "engine/io/Image.h"
#include "engine/io/ObjReader.h"
#include "engine/io/PlyReader.h"

namespace tandem::io {

namespace {

namespace fs = std::filesystem;

/// Whether the bytes start as a PLY file does ("ply" and a line end, after a UTF-8 byte-order
/// mark if there is one).
bool startsWithPlyMagic(std::string_view start)
{
    if (start.starts_with("\xEF\xBB\xBF"))
        start.remove_prefix(3);
    return start.starts_with("ply\n") || start.starts_with("ply\r");
}

/// The image beside `file` with its name (frame_0001.obj and frame_0001.png, .jpg or .jpeg), as
/// capture pipelines that write textured meshes lay them out; empty when there is none.
fs::path siblingTexture(const fs::path& file)
{
    for (const char* extension : {".png", ".jpg", ".jpeg", ".PNG", ".JPG", ".JPEG"}) {
        fs::path image = file;
        image.replace_extension(extension);
        std::error_code ec;
        if (fs::is_regular_file(image, ec))
            return image;
    }
    return {};
}

/// Gives `mesh` its texture (see loadMesh()), adding what is wrong with it to `warnings`.
Result<bool> addTexture(const fs::path& path, const MeshLoadOptions& options, MeshData& mesh,
                        std::vector<std::string>& warnings)
{
    if (mesh.positions.empty())
        return true; // nothing left to draw (dropUnusableVertices())
    const bool textured = !mesh.isPointCloud() && !mesh.texcoords.empty();
    if (textured && !options.texture && mesh.texture.width > 0)
        return true; // the file's own (a GLB's embedded image)
    fs::path file = options.texture ? *options.texture : mesh.textureFile;
    mesh.textureFile.clear();
    if (!textured) {
        if (!file.empty())
            warnings.push_back(
                fmt::format("{}: texture {} not drawn: {}", path.string(), file.filename().string(),
                            mesh.isPointCloud() ? "points are not textured"
                                                : "the mesh has no texture coordinates"));
        return true;
    }
    if (file.empty())
        file = siblingTexture(path);
    if (file.empty()) {
        warnings.push_back(fmt::format("{}: has texture coordinates but no texture (no map_Kd "
                                       "in its materials, no {} .png or .jpg beside it): drawn "
                                       "with its vertex colours",
                                       path.string(), path.stem().string()));
        return true;
    }
    auto image = readImage(file);
    if (!image) {
        if (options.texture)
            return fail(fmt::format("{} (the texture of {})", image.error(), path.string()));
        warnings.push_back(
            fmt::format("{}: its texture is not drawn: {}", path.string(), image.error()));
        return true;
    }
    mesh.texture = std::move(image.value());
    mesh.textureFile = file;
    return true;
}

/// The mesh a reader gave for `path`, completed: its texture, and normals for a mesh without.
Result<MeshData> completed(const fs::path& path, const MeshLoadOptions& options,
                           Result<MeshData> result)
{
    if (!result)
        return result;
    MeshData& mesh = result.value();
    std::vector<std::string> warnings;
    if (auto textured = addTexture(path, options, mesh, warnings); !textured)
        return fail(textured.error());
    for (std::string& warning : warnings)
        result.addWarning(std::move(warning));
    if (!mesh.isPointCloud() && mesh.normals.empty())
        computeVertexNormals(mesh);
    return result;
}

} // namespace

Result<MeshData> loadMesh(const fs::path& path, const MeshLoadOptions& options)
{
    std::string extension = path.extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    // Opened as readers open it: a missing file, a folder, a FIFO are named here.
    auto start = readFileStart(path, 8);
    if (!start)
        return fail(start.error());
    const std::string_view magic(reinterpret_cast<const char*>(start.value().data()),
                                 start.value().size());

    Result<MeshData> result = fail("");
    if (extension == ".ply" || startsWithPlyMagic(magic))
        result = readPly(path);
    else if (extension == ".obj")
        result = readObj(path);
    else if (extension == ".cwipcdump" || isCwipcDump(start.value()))
        result = readCwipcDump(path);
    else if (extension == ".drc" || isDraco(start.value()))
        result = readDraco(path);
    else if (extension == ".glb" || extension == ".gltf" || isGlb(start.value()))
        result = readGltf(path);
    else
        return fail(fmt::format("{}: unknown mesh format '{}' (expected .ply, .obj, .cwipcdump, "
                                ".drc, .glb or .gltf)",
                                path.string(), extension));
    return completed(path, options, std::move(result));
}

Result<MeshData> loadPlyMesh(const fs::path& path, std::span<const std::uint8_t> bytes,
                             const MeshLoadOptions& options)
{
    return completed(path, options, readPly(path, bytes));
}

} // namespace tandem::io
