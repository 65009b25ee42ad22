// gpu tier: the CUDA splat rasterizer (render::SplatRaster) writes the same targets as its host
// twin (the same functions, no FMA contraction) bit for bit: colour (RGBA8 and RGBA16F), linear
// depth, normal, id and the per-pixel counts, for dense scenes of every SH degree and the debug
// views, over a surface and over nothing, across frames that reuse its scratch memory, and when a
// frame's tile entries do not fit its plan (the slow way must draw the same image, and be counted).
#include <cstring>

#include <fmt/format.h>
#include <string>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "engine/cuda/CudaCheck.h"
#include "engine/cuda/Device.h"
#include "engine/cuda/DeviceBuffer.h"
#include "engine/cuda/SurfaceArray.h"
#include "engine/interop/Pass.h"
#include "engine/render/SceneLayout.h"
#include "engine/render/SplatRaster.h"
#include "engine/render/detail/HostTargets.h"
#include "tests/render/SplatScenes.h"
#include "tests/support/FrameFixture.h"
#include "tests/support/GBufferPixels.h"
#include "tests/support/GpuTestContext.h"
#include "tests/support/RingCollect.h"
#include "tests/support/SceneFixtures.h"

namespace tandem::render {
namespace {

class NoHooks final : public interop::PassHooks {
public:
    void beginStage(const char*, void*) override {}
    void endStage(const char*, void*) override {}
};

/// The four targets on the device, filled from and read back into HostTargets.
struct DeviceTargets {
    using Format = cuda::SurfaceArray::Format;
    DeviceTargets(int width, int height, bool half)
        : color(width, height, half ? Format::Rgba16 : Format::Rgba8),
          depth(width, height, Format::R32F), normal(width, height, Format::Rgba16),
          id(width, height, Format::R32UI), counts(static_cast<std::size_t>(width) * height),
          pixels(counts.size())
    {}
    void upload(const detail::HostTargets& t)
    {
        color.upload(t.color.data());
        depth.upload(t.depth.data());
        normal.upload(t.normal.data());
        id.upload(t.id.data());
    }
    void download(detail::HostTargets& t, std::vector<std::uint32_t>& c, bool half) const
    {
        t.resize(pixels, half);
        color.download(t.color.data());
        depth.download(t.depth.data());
        normal.download(t.normal.data());
        id.download(t.id.data());
        c.resize(pixels);
        TANDEM_CUDA_CHECK(cudaMemcpy(c.data(), counts.data(), pixels * 4, cudaMemcpyDeviceToHost));
    }
    SplatTargets targets(int pitch) const
    {
        return {color.surface(), depth.surface(), normal.surface(),
                id.surface(),    counts.data(),   pitch};
    }
    cuda::SurfaceArray color, depth, normal, id;
    cuda::DeviceBuffer<std::uint32_t> counts;
    std::size_t pixels;
};

/// A scene's arrays copied to the device.
struct DeviceScene {
    explicit DeviceScene(const SplatArrays& a)
        : positions(copy(a.positions)), scales(copy(a.scales)), rotations(copy(a.rotations)),
          opacities(copy(a.opacities)), sh(copy(a.sh)), count(a.count)
    {}
    static cuda::DeviceBuffer<float> copy(const std::vector<float>& v)
    {
        cuda::DeviceBuffer<float> b(std::max<std::size_t>(v.size(), 1), "test splats");
        TANDEM_CUDA_CHECK(
            cudaMemcpy(b.data(), v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice));
        return b;
    }
    SplatScene scene() const
    {
        return {positions.data(), scales.data(), rotations.data(),
                opacities.data(), sh.data(),     count};
    }
    cuda::DeviceBuffer<float> positions, scales, rotations, opacities, sh;
    std::uint32_t count;
};

class SplatsCuda : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        auto device = cuda::selectDevice(-1);
        ASSERT_TRUE(device) << device.error();
    }

