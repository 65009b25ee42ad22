// tandem-bench splats: a generated dense splat scene like the one the 3DGS reference rasterizer
// was measured on (REFERENCES.md: Gaussians of about 3 px σ at 1080p over a third of the image,
// random opacities, random SH), 1 M and 6 M Gaussians, SH degree 0 and 3, at 1080p and 4K, drawn
// by the CUDA splat rasterizer into G-buffer-like CUDA targets over a surface half the image
// covers. Each stage (splats.project, splats.sort, splats.blend) is timed with CUDA events, and
// the pass as a whole; medians. Also what the frames held: visible Gaussians and tile entries.
// Then sequences of such frames (the slab moving) packed as tandem-pack packs them and streamed
// by the viewer's run (--every-frame, no output) straight on at the static rows' scale: frames
// a second, the GPU frame and the pass's stages from the run's report. CUDA builds only.
#include "SplatsBench.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "engine/core/Error.h"
#include "engine/core/Srgb.h"
#include "engine/cuda/CudaCheck.h"
#include "engine/cuda/DeviceBuffer.h"
#include "engine/cuda/Stream.h"
#include "engine/cuda/SurfaceArray.h"
#include "engine/render/OrbitController.h"
#include "engine/render/SplatRaster.h"
#include "engine/render/detail/HostTargets.h"
#include "engine/stream/Block.h"
#include "engine/stream/Pack.h"

