// Loads one frame of a sequence folder the way the viewer's loaders do (stream::openSource, the
// frame block in memory the test owns) and views it, for the readers' sequence tests. Tests only.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/stream/Block.h"
#include "engine/stream/Open.h"

namespace tandem::test {

/// A sequence folder's frame, loaded into `staging`.
struct SequenceFrame {
    int frames = 0;                    ///< the sequence's frame count
    std::string description;           ///< the source's description ("2 Draco files", ...)
    std::vector<std::uint8_t> staging; ///< the frame block
    render::SceneView view;            ///< the block viewed (positions, colours, ...)
};

/// Frame `index` of the sequence in `folder` (named `name` in messages); a failure is a test
/// failure, and gives a frame with no positions.
inline SequenceFrame loadSequenceFrame(const std::filesystem::path& folder, int index,
                                       const std::string& name)
{
    SequenceFrame frame;
    auto source = stream::openSource(folder.string(), {});
    EXPECT_TRUE(source) << source.error();
    if (!source)
        return frame;
    frame.frames = source.value()->frameCount();
    frame.description = source.value()->description();
    auto block = source.value()->load(index, [&](std::size_t bytes) {
        frame.staging.resize(bytes);
        return std::span<std::uint8_t>(frame.staging);
    });
    EXPECT_TRUE(block) << block.error();
    if (!block)
        return frame;
    auto view = stream::viewBlock(block.value(), name);
    EXPECT_TRUE(view) << view.error();
    if (view)
        frame.view = view.value();
    return frame;
}

} // namespace tandem::test
