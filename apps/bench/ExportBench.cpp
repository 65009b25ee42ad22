// tandem-bench export: headless frames per second with frame output on, as tandem-raster runs
// it (the session, the read-back ring, the writer pool), for a generated ~2 M-triangle mesh at
// 1080p and 4K, writing nothing, raw PAM and PNG; beside it the GPU frame time and the stalls
// per steady frame from the same run's report, and, on one frame of each size, what one encode
// costs through stb_image_write and through libspng on one thread.
#include "ExportBench.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <stb_image_write.h>
#include <unistd.h>

#include "engine/app/Session.h"
#include "engine/core/Error.h"
#include "engine/frame/FrameWriter.h"
#include "engine/io/Pam.h"
#include "engine/render/Scene.h"

namespace tandem::bench {

namespace fs = std::filesystem;

namespace {

double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::vector<frame::OutputFormat> parseFormats(const std::string& text)
{
    std::vector<frame::OutputFormat> formats;
    for (const std::string& item : splitList(text)) {
        auto format = frame::OutputFormats.parse(item);
        if (!format || format.value() == frame::OutputFormat::Png16)
            throw Error("--formats: expected none, pam or png, separated by commas, got '" + item +
                        "'");
        formats.push_back(format.value());
    }
    return formats;
}

/// One encode of `image` by stb_image_write and by the engine's PNG writer (libspng), on this
/// thread: median ms of `runs` each, and the sizes.
nlohmann::json compareEncoders(const io::Image& image, int runs)
{
    std::vector<double> stbMs, spngMs;
    std::size_t stbBytes = 0, spngBytes = 0;
    for (int i = 0; i < runs; ++i) {
        std::vector<std::uint8_t> out;
        const auto start = std::chrono::steady_clock::now();
        stbi_write_png_to_func(
            [](void* context, void* data, int size) {
                auto* bytes = static_cast<std::vector<std::uint8_t>*>(context);
                bytes->insert(bytes->end(), static_cast<std::uint8_t*>(data),
                              static_cast<std::uint8_t*>(data) + size);
            },
            &out, image.width, image.height, 4, image.pixels.data(), image.width * 4);
        stbMs.push_back(secondsSince(start) * 1e3);
        stbBytes = out.size();
        const auto start2 = std::chrono::steady_clock::now();
        auto encoded = io::encodePng(image);
        spngMs.push_back(secondsSince(start2) * 1e3);
        if (!encoded)
            throw Error(encoded.error());
        spngBytes = encoded.value().size();
    }
    return {{"stb_image_write_ms", median(stbMs)},
            {"stb_image_write_bytes", stbBytes},
            {"libspng_ms", median(spngMs)},
            {"libspng_bytes", spngBytes},
            {"speedup", median(stbMs) / median(spngMs)}};
}

} // namespace

int runExportBench(const Settings& settings, const ExportSettings& e)
{
    const std::vector<Size> sizes = parseSizes(e.sizes);
    const std::vector<frame::OutputFormat> formats = parseFormats(e.formats);
    const fs::path root =
        e.outDir.empty() ? fs::temp_directory_path() / fmt::format("tandem-export-{}", getpid())
                         : fs::path(e.outDir);
    nlohmann::json json;
    {
        auto context = makeContext(settings.device); // for the header's GL strings
        json = header("export", settings);
    }
    render::Scene scene;
    scene.objects.push_back({"torus", makeTorus(e.triangles)});
    std::printf("export benchmark: %zu triangles, %d frames (+%d warm-up) per row, frames in %s\n",
                scene.triangleCount(), settings.frames, settings.warmup, root.string().c_str());
    json["triangles"] = scene.triangleCount();
    json["chain"] = "tonemap,fxaa";
    json["camera_path"] = "orbit";
    json["hardware_threads"] = std::thread::hardware_concurrency();
    nlohmann::json results = nlohmann::json::array();
    nlohmann::json encoders = nlohmann::json::array();
    std::vector<std::vector<std::string>> rows, encoderRows;
    for (const Size& size : sizes) {
        for (frame::OutputFormat format : formats) {
            const fs::path dir =
                root / fmt::format("{}-{}", size.name, frame::OutputFormats.name(format));
            fs::create_directories(dir);
            app::SessionSettings o;
            o.headless = true;
            o.size = {size.width, size.height};
            o.frames = settings.warmup + settings.frames;
            o.warmup = settings.warmup;
            o.outDir = dir;
            o.overwrite = true;
            o.format = format;
            o.chain = parseChainOrThrow("tonemap,fxaa");
            o.cameraPath = app::CameraPathChoice{true, {}};
            o.quiet = true;
            if (settings.device >= 0)
                o.cudaDevice = settings.device;
            if (e.threads > 0)
                o.outputThreads = e.threads;
            o.report = dir / "report.json";
            app::OpenFailure failure;
            auto session = app::Session::open({"tandem-bench", "", settings.argv}, o, failure);
            if (!session)
                throw Error(failure.message);
            session->setScene(scene);
            const auto start = std::chrono::steady_clock::now();
            auto steady = start;
            int rendered = 0;
            while (session->nextFrame()) {
                session->renderFrame();
                if (++rendered == settings.warmup)
                    steady = std::chrono::steady_clock::now();
            }
            if (const int code = session->finish(); code != 0)
                return code;
            const double seconds = secondsSince(steady);
            const nlohmann::json report = nlohmann::json::parse(std::ifstream(dir / "report.json"));
            const auto& profile = report["profile"];
            const double gpuMs = profile["gpu_stages"]["frame"]["p50_ms"].get<double>();
            const double stalls = profile["stalls_per_frame"]["mean"].get<double>();
            const double throttles =
                profile["stalls_by_cause"]["throttle"]["per_frame"].get<double>();
            std::size_t files = 0;
            for (const auto& entry : fs::directory_iterator(dir))
                files += entry.path().filename().string().rfind("frame_", 0) == 0 ? 1 : 0;
            const double fps = settings.frames / seconds;
            nlohmann::json output = report["output"];
            rows.push_back({size.name, std::string(frame::OutputFormats.name(format)),
                            fmt::format("{:.1f}", fps), fmt::format("{:.2f}", gpuMs),
                            fmt::format("{:.2f}", stalls), fmt::format("{:.2f}", throttles),
                            std::to_string(files),
                            output.contains("threads") ? output["threads"].dump() : "-",
                            output.contains("mean_write_ms")
                                ? fmt::format("{:.1f}", output["mean_write_ms"].get<double>())
                                : "-"});
            results.push_back({{"size", size.name},
                               {"resolution", {size.width, size.height}},
                               {"format", frame::OutputFormats.name(format)},
                               {"frames", settings.frames},
                               {"frames_per_second", fps},
                               {"gpu_frame_ms_p50", gpuMs},
                               {"stalls_per_steady_frame", stalls},
                               {"stalls_by_cause", profile["stalls_by_cause"]},
                               {"throttle_waits_per_frame", throttles},
                               {"files_written", files},
                               {"output", output},
                               {"backend", report["backend"]}});
            if (format == frame::OutputFormat::Pam) {
                auto image = io::readPam(dir / fmt::format("frame_{:06d}.pam", rendered - 1));
                if (!image)
                    throw Error(image.error());
                nlohmann::json row = compareEncoders(image.value(), 3);
                row["size"] = size.name;
                encoderRows.push_back(
                    {size.name, fmt::format("{:.1f}", row["stb_image_write_ms"].get<double>()),
                     fmt::format("{:.1f}", row["libspng_ms"].get<double>()),
                     fmt::format("{:.1f}x", row["speedup"].get<double>()),
                     fmt::format("{} / {} KB",
                                 row["stb_image_write_bytes"].get<std::size_t>() / 1024,
                                 row["libspng_bytes"].get<std::size_t>() / 1024)});
                encoders.push_back(row);
            }
            if (!e.keep)
                fs::remove_all(dir);
        }
    }
    if (!e.keep && e.outDir.empty())
        fs::remove_all(root);
    std::printf("\nheadless export (frames/s over %d steady frames; GPU frame p50; stalls and "
                "throttle waits per steady frame)\n",
                settings.frames);
    printTable({"size", "format", "frames/s", "GPU ms", "stalls", "throttles", "files", "threads",
                "write ms"},
               rows);
    if (!encoderRows.empty()) {
        std::printf("\none PNG encode of a rendered frame on one thread\n");
        printTable({"size", "stb_image_write ms", "libspng ms", "speed-up", "sizes"}, encoderRows);
    }
    json["results"] = results;
    json["encoders"] = encoders;
    return writeJson(settings, json) ? 0 : 1;
}

} // namespace tandem::bench
