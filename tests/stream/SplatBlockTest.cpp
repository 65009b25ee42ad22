// Gaussian splats in frame blocks and packs: the packed encoding's error against the bounds
// render/SplatPacking.h states, the loss it brings to a frame, blocks of splats round trip (f32
// exactly), a damaged splat header is refused, and a folder of splat files streams into blocks
// that pack and read back.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

#include <fmt/format.h>

#include "engine/render/GpuSplats.h"
#include "engine/render/SceneLayout.h"
#include "engine/render/SplatPacking.h"
#include "engine/render/SplatRaster.h"
#include "engine/render/detail/HostTargets.h"
#include "engine/stream/Block.h"
#include "engine/stream/FolderSource.h"
#include "engine/stream/Pack.h"
#include "tests/render/SplatScenes.h"
#include "tests/support/ImageCompare.h"
#include "tests/support/TempDir.h"

namespace tandem {
namespace {

using render::SplatEncoding;

std::vector<std::uint8_t> blockOf(const render::Scene& scene, SplatEncoding encoding)
{
    render::SceneCounts counts = render::sceneCounts(scene);
    counts.splatEncoding = encoding;
    std::vector<std::uint8_t> block(stream::blockBytes(counts));
    EXPECT_EQ(stream::writeBlock(scene, block, encoding), block.size());
    return block;
}

render::Scene sceneOf(io::GaussianData g)
{
    render::Scene scene;
    scene.splats.push_back({"g", std::move(g)});
    return scene;
}

/// The host rasterizer's RGBA8 frame of `splats` (96 × 64, the test camera).
std::vector<std::uint8_t> frameOf(const render::GpuSplats& splats)
{
    render::SplatLook look;
    look.storedDegree = splats.shDegree();
    render::detail::HostTargets targets;
    render::renderSplatsHost(
        splats.host().scene(),
        render::makeSplatFrame(test::frontCamera(), 96, 64, false, look, false), targets);
    return targets.color;
}

TEST(SplatPacking, EachFieldWithinItsStatedBound)
{
    const io::GaussianData g = test::randomScene(2000, 3, 77u);
    const render::SplatArrays a = render::splatArrays(g);
    const int degree = 3, stride = 48;
    double worst[6] = {};
    for (std::uint32_t i = 0; i < a.count; ++i) {
        std::int8_t rest[48];
        const render::PackedSplat p =
            render::packSplat(&a.positions[i * 3], &a.scales[i * 3], &a.rotations[i * 4],
                              a.opacities[i], &a.sh[i * stride], degree, rest);
        float position[3], scale[3], rotation[4], opacity, sh[48];
        render::unpackSplat(p, rest, degree, position, scale, rotation, &opacity, sh);
        for (int k = 0; k < 3; ++k) {
            EXPECT_EQ(position[k], a.positions[i * 3 + k]);
            const double ln = std::abs(std::log(static_cast<double>(a.scales[i * 3 + k])));
            // |ln s| 2^-11 (half's rounding, relative) and expHd's 1e-6.
            const double scaleError =
                std::abs(scale[k] / a.scales[i * 3 + k] - 1.0) / (ln * std::ldexp(1.0, -11) + 2e-6);
            worst[0] = std::max(worst[0], scaleError);
            const double dc = a.sh[i * stride + k];
            worst[1] = std::max(worst[1], std::abs(sh[k] - dc) / (std::abs(dc) * 0x1p-11 + 1e-7));
        }
        // q and -q are one rotation: compare with the sign that matches.
        double dot = 0.0;
        for (int k = 0; k < 4; ++k)
            dot += rotation[k] * a.rotations[i * 4 + k];
        for (int k = 0; k < 4; ++k) {
            const double q = (dot < 0.0 ? -1.0 : 1.0) * a.rotations[i * 4 + k];
            // Each of the three smaller components within half a step; the largest, from them,
            // within what that moves it (at most about 3 half steps) — the bound covers both.
            worst[2] =
                std::max(worst[2], std::abs(rotation[k] - q) / (3.0 * render::RotationStep / 2.0));
        }
        worst[3] = std::max(worst[3], std::abs(opacity - a.opacities[i]) / (1.0 / 131070.0 + 1e-7));
        float largest = 0.0f;
        for (int k = 3; k < stride; ++k)
            largest = std::max(largest, std::abs(a.sh[i * stride + k]));
        for (int k = 3; k < stride; ++k)
            worst[4] = std::max(worst[4],
                                std::abs(sh[k] - a.sh[i * stride + k]) / (largest / 254.0 * 1.01));
    }
    std::printf("[ packed error / stated bound, worst of 2000 Gaussians: scale %.2f, DC %.2f, "
                "rotation %.2f, opacity %.2f, SH rest %.2f ]\n",
                worst[0], worst[1], worst[2], worst[3], worst[4]);
    for (int f = 0; f < 5; ++f)
        EXPECT_LE(worst[f], 1.0) << "field " << f;
    EXPECT_GT(worst[4], 0.3) << "the SH rest is quantized (a bound that cannot fail is no test)";
}

TEST(SplatPacking, TheLossItBringsToAFrame)
{
    for (int degree : {0, 3}) {
        const render::Scene scene = sceneOf(test::randomScene(3000, degree, 123u));
        const render::GpuSplats original(scene.splats);
        const std::vector<std::uint8_t> f32Block = blockOf(scene, SplatEncoding::F32);
        auto f32 = stream::viewBlock(f32Block, "f32");
        const std::vector<std::uint8_t> packedBlock = blockOf(scene, SplatEncoding::Packed);
        auto packed = stream::viewBlock(packedBlock, "packed");
        ASSERT_TRUE(f32 && packed);
        EXPECT_EQ(packed.value().splats.encoding, SplatEncoding::Packed);
        const double bytes = static_cast<double>(packed.value().splats.region.size()) / 3000.0;
        const double db =
            test::psnrRgb8(frameOf(original), frameOf(render::GpuSplats(packed.value().splats)));
        std::printf(
            "[ SH %d: packed %.1f bytes a Gaussian (f32 %.1f), PSNR %.1f dB against f32 ]\n",
            degree, bytes, static_cast<double>(f32.value().splats.region.size()) / 3000.0, db);
        // Measured 65.3 dB (SH 0) and 60.4 dB (SH 3); the inputs and the rasterizer are
        // deterministic.
        EXPECT_GE(db, 58.0);
        EXPECT_LT(db, 99.0) << "packing loses something";
        EXPECT_EQ(frameOf(original), frameOf(render::GpuSplats(f32.value().splats)))
            << "an f32 block is exact";
    }
}

TEST(SplatBlocks, RoundTripAndRepackInPlace)
{
    io::GaussianData a = test::randomScene(100, 1, 5u);
    io::GaussianData b = test::randomScene(50, 3, 6u);
    render::Scene scene;
    scene.splats.push_back({"a", a});
    scene.splats.push_back({"b", b});
    const std::vector<std::uint8_t> block = blockOf(scene, SplatEncoding::F32);
    auto view = stream::viewBlock(block, "frame");
    ASSERT_TRUE(view) << view.error();
    const render::SplatView& s = view.value().splats;
    EXPECT_EQ(s.count, 150u);
    EXPECT_EQ(s.shDegree, 3);
    const render::GpuSplats merged(scene.splats), fromBlock(s);
    EXPECT_EQ(fromBlock.host().positions, merged.host().positions);
    EXPECT_EQ(fromBlock.host().rotations, merged.host().rotations);
    EXPECT_EQ(fromBlock.host().sh, merged.host().sh) << "degree 1 padded to 3 with zeros";
    EXPECT_EQ(view.value().counts().splats, 150u);
    // Bounds cover the centres.
    EXPECT_FALSE(view.value().bounds.isEmpty());

    // Repacked: the same as a block written packed.
    auto repacked = stream::packBlockSplats(block, "frame");
    ASSERT_TRUE(repacked) << repacked.error();
    EXPECT_EQ(repacked.value(), blockOf(scene, SplatEncoding::Packed));
    EXPECT_LT(repacked.value().size(), block.size());
}

TEST(SplatBlocks, DamagedSplatHeadersAreRefused)
{
    const std::vector<std::uint8_t> block =
        blockOf(sceneOf(test::randomScene(20, 2, 9u)), SplatEncoding::Packed);
    const auto damaged = [&](std::size_t offset, std::uint8_t value, const char* expected) {
        std::vector<std::uint8_t> bad = block;
        bad[sizeof(stream::BlockHeader) + offset] = value;
        auto view = stream::viewBlock(bad, "frame 3");
        ASSERT_FALSE(view) << "offset " << offset;
        EXPECT_NE(view.error().find(expected), std::string::npos) << view.error();
    };
    damaged(offsetof(stream::BlockSplats, shDegree), 4, "SH degree 4");
    damaged(offsetof(stream::BlockSplats, encoding), 9, "encoding 9");
    // A count whose arrays no longer fit the stated region (one that still fits, 21 for 20,
    // reads zeroed padding: a Gaussian of opacity 0, culled).
    damaged(offsetof(stream::BlockSplats, count), 200, "do not match its counts");
    damaged(offsetof(stream::BlockSplats, bytes), 0xff, "do not match its counts");
    // Cut short: the region runs past the end.
    std::vector<std::uint8_t> shorter(block.begin(), block.end() - 256);
    EXPECT_FALSE(stream::viewBlock(shorter, "frame 3"));
}

/// A 3DGS PLY of `g` (SH degree 1), as training writes it.
void writeGaussianPly(const std::filesystem::path& path, const io::GaussianData& g)
{
    std::ofstream out(path, std::ios::binary);
    out << "ply\nformat binary_little_endian 1.0\nelement vertex " << g.count() << "\n";
    const char* names[] = {"x", "y", "z", "f_dc_0", "f_dc_1", "f_dc_2"};
    for (const char* n : names)
        out << "property float " << n << "\n";
    for (int i = 0; i < 9; ++i)
        out << "property float f_rest_" << i << "\n";
    for (const char* n :
         {"opacity", "scale_0", "scale_1", "scale_2", "rot_0", "rot_1", "rot_2", "rot_3"})
        out << "property float " << n << "\n";
    out << "end_header\n";
    for (std::size_t i = 0; i < g.count(); ++i) {
        std::vector<float> v = {g.positions[i].x, g.positions[i].y, g.positions[i].z};
        for (int c = 0; c < 3; ++c)
            v.push_back(g.sh[i * 12 + c]);
        for (int c = 0; c < 3; ++c) // f_rest channel by channel
            for (int k = 1; k < 4; ++k)
                v.push_back(g.sh[i * 12 + k * 3 + c]);
        const float o = g.opacities[i];
        v.push_back(std::log(o / (1.0f - o)));
        for (int k = 0; k < 3; ++k)
            v.push_back(std::log(g.scales[i][k]));
        const glm::quat& q = g.rotations[i];
        v.insert(v.end(), {q.w, q.x, q.y, q.z});
        out.write(reinterpret_cast<const char*>(v.data()),
                  static_cast<std::streamsize>(v.size() * sizeof(float)));
    }
}

TEST(SplatSequences, AFolderOfSplatFilesStreamsPacksAndReadsBack)
{
    test::TempDir dir;
    for (int f = 0; f < 3; ++f)
        writeGaussianPly(dir.path() / fmt::format("frame_{}.ply", f),
                         test::randomScene(40 + f, 1, 30u + static_cast<unsigned>(f)));
    auto source = stream::openFileSequence(dir.path().string(), {});
    ASSERT_TRUE(source) << source.error();
    std::vector<std::uint8_t> memory;
    const stream::BlockSink sink = [&](std::size_t bytes) {
        memory.resize(bytes);
        return std::span<std::uint8_t>(memory);
    };
    const auto packPath = dir.path() / "splats.tdpk";
    auto writer = stream::PackWriter::create(packPath, {});
    ASSERT_TRUE(writer) << writer.error();
    std::vector<std::vector<float>> framePositions;
    for (int f = 0; f < 3; ++f) {
        auto block = source.value()->load(f, sink);
        ASSERT_TRUE(block) << block.error();
        auto view = stream::viewBlock(block.value(), "frame");
        ASSERT_TRUE(view) << view.error();
        EXPECT_EQ(view.value().splats.count, static_cast<std::uint32_t>(40 + f));
        EXPECT_EQ(view.value().splats.shDegree, 1);
        EXPECT_EQ(view.value().splats.encoding, SplatEncoding::F32) << "files load exactly";
        EXPECT_TRUE(view.value().objects.empty());
        framePositions.push_back(render::GpuSplats(view.value().splats).host().positions);
        ASSERT_TRUE(writer.value()->add(block.value(), source.value()->frameName(f)));
    }
    auto info = writer.value()->finish();
    ASSERT_TRUE(info) << info.error();
    EXPECT_TRUE(info.value().flags & stream::PackHasSplats);
    auto pack = stream::openPack(packPath);
    ASSERT_TRUE(pack) << pack.error();
    ASSERT_TRUE(pack.value()->largestBlockBytes());
    for (int f = 0; f < 3; ++f) {
        auto block = pack.value()->load(f, sink);
        ASSERT_TRUE(block) << block.error();
        auto view = stream::viewBlock(block.value(), "frame");
        ASSERT_TRUE(view) << view.error();
        EXPECT_LE(block.value().size(), *pack.value()->largestBlockBytes());
        EXPECT_EQ(view.value().splats.encoding, SplatEncoding::Packed) << "the pack's default";
        EXPECT_EQ(render::GpuSplats(view.value().splats).host().positions,
                  framePositions[static_cast<std::size_t>(f)])
            << "positions stay exact; frame " << f;
    }

    // Turned as they load (--up -y: 180 degrees about x): y and z negated.
    stream::SequenceOptions turned;
    turned.turn = glm::dmat3(1, 0, 0, 0, -1, 0, 0, 0, -1);
    auto upside = stream::openFileSequence(dir.path().string(), turned);
    ASSERT_TRUE(upside);
    auto block = upside.value()->load(0, sink);
    ASSERT_TRUE(block);
    auto view = stream::viewBlock(block.value(), "frame");
    ASSERT_TRUE(view);
    const std::vector<float> p = render::GpuSplats(view.value().splats).host().positions;
    ASSERT_EQ(p.size(), framePositions[0].size());
    for (std::size_t i = 0; i < p.size(); ++i)
        EXPECT_NEAR(p[i], (i % 3 == 0 ? 1.0f : -1.0f) * framePositions[0][i], 1e-6f);
}

} // namespace
} // namespace tandem
