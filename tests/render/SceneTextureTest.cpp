// One texture a scene: which object's image a scene draws when several come with their own,
// and that no mesh is drawn in another object's colours.
#include "engine/render/SceneTexture.h"

#include <gtest/gtest.h>

#include "engine/render/GpuScene.h"

namespace tandem::render {
namespace {

/// A textured triangle named `name`; its image is `side`×1 of `red`, from `file`.
SceneObject triangle(const std::string& name, std::uint8_t red, int side = 1,
                     const std::string& file = "")
{
    SceneObject object;
    object.name = name;
    object.mesh.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    object.mesh.texcoords = {{0, 0}, {1, 0}, {0, 1}};
    object.mesh.indices = {0, 1, 2};
    if (side > 0) {
        object.mesh.texture.width = side;
        object.mesh.texture.height = 1;
        object.mesh.texture.pixels.assign(static_cast<std::size_t>(side) * 4, 255);
        object.mesh.texture.pixels[0] = red;
        object.mesh.textureFile = file.empty() ? name + ".png" : file;
    }
    return object;
}

TEST(SceneTexture, TheFirstTextureIsTheScenesAndLaterOnesAreNotDrawnInItsColours)
{
    Scene scene;
    // A mesh with texture coordinates and no image comes first: it must not show a's image.
    auto bare = addObject(scene, triangle("bare.obj", 0, 0));
    ASSERT_TRUE(bare) << bare.error();
    auto a = addObject(scene, triangle("a.obj", 10));
    ASSERT_TRUE(a) << a.error();
    EXPECT_TRUE(a.warnings().empty());
    auto b = addObject(scene, triangle("b.obj", 20, 1, "dir/b_diffuse.png"));
    ASSERT_TRUE(b) << b.error();
    ASSERT_EQ(b.warnings().size(), 1u);
    EXPECT_EQ(b.warnings()[0],
              "b.obj: texture b_diffuse.png not drawn: a scene draws one "
              "texture and a.obj's (a.obj.png) came first; b.obj is drawn with its "
              "vertex colours");
    auto later = addObject(scene, triangle("later.obj", 0, 0));
    ASSERT_TRUE(later) << later.error();
    EXPECT_TRUE(later.warnings().empty());

    ASSERT_EQ(scene.objects.size(), 4u);
    EXPECT_EQ(scene.texture.pixels[0], 10); // a's image
    // Only a keeps its texture coordinates: only a samples the scene's texture.
    EXPECT_TRUE(scene.objects[0].mesh.texcoords.empty());
    EXPECT_EQ(scene.objects[1].mesh.texcoords.size(), 3u);
    EXPECT_TRUE(scene.objects[2].mesh.texcoords.empty());
    EXPECT_TRUE(scene.objects[3].mesh.texcoords.empty());
    // The images moved out of the objects: one copy, the scene's.
    for (const SceneObject& object : scene.objects)
        EXPECT_TRUE(object.mesh.texture.pixels.empty()) << object.name;
}

TEST(SceneTexture, ATextureLargerThanAScenesIsRefusedNamingIt)
{
    Scene scene;
    auto huge = addObject(scene, triangle("huge.obj", 1, static_cast<int>(MaxTextureSize) + 1));
    ASSERT_FALSE(huge);
    EXPECT_EQ(huge.error(), "huge.obj.png: a 16385x1 texture exceeds 16384x16384 (the texture "
                            "of huge.obj)");
    EXPECT_TRUE(scene.objects.empty());
}

} // namespace
} // namespace tandem::render
