// Which texture a scene draws when its objects come with their own (io::loadMesh gives each
// textured mesh its image): a scene holds one texture, which every mesh with texture
// coordinates samples (GpuScene), so a second textured object, or a mesh with texture
// coordinates and no image of its own, would be drawn in another object's colours. No GL, any
// thread.
#pragma once

#include "engine/core/Result.h"
#include "engine/render/Scene.h"

namespace tandem::render {

/// Adds `object` to `scene`. Its mesh's texture (MeshData::texture, moved out of the mesh)
/// becomes the scene's when the scene has none; the texture coordinates of the scene's other
/// meshes are dropped then, so they do not show it. An object whose texture comes after
/// another's is drawn with its vertex colours instead (its texture coordinates dropped), with a
/// warning naming both objects and both images; a mesh with texture coordinates and no image
/// of its own loses them too (io::loadMesh has warned about it). Fails, naming the object and
/// the image, when the image is larger than MaxTextureSize a side.
Result<bool> addObject(Scene& scene, SceneObject object);

} // namespace tandem::render
