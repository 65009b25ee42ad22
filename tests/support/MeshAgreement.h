// How two G-buffers of one mesh scene agree (the GL geometry pass against the mesh pass, tests
// only): the pixels whose triangle differs, and whether each lies on a triangle edge (a pixel
// next to one of another id in either image, where sub-pixel rounding decides which triangle
// covers a centre) or at an intersection; where the triangle is the same, the largest difference
// of each channel. Host only.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ostream>
#include <vector>

#include "engine/core/ExactMath.h"
#include "tests/support/GBufferPixels.h"

namespace tandem::test {

struct MeshAgreement {
    std::size_t covered = 0;       ///< pixels either image covers (id != 0)
    std::size_t otherTriangle = 0; ///< covered pixels whose ids differ
    std::size_t inside = 0;        ///< ... of them not next to an edge of either image
    std::size_t background = 0;    ///< uncovered pixels (id 0 in both) whose colour differs
    int worstColour = 0;           ///< same triangle: largest colour difference, 8-bit codes
    double worstDepth = 0.0;       ///< same triangle: largest relative depth difference
    double worstNormal = 0.0;      ///< same triangle: largest normal component difference
    double otherFraction() const { return covered ? double(otherTriangle) / double(covered) : 0.0; }
};

inline std::ostream& operator<<(std::ostream& out, const MeshAgreement& a)
{
    return out << a.covered << " covered, " << a.otherTriangle << " with another triangle ("
               << a.inside << " off edges), " << a.background
               << " background pixels of another colour, colour within " << a.worstColour
               << ", depth within " << a.worstDepth << " (relative), normal within "
               << a.worstNormal;
}

inline MeshAgreement compareMeshes(const GBufferPixels& a, const GBufferPixels& b)
{
    MeshAgreement out;
    const int w = a.width, h = a.height;
    const auto onEdge = [&](const GBufferPixels& g, int x, int y) {
        const std::uint32_t id = g.id[static_cast<std::size_t>(y) * w + x];
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                const int nx = x + dx, ny = y + dy;
                if (nx < 0 || ny < 0 || nx >= w || ny >= h)
                    continue;
                if (g.id[static_cast<std::size_t>(ny) * w + nx] != id)
                    return true;
            }
        return false;
    };
    const auto colour = [](const GBufferPixels& g, std::size_t i, int c) {
        if (!g.colorIsHalf)
            return static_cast<double>(g.color[i * 4 + c]);
        std::uint16_t half;
        std::copy_n(g.color.data() + i * 8 + c * 2, 2, reinterpret_cast<std::uint8_t*>(&half));
        return static_cast<double>(halfToFloat(half)) * 255.0;
    };
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const std::size_t i = static_cast<std::size_t>(y) * w + x;
            if (a.id[i] == 0 && b.id[i] == 0) {
                const std::size_t bytes = a.colorIsHalf ? 8 : 4;
                out.background +=
                    std::equal(a.color.begin() + i * bytes, a.color.begin() + (i + 1) * bytes,
                               b.color.begin() + i * bytes)
                        ? 0
                        : 1;
                continue;
            }
            ++out.covered;
            if (a.id[i] != b.id[i]) {
                ++out.otherTriangle;
                out.inside += onEdge(a, x, y) || onEdge(b, x, y) ? 0 : 1;
                continue;
            }
            for (int c = 0; c < 3; ++c) {
                out.worstColour = std::max(
                    out.worstColour,
                    static_cast<int>(std::lround(std::abs(colour(a, i, c) - colour(b, i, c)))));
                out.worstNormal =
                    std::max(out.worstNormal,
                             std::abs(static_cast<double>(halfToFloat(a.normal[i * 4 + c])) -
                                      halfToFloat(b.normal[i * 4 + c])));
            }
            out.worstDepth = std::max(out.worstDepth, std::abs(double(a.depth[i]) - b.depth[i]) /
                                                          std::max(double(a.depth[i]), 1e-6));
        }
    return out;
}

} // namespace tandem::test
