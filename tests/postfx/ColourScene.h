// A scene of known colours for the colour tests of the gl and gpu tiers: nine unlit points (no
// normals, so no shading), each a flat round patch of one 8-bit sRGB colour on the background,
// and what a frame must show for them, computed here from the documented formulas in double
// precision (the sRGB transfer functions of IEC 61966-2-1 and Narkowicz's ACES fit), apart from
// the engine's own code. Needs a current GL context for the scene.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include <fmt/format.h>
#include <glm/glm.hpp>

#include "engine/io/Image.h"
#include "engine/render/Camera.h"
#include "engine/render/GeometryPass.h"
#include "engine/render/GpuScene.h"

namespace tandem::test {

/// The image is ColourSceneSize × ColourSceneSize pixels.
inline constexpr int ColourSceneSize = 96;

/// The patches: the background's own colour, pure and mid reds and greens, greys, white.
inline constexpr std::array<glm::u8vec3, 9> ColourPatches = {{{0x17, 0x17, 0x1c},
                                                              {0xff, 0x00, 0x00},
                                                              {0x80, 0x00, 0x00},
                                                              {0x00, 0xff, 0x00},
                                                              {0x00, 0x80, 0x00},
                                                              {0x40, 0x40, 0x40},
                                                              {0x80, 0x80, 0x80},
                                                              {0xc0, 0xc0, 0xc0},
                                                              {0xff, 0xff, 0xff}}};

/// Patch i's world position: a 3 × 3 grid in the plane z = 0, 0.8 apart, first row on top.
inline glm::vec3 patchPosition(int i)
{
    return {0.8f * static_cast<float>(i % 3 - 1), 0.8f * static_cast<float>(1 - i / 3), 0.0f};
}

/// The points, one per patch, coloured and without normals.
inline render::GpuScene colourScene()
{
    render::Scene scene;
    io::MeshData points;
    for (int i = 0; i < static_cast<int>(ColourPatches.size()); ++i) {
        points.positions.push_back(patchPosition(i));
        const glm::u8vec3 c = ColourPatches[static_cast<std::size_t>(i)];
        points.colors.emplace_back(c.r, c.g, c.b, 255);
    }
    scene.objects.push_back({"colour patches", points});
    return render::GpuScene(scene, "colour patches");
}

/// Looking at the grid from z = 3 (fov 45°: the grid spans pixels 17 to 79).
inline render::Camera colourCamera()
{
    render::Camera camera;
    camera.eye = {0.0f, 0.0f, 3.0f};
    camera.target = {0.0f, 0.0f, 0.0f};
    return camera;
}

/// Splats 20 pixels across: every patch is flat for 10 pixels around its centre.
inline render::GeometryOptions colourOptions()
{
    render::GeometryOptions options;
    options.pointSize = 20.0f;
    return options;
}

/// The pixel (x right, y down: rows top first) holding patch i's centre.
inline glm::ivec2 patchPixel(int i)
{
    const double halfExtent = 3.0 * std::tan(22.5 * 3.14159265358979323846 / 180.0);
    const glm::vec3 p = patchPosition(i);
    return {static_cast<int>(std::floor((p.x / halfExtent * 0.5 + 0.5) * ColourSceneSize)),
            static_cast<int>(std::floor((0.5 - p.y / halfExtent * 0.5) * ColourSceneSize))};
}

// The formulas, on values in [0, 1].
inline double srgbDecode(double v)
{
    return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
}
inline double srgbEncode(double v)
{
    v = std::clamp(v, 0.0, 1.0);
    return v <= 0.0031308 ? 12.92 * v : 1.055 * std::pow(v, 1.0 / 2.4) - 0.055;
}
inline double acesCurve(double x)
{
    return std::clamp(x * (2.51 * x + 0.03) / (x * (2.43 * x + 0.59) + 0.14), 0.0, 1.0);
}

/// What a chain makes of an 8-bit sRGB value `code` (0..255, not rounded).
enum class ColourChain {
    None,    ///< no chain: the file's value
    Tonemap, ///< tonemap at `exposure`: encode(aces(decode(code) 2^exposure))
};
inline double expectedColour(int code, ColourChain chain, double exposure = 0.0)
{
    if (chain == ColourChain::None)
        return code;
    return 255.0 * srgbEncode(acesCurve(srgbDecode(code / 255.0) * std::exp2(exposure)));
}

/// Compares the 5 × 5 pixels around each patch's centre and four background pixels (corners
/// and between patches) of `image` (ColourSceneSize², rows top first) with expectedColour();
/// each channel may differ by `tolerance` (after rounding the expected value). Returns what
/// differs, empty when nothing does.
inline std::string checkColours(const io::Image& image, ColourChain chain, int tolerance,
                                double exposure = 0.0)
{
    if (image.width != ColourSceneSize || image.height != ColourSceneSize)
        return fmt::format("a {}x{} image", image.width, image.height);
    std::string failures;
    const auto check = [&](int x, int y, glm::u8vec3 colour, const char* what) {
        const std::uint8_t* p = image.row(y) + x * 4;
        for (int c = 0; c < 3; ++c) {
            const double expected = expectedColour(colour[c], chain, exposure);
            const int rounded = static_cast<int>(std::lround(expected));
            if (std::abs(p[c] - rounded) > tolerance)
                failures += fmt::format("{} at ({}, {}) channel {}: {} where {:.2f} (from {}) "
                                        "is due\n",
                                        what, x, y, c, p[c], expected, colour[c]);
        }
    };
    for (int i = 0; i < static_cast<int>(ColourPatches.size()); ++i) {
        const glm::ivec2 centre = patchPixel(i);
        for (int dy = -2; dy <= 2; ++dy)
            for (int dx = -2; dx <= 2; ++dx)
                check(centre.x + dx, centre.y + dy, ColourPatches[static_cast<std::size_t>(i)],
                      "patch");
    }
    const glm::u8vec3 background(render::GeometryOptions{}.background[0],
                                 render::GeometryOptions{}.background[1],
                                 render::GeometryOptions{}.background[2]);
    const int last = ColourSceneSize - 1;
    for (const glm::ivec2 at : {glm::ivec2(1, 1), glm::ivec2(last - 1, last - 1),
                                glm::ivec2(ColourSceneSize / 2 - 16, ColourSceneSize / 2),
                                glm::ivec2(ColourSceneSize / 2, ColourSceneSize / 2 + 16)})
        check(at.x, at.y, background, "background");
    return failures;
}

} // namespace tandem::test
