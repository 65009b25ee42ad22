// Sequences written to the published layouts of the voxelized datasets users meet (the layouts
// scripts/make-dataset-sequence.py writes, and docs/pack-format.md's one-liners pack): each folder
// opens in its frames' order, and a frame's points come out where the layout puts them.
//   8i full bodies v2: NAME_vox10_1051.ply …, ASCII, float voxel x y z and uchar colours, placed
//     by frame_to_world_scale and _translation;
//   MVUB: frame0000.ply …, ASCII, float 9-bit voxel x y z and uchar colours, no comments;
//   Owlii (MPEG): NAME_vox11_00000001.ply …, ASCII, float 11-bit voxels, float normals, uchar
//     colours.
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "engine/render/PointSplat.h"
#include "tests/support/SequenceFrame.h"
#include "tests/support/TempDir.h"

namespace tandem::stream {
namespace {

struct Layout {
    const char* name;
    std::vector<std::string> comments;
    bool normals;
    std::string (*file)(int index);
};

/// Frame `index`: two points, the first at voxel (index, 2·index, 3) with colour (index, 7, 9).
std::string frameText(const Layout& layout, int index)
{
    std::string text = "ply\nformat ascii 1.0\n";
    for (const std::string& comment : layout.comments)
        text += "comment " + comment + "\n";
    text += "element vertex 2\nproperty float x\nproperty float y\nproperty float z\n";
    if (layout.normals)
        text += "property float nx\nproperty float ny\nproperty float nz\n";
    text += "property uchar red\nproperty uchar green\nproperty uchar blue\nend_header\n";
    const std::string normal = layout.normals ? " 0 1 0" : "";
    text += fmt::format("{} {} 3{} {} 7 9\n", index, 2 * index, normal, index);
    text += fmt::format("511 0 100{} 1 2 3\n", normal);
    return text;
}

TEST(DatasetLayouts, EachPublishedLayoutPlaysInOrderWithItsPointsInPlace)
{
    const std::vector<Layout> layouts = {
        {"8i",
         {"Version 2, Copyright 2017, 8i Labs, Inc.", "frame_to_world_scale 0.5",
          "frame_to_world_translation -10 4 2", "width 1023"},
         false,
         [](int i) {
             return fmt::format("longdress_vox10_{:04d}.ply", 1051 + i);
         }},
        {"mvub",
         {},
         false,
         [](int i) {
             return fmt::format("frame{:04d}.ply", i);
         }},
        {"owlii", {}, true, [](int i) {
             return fmt::format("dancer_vox11_{:08d}.ply", i + 1);
         }}};
    for (const Layout& layout : layouts) {
        SCOPED_TRACE(layout.name);
        test::TempDir dir;
        // Twelve frames, written out of order, so the names alone give the order.
        for (int i : {11, 3, 0, 7, 1, 10, 2, 9, 4, 8, 5, 6})
            dir.write(std::string(layout.name) + "/" + layout.file(i), frameText(layout, i));
        const auto frame = test::loadSequenceFrame(dir.path() / layout.name, 10, layout.file(10));
        EXPECT_EQ(frame.frames, 12);
        EXPECT_NE(frame.description.find("12 PLY files"), std::string::npos) << frame.description;
        ASSERT_EQ(frame.view.positions.size(), 2u);
        // 8i's comments place the voxels in the world (0.5 · p + (-10, 4, 2)); the others keep
        // voxel coordinates.
        const bool placed = std::string(layout.name) == "8i";
        const glm::vec3 first = placed ? glm::vec3(-5, 14, 3.5f) : glm::vec3(10, 20, 3);
        EXPECT_EQ(frame.view.positions[0], first);
        ASSERT_EQ(frame.view.attributes.size(), 2u);
        const std::uint32_t color = frame.view.attributes[0].color;
        EXPECT_EQ(color & 0xffffffu, 10u | 7u << 8 | 9u << 16);
        EXPECT_TRUE(color & render::PointHasColor);
        EXPECT_EQ((color & render::PointHasNormal) != 0, layout.normals);
    }
}

} // namespace
} // namespace tandem::stream