    /// A surface of planes at depth 4.6 .. 5.4 across the image, coloured by position, over
    /// which splats are drawn (RGBA8 bytes or RGBA16F halves).
    static detail::HostTargets surface(int width, int height, bool half)
    {
        detail::HostTargets t;
        const std::size_t pixels = static_cast<std::size_t>(width) * height;
        t.resize(pixels, half);
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x) {
                const std::size_t p = static_cast<std::size_t>(y) * width + x;
                t.depth[p] = x < width / 8 ? 0.0f : 4.6f + 0.8f * static_cast<float>(y) / height;
                t.id[p] = t.depth[p] > 0.0f ? 5u : 0u;
                const float rgba[4] = {static_cast<float>(x) / width, 0.4f,
                                       static_cast<float>(y) / height, 1.0f};
                for (int c = 0; c < 4; ++c) {
                    if (half)
                        reinterpret_cast<std::uint16_t*>(t.color.data())[p * 4 + c] =
                            floatToHalf(rgba[c]);
                    else
                        t.color[p * 4 + c] = toUnorm8(rgba[c]);
                    t.normal[p * 4 + c] = floatToHalf(c == 2 ? 1.0f : 0.0f);
                }
            }
        return t;
    }

    /// Renders `g` with the CUDA rasterizer and the host twin, over `surface` or nothing, and
    /// expects the same bits in every target. Returns the CUDA frame's counts.
    static void expectSame(SplatRaster& raster, const io::GaussianData& g, const Camera& camera,
                           int width, int height, bool half, bool drawn, const std::string& what,
                           int debug = splats::SplatDebugNone)
    {
        const SplatArrays arrays = splatArrays(g);
        SplatLook look;
        look.storedDegree = g.shDegree;
        look.debug = debug;
        const splats::SplatFrame f = makeSplatFrame(camera, width, height, half, look, drawn);
        detail::HostTargets host = drawn ? surface(width, height, half) : detail::HostTargets{};
        DeviceTargets device(width, height, half);
        if (drawn) {
            device.upload(host);
        } else {
            detail::HostTargets garbage; // CUDA must write every pixel
            garbage.resize(static_cast<std::size_t>(width) * height, half);
            std::memset(garbage.color.data(), 0x5a, garbage.color.size());
            std::fill(garbage.depth.begin(), garbage.depth.end(), 9.0f);
            std::fill(garbage.id.begin(), garbage.id.end(), 77u);
            std::fill(garbage.normal.begin(), garbage.normal.end(), std::uint16_t{0x3c00});
            device.upload(garbage);
        }
        const DeviceScene scene(arrays);
        NoHooks hooks;
        raster.render(scene.scene(), f, device.targets(width), nullptr, hooks);
        TANDEM_CUDA_CHECK(cudaDeviceSynchronize());
        std::vector<std::uint32_t> hostCounts, cudaCounts;
        renderSplatsHost(arrays.scene(), f, host, &hostCounts);
        detail::HostTargets cuda;
        device.download(cuda, cudaCounts, half);
        std::size_t blended = 0;
        for (const std::uint32_t c : hostCounts)
            blended += c;
        EXPECT_GT(blended, 0u) << what << ": nothing drawn";
        EXPECT_TRUE(cuda.color == host.color) << what << ": colour";
        EXPECT_TRUE(cuda.depth == host.depth) << what << ": depth";
        EXPECT_TRUE(cuda.normal == host.normal) << what << ": normal";
        EXPECT_TRUE(cuda.id == host.id) << what << ": id";
        EXPECT_TRUE(cudaCounts == hostCounts) << what << ": counts";
        std::size_t differ = 0;
        for (std::size_t i = 0; i < host.color.size(); ++i)
            differ += cuda.color[i] != host.color[i] ? 1 : 0;
        std::printf("[ %s: %zu colour bytes of %zu differ, %zu Gaussian-pixel blends ]\n",
                    what.c_str(), differ, host.color.size(), blended);
    }
};

TEST_F(SplatsCuda, MatchTheHostTwinBitForBit)
{
    SplatRaster raster;
    for (int degree = 0; degree <= 3; ++degree)
        expectSame(raster, test::randomScene(3000, degree, 11u + static_cast<unsigned>(degree)),
                   test::frontCamera(), 320, 200, false, false,
                   "SH degree " + std::to_string(degree) + ", RGBA8, over nothing");
    Camera side;
    side.eye = {2.5f, 1.5f, 4.0f};
    const io::GaussianData dense = test::randomScene(40000, 3, 5u);
    expectSame(raster, dense, side, 333, 211, false, true, "40k, RGBA8, over a surface");
    expectSame(raster, dense, side, 333, 211, true, true, "40k, RGBA16F, over a surface");
    expectSame(raster, dense, test::frontCamera(), 640, 360, true, false,
               "40k, RGBA16F, 640x360, over nothing");
    // The debug views: alpha, Gaussians a pixel, centres.
    for (const int debug :
         {splats::SplatDebugAlpha, splats::SplatDebugCount, splats::SplatDebugCentres}) {
        expectSame(raster, dense, side, 333, 211, false, true,
                   fmt::format("40k, debug view {}, over a surface", debug), debug);
        expectSame(raster, dense, side, 333, 211, true, false,
                   fmt::format("40k, debug view {}, RGBA16F, over nothing", debug), debug);
    }
    EXPECT_EQ(raster.counts().slowFrames, 0u);
}

