// Where the timings plot's reference-line labels ("16.7", "33.3" ms) go: beside their own
// lines, inside the plot, never over one another. At a large frame-time scale the two lines lie
// a few pixels apart, and the labels were drawn at one x over each other (and, at the smallest
// scale, the top one above the plot, over the stage table). Plain arithmetic: no ImGui, so it
// is tested without a context.
#pragma once

#include <span>
#include <vector>

namespace tandem::ui {

/// A label's box, pixels from the plot's top left corner.
struct LabelBox {
    float x = 0;
    float y = 0;
    float width = 0;
    float height = 0;
};

/// Boxes for labels of `widths[i]` × `height` pixels naming horizontal lines at `lineY[i]`
/// (pixels from the plot's top) in a plot `plotHeight` high: each just above its line
/// (just below when there is no room above), `padding` from the left, moved right past every
/// label placed before it that it would overlap (one past the plot's right edge is clipped by
/// it). Expects lineY and widths of one size.
std::vector<LabelBox> placeLineLabels(std::span<const float> lineY, std::span<const float> widths,
                                      float height, float plotHeight, float padding = 2.0f);

} // namespace tandem::ui
