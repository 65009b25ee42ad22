// tandem-bench points: a generated point cloud (1 M, 10 M, 100 M points on a sphere shell,
// coloured, with normals) drawn by the engine's frame at 1080p and 4K with splats of 1, 3 and
// 8 px: the CUDA point pass (raster + resolve, inside the frame's handoff) against GL_POINTS in
// the geometry pass, and a bare atomicMin kernel over the same points in the same run as the
// floor (each point projected and one 64-bit atomicMin, no splat, no depth test, no resolve).
// Times are the engine profiler's GPU spans (CUDA events, GL timestamps), medians. Plus the
// whole frame of a 1 M-point cloud with tonemap,fxaa at 1080p, points by CUDA and by GL.
#include "PointsBench.h"

#include <cmath>
#include <cstdio>
#include <map>

#include <fmt/format.h>
#include <glad/gl.h>

#include "engine/frame/Frame.h"
#include "engine/gl/Buffer.h"
#include "engine/interop/Registrations.h"
#include "engine/profile/Profiler.h"
#include "engine/render/GpuScene.h"
#include "engine/render/OrbitController.h"
#include "engine/render/PointPass.h"
#include "engine/render/SceneRenderer.h"

namespace tandem::bench {

namespace {

/// `count` points on a sphere shell of radius 1 (a little thickness), normals outwards, colours
/// by position. Deterministic (a fixed-seed xorshift).
io::MeshData makeCloud(std::size_t count)
{
    io::MeshData mesh;
    mesh.positions.resize(count);
    mesh.normals.resize(count);
    mesh.colors.resize(count);
    std::uint64_t state = 0x9e3779b97f4a7c15ull;
    auto next = [&state] {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return static_cast<float>(state >> 40) / static_cast<float>(1 << 24); // [0, 1)
    };
    for (std::size_t i = 0; i < count; ++i) {
        const float z = next() * 2.0f - 1.0f;
        const float angle = next() * 6.2831853f;
        const float r = std::sqrt(std::max(0.0f, 1.0f - z * z));
        const glm::vec3 n(r * std::cos(angle), r * std::sin(angle), z);
        mesh.positions[i] = n * (1.0f + 0.01f * next());
        mesh.normals[i] = n;
        mesh.colors[i] = glm::u8vec4(static_cast<std::uint8_t>(127.5f + 127.0f * n.x),
                                     static_cast<std::uint8_t>(127.5f + 127.0f * n.y),
                                     static_cast<std::uint8_t>(127.5f + 127.0f * n.z), 255);
    }
    return mesh;
}

/// The floor: each point of the scene's first object projected and one atomicMin of its key
/// into a buffer of its own, a CUDA pass in the frame's handoff (span "points.bare").
class BareAtomicMinPass final : public interop::Pass {
public:
    BareAtomicMinPass(const render::GpuScene& scene, const render::PointFrame& frame)
        : m_scene(scene), m_frame(frame),
          m_keys(static_cast<std::size_t>(frame.width) * frame.height * 8, nullptr, 0,
                 "bench.bare.keys")
    {}
    const char* name() const override { return "points.bare"; }
    bool isEnabled() const override { return true; }
    interop::Path path() const override { return interop::Path::Cuda; }
    void declare(interop::Uses& uses) override
    {
        m_keysRef = uses.buffer(m_keys, m_registrations, interop::Intent::Write);
        m_verticesRef =
            uses.buffer(m_scene.vertexBuffer(), m_scene.registrations(), interop::Intent::Read);
    }
    void run([[maybe_unused]] const interop::MappedView* view,
             [[maybe_unused]] interop::PassHooks& hooks) override
    {
#ifdef TANDEM_HAS_CUDA
        hooks.beginStage("points.bare", view->stream());
        render::bareAtomicMinCuda(
            view->stream(), m_frame,
            static_cast<const render::PointVertex*>(view->pointer(m_verticesRef)),
            m_scene.vertexCount(), static_cast<std::uint64_t*>(view->pointer(m_keysRef)),
            m_frame.width);
        hooks.endStage("points.bare", view->stream());
#endif
    }

private:
    const render::GpuScene& m_scene;
    [[maybe_unused]] render::PointFrame m_frame; ///< read by the CUDA kernel (CUDA builds)
    gl::Buffer m_keys;
    interop::Registrations m_registrations; // after the buffer: unregistered first
    interop::BufferRef m_keysRef, m_verticesRef;
};

/// Medians over `frames` frames (after `warmup`) of each named span's GPU time (several spans
/// of one name in a frame add up) and of the GL frame ("frame").
std::map<std::string, double> timeSpans(profile::Profiler& profiler, int warmup, int frames,
                                        const std::function<void()>& render)
{
    std::map<std::string, std::vector<double>> samples;
    for (int i = 0; i < warmup + frames; ++i) {
        profiler.beginFrame();
        render();
        profiler.endFrame();
        profiler.flush(); // waits: a benchmark measuring the GPU, not a frame loop
        for (const auto& record : profiler.takeFrames()) {
            if (i < warmup)
                continue;
            std::map<std::string, double> sum;
            for (const auto& span : record.spans)
                if (span.api != profile::Api::Cpu)
                    sum[span.name] += span.endMs - span.startMs;
            sum["frame"] = record.gpuEndMs - record.gpuStartMs;
            for (const auto& [name, value] : sum)
                samples[name].push_back(value);
        }
    }
    std::map<std::string, double> medians;
    for (auto& [name, values] : samples)
        medians[name] = median(values);
    return medians;
}

double spanOr(const std::map<std::string, double>& spans, const char* name)
{
    const auto it = spans.find(name);
    return it != spans.end() ? it->second : -1.0;
}

} // namespace

int runPointsBench(const Settings& settings, const PointsSettings& points)
{
    std::vector<std::size_t> counts;
    for (const std::string& item : splitList(points.counts)) {
        counts.push_back(parseCount(item));
        if (counts.back() == 0) {
            std::fprintf(stderr, "error: --counts: '%s' is not a count (1M, 10k, 2500)\n",
                         item.c_str());
            return 2;
        }
    }
    std::vector<float> splats;
    for (const std::string& item : splitList(points.splats)) {
        const float size = std::strtof(item.c_str(), nullptr);
        if (!(size >= 1.0f && size <= 64.0f)) {
            std::fprintf(stderr, "error: --splats: '%s' is not a size in 1..64 px\n", item.c_str());
            return 2;
        }
        splats.push_back(size);
    }
    const std::vector<Size> sizes = parseSizes(points.sizes);
    auto context = makeContext(settings.device);
    std::printf("points benchmark on %s\n", context->description().c_str());
    interop::InteropStatus doctor;
    const frame::Residence residence =
        makeResidence(settings, *context, postfx::BackendChoice::Auto, &doctor);
    const bool cuda = residence.path == interop::Path::Cuda;
    if (!cuda)
        std::printf("CUDA variants not measured: %s\n", doctor.reason.c_str());
    profile::Profiler profiler;
    if (!profile::CompiledIn) {
        std::fprintf(stderr, "error: tandem-bench points times with the profiler, which this "
                             "build leaves out\n");
        return 1;
    }

    nlohmann::json json = header("points", settings);
    json["statistic"] = "median GPU time of the engine profiler's spans (CUDA events, GL "
                        "timestamps), each frame synchronised before the next";
    json["cloud"] = "sphere shell of radius 1, colours and normals, camera fitted";
    json["gl_frames"] = points.glFrames;
    nlohmann::json results = nlohmann::json::array();
    std::vector<std::vector<std::string>> rows;
    for (const std::size_t count : counts) {
        std::printf("generating and uploading %zu points...\n", count);
        std::fflush(stdout);
        render::Scene scene;
        scene.objects.push_back({"cloud", makeCloud(count)});
        const render::GpuScene gpu(scene, "bench.cloud");
        scene.objects.clear();
        render::OrbitController controller;
        controller.fit(gpu.bounds());
        const render::Camera camera = controller.camera();
        const double n = static_cast<double>(count);
        for (const Size& size : sizes) {
            render::SceneRenderer renderer(size.width, size.height, render::ColorFormat::Rgba8,
                                           true);
            frame::Frame frame(renderer, residence, profiler);
            const postfx::Chain none;
            // The floor, once per cloud and size (the splat size does not enter it).
            double bareMs = -1;
            if (cuda) {
                frame.setPointPath(render::PointPath::Gl);
                BareAtomicMinPass bare(
                    gpu, render::makePointFrame(camera, size.width, size.height, false, {}, false));
                Registration added = frame.addPass(bare);
                render::GeometryOptions noPoints;
                noPoints.drawPoints = false;
                bareMs = spanOr(timeSpans(profiler, settings.warmup, settings.frames,
                                          [&] {
                                              frame.render(gpu, camera, none, frame::Channel::Color,
                                                           noPoints);
                                          }),
                                "points.bare");
                added.reset();
            }
            for (const float splat : splats) {
                render::GeometryOptions options;
                options.pointSize = splat;
                auto render = [&] {
                    frame.render(gpu, camera, none, frame::Channel::Color, options);
                };
                double cudaMs = -1, rasterMs = -1, resolveMs = -1;
                if (cuda) {
                    frame.setPointPath(render::PointPath::Cuda);
                    const auto spans =
                        timeSpans(profiler, settings.warmup, settings.frames, render);
                    rasterMs = spanOr(spans, "points.raster");
                    resolveMs = spanOr(spans, "points.resolve");
                    cudaMs = rasterMs + resolveMs;
                }
                frame.setPointPath(render::PointPath::Gl);
                const double glMs = spanOr(
                    timeSpans(profiler, std::min(settings.warmup, 1), points.glFrames, render),
                    "geometry");
                const double speedup = cudaMs > 0 ? glMs / cudaMs : -1;
                const double fractionOfBare = cudaMs > 0 && bareMs > 0 ? bareMs / cudaMs : -1;
                rows.push_back(
                    {fmt::format("{:g}M", n / 1e6), size.name, fmt::format("{:g}", splat),
                     ms(cudaMs), ms(rasterMs), ms(resolveMs), ms(glMs), ms(bareMs),
                     cudaMs > 0 ? fmt::format("{:.1f}", n / (cudaMs * 1e-3) / 1e9) : "n/a",
                     fmt::format("{:.3g}", n / (glMs * 1e-3) / 1e9),
                     bareMs > 0 ? fmt::format("{:.1f}", n / (bareMs * 1e-3) / 1e9) : "n/a",
                     speedup > 0 ? fmt::format("{:.0f}x", speedup) : "n/a",
                     fractionOfBare > 0 ? fmt::format("{:.0f}%", 100 * fractionOfBare) : "n/a"});
                nlohmann::json r = {{"points", count},
                                    {"size", size.name},
                                    {"width", size.width},
                                    {"height", size.height},
                                    {"splat_px", splat},
                                    {"gl_points_ms", glMs},
                                    {"gl_gpoints_per_s", n / (glMs * 1e-3) / 1e9}};
                if (cuda) {
                    r["cuda_ms"] = cudaMs;
                    r["cuda_raster_ms"] = rasterMs;
                    r["cuda_resolve_ms"] = resolveMs;
                    r["cuda_gpoints_per_s"] = n / (cudaMs * 1e-3) / 1e9;
                    r["bare_atomicmin_ms"] = bareMs;
                    r["bare_gpoints_per_s"] = n / (bareMs * 1e-3) / 1e9;
                    r["cuda_speedup_over_gl"] = speedup;
                    r["cuda_rate_fraction_of_bare"] = fractionOfBare;
                }
                results.push_back(r);
                std::printf("  %s\n", fmt::format("{}", fmt::join(rows.back(), "  ")).c_str());
                std::fflush(stdout);
            }
            // The whole frame a viewer draws: 1 M points (the first count), the default splat,
            // tonemap + fxaa, at the first size; points by CUDA and by GL.
            if (count == counts.front() && &size == &sizes.front()) {
                auto chain = postfx::parseChain("tonemap,fxaa");
                const render::GeometryOptions defaults;
                auto render = [&] {
                    frame.render(gpu, camera, chain.value(), frame::Channel::Output, defaults);
                };
                nlohmann::json e2e = {{"points", count},
                                      {"size", size.name},
                                      {"splat_px", defaults.pointSize},
                                      {"postfx", "tonemap,fxaa"}};
                for (const auto path : {render::PointPath::Cuda, render::PointPath::Gl}) {
                    if (path == render::PointPath::Cuda && !cuda)
                        continue;
                    frame.setPointPath(path);
                    const auto spans =
                        timeSpans(profiler, settings.warmup, settings.frames, render);
                    e2e[std::string(render::PointPaths.name(path)) + "_frame_gpu_ms"] =
                        spanOr(spans, "frame");
                    nlohmann::json stages;
                    for (const auto& [name, value] : spans)
                        stages[name] = value;
                    e2e[std::string(render::PointPaths.name(path)) + "_spans_ms"] = stages;
                    std::printf("whole frame, %zu points, %s, tonemap+fxaa, points by %s: %.3f ms "
                                "GPU\n",
                                count, size.name.c_str(), render::PointPaths.name(path).data(),
                                spanOr(spans, "frame"));
                }
                json["end_to_end"] = e2e;
            }
        }
    }
    std::printf("\npoints: CUDA pass vs GL_POINTS vs a bare atomicMin (median GPU ms; CUDA %d "
                "frames, GL %d)\n",
                settings.frames, points.glFrames);
    printTable({"points", "size", "splat px", "cuda ms", "raster", "resolve", "gl ms", "bare ms",
                "cuda Gpt/s", "gl Gpt/s", "bare Gpt/s", "cuda/gl", "cuda/bare rate"},
               rows);
    json["results"] = results;
    return writeJson(settings, json) ? 0 : 1;
}

} // namespace tandem::bench