TEST_F(SplatsCuda, AFrameWhoseEntriesDoNotFitIsDrawnTheSameTheSlowWay)
{
    SplatRaster raster;
    raster.setEntryCapacity(1000); // far fewer than the frame's entries
    const io::GaussianData dense = test::randomScene(20000, 3, 21u);
    expectSame(raster, dense, test::frontCamera(), 320, 200, false, true, "slow way, surface");
    expectSame(raster, dense, test::frontCamera(), 320, 200, false, false, "slow way, nothing");
    const SplatCounts counts = raster.counts();
    EXPECT_EQ(counts.slowFrames, 2u);
    EXPECT_GT(counts.entries, 1000u);
    EXPECT_EQ(counts.capacity, 1000u);
    // Planning from what it saw, the next frame fits.
    raster.setEntryCapacity(0);
    expectSame(raster, dense, test::frontCamera(), 320, 200, false, true, "planned again");
    EXPECT_EQ(raster.counts().slowFrames, 2u);
}

TEST_F(SplatsCuda, AnEmptySceneOrOneAllCulledDrawsTheBackground)
{
    SplatRaster raster;
    io::GaussianData behind;
    test::add(behind, {0.0f, 0.0f, 9.0f}, glm::vec3(0.2f), glm::quat(1, 0, 0, 0), 0.9f, {1, 0, 0});
    const SplatArrays arrays = splatArrays(behind);
    SplatLook look;
    const splats::SplatFrame f = makeSplatFrame(test::frontCamera(), 64, 48, false, look, false);
    DeviceTargets device(64, 48, false);
    const DeviceScene scene(arrays);
    NoHooks hooks;
    for (const std::uint32_t count : {0u, 1u}) {
        SplatScene s = scene.scene();
        s.count = count;
        raster.render(s, f, device.targets(64), nullptr, hooks);
        TANDEM_CUDA_CHECK(cudaDeviceSynchronize());
        detail::HostTargets out;
        std::vector<std::uint32_t> counts;
        device.download(out, counts, false);
        for (std::size_t p = 0; p < counts.size(); ++p) {
            ASSERT_EQ(counts[p], 0u);
            ASSERT_EQ(out.color[p * 4], 0x17);
            ASSERT_EQ(out.color[p * 4 + 2], 0x1c);
            ASSERT_EQ(out.depth[p], 0.0f);
        }
    }
}

TEST_F(SplatsCuda, AStreamedRegionReadsAsTheHostReadsIt)
{
    // A streamed frame's Gaussians arrive as a splat region (SplatPacking.h): F32 is read in
    // place, Packed is unpacked on the device; both must give the rasterizer the same floats the
    // host twin reads (unpackSplatRegion), so a streamed frame draws as its host twin.
    SplatRaster raster;
    NoHooks hooks;
    for (const SplatEncoding encoding : {SplatEncoding::F32, SplatEncoding::Packed})
        for (int degree = 0; degree <= 3; ++degree) {
            const std::string what = fmt::format(
                "{}, SH degree {}", encoding == SplatEncoding::F32 ? "f32" : "packed", degree);
            Scene scene;
            scene.splats.push_back(
                {"random", test::randomScene(5000 + degree, degree, 41u + degree)});
            const std::uint32_t count = static_cast<std::uint32_t>(scene.gaussianCount());
            const SplatRegion layout = splatRegion(count, degree, encoding, SplatAlign);
            std::vector<std::uint8_t> region(layout.bytes);
            layOutSplats(scene, encoding, region);
            const SplatView view{region, count, degree, encoding};
            std::vector<float> want[5];
            unpackSplatRegion(view, want[0], want[1], want[2], want[3], want[4]);

            cuda::DeviceBuffer<std::uint8_t> device(region.size(), "test splat region");
            TANDEM_CUDA_CHECK(
                cudaMemcpy(device.data(), region.data(), region.size(), cudaMemcpyHostToDevice));
            const SplatScene got =
                raster.sceneOf({device.data(), count, degree, encoding}, nullptr, hooks);
            TANDEM_CUDA_CHECK(cudaDeviceSynchronize());
            EXPECT_EQ(got.count, count) << what;
            const float* arrays[5] = {got.positions, got.scales, got.rotations, got.opacities,
                                      got.sh};
            const char* names[5] = {"positions", "scales", "rotations", "opacities", "sh"};
            for (int a = 0; a < 5; ++a) {
                std::vector<float> read(want[a].size());
                TANDEM_CUDA_CHECK(cudaMemcpy(read.data(), arrays[a], read.size() * sizeof(float),
                                             cudaMemcpyDeviceToHost));
                EXPECT_EQ(std::memcmp(read.data(), want[a].data(), read.size() * sizeof(float)), 0)
                    << what << ": " << names[a];
            }
            if (encoding == SplatEncoding::F32) { // read in place: no copy
                EXPECT_EQ(static_cast<const void*>(got.positions),
                          static_cast<const void*>(device.data() + layout.positions))
                    << what;
            }
        }
}

