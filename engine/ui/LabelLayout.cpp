#include "engine/ui/LabelLayout.h"

#include <algorithm>

#include "engine/core/Error.h"

namespace tandem::ui {

namespace {

bool overlaps(const LabelBox& a, const LabelBox& b)
{
    return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height &&
           b.y < a.y + a.height;
}

} // namespace

std::vector<LabelBox> placeLineLabels(std::span<const float> lineY, std::span<const float> widths,
                                      float height, float plotHeight, float padding)
{
    TANDEM_ASSERT(lineY.size() == widths.size(),
                  "ui::placeLineLabels(): a width for each line expected");
    std::vector<LabelBox> boxes;
    for (std::size_t i = 0; i < lineY.size(); ++i) {
        LabelBox box{padding, lineY[i] - height, widths[i], height};
        if (box.y < 0)
            box.y = lineY[i]; // no room above the line: below it
        box.y = std::clamp(box.y, 0.0f, std::max(0.0f, plotHeight - height));
        // Right past any placed label it meets; each move passes one box, so this ends.
        for (bool moved = true; moved;) {
            moved = false;
            for (const LabelBox& placed : boxes)
                if (overlaps(box, placed)) {
                    box.x = placed.x + placed.width + padding;
                    moved = true;
                }
        }
        boxes.push_back(box);
    }
    return boxes;
}

} // namespace tandem::ui
