// Loads a mesh or point cloud from a file, choosing the reader by content and extension, and
// completes what rendering needs: vertex normals for meshes without them, and the texture image
// its texture coordinates sample. Any thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>

#include "engine/core/Result.h"
#include "engine/io/MeshData.h"

namespace tandem::io {

/// What a caller knows about a file that the file does not say.
struct MeshLoadOptions {
    /// The texture image to use instead of the one the file names (a sequence manifest's
    /// "texture"); an image that cannot be read fails the load, naming both files.
    std::optional<std::filesystem::path> texture;
};

/// Loads a .ply, .obj, .cwipcdump, .drc (Draco), .glb or .gltf file (PLY, CWIPC dumps, Draco and
/// GLB are also recognised by their magic, "ply", "cpcd", "DRACO" and "glTF", whatever the
/// extension; regular files only, as core's readFile). A triangle mesh with texture coordinates
/// gets its texture in MeshData::texture (and its file in textureFile): options.texture, else
/// the image the file holds (a GLB's embedded base colour texture) or names (an OBJ's map_Kd
/// through its .mtl, a PLY's TextureFile comment, a glTF's image file), else the image beside
/// it with its name (mesh.obj or mesh.drc and mesh.png, .jpg or .jpeg). A texture named by the
/// file that is missing or unreadable is a warning naming it (the mesh is drawn without it), as
/// are texture coordinates with no texture and a texture given to a mesh without texture
/// coordinates. Fails with a message naming the file for unknown formats and bad content.
Result<MeshData> loadMesh(const std::filesystem::path& path, const MeshLoadOptions& options = {});

/// loadMesh() of the PLY file `path` whose contents the caller has read already (`bytes`), so
/// it is not read twice.
Result<MeshData> loadPlyMesh(const std::filesystem::path& path, std::span<const std::uint8_t> bytes,
                             const MeshLoadOptions& options = {});

} // namespace tandem::io
