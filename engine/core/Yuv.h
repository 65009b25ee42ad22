// RGB to the YCbCr 4:2:0 planes a JPEG encoder takes (JFIF's full-range BT.601), written once for
// the host and CUDA (TANDEM_HD) in the fixed-point arithmetic libjpeg-turbo uses, with its 2×2
// chroma average (the alternating rounding bias) and its edges (the last column and row repeat),
// so planes made on the GPU encode to the same JPEG as the RGB frame given to libjpeg-turbo.
// No CUDA include: usable from any source.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/core/ExactMath.h"

namespace tandem {

/// Where the planes of a `width`×`height` image lie in one buffer: Y, then Cb and Cr
/// ((width+1)/2 × (height+1)/2 each), rows top to bottom, tightly packed. Y is padded to an even
/// width and height with its last column and row repeated, as libjpeg-turbo reads a plane
/// (tjPlaneWidth(), tjPlaneHeight()).
struct Yuv420Layout {
    int width = 0;
    int height = 0;

    TANDEM_HD int chromaWidth() const { return (width + 1) / 2; }
    TANDEM_HD int chromaHeight() const { return (height + 1) / 2; }
    /// Y's row pitch, and its rows.
    TANDEM_HD int lumaStride() const { return 2 * chromaWidth(); }
    TANDEM_HD int lumaRows() const { return 2 * chromaHeight(); }
    TANDEM_HD std::size_t lumaBytes() const
    {
        return static_cast<std::size_t>(lumaStride()) * static_cast<std::size_t>(lumaRows());
    }
    TANDEM_HD std::size_t chromaBytes() const
    {
        return static_cast<std::size_t>(chromaWidth()) * static_cast<std::size_t>(chromaHeight());
    }
    TANDEM_HD std::size_t cbOffset() const { return lumaBytes(); }
    TANDEM_HD std::size_t crOffset() const { return lumaBytes() + chromaBytes(); }
    TANDEM_HD std::size_t bytes() const { return lumaBytes() + 2 * chromaBytes(); }
};

/// JFIF's Y, Cb and Cr of an 8-bit RGB colour, in 16-bit fixed point rounded as libjpeg-turbo
/// does (Cb and Cr at most 255).
TANDEM_HD std::uint8_t lumaOf(int r, int g, int b)
{
    return static_cast<std::uint8_t>((19595 * r + 38470 * g + 7471 * b + 32768) >> 16);
}
TANDEM_HD int cbOf(int r, int g, int b)
{
    return (-11059 * r - 21709 * g + 32768 * b + (128 << 16) + 32767) >> 16;
}
TANDEM_HD int crOf(int r, int g, int b)
{
    return (32768 * r - 27439 * g - 5329 * b + (128 << 16) + 32767) >> 16;
}

/// An 8-bit RGB colour, as yuv420SampleOf() reads one.
struct Rgb8 {
    int r = 0, g = 0, b = 0;
};

/// Writes the Y of the up to 2×2 pixels of chroma sample (`cx`, `cy`) and their Cb and Cr into
/// `planes` laid out as `layout`, the pixels read as `pixel(x, y)` (an Rgb8; y = 0 the top row).
/// A CUDA thread per sample, or the host's loop (rgbaToYuv420()), is this.
template <typename PixelAt> TANDEM_HD void yuv420SampleOf(const PixelAt& pixel,
                                                          const Yuv420Layout& layout, int cx,
                                                          int cy, std::uint8_t* planes)
{
    const int x0 = 2 * cx, y0 = 2 * cy;
    // The last column and row again at the right and bottom edges, as libjpeg-turbo pads.
    const int x1 = x0 + 1 < layout.width ? x0 + 1 : x0;
    const int y1 = y0 + 1 < layout.height ? y0 + 1 : y0;
    const Rgb8 p[4] = {pixel(x0, y0), pixel(x1, y0), pixel(x0, y1), pixel(x1, y1)};
    int sumCb = 0, sumCr = 0;
    for (int i = 0; i < 4; ++i) {
        sumCb += cbOf(p[i].r, p[i].g, p[i].b);
        sumCr += crOf(p[i].r, p[i].g, p[i].b);
    }
    // Y's padding (an odd width or height) repeats the edge, as p[] does.
    const int pitch = layout.lumaStride();
    std::uint8_t* luma = planes + static_cast<std::size_t>(y0) * static_cast<std::size_t>(pitch);
    luma[x0] = lumaOf(p[0].r, p[0].g, p[0].b);
    luma[x0 + 1] = lumaOf(p[1].r, p[1].g, p[1].b);
    luma[pitch + x0] = lumaOf(p[2].r, p[2].g, p[2].b);
    luma[pitch + x0 + 1] = lumaOf(p[3].r, p[3].g, p[3].b);
    // libjpeg-turbo's 2x2 average: a rounding bias of 1 and 2 by turns along the row.
    const int bias = (cx % 2 == 0) ? 1 : 2;
    const std::size_t at =
        static_cast<std::size_t>(cy) * static_cast<std::size_t>(layout.chromaWidth()) +
        static_cast<std::size_t>(cx);
    planes[layout.cbOffset() + at] = static_cast<std::uint8_t>((sumCb + bias) >> 2);
    planes[layout.crOffset() + at] = static_cast<std::uint8_t>((sumCr + bias) >> 2);
}

/// yuv420SampleOf() for an RGBA8 image whose row y (0 the top) starts at `top + y * stride`
/// bytes (a negative stride: rows stored bottom first).
TANDEM_HD void yuv420Sample(const std::uint8_t* top, std::ptrdiff_t stride,
                            const Yuv420Layout& layout, int cx, int cy, std::uint8_t* planes)
{
    const auto pixel = [top, stride](int x, int y) {
        const std::uint8_t* p = top + stride * y + 4 * x;
        return Rgb8{p[0], p[1], p[2]};
    };
    yuv420SampleOf(pixel, layout, cx, cy, planes);
}

/// The host's planes of an image (the twin of the CUDA pass, for tests and the host path).
inline void rgbaToYuv420(const std::uint8_t* top, std::ptrdiff_t stride, const Yuv420Layout& layout,
                         std::uint8_t* planes)
{
    for (int cy = 0; cy < layout.chromaHeight(); ++cy)
        for (int cx = 0; cx < layout.chromaWidth(); ++cx)
            yuv420Sample(top, stride, layout, cx, cy, planes);
}

} // namespace tandem
