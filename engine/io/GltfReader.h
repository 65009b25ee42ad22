// Reads glTF 2.0 meshes and point clouds (.glb, and .gltf with its buffers in data: URIs or files
// beside it), parsed by Debian's tinygltf 2.7: the default scene's nodes with their transforms,
// each primitive's positions, normals, vertex colours, the base colour texture and its texture
// coordinates, triangles (lists, strips, fans) or points, into one MeshData. Draco-compressed
// primitives (KHR_draco_mesh_compression) are decoded by io::readDraco. Malformed input gives a
// Failure naming the file; nothing in the file is trusted (every index, count, offset and stride
// is checked before it is used). Any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "engine/core/Result.h"
#include "engine/io/MeshData.h"

namespace tandem::io {

/// The most vertices (and triangles) a glTF file may produce for each of its bytes, counting
/// every node that instances a mesh (each instance is copied into the one MeshData). A file
/// needs 12 bytes for a vertex's float position alone; instancing may repeat a mesh, but a file
/// whose node tree asks for more than this is refused before any vertex is copied (a few hundred
/// nodes naming one large mesh each would otherwise ask for tens of gigabytes).
inline constexpr std::uint64_t MaxGltfVerticesPerByte = 16;

/// The deepest a glTF's JSON may nest arrays and objects. glTF itself needs about 10 levels;
/// extras may hold more, but a file nesting deeper is refused before tinygltf parses it (which
/// recurses once a level).
inline constexpr std::size_t MaxGltfJsonDepth = 256;

/// Whether `bytes` start as a binary glTF (GLB) file does ("glTF").
bool isGlb(std::span<const std::uint8_t> bytes);

/// Reads a glTF 2.0 file: GLB when `bytes` start with "glTF", else glTF's JSON. `folder` is where
/// relative URIs (buffers, images) are looked up, in it or below it; absolute paths, ".." and
/// URIs with a scheme other than data: are refused.
///
/// What it makes of the file:
/// - The scene: the default scene (else the first), its nodes and their children, each with
///   its matrix or translation, rotation and scale applied to positions (and the inverse
///   transpose to normals; a mirroring transform keeps triangles facing out). A file with
///   meshes but no nodes draws each mesh once, untransformed.
/// - Triangles (lists, strips, fans) become one triangle mesh; POINTS primitives a point cloud
///   (left out, with a warning, beside triangles); lines are left out with a warning.
/// - POSITION (3 floats, or integers per KHR_mesh_quantization), NORMAL (made unit length; a
///   triangle primitive without normals gets area-weighted ones), COLOR_0 (RGB or RGBA: floats,
///   normalized bytes or shorts) times the material's baseColorFactor, stored as sRGB bytes as
///   the renderer expects (glTF's colours are linear), and the base colour texture with the
///   texture coordinates it names (v flipped to tandem's bottom-left origin). The texture is
///   kept when every triangle primitive uses the same one; PNG or JPEG, embedded (a buffer view
///   or data: URI) or a file beside the glTF (then `textureFile`, read by io::loadMesh).
/// - Points that are not usable (isUsablePosition(), after the transform) are dropped with their
///   triangles and one warning, as PLY's are.
///
/// POINTS primitives draw every vertex of POSITION; their indices, if any, are not applied.
/// Fails, naming `name`, on bytes that are neither GLB nor glTF JSON, on JSON nesting deeper
/// than MaxGltfJsonDepth, on what tinygltf cannot
/// parse (its message), on an extension the file requires that this reader does not know, on
/// any accessor, buffer view or index that reaches outside its data, on more vertices than
/// MaxGltfVerticesPerByte allows, and when nothing drawable is left.
Result<MeshData> readGltf(std::span<const std::uint8_t> bytes, const std::string& name,
                          const std::filesystem::path& folder);
Result<MeshData> readGltf(const std::filesystem::path& path);

} // namespace tandem::io
