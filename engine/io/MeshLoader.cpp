#include "engine/io/MeshLoader.h"

#include <algorithm>
#include <cctype>
#include <fstream>

#include <fmt/format.h>

#include "engine/io/ObjReader.h"
#include "engine/io/PlyReader.h"

namespace tandem::io {

namespace {

bool startsWithPlyMagic(const std::filesystem::path& path)
{
    std::ifstream file(path, std::ios::binary);
    char magic[4] = {};
    file.read(magic, 4);
    return file.gcount() == 4 && magic[0] == 'p' && magic[1] == 'l' && magic[2] == 'y' &&
           (magic[3] == '\n' || magic[3] == '\r');
}

} // namespace

Result<MeshData> loadMesh(const std::filesystem::path& path)
{
    std::string extension = path.extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        return fail(fmt::format("{}: no such file", path.string()));
    if (std::filesystem::is_directory(path, ec))
        return fail(fmt::format("{}: is a directory, not a mesh file", path.string()));

    Result<MeshData> result = fail("");
    if (extension == ".ply" || startsWithPlyMagic(path))
        result = readPly(path);
    else if (extension == ".obj")
        result = readObj(path);
    else
        return fail(fmt::format("{}: unknown mesh format '{}' (expected .ply or .obj)",
                                path.string(), extension));
    if (result && !result.value().isPointCloud() && result.value().normals.empty())
        computeVertexNormals(result.value());
    return result;
}

} // namespace tandem::io