namespace tandem::bench {

namespace {

/// The dense scene: `count` Gaussians in a slab in front of the camera whose image covers about
/// a third of a 16:9 frame; σ about 3 px at 1080p (so 6 px at 4K); opacities spread over
/// (0.05, 1), SH of `degree` random (DC from a colour, the rest small). Deterministic.
io::GaussianData denseScene(std::size_t count, int degree)
{
    std::uint64_t state = 0x2545f4914f6cdd1dull;
    auto next = [&state] {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return static_cast<float>(state >> 40) / static_cast<float>(1 << 24); // [0, 1)
    };
    io::GaussianData g;
    g.shDegree = degree;
    const int n = render::splats::shCount(degree);
    g.positions.resize(count);
    g.scales.resize(count);
    g.rotations.resize(count);
    g.opacities.resize(count);
    g.sh.resize(count * static_cast<std::size_t>(n) * 3);
    // The camera (denseCamera) sits at z = 5 with a 50° vertical field of view: at depth 5 a
    // 1080p pixel is 5 / 1158 world units. The slab: 4.6 × 2.6 wide (≈ 1070 × 600 px, a third
    // of the image), 1 deep.
    for (std::size_t i = 0; i < count; ++i) {
        const float x = (next() - 0.5f) * 4.6f, y = (next() - 0.5f) * 2.6f;
        g.positions[i] = {x, y, (next() - 0.5f) * 1.0f};
        for (int k = 0; k < 3; ++k)
            g.scales[i][k] = 0.013f * (0.5f + next());
        float q[4], length = 0.0f;
        for (float& c : q) {
            c = next() * 2.0f - 1.0f;
            length += c * c;
        }
        length = std::sqrt(std::max(length, 1e-12f));
        g.rotations[i] = glm::quat(q[0] / length, q[1] / length, q[2] / length, q[3] / length);
        g.opacities[i] = 0.05f + 0.95f * next();
        float* sh = g.sh.data() + i * static_cast<std::size_t>(n) * 3;
        for (int k = 0; k < n * 3; ++k)
            sh[k] = k < 3 ? (next() - 0.5f) * 3.0f : (next() - 0.5f) * 0.3f;
    }
    return g;
}

render::Camera denseCamera()
{
    render::Camera c;
    c.eye = {0.0f, 0.0f, 5.0f};
    c.target = {0.0f, 0.0f, 0.0f};
    c.fovY = 50.0f;
    return c;
}

/// Records a pair of CUDA events around each stage, per frame.
class StageEvents final : public interop::PassHooks {
public:
    ~StageEvents() override
    {
        for (auto& [name, pair] : m_events) {
            cuda::logFailure(cudaEventDestroy(pair.first), "cudaEventDestroy");
            cuda::logFailure(cudaEventDestroy(pair.second), "cudaEventDestroy");
        }
    }
    void beginStage(const char* name, void* stream) override { record(name, stream, true); }
    void endStage(const char* name, void* stream) override { record(name, stream, false); }
    /// After the GPU finished: each stage's time this frame, ms.
    void collect(std::map<std::string, std::vector<double>>& times)
    {
        for (auto& [name, pair] : m_events) {
            float ms = 0.0f;
            TANDEM_CUDA_CHECK(cudaEventElapsedTime(&ms, pair.first, pair.second));
            times[name].push_back(ms);
        }
    }

private:
    void record(const char* name, void* stream, bool begin)
    {
        auto [it, added] = m_events.try_emplace(name);
        if (added) {
            TANDEM_CUDA_CHECK(cudaEventCreate(&it->second.first));
            TANDEM_CUDA_CHECK(cudaEventCreate(&it->second.second));
        }
        TANDEM_CUDA_CHECK(cudaEventRecord(begin ? it->second.first : it->second.second,
                                          static_cast<cudaStream_t>(stream)));
    }
    std::map<std::string, std::pair<cudaEvent_t, cudaEvent_t>> m_events;
};

/// The splat pass's hooks plus one span around it all ("splats").
class PassEvents final : public interop::PassHooks {
public:
    void beginStage(const char* name, void* stream) override
    {
        if (std::string(name) == "splats.project")
            stages.beginStage("splats", stream);
        stages.beginStage(name, stream);
    }
    void endStage(const char* name, void* stream) override
    {
        stages.endStage(name, stream);
        if (std::string(name) == "splats.blend")
            stages.endStage("splats", stream);
    }
    StageEvents stages;
};

/// Writes `frames` frames of the dense scene of `count` Gaussians of SH `degree` into a pack at
/// `path` as tandem-pack writes it (packed splats, no compression), the slab moving a little
/// each frame so every frame differs; frames packed on every core.
void writeDensePack(const std::filesystem::path& path, std::size_t count, int degree, int frames)
{
    const io::GaussianData first = denseScene(count, degree);
    const stream::PackSettings settings; // tandem-pack's defaults: packed splats, no codec
    const auto block = [&](int i) {
        render::Scene scene;
        scene.splats.push_back({"dense", first});
        for (glm::vec3& p : scene.splats[0].gaussians.positions)
            p.x += 0.01f * static_cast<float>(i);
        render::SceneCounts counts = render::sceneCounts(scene);
        counts.splatEncoding = settings.splats;
        std::vector<std::uint8_t> out(stream::blockBytes(counts));
        stream::writeBlock(scene, out, settings.splats);
        return out;
    };
    writePack(path, frames, settings, block,
              [](int i) { return fmt::format("dense frame {}", i); });
}

/// Sequences of `count`-Gaussian frames streamed from a pack by the viewer's run, as
/// `tandem-viewer --headless --every-frame --format none` plays them, at each size.
nlohmann::json streamedRows(const Settings& settings, const SplatsSettings& options,
                            const std::vector<Size>& sizes, const std::vector<int>& degrees,
                            std::vector<std::vector<std::string>>& rows)
{
    namespace fs = std::filesystem;
    nlohmann::json out = nlohmann::json::array();
    const fs::path root =
        options.workDir.empty()
            ? fs::temp_directory_path() / fmt::format("tandem-splats-bench-{}", getpid())
            : fs::path(options.workDir);
    fs::create_directories(root);
    for (const std::string& item : splitList(options.streamed)) {
        const std::size_t count = parseCount(item);
        for (const int degree : degrees) {
            const fs::path pack =
                root / fmt::format("dense-{}-sh{}-{}.tdpk", item, degree, options.streamedFrames);
            if (!fs::exists(pack)) {
                std::printf("splats: packing %d frames of %s Gaussians of SH degree %d\n",
                            options.streamedFrames, item.c_str(), degree);
                std::fflush(stdout);
                writeDensePack(pack, count, degree, options.streamedFrames);
            }
            const auto info = stream::readPackInfo(pack);
            if (!info)
                throw Error(info.error());
            const std::size_t largest = info.value().largestBlockBytes;
            // The static rows' view of the slab (denseCamera(): 5 units away, 50° high) from
            // the viewer's orbit camera fitted to the pack: straight on, at the distance that
            // gives the same pixels a world unit.
            render::OrbitController orbit;
            orbit.fit(info.value().bounds);
            const float matched =
                5.0f * std::tan(glm::radians(25.0f)) / std::tan(glm::radians(orbit.fovY() * 0.5f));
            const fs::path keys = root / fmt::format("view-{}-sh{}.json", item, degree);
            {
                std::ofstream out(keys);
                out << fmt::format("{{\"keyframes\": [{{\"frame\": 0, \"yaw\": 0, \"pitch\": 0, "
                                   "\"distance\": {}}}]}}\n",
                                   matched / orbit.distance());
            }
            // Frames enough for a steady rate: the pack looped four times at least.
            const int frames = std::max(settings.frames, 4 * options.streamedFrames);
            const ViewerPlay play{fmt::format("{} SH{} streamed", item, degree),
                                  pack.string(),
                                  false,
                                  std::max<std::size_t>(std::size_t{1024} << 20, 4 * largest),
                                  frames,
                                  keys};
            for (const Size& size : sizes) {
                std::printf("splats: streaming %s at %s\n", play.name.c_str(), size.name.c_str());
                std::fflush(stdout);
                const ViewerPlayed played =
                    playSequence(settings, size, play, root / "report.json");
                const nlohmann::json& stages = played.report["profile"]["gpu_stages"];
                const auto stageMs = [&](const char* name) {
                    return stages.contains(name) ? stages[name]["p50_ms"].get<double>() : -1.0;
                };
                const nlohmann::json& streaming = played.report["streaming"];
                nlohmann::json row{{"gaussians", count},
                                   {"view", "straight on, the static rows' pixels a world unit, "
                                            "no surface"},
                                   {"sh_degree", degree},
                                   {"size", size.name},
                                   {"frames", frames},
                                   {"pack_frames", options.streamedFrames},
                                   {"bytes_per_frame", largest},
                                   {"frames_per_second", played.framesPerSecond},
                                   {"gpu_frame_ms_p50", played.gpuFrameMs},
                                   {"streaming", streaming},
                                   {"splats", played.report["splats"]},
                                   {"backend", played.report["backend"]}};
                for (const char* stage :
                     {"splats", "splats.unpack", "splats.project", "splats.sort", "splats.blend"})
                    row["median_ms"][stage] = stageMs(stage);
                out.push_back(row);
                rows.push_back({fmt::format("{} at {}", play.name, size.name),
                                fmt::format("{:.0f}", played.framesPerSecond),
                                fmt::format("{:.3f}", played.gpuFrameMs),
                                fmt::format("{:.3f}", stageMs("splats.unpack")),
                                fmt::format("{:.1f}", largest / 1e6),
                                streaming["upload_path"].get<std::string>(),
                                fmt::format("{:.1f}", streaming["upload_gb_per_s"].get<double>()),
                                std::to_string(streaming["loader_waits"].get<int>())});
            }
        }
    }
    if (!options.keep && options.workDir.empty())
        fs::remove_all(root);
    return out;
}

} // namespace

int runSplatsBench(const Settings& settings, const SplatsSettings& options)
{
    const std::vector<Size> sizes = parseSizes(options.sizes);
    std::vector<std::size_t> counts;
    for (const std::string& c : splitList(options.counts))
        counts.push_back(parseCount(c));
    std::vector<int> degrees;
    for (const std::string& d : splitList(options.degrees))
        degrees.push_back(std::atoi(d.c_str()));
    for (const std::size_t c : counts)
        if (c == 0) {
            std::fprintf(stderr, "error: --counts: %s\n", options.counts.c_str());
            return 1;
        }
    for (const int d : degrees)
        if (d < 0 || d > 3) {
            std::fprintf(stderr, "error: --degrees: SH degrees are 0 to 3\n");
            return 1;
        }
    auto context = makeContext(settings.device); // the CUDA device, and the header's GL strings
    cuda::Stream stream;

    nlohmann::json json = header("splats", settings);
    json["statistic"] = "median over the timed frames of each stage's GPU time (a pair of CUDA "
                        "events around splats.project, splats.sort, splats.blend, and around the "
                        "three: splats)";
    json["scene"] = "a dense slab: about 3 px sigma at 1080p over a third of the image, random "
                    "opacities and SH; half the image behind a surface at the slab's middle depth";
    std::vector<std::vector<std::string>> rows;
    for (const std::size_t count : counts)
        for (const int degree : degrees) {
            std::printf("splats: generating %zu Gaussians of SH degree %d\n", count, degree);
            std::fflush(stdout);
            const render::SplatArrays arrays = render::splatArrays(denseScene(count, degree));
            auto upload = [](const std::vector<float>& v) {
                cuda::DeviceBuffer<float> b(v.size(), "bench splats");
                TANDEM_CUDA_CHECK(cudaMemcpy(b.data(), v.data(), v.size() * sizeof(float),
                                             cudaMemcpyHostToDevice));
                return b;
            };
            const auto positions = upload(arrays.positions), scales = upload(arrays.scales),
                       rotations = upload(arrays.rotations), opacities = upload(arrays.opacities),
                       sh = upload(arrays.sh);
            const render::SplatScene scene{positions.data(), scales.data(), rotations.data(),
                                           opacities.data(), sh.data(),     arrays.count};
            for (const Size& size : sizes) {
                using Format = cuda::SurfaceArray::Format;
                cuda::SurfaceArray color(size.width, size.height, Format::Rgba8),
                    depth(size.width, size.height, Format::R32F),
                    normal(size.width, size.height, Format::Rgba16),
                    id(size.width, size.height, Format::R32UI);
                // The surface: the right half of the image at depth 5 (mid-slab), grey.
                render::detail::HostTargets surface;
                const std::size_t pixels = static_cast<std::size_t>(size.width) * size.height;
                surface.resize(pixels, false);
                for (std::size_t p = 0; p < pixels; ++p) {
                    const bool right = static_cast<int>(p % size.width) >= size.width / 2;
                    surface.depth[p] = right ? 5.0f : 0.0f;
                    surface.id[p] = right ? 1u : 0u;
                    for (int c = 0; c < 4; ++c)
                        surface.color[p * 4 + c] = right ? 120 : (c == 3 ? 255 : 23);
                }
                render::SplatRaster raster;
                render::SplatLook look;
                look.storedDegree = degree;
                const render::splats::SplatFrame f = render::makeSplatFrame(
                    denseCamera(), size.width, size.height, false, look, true);
                const render::SplatTargets targets{
                    color.surface(), depth.surface(), normal.surface(), id.surface(), nullptr, 0};
                std::map<std::string, std::vector<double>> times;
                PassEvents events;
                for (int i = 0; i < settings.warmup + settings.frames; ++i) {
                    color.upload(surface.color.data());
                    depth.upload(surface.depth.data());
                    raster.render(scene, f, targets, stream.get(), events);
                    TANDEM_CUDA_CHECK(
                        cudaStreamSynchronize(static_cast<cudaStream_t>(stream.get())));
                    if (i >= settings.warmup)
                        events.stages.collect(times);
                }
                const render::SplatCounts seen = raster.counts();
                const std::string label =
                    fmt::format("{} SH{} {}",
                                count >= 1000000 ? fmt::format("{}M", count / 1000000)
                                                 : fmt::format("{}", count),
                                degree, size.name);
                nlohmann::json row;
                row["gaussians"] = count;
                row["sh_degree"] = degree;
                row["size"] = size.name;
                row["width"] = size.width;
                row["height"] = size.height;
                row["visible"] = seen.visible;
                row["tile_entries"] = seen.entries;
                row["slow_frames"] = seen.slowFrames;
                for (const char* stage :
                     {"splats", "splats.project", "splats.sort", "splats.blend"})
                    row["median_ms"][stage] = median(times[stage]);
                json["rows"].push_back(row);
                rows.push_back({label, fmt::format("{:.3f}", median(times["splats"])),
                                fmt::format("{:.3f}", median(times["splats.project"])),
                                fmt::format("{:.3f}", median(times["splats.sort"])),
                                fmt::format("{:.3f}", median(times["splats.blend"])),
                                fmt::format("{}", seen.visible), fmt::format("{}", seen.entries)});
                std::printf("splats: %s %.3f ms\n", label.c_str(), median(times["splats"]));
                std::fflush(stdout);
            }
        }
    printTable({"variant", "pass ms", "project", "sort", "blend", "visible", "entries"}, rows);
    if (!options.streamed.empty()) {
        std::vector<std::vector<std::string>> streamedTable;
        json["streamed"] = streamedRows(settings, options, sizes, degrees, streamedTable);
        json["streamed_command"] = "tandem-viewer --headless --every-frame --loop loop --format "
                                   "none --postfx tonemap,fxaa PACK (in process)";
        std::printf("\nstreamed from a pack (the viewer's run, --every-frame, no output):\n");
        printTable({"variant", "frames/s", "GPU frame ms", "unpack ms", "MB/frame", "upload",
                    "upload GB/s", "loader waits"},
                   streamedTable);
    }
    return writeJson(settings, json) ? 0 : 1;
}

} // namespace tandem::bench
