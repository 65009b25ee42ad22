// The browser view's JPEG encoding shared by several encoders: bands joined with restart markers
// decode to the pixels of the frame encoded whole, from RGBA rows (GL's order) and from the YCbCr
// planes the CUDA pass makes, whose host twin is libjpeg-turbo's own conversion byte for byte.
#include "engine/web/JpegBands.h"

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <turbojpeg.h>

#include "engine/core/Yuv.h"
#include "engine/web/FrameEncoder.h"

namespace tandem::web {
namespace {

/// An RGBA frame with edges, gradients and noise, rows stored bottom first (as GL reads them).
std::vector<std::uint8_t> frameBottomUp(int width, int height)
{
    std::vector<std::uint8_t> pixels(static_cast<std::size_t>(width) * height * 4);
    std::uint32_t state = 12345;
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            state = state * 1664525u + 1013904223u;
            std::uint8_t* p = &pixels[(static_cast<std::size_t>(y) * width + x) * 4];
            p[0] = static_cast<std::uint8_t>((x * 255) / std::max(1, width - 1));
            p[1] = static_cast<std::uint8_t>(((x / 7 + y / 5) % 2) * 200 + (state >> 28));
            p[2] = static_cast<std::uint8_t>((y * 255) / std::max(1, height - 1));
            p[3] = 255;
        }
    return pixels;
}

/// The frame's view, row 0 the top.
io::ImageView topDown(const std::vector<std::uint8_t>& bottomUp, int width, int height)
{
    const auto row = static_cast<std::ptrdiff_t>(width) * 4;
    return io::ImageView(width, height, bottomUp.data() + row * (height - 1), -row);
}

std::vector<std::uint8_t> decode(const std::string& jpeg, int width, int height)
{
    tjhandle handle = tjInitDecompress();
    int w = 0, h = 0, subsamp = 0, colorspace = 0;
    const auto* bytes = reinterpret_cast<const unsigned char*>(jpeg.data());
    std::vector<std::uint8_t> rgb;
    if (tjDecompressHeader3(handle, bytes, jpeg.size(), &w, &h, &subsamp, &colorspace) == 0 &&
        w == width && h == height) {
        rgb.resize(static_cast<std::size_t>(w) * h * 3);
        if (tjDecompress2(handle, bytes, jpeg.size(), rgb.data(), w, 0, h, TJPF_RGB, 0) != 0)
            ADD_FAILURE() << "decoding: " << tjGetErrorStr2(handle);
    } else {
        ADD_FAILURE() << "a JPEG of " << w << "x" << h << ", not " << width << "x" << height;
    }
    tjDestroy(handle);
    return rgb;
}

std::vector<std::uint8_t> planesOf(const std::vector<std::uint8_t>& bottomUp, int width, int height)
{
    const Yuv420Layout layout{width, height};
    std::vector<std::uint8_t> planes(layout.bytes());
    const io::ImageView view = topDown(bottomUp, width, height);
    rgbaToYuv420(view.top, view.stride, layout, planes.data());
    return planes;
}

/// Encodes the frame in bands for `parts` encoders and joins them.
std::string joined(FrameEncoder& encoder, const std::vector<std::uint8_t>& bottomUp,
                   const std::vector<std::uint8_t>* planes, int width, int height, int parts,
                   int quality)
{
    const int rows = bandRows(width, height, parts);
    std::vector<std::string> bands;
    const io::ImageView whole = topDown(bottomUp, width, height);
    for (int first = 0; first < height; first += rows) {
        const int n = std::min(rows, height - first);
        auto band =
            planes ? encoder.jpeg(planes->data(), Yuv420Layout{width, height}, first, n, quality)
                   : encoder.jpeg(io::ImageView(width, n, whole.row(first), whole.stride), quality);
        EXPECT_TRUE(band) << (band ? "" : band.error());
        bands.push_back(band ? band.value() : std::string());
    }
    auto out = joinBands(bands, width, height, rows);
    EXPECT_TRUE(out) << (out ? "" : out.error());
    return out ? out.value() : std::string();
}

TEST(JpegBands, RowsAreWholeMcusAndCoverTheFrame)
{
    EXPECT_EQ(bandRows(1920, 1080, 4), 272);
    EXPECT_EQ(bandRows(1920, 1080, 1), 1088);
    EXPECT_EQ(bandRows(640, 360, 8), 64); // no band under 64 rows
    EXPECT_EQ(bandRows(100, 37, 4), 64);
    // A band never holds more MCUs than a restart interval can count.
    EXPECT_LE((8192 / 16) * (bandRows(8192, 8192, 1) / 16), 65535);
    for (int parts = 1; parts <= 8; ++parts)
        EXPECT_EQ(bandRows(1920, 1080, parts) % 16, 0);
}

TEST(JpegBands, JoinedBandsDecodeToTheFrameEncodedWhole)
{
    FrameEncoder encoder;
    for (const auto& [width, height] :
         {std::pair{1920, 1080}, std::pair{640, 360}, std::pair{100, 200}, std::pair{333, 257}}) {
        const auto frame = frameBottomUp(width, height);
        const auto planes = planesOf(frame, width, height);
        std::vector<std::uint8_t> fromRgba;
        for (const bool fromPlanes : {false, true}) {
            SCOPED_TRACE(std::to_string(width) + "x" + std::to_string(height) +
                         (fromPlanes ? " from planes" : " from RGBA"));
            auto whole =
                fromPlanes ? encoder.jpeg(planes.data(), Yuv420Layout{width, height}, 0, height, 80)
                           : encoder.jpeg(topDown(frame, width, height), 80);
            ASSERT_TRUE(whole) << whole.error();
            const auto expected = decode(whole.value(), width, height);
            // The planes are libjpeg-turbo's own conversion (below): where no block is padded
            // on the right (libjpeg-turbo pads RGB before subsampling, planes after), the JPEG
            // from the planes is the JPEG from the RGBA rows.
            if (!fromPlanes) {
                fromRgba = expected;
            } else if (width % 16 == 0) {
                EXPECT_EQ(expected, fromRgba);
            }
            for (const int parts : {2, 3, 4, 7}) {
                SCOPED_TRACE(parts);
                const std::string jpeg = joined(encoder, frame, fromPlanes ? &planes : nullptr,
                                                width, height, parts, 80);
                EXPECT_EQ(decode(jpeg, width, height), expected);
            }
        }
    }
}

TEST(JpegBands, PlanesAreLibjpegTurbosOwnConversion)
{
    // libjpeg-turbo's RGB to YCbCr 4:2:0 (tjEncodeYUVPlanes) against the host twin of the CUDA
    // pass, byte for byte, odd sizes included; so JPEGs from either decode alike.
    tjhandle handle = tjInitCompress();
    ASSERT_NE(handle, nullptr);
    for (const auto& [width, height] : {std::pair{64, 48}, std::pair{333, 257}, std::pair{1, 1},
                                        std::pair{2, 3}, std::pair{1920, 1080}}) {
        SCOPED_TRACE(std::to_string(width) + "x" + std::to_string(height));
        const auto frame = frameBottomUp(width, height);
        const Yuv420Layout layout{width, height};
        std::vector<std::uint8_t> theirs(layout.bytes());
        unsigned char* planes[3] = {theirs.data(), theirs.data() + layout.cbOffset(),
                                    theirs.data() + layout.crOffset()};
        int strides[3] = {layout.lumaStride(), layout.chromaWidth(), layout.chromaWidth()};
        ASSERT_EQ(tjPlaneSizeYUV(0, width, layout.lumaStride(), height, TJSAMP_420),
                  layout.lumaBytes());
        ASSERT_EQ(tjPlaneSizeYUV(1, width, 0, height, TJSAMP_420), layout.chromaBytes());
        ASSERT_EQ(tjEncodeYUVPlanes(handle, frame.data(), width, width * 4, height, TJPF_RGBA,
                                    planes, strides, TJSAMP_420, TJFLAG_BOTTOMUP),
                  0)
            << tjGetErrorStr2(handle);
        const auto ours = planesOf(frame, width, height);
        std::size_t differing = 0;
        for (std::size_t i = 0; i < ours.size(); ++i)
            differing += ours[i] != theirs[i];
        EXPECT_EQ(differing, 0u);
    }
    tjDestroy(handle);
}

TEST(JpegBands, BandsThatCannotBeJoinedAreRefused)
{
    FrameEncoder encoder;
    const int width = 128, height = 200;
    const auto frame = frameBottomUp(width, height);
    const io::ImageView whole = topDown(frame, width, height);
    const auto band = [&](int first, int rows, int quality) {
        return encoder.jpeg(io::ImageView(width, rows, whole.row(first), whole.stride), quality)
            .value();
    };
    // Tables that differ (another quality), a band of the wrong height, too few bands, garbage.
    EXPECT_FALSE(joinBands({band(0, 128, 80), band(128, 72, 50)}, width, height, 128));
    EXPECT_FALSE(joinBands({band(0, 128, 80), band(128, 64, 80)}, width, height, 128));
    EXPECT_FALSE(joinBands({band(0, 128, 80)}, width, height, 128));
    EXPECT_FALSE(joinBands({band(0, 128, 80), "not a jpeg"}, width, height, 128));
    std::string cut = band(128, 72, 80);
    cut.resize(cut.size() / 2);
    EXPECT_FALSE(joinBands({band(0, 128, 80), cut}, width, height, 128));
    EXPECT_FALSE(joinBands({band(0, 100, 80), band(100, 100, 80)}, width, height, 100));
    EXPECT_TRUE(joinBands({band(0, 128, 80), band(128, 72, 80)}, width, height, 128));
}

} // namespace
} // namespace tandem::web
