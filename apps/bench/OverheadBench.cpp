// tandem-bench overhead: what profiling costs. The sample mesh through the whole frame
// (geometry, post-process chain, present) at 1080p and 4K with the profiler on and off, in
// alternating blocks of back-to-back frames in one run: the frame time (the GPU's time for a
// block's frames after the first, between two GL timestamps every variant gets alike; the
// block's wall time beside it) and the CPU time to issue one frame.
#include "OverheadBench.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>

#include <fmt/format.h>
#include <glad/gl.h>

#include "engine/core/Error.h"
#include "engine/core/File.h"
#include "engine/frame/Frame.h"
#include "engine/gl/Query.h"
#include "engine/io/MeshLoader.h"
#include "engine/profile/Profiler.h"
#include "engine/render/GpuScene.h"
#include "engine/render/OrbitController.h"
#include "engine/render/SceneRenderer.h"

namespace tandem::bench {

namespace {

/// Diagnostics: one GL timestamp at a chosen point of an otherwise unprofiled frame, to see what
/// a timestamp costs where the profiler puts its stage boundaries: before the handoff's map (a
/// CUDA pass's declare()), after it (its run()), or after the unmap (a host pass).
class StampPass final : public interop::Pass {
public:
    enum class Where { BeforeMap, AfterMap, AfterUnmap };
    explicit StampPass(Where where) : m_where(where), m_query(GL_TIMESTAMP, "bench.stamp") {}
    const char* name() const override { return "stamp"; }
    bool isEnabled() const override { return true; }
    interop::Path path() const override
    {
        return m_where == Where::AfterUnmap ? interop::Path::Host : interop::Path::Cuda;
    }
    void declare(interop::Uses&) override
    {
        if (m_where == Where::BeforeMap)
            m_query.timestamp();
    }
    void run(const interop::MappedView*, interop::PassHooks&) override
    {
        if (m_where != Where::BeforeMap)
            m_query.timestamp();
    }

private:
    Where m_where;
    gl::Query m_query;
};

} // namespace

int runOverheadBench(const Settings& settings)
{
    auto context = makeContext(settings.device);
    std::printf("profiler overhead on %s\n", context->description().c_str());
    auto mesh = io::loadMesh(dataRoot() / "assets" / "sample.ply");
    if (!mesh)
        throw Error(mesh.error());
    render::Scene scene;
    scene.objects.push_back({"sample", std::move(mesh.value())});
    render::GpuScene gpuMesh(scene, "sample");
    const frame::Residence residence =
        makeResidence(settings, *context, postfx::BackendChoice::Auto);
    auto chain = postfx::parseChain("tonemap,fxaa");
    render::OrbitController camera;
    camera.fit(gpuMesh.bounds());

    nlohmann::json json = header("overhead", settings);
    json["backend"] = interop::Paths.name(residence.path);
    json["chain"] = "tonemap,fxaa";
    nlohmann::json results = nlohmann::json::array();
    std::vector<std::vector<std::string>> rows;
    std::vector<std::vector<std::string>> diagnostics;
    for (const Size& size : BenchSizes) {
        const int width = size.width, height = size.height;
        render::SceneRenderer renderer(width, height, render::ColorFormat::Rgba8, true);
        // Variants in alternating blocks: everything, no CUDA events, frame stamps only, off.
        struct Variant {
            const char* name;
            profile::ProfilerOptions options;
            std::vector<double> frames, wall, cpu;
        };
        std::vector<Variant> variants(residence.path == interop::Path::Cuda ? 7 : 4);
        variants[0].name = "on";
        variants[1].name = "no CUDA events";
        variants[1].options.cudaScopes = false;
        variants[2].name = "frame stamps only";
        variants[2].options.glScopes = false;
        variants[3].name = "off";
        variants[3].options.enabled = false;
        // Off, plus one GL timestamp at one of the handoff's edges.
        const char* stampNames[] = {"off + 1 stamp before the map", "off + 1 stamp after the map",
                                    "off + 1 stamp after the unmap"};
        std::vector<std::unique_ptr<StampPass>> stamps;
        for (std::size_t i = 4; i < variants.size(); ++i) {
            variants[i].name = stampNames[i - 4];
            variants[i].options.enabled = false;
            stamps.push_back(std::make_unique<StampPass>(static_cast<StampPass::Where>(i - 4)));
        }
        std::vector<std::unique_ptr<profile::Profiler>> profilers;
        for (auto& v : variants)
            profilers.push_back(std::make_unique<profile::Profiler>(v.options));
        // One frame for every variant, its profiler swapped per block: variants on frames of their
        // own would run on CUDA streams of their own, and on an H200 (2026-11-30) that alone
        // moved a variant's frame time by up to 1.5 %, by more than the profiler costs.
        frame::Frame pipeline(renderer, residence, *profilers[0]);
        Registration stamp; // the variant's stamp pass, if it has one
        auto useVariant = [&](std::size_t v) {
            pipeline.setProfiler(*profilers[v]);
            stamp.reset();
            if (v >= 4)
                stamp = pipeline.addPass(*stamps[v - 4]);
        };
        if (&size == &BenchSizes[0]) { // --renderdoc: one whole frame, CUDA output included
            useVariant(0);
            pipeline.setCaptureFaithful(true);
            captureVariant(
                settings, fmt::format("overhead-{}-frame", size.name),
                [&] {
                    profilers[0]->beginFrame();
                    pipeline.render(gpuMesh, camera.camera(), chain.value(), frame::Channel::Output,
                                    render::GeometryOptions{});
                    profilers[0]->endFrame();
                    (void)profilers[0]->takeFrames();
                },
                [&] { return renderer.readPresented(); });
            pipeline.setCaptureFaithful(false);
        }
        auto finish = [&] {
            glFinish();
            pipeline.synchronize();
        };
        // Frames run back to back, as an app runs them. A block's frame time is the GPU's time
        // for its frames after the first (a GL timestamp once the first frame is issued, one
        // after the last; the GPU stays busy in between, the CPU issuing far faster), so the
        // CPU's start-up latency and the final wait stay out of it; the wall time of the block
        // is kept beside it. Each frame's issue time on the CPU is measured on its own.
        gl::Query blockBegin(GL_TIMESTAMP, "bench.block.begin");
        gl::Query blockEnd(GL_TIMESTAMP, "bench.block.end");
        auto block = [&](std::size_t variant, std::vector<double>& blockFrames,
                         std::vector<double>& blockWall, std::vector<double>& cpu, int count,
                         bool measure) {
            profile::Profiler& profiler = *profilers[variant];
            useVariant(variant);
            finish();
            const auto blockStart = std::chrono::steady_clock::now();
            for (int i = 0; i < count; ++i) {
                const auto start = std::chrono::steady_clock::now();
                profiler.beginFrame();
                camera.orbit(1.0f, 0.0f);
                pipeline.render(gpuMesh, camera.camera(), chain.value(), frame::Channel::Output,
                                render::GeometryOptions{});
                profiler.endFrame();
                (void)profiler.takeFrames();
                if (i == 0)
                    blockBegin.timestamp();
                if (measure)
                    cpu.push_back(std::chrono::duration<double, std::micro>(
                                      std::chrono::steady_clock::now() - start)
                                      .count());
            }
            blockEnd.timestamp();
            finish();
            if (!measure || count < 2)
                return;
            const auto begin = blockBegin.tryResult(), end = blockEnd.tryResult();
            if (!begin || !end)
                throw Error("block timestamps not available after glFinish", "overhead bench");
            blockFrames.push_back(static_cast<double>(*end - *begin) * 1e-6 / (count - 1));
            blockWall.push_back(std::chrono::duration<double, std::milli>(
                                    std::chrono::steady_clock::now() - blockStart)
                                    .count() /
                                count);
        };
        for (std::size_t v = 0; v < variants.size(); ++v)
            block(v, variants[v].frames, variants[v].wall, variants[v].cpu, settings.warmup, false);
        // Many short blocks, the variants alternating: drift (clocks, heat) hits them alike, and
        // the median over blocks shrugs off the odd slow one.
        const int blocks = std::clamp(settings.frames / 25, 1, 80);
        const int perBlock = std::max(2, settings.frames / blocks);
        for (int b = 0; b < blocks; ++b)
            for (std::size_t v = 0; v < variants.size(); ++v)
                block(v, variants[v].frames, variants[v].wall, variants[v].cpu, perBlock, true);
        std::vector<double>& frameOn = variants[0].frames;
        std::vector<double>& cpuOn = variants[0].cpu;
        std::vector<double>& frameOff = variants[3].frames;
        std::vector<double>& cpuOff = variants[3].cpu;
        nlohmann::json variantsJson = nlohmann::json::array();
        for (const auto& v : variants) {
            const double f = median(v.frames);
            variantsJson.push_back({{"variant", v.name},
                                    {"frame_ms", f},
                                    {"wall_frame_ms", median(v.wall)},
                                    {"cpu_issue_us", median(v.cpu)},
                                    {"frame_time_overhead_fraction", f / median(frameOff) - 1.0}});
            diagnostics.push_back({size.name, v.name, fmt::format("{:.4f}", f),
                                   fmt::format("{:+.2f} %", 100.0 * (f / median(frameOff) - 1.0)),
                                   fmt::format("{:.1f}", median(v.cpu))});
        }
        const double fOn = median(frameOn), fOff = median(frameOff);
        const double cOn = median(cpuOn), cOff = median(cpuOff);
        rows.push_back({size.name, fmt::format("{:.4f}", fOn), fmt::format("{:.4f}", fOff),
                        fmt::format("{:+.2f} %", 100.0 * (fOn / fOff - 1.0)),
                        fmt::format("{:.1f}", cOn), fmt::format("{:.1f}", cOff),
                        fmt::format("{:+.1f} us", cOn - cOff)});
        results.push_back({{"size", size.name},
                           {"resolution", {width, height}},
                           {"blocks_per_variant", frameOn.size()},
                           {"frames_per_block", perBlock},
                           {"frame_time", "GPU time per frame between GL timestamps after a "
                                          "block's first frame and after its last"},
                           {"frame_ms_profiler_on", fOn},
                           {"frame_ms_profiler_off", fOff},
                           {"frame_time_overhead_fraction", fOn / fOff - 1.0},
                           {"cpu_issue_us_profiler_on", cOn},
                           {"cpu_issue_us_profiler_off", cOff},
                           {"cpu_overhead_us_per_frame", cOn - cOff},
                           {"variants", variantsJson}});
    }
    std::printf("\nprofiler on vs off (backend %s; frame: GPU time per frame, median over blocks "
                "of back-to-back frames; CPU: median issue time)\n",
                interop::Paths.name(residence.path).data());
    printTable({"size", "frame ms on", "frame ms off", "frame time", "CPU us on", "CPU us off",
                "CPU per frame"},
               rows);
    std::printf("\nwhere the cost is (same run, same blocks)\n");
    printTable({"size", "variant", "frame ms", "vs off", "CPU us"}, diagnostics);
    json["results"] = results;
    return writeJson(settings, json) ? 0 : 1;
}

} // namespace tandem::bench
