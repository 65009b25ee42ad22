// Reads Wavefront material libraries (.mtl, named by an OBJ's mtllib) for what tandem draws:
// each material's name and its diffuse colour texture (map_Kd), as Blender, Open3D and assimp
// write them. Other statements (Kd, Ns, illum, other maps) are skipped. Any thread.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/Result.h"

namespace tandem::io {

/// One `newmtl` block of a material library.
struct Material {
    std::string name; ///< as `usemtl` names it (the first word after `newmtl`)
    /// map_Kd's image: as written by parseMtl() (a '\' turned into '/'), resolved by readMtl();
    /// empty when the material has none.
    std::filesystem::path diffuseTexture;
};

/// Parses the text of a material library. `name` (the file) is used in warnings: a map_Kd
/// without a file name, a statement before any newmtl, a material defined twice (the first one
/// counts, as usemtl finds it). map_Kd's options (-s 1 1 1, -o, -bm, -clamp on, …) are skipped;
/// the file name is the rest of the line (it may hold spaces). Never fails.
Result<std::vector<Material>> parseMtl(std::string_view text, const std::string& name);

/// Reads the material library `path` (a regular file, as core's readFile) and resolves each
/// texture against its folder: a relative name from there, an absolute one as written, and
/// when that names no file, the file's name beside the library (what a path written on another
/// machine, C:/Users/…/wood.png, usually means). Fails naming the file when it cannot be read.
Result<std::vector<Material>> readMtl(const std::filesystem::path& path);

} // namespace tandem::io