class SplatsFrameCuda : public test::GpuTest {
protected:
    static Scene scene(float cubeZ)
    {
        Scene scene;
        if (cubeZ != 0.0f) {
            io::MeshData cube = test::colouredCube();
            for (glm::vec3& p : cube.positions)
                p = p * 0.5f + glm::vec3(0.0f, 0.0f, cubeZ);
            scene.objects.push_back({"cube", cube});
        }
        io::GaussianData g = test::randomScene(20000, 3, 31u);
        for (glm::vec3& p : g.positions)
            p.z *= 0.2f;
        scene.splats.push_back({"slab", std::move(g)});
        return scene;
    }
};

TEST_F(SplatsFrameCuda, TheCudaPassWritesTheHostFramesGBuffer)
{
    for (const float cubeZ : {0.0f, 1.5f, -1.5f})
        for (const ColorFormat format : {ColorFormat::Rgba8, ColorFormat::Rgba16F}) {
            const std::string what =
                fmt::format("cube at z {}, {}", cubeZ, ColorFormats.name(format));
            const GpuScene gpu(scene(cubeZ), "splats");
            // Meshes by the CUDA mesh pass's host twin, as the CUDA frame draws them by that pass.
            test::FrameStack host(320, 200, format);
            host.frame.setRaster(RasterChoice::Host, "test");
            host.render(gpu, test::frontCamera(), postfx::Chain{}, frame::Channel::Color);
            const test::GBufferPixels want = test::readGBuffer(host.renderer.gbuffer());
            auto cuda = test::cudaStack(320, 200, s_doctor, format);
            cuda->frame.setMemoryChoice(frame::MemoryChoice::Gl);
            cuda->render(gpu, test::frontCamera(), postfx::Chain{}, frame::Channel::Color);
            EXPECT_EQ(cuda->frame.splatPass().splatPath(), SplatPath::Cuda);
            const test::GBufferPixels got = test::readGBuffer(cuda->renderer.gbuffer());
            test::expectBitExact(got, want, what);
            std::size_t splatPixels = 0;
            for (const std::uint32_t id : got.id)
                splatPixels += (id & splats::SplatIdBit) ? 1 : 0;
            EXPECT_GT(splatPixels, got.id.size() / 10) << what;
        }
}

TEST_F(SplatsFrameCuda, AFrameResidentOnCudaPresentsTheSameBytes)
{
    const GpuScene gpu(scene(-1.5f), "splats");
    const postfx::Chain chain = test::chainOf("tonemap,fxaa");
    auto onGl = test::cudaStack(320, 200, s_doctor);
    onGl->frame.setMemoryChoice(frame::MemoryChoice::Gl);
    const io::Image expected =
        onGl->render(gpu, test::frontCamera(), chain, frame::Channel::Output);
    auto resident = test::cudaStack(320, 200, s_doctor);
    const io::Image shown =
        resident->render(gpu, test::frontCamera(), chain, frame::Channel::Output);
    EXPECT_EQ(resident->frame.memory(), frame::Memory::Cuda) << resident->frame.memoryReason();
    EXPECT_EQ(test::differingBytes(shown.pixels, expected.pixels), 0u);
}

} // namespace
} // namespace tandem::render
