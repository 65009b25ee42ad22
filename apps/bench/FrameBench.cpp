// tandem-bench frame: the whole frame of the three scenes the CUDA-resident frame is for — a
// 2.09 M-triangle sheet (scripts/make-grid-mesh.py's grid), a 1 M-point cloud (the sample's
// first frame) and the two together — at 1080p and 4K, with tonemap,fxaa, each drawn six ways
// in one run: GL draws (GL's rasterizer and GL_POINTS) or CUDA draws (the CUDA triangle
// rasterizer and point pass), on GL's memory (passes in one handoff) or resident on CUDA (no
// handoff), headless or presented as a window presents (the output into GL: one copy from the
// resident frame, or the whole frame on GL's memory in one handoff). Each run is the engine's
// own session (app::Session, as tandem-raster runs), headless, the frame output off; its
// report gives the GPU frame and stage medians and the handoffs, the wall clock its frames/s.
#include "FrameBench.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <unistd.h>

#include "engine/app/Session.h"
#include "engine/core/Error.h"
#include "engine/frame/Frame.h"
#include "engine/render/MeshPass.h"
#include "engine/render/PointPass.h"
#include "engine/stream/SampleSource.h"

namespace fs = std::filesystem;

namespace tandem::bench {

namespace {

/// scripts/make-grid-mesh.py's sheet: n×n vertices over [-1, 1]², z a gentle wave, vertex
/// colours by position; 2 (n-1)² triangles.
io::MeshData makeSheet(int n)
{
    io::MeshData mesh;
    const auto side = static_cast<std::size_t>(n);
    mesh.positions.reserve(side * side);
    mesh.colors.reserve(side * side);
    for (std::size_t y = 0; y < side; ++y)
        for (std::size_t x = 0; x < side; ++x) {
            const float u = static_cast<float>(x) / static_cast<float>(n - 1);
            const float v = static_cast<float>(y) / static_cast<float>(n - 1);
            mesh.positions.emplace_back(2.0f * u - 1.0f, 2.0f * v - 1.0f,
                                        0.05f * std::sin(12.0f * u) * std::cos(9.0f * v));
            mesh.colors.emplace_back(static_cast<std::uint8_t>(80 + 150 * u),
                                     static_cast<std::uint8_t>(80 + 150 * v), 160, 255);
        }
    mesh.indices.reserve((side - 1) * (side - 1) * 6);
    for (std::size_t y = 0; y + 1 < side; ++y)
        for (std::size_t x = 0; x + 1 < side; ++x) {
            const auto i = static_cast<std::uint32_t>(y * side + x);
            const auto n1 = static_cast<std::uint32_t>(side);
            mesh.indices.insert(mesh.indices.end(), {i, i + 1, i + n1 + 1, i, i + n1 + 1, i + n1});
        }
    io::computeVertexNormals(mesh);
    return mesh;
}

struct NamedScene {
    std::string name;
    render::Scene scene;
};

std::vector<NamedScene> makeScenes(const FrameBenchSettings& b)
{
    const std::size_t points = parseCount(b.points);
    if (points < 16 || points > 200'000'000)
        throw Error(fmt::format("--points '{}' is not a point count (16 to 200M)", b.points));
    render::SceneObject sheet{"sheet", makeSheet(b.grid)};
    stream::SampleSettings sample;
    sample.points = static_cast<std::uint32_t>(points);
    sample.frames = 1;
    render::Scene cloud = stream::sampleFrame(sample, 0);
    std::vector<NamedScene> scenes;
    for (const std::string& name : splitList(b.scenes)) {
        NamedScene s{name, {}};
        if (name == "mesh" || name == "mesh+points")
            s.scene.objects.push_back(sheet);
        if (name == "points" || name == "mesh+points")
            s.scene.objects.insert(s.scene.objects.end(), cloud.objects.begin(),
                                   cloud.objects.end());
        if (s.scene.objects.empty())
            throw Error(
                fmt::format("--scenes: no scene named '{}' (mesh, points, mesh+points)", name));
        scenes.push_back(std::move(s));
    }
    return scenes;
}

/// One way of drawing a scene.
struct Variant {
    std::string name;
    bool cudaDraws = false; ///< the CUDA triangle rasterizer and point pass, else GL's
    frame::MemoryChoice memory = frame::MemoryChoice::Gl;
    bool presented = false;  ///< the output presented into GL, as a window does
    bool presentCopy = true; ///< presented: one copy from the resident frame, else one handoff
};

const Variant Variants[] = {
    {"gl draws, gl memory", false, frame::MemoryChoice::Gl, false, true},
    {"cuda draws, gl memory", true, frame::MemoryChoice::Gl, false, true},
    {"cuda draws, resident", true, frame::MemoryChoice::Auto, false, true},
    {"presented: gl draws, gl memory", false, frame::MemoryChoice::Gl, true, true},
    {"presented: cuda draws, one handoff", true, frame::MemoryChoice::Auto, true, false},
    {"presented: cuda draws, resident + one copy", true, frame::MemoryChoice::Auto, true, true},
};

double p50(const nlohmann::json& stages, const char* name)
{
    return stages.contains(name) ? stages[name]["p50_ms"].get<double>() : 0.0;
}

nlohmann::json runVariant(const Settings& settings, const Size& size, const NamedScene& scene,
                          const Variant& v, const fs::path& reportPath)
{
    app::SessionSettings o = headlessSession(settings, size, settings.frames, reportPath);
    o.warmup = settings.warmup;
    o.raster = v.cudaDraws ? render::RasterChoice::Cuda : render::RasterChoice::Gl;
    o.points = v.cudaDraws ? render::PointChoice::Cuda : render::PointChoice::Gl;
    o.frameMemory = v.memory;
    app::OpenFailure failure;
    auto session = app::Session::open({"tandem-bench", "", settings.argv}, o, failure);
    if (!session)
        throw Error(failure.message);
    if (v.presented)
        session->keepPresenting();
    session->frame().setPresentCopy(v.presentCopy);
    session->setScene(scene.scene);
    const double seconds =
        timedRun(*session, settings, {},
                 fmt::format("the run '{}' of {} at {}", v.name, scene.name, size.name));
    const nlohmann::json report = nlohmann::json::parse(std::ifstream(reportPath));
    const auto& profile = report["profile"];
    return {{"scene", scene.name},
            {"size", size.name},
            {"resolution", {size.width, size.height}},
            {"variant", v.name},
            {"frames", settings.frames},
            {"frames_per_second", settings.frames / seconds},
            {"gpu_frame_ms_p50", p50(profile["gpu_stages"], "frame")},
            {"cpu_frame_ms_p50", p50(profile["cpu_stages"], "frame")},
            {"handoffs_per_frame_p50", profile["handoffs_per_frame"]["p50"]},
            {"gpu_stages_p50_ms",
             [&] {
                 nlohmann::json stages = nlohmann::json::object();
                 for (const auto& [name, s] : profile["gpu_stages"].items())
                     stages[name] = s["p50_ms"];
                 return stages;
             }()},
            {"memory", report["memory"]},
            {"raster", report["raster"]["path"]},
            {"points", report["points"]["path"]},
            {"stalls_by_cause", profile["stalls_by_cause"]}};
}

} // namespace

int runFrameBench(const Settings& settings, const FrameBenchSettings& b)
{
    const std::vector<Size> sizes = parseSizes(b.sizes);
    if (sizes.empty())
        throw Error(fmt::format("--sizes '{}' names no size", b.sizes));
    std::printf("frame benchmark: making the scenes\n");
    const std::vector<NamedScene> scenes = makeScenes(b);
    const fs::path reportPath =
        fs::temp_directory_path() / fmt::format("tandem-frame-bench-{}.json", getpid());
    auto context = makeContext(settings.device);
    std::printf("frame benchmark on %s\n", context->description().c_str());
    nlohmann::json json = header("frame", settings);
    json["grid"] = b.grid;
    json["postfx"] = "tonemap,fxaa";
    nlohmann::json& runs = json["runs"] = nlohmann::json::array();
    std::vector<std::vector<std::string>> rows;
    const int total = static_cast<int>(scenes.size() * sizes.size() * std::size(Variants));
    int done = 0;
    for (const NamedScene& scene : scenes) {
        for (const Size& size : sizes) {
            double baseline = 0.0;
            for (const Variant& v : Variants) {
                std::fprintf(stderr, "\rframe benchmark: %d/%d runs", done, total);
                nlohmann::json run = runVariant(settings, size, scene, v, reportPath);
                ++done;
                const double gpuMs = run["gpu_frame_ms_p50"].get<double>();
                if (&v == &Variants[0])
                    baseline = gpuMs;
                run["gpu_frame_vs_gl"] = baseline > 0 ? gpuMs / baseline : 0.0;
                const auto& stages = run["gpu_stages_p50_ms"];
                const auto stage = [&](const char* name) {
                    return stages.contains(name) ? fmt::format("{:.3f}", stages[name].get<double>())
                                                 : std::string("-");
                };
                rows.push_back({scene.name, size.name, v.name,
                                fmt::format("{:.0f}", run["frames_per_second"].get<double>()),
                                fmt::format("{:.3f}", gpuMs),
                                fmt::format("{:.2f}", run["gpu_frame_vs_gl"].get<double>()),
                                stage("handoff"), stage("present"),
                                run["memory"]["last"].get<std::string>(),
                                fmt::format("{:g}", run["handoffs_per_frame_p50"].get<double>())});
                runs.push_back(std::move(run));
            }
        }
    }
    std::fprintf(stderr, "\rframe benchmark: %d/%d runs\n", done, total);
    std::error_code ignored;
    fs::remove(reportPath, ignored);
    printTable({"scene", "size", "variant", "frames/s", "GPU frame ms", "vs gl", "handoff ms",
                "present ms", "memory", "handoffs"},
               rows);
    return writeJson(settings, json) ? 0 : 1;
}

} // namespace tandem::bench
