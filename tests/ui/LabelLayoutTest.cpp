// ui: the timings plot's line labels ("16.7", "33.3" ms) and the controls' help line, without a
// context. At a large frame-time scale the two lines lie a few pixels apart: the labels were
// drawn at one x, 3 px apart vertically, over each other; at the smallest scale (34 ms) the top
// label sat above the plot, over the stage table.
#include <array>
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "engine/app/Controls.h"
#include "engine/ui/Controls.h"
#include "engine/ui/LabelLayout.h"

namespace tandem::ui {
namespace {

constexpr float PlotHeight = 70.0f; // the timings panel's plot
constexpr float TextHeight = 13.0f; // ImGui's default font line
const std::array<float, 2> LineMs{16.7f, 33.3f};
const std::array<float, 2> Widths{28.0f, 28.0f};

bool overlap(const LabelBox& a, const LabelBox& b)
{
    return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height &&
           b.y < a.y + a.height;
}

std::vector<LabelBox> place(float maxMs)
{
    std::array<float, 2> lineY{};
    for (std::size_t i = 0; i < lineY.size(); ++i)
        lineY[i] = PlotHeight * (1.0f - LineMs[i] / maxMs);
    return placeLineLabels(lineY, Widths, TextHeight, PlotHeight);
}

TEST(LabelLayout, LabelsOfLinesAFewPixelsApartDoNotOverlap)
{
    // A 400 ms frame (a first frame compiling shaders): the lines at 67.1 and 64.2 px.
    for (float maxMs : {34.0f, 60.0f, 100.0f, 400.0f, 4000.0f}) {
        const std::vector<LabelBox> boxes = place(maxMs);
        ASSERT_EQ(boxes.size(), 2u);
        EXPECT_FALSE(overlap(boxes[0], boxes[1]))
            << "scale " << maxMs << " ms: (" << boxes[0].x << ", " << boxes[0].y << ") and ("
            << boxes[1].x << ", " << boxes[1].y << ")";
    }
}

TEST(LabelLayout, LabelsStayInsideThePlotBesideTheirLines)
{
    for (float maxMs : {34.0f, 36.0f, 60.0f, 400.0f}) {
        const std::vector<LabelBox> boxes = place(maxMs);
        for (std::size_t i = 0; i < boxes.size(); ++i) {
            const float line = PlotHeight * (1.0f - LineMs[i] / maxMs);
            SCOPED_TRACE(testing::Message() << "scale " << maxMs << " ms, line " << LineMs[i]);
            EXPECT_GE(boxes[i].y, 0.0f) << "above the plot";
            EXPECT_LE(boxes[i].y + boxes[i].height, PlotHeight) << "below the plot";
            // Touching its own line: its bottom on it (above) or its top (below).
            EXPECT_TRUE(std::abs(boxes[i].y + boxes[i].height - line) < 1e-4f ||
                        std::abs(boxes[i].y - line) < 1e-4f)
                << "the label at y " << boxes[i].y << " is not beside its line at " << line;
            EXPECT_EQ(boxes[i].width, Widths[i]);
            EXPECT_EQ(boxes[i].height, TextHeight);
        }
    }
    // Far apart (34 ms: 1.4 px and 35.6 px from the top): both at the left edge.
    const std::vector<LabelBox> apart = place(34.0f);
    EXPECT_EQ(apart[0].x, 2.0f);
    EXPECT_EQ(apart[1].x, 2.0f);
    EXPECT_NEAR(apart[1].y, PlotHeight * (1.0f - 33.3f / 34.0f), 1e-4f)
        << "below its line, in the plot";
}

TEST(LabelLayout, AThirdLabelMovesPastBoth)
{
    const std::array<float, 3> lineY{40.0f, 41.0f, 42.0f};
    const std::array<float, 3> widths{20.0f, 30.0f, 10.0f};
    const std::vector<LabelBox> boxes = placeLineLabels(lineY, widths, TextHeight, PlotHeight);
    ASSERT_EQ(boxes.size(), 3u);
    EXPECT_EQ(boxes[0].x, 2.0f);
    EXPECT_EQ(boxes[1].x, 24.0f);
    EXPECT_EQ(boxes[2].x, 56.0f);
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = i + 1; j < 3; ++j)
            EXPECT_FALSE(overlap(boxes[i], boxes[j])) << i << " and " << j;
}

TEST(Controls, HelpIsTheTableInOrder)
{
    const std::array<Control, 2> controls{{{"left drag", "orbit"}, {"Esc or Q", "quit"}}};
    EXPECT_EQ(controlsHelp(controls), "left drag orbit, Esc or Q quit");
    EXPECT_EQ(controlsHelp({}), "");
}

TEST(Controls, TheWindowsTableNamesTheCameraAndEveryKeyTheSessionBinds)
{
    // The camera's mouse (app/CameraInput.cpp) and the keys app/SessionControls.cpp binds.
    const std::string window = controlsHelp(app::WindowControls);
    for (const char* expected : {"left drag orbit", "right/middle drag pan", "wheel zoom",
                                 "C cycle channel", "S or F2 screenshot", "R reset view",
                                 "F1 overlay", "F12 RenderDoc capture", "Esc or Q quit"})
        EXPECT_NE(window.find(expected), std::string::npos) << expected << " in: " << window;
    const std::string sequence = controlsHelp(app::SequenceControls);
    for (const char* expected :
         {"Space play/pause", "Left/Right step", "Home/End first/last", "+/- speed", "L loop mode",
          "K add a camera key", "P save the camera path",
          "drop a file or folder on the window opens"})
        EXPECT_NE(sequence.find(expected), std::string::npos) << expected << " in: " << sequence;
}

} // namespace
} // namespace tandem::ui
