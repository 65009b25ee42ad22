// tandem-bench overhead: what profiling costs. The sample mesh through the whole frame
// (geometry, post-process chain, present) at 1080p with the profiler on and off, in
// alternating blocks of back-to-back frames in one run: the frame time (a block's wall time
// over its frames, the GPU finished at both ends) and the CPU time to issue one frame.
#include "OverheadBench.h"

#include <chrono>
#include <cstdio>

#include <fmt/format.h>
#include <glad/gl.h>

#include "engine/core/Error.h"
#include "engine/core/File.h"
#include "engine/io/MeshLoader.h"
#include "engine/render/GpuMesh.h"
#include "engine/render/OrbitCamera.h"
#include "engine/ui/FramePipeline.h"
#include "engine/ui/PostfxWiring.h"

#ifdef TANDEM_HAS_CUDA
#include <cuda_runtime_api.h>
#endif

namespace tandem::bench {

int runOverheadBench(const Settings& settings)
{
    auto context = makeContext(settings.device);
    std::printf("profiler overhead on %s\n", context->description().c_str());
    auto mesh = io::loadMesh(dataRoot() / "assets" / "sample.ply");
    if (!mesh)
        throw Error(mesh.error());
    render::GpuMesh gpuMesh(mesh.value(), "sample");
    const int width = 1920, height = 1080;
    render::SceneRenderer renderer(width, height, render::ColorFormat::Rgba8, true);
    auto cuda = ui::chooseCudaDevice(postfx::BackendChoice::Auto, settings.device);
    auto setup = ui::setUpPostfx(postfx::BackendChoice::Auto, cuda, *context);
    if (!setup)
        throw Error(setup.error());
    postfx::PostProcessor& processor = *setup.value().processor;
    auto chain = postfx::parseChain("tonemap,fxaa");
    render::OrbitCamera camera;
    camera.fit(gpuMesh.bounds());

    profile::ProfilerOptions onOptions;
    profile::Profiler on(onOptions);
    profile::ProfilerOptions offOptions;
    offOptions.enabled = false;
    profile::Profiler off(offOptions);

    std::vector<double> frameOn, frameOff, cpuOn, cpuOff;
    auto finish = [] {
        glFinish();
#ifdef TANDEM_HAS_CUDA
        cudaDeviceSynchronize();
#endif
    };
    // Frames run back to back, as an app runs them; a block's wall time over its frame count is
    // the frame time, and each frame's issue time on the CPU is measured on its own.
    auto block = [&](profile::Profiler& profiler, std::vector<double>& frames,
                     std::vector<double>& cpu, int count, bool measure) {
        ui::FramePipeline pipeline(renderer, processor, profiler);
        finish();
        const auto blockStart = std::chrono::steady_clock::now();
        for (int i = 0; i < count; ++i) {
            const auto start = std::chrono::steady_clock::now();
            profiler.beginFrame();
            camera.orbit(1.0f, 0.0f);
            pipeline.render(gpuMesh, camera, chain.value(), render::Channel::Output,
                            render::GeometryOptions{});
            profiler.endFrame();
            (void)profiler.takeFrames();
            if (measure)
                cpu.push_back(std::chrono::duration<double, std::micro>(
                                  std::chrono::steady_clock::now() - start)
                                  .count());
        }
        finish();
        if (measure)
            frames.push_back(std::chrono::duration<double, std::milli>(
                                 std::chrono::steady_clock::now() - blockStart)
                                 .count() /
                             count);
    };
    block(on, frameOn, cpuOn, settings.warmup, false);
    block(off, frameOff, cpuOff, settings.warmup, false);
    const int blocks = 20;
    const int perBlock = std::max(1, settings.frames / blocks);
    for (int b = 0; b < blocks; ++b) {
        block(on, frameOn, cpuOn, perBlock, true);
        block(off, frameOff, cpuOff, perBlock, true);
    }
    const double fOn = median(frameOn), fOff = median(frameOff);
    const double cOn = median(cpuOn), cOff = median(cpuOff);
    printTable({"profiler", "frame ms (median of blocks)", "CPU issue us (median)"},
               {{"on", fmt::format("{:.4f}", fOn), fmt::format("{:.1f}", cOn)},
                {"off", fmt::format("{:.4f}", fOff), fmt::format("{:.1f}", cOff)}});
    std::printf("frame time on/off: %+.2f %%; CPU per frame: %+.1f us (backend %s)\n",
                100.0 * (fOn / fOff - 1.0), cOn - cOff,
                interop::pathName(processor.path()));
    nlohmann::json json = header("overhead", settings);
    json["backend"] = interop::pathName(processor.path());
    json["chain"] = "tonemap,fxaa";
    json["resolution"] = {width, height};
    json["frames_per_variant"] = frameOn.size();
    json["frame_ms_profiler_on"] = fOn;
    json["frame_ms_profiler_off"] = fOff;
    json["frame_time_overhead_fraction"] = fOn / fOff - 1.0;
    json["cpu_issue_us_profiler_on"] = cOn;
    json["cpu_issue_us_profiler_off"] = cOff;
    json["cpu_overhead_us_per_frame"] = cOn - cOff;
    json["stages_timed_per_frame"] = on.gpuStats().names().size() + on.cpuStats().names().size();
    return writeJson(settings, json) ? 0 : 1;
}

} // namespace tandem::bench
