#include "BenchCommon.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <glad/gl.h>

#include "engine/app/SequenceRun.h"
#include "engine/app/Session.h"
#include "engine/app/Settings.h"
#include "engine/core/Error.h"
#include "engine/core/File.h"
#include "engine/core/Log.h"
#include "engine/core/ThreadPool.h"
#include "engine/core/Version.h"
#include "engine/cuda/Device.h"
#include "engine/gl/Gl.h"
#include "engine/gl/Texture.h"
#include "engine/render/GBuffer.h"
#include "engine/stream/Open.h"

namespace tandem::bench {

std::unique_ptr<platform::Context> makeContext(int cudaDevice)
{
    platform::ContextOptions options;
    options.width = 64;
    options.height = 64;
    options.cudaDevice = cudaDevice;
    auto context = platform::tryCreateHeadless(options);
    if (!context)
        throw Error("headless context: " + context.error());
    return std::move(context.value());
}

postfx::Chain parseChainOrThrow(const std::string& text)
{
    auto chain = postfx::parseChain(text);
    if (!chain)
        throw Error(chain.error());
    return chain.value();
}

frame::Residence makeResidence(const Settings& settings, const platform::Context& context,
                               postfx::BackendChoice choice, interop::InteropStatus* doctorOut)
{
    int device = -1;
    std::string error = "host backend asked for";
    if (choice != postfx::BackendChoice::Host) {
        auto selected = cuda::selectDevice(settings.device);
        if (selected)
            device = selected.value().index;
        else
            error = selected.error();
    }
    const interop::InteropStatus doctor = interop::diagnose(device, error, context.cudaDevice());
    if (doctorOut)
        *doctorOut = doctor;
    auto residence = frame::chooseResidence(choice, doctor);
    if (!residence)
        throw Error(residence.error());
    return residence.value();
}

void HandoffProbe::declare(interop::Uses& uses)
{
    const interop::FrameTextures t = m_gbuffer.frameTextures();
    for (gl::Texture* read : {t.color, t.depth, t.normal, t.id})
        uses.image(*read, *t.registrations, interop::Intent::Read);
    uses.image(*t.output, *t.registrations, interop::Intent::Write);
}

app::SessionSettings headlessSession(const Settings& settings, const Size& size, int frames,
                                     const std::filesystem::path& report)
{
    app::SessionSettings o;
    o.headless = true;
    o.size = {size.width, size.height};
    o.frames = settings.warmup + frames;
    o.format = frame::OutputFormat::None;
    o.chain = parseChainOrThrow("tonemap,fxaa");
    o.quiet = true;
    if (settings.device >= 0)
        o.cudaDevice = settings.device;
    o.report = report;
    o.overwrite = true;
    return o;
}

double timedRun(app::Session& session, const Settings& settings,
                const std::function<void()>& beforeFrame, const std::string& what)
{
    using Clock = std::chrono::steady_clock;
    int rendered = 0;
    auto steady = Clock::now();
    while (session.nextFrame()) {
        if (beforeFrame)
            beforeFrame();
        session.renderFrame();
        if (++rendered == settings.warmup)
            steady = Clock::now();
    }
    const int code = session.finish();
    const double seconds = std::chrono::duration<double>(Clock::now() - steady).count();
    if (code != 0)
        throw Error(fmt::format("{} failed (exit {})", what, code));
    return seconds;
}

void writePack(const std::filesystem::path& path, int frames, const stream::PackSettings& pack,
               const std::function<std::vector<std::uint8_t>(int)>& block,
               const std::function<std::string(int)>& name)
{
    stream::PackSettings settings = pack;
    settings.overwrite = true;
    auto writer = stream::PackWriter::create(path, settings);
    if (!writer)
        throw Error(writer.error());
    ThreadPool pool;
    const int batch = static_cast<int>(pool.size()) * 2;
    for (int first = 0; first < frames; first += batch) {
        const int count = std::min(batch, frames - first);
        std::vector<std::optional<stream::EncodedFrame>> encoded(static_cast<std::size_t>(count));
        std::vector<std::string> errors(static_cast<std::size_t>(count));
        pool.parallelFor(count, [&](int begin, int end) {
            for (int i = begin; i < end; ++i) {
                auto frame =
                    stream::PackWriter::encode(block(first + i), name(first + i), settings);
                if (frame)
                    encoded[static_cast<std::size_t>(i)] = std::move(frame.value());
                else
                    errors[static_cast<std::size_t>(i)] = frame.error();
            }
        });
        for (int i = 0; i < count; ++i) {
            if (!encoded[static_cast<std::size_t>(i)])
                throw Error(errors[static_cast<std::size_t>(i)]);
            if (auto added =
                    writer.value()->append(std::move(*encoded[static_cast<std::size_t>(i)]));
                !added)
                throw Error(added.error());
        }
    }
    if (auto done = writer.value()->finish(); !done)
        throw Error(done.error());
}

ViewerPlayed playSequence(const Settings& settings, const Size& size, const ViewerPlay& play,
                          const std::filesystem::path& reportPath)
{
    app::SessionSettings o = headlessSession(settings, size, play.frames, reportPath);
    if (!play.cameraPath.empty())
        o.cameraPath = app::CameraPathChoice{false, play.cameraPath};
    app::OpenFailure failure;
    auto session = app::Session::open({"tandem-bench", "", settings.argv}, o, failure);
    if (!session)
        throw Error(failure.message);
    app::SequenceSettings s;
    s.spec = play.spec;
    s.everyFrame = true;
    s.loop = stream::LoopMode::Loop;
    s.preload = play.preload;
    s.stream.budgetBytes = play.budgetBytes;
    bool usage = false;
    auto source = stream::openSource(s.spec, s.sequence);
    if (!source)
        throw Error(source.error());
    auto run = app::SequenceRun::open(*session, std::move(source.value()), s, usage);
    if (!run)
        throw Error(run.error());
    const double seconds = timedRun(
        *session, settings, [&] { run.value()->update(); }, "the viewer run " + play.name);
    ViewerPlayed played;
    played.report = nlohmann::json::parse(std::ifstream(reportPath));
    played.framesPerSecond = play.frames / seconds;
    played.gpuFrameMs = played.report["profile"]["gpu_stages"]["frame"]["p50_ms"].get<double>();
    return played;
}

io::MeshData makeTorus(int triangles)
{
    const int ring = static_cast<int>(std::sqrt(triangles / 2.0) * 1.4);
    const int side = std::max(3, triangles / 2 / ring);
    io::MeshData mesh;
    mesh.positions.reserve(static_cast<std::size_t>(ring) * side);
    for (int i = 0; i < ring; ++i) {
        const float u = 2.0f * 3.14159265f * i / ring;
        for (int j = 0; j < side; ++j) {
            const float v = 2.0f * 3.14159265f * j / side;
            const float r = 0.35f + 0.03f * std::sin(9.0f * u) * std::cos(7.0f * v);
            const glm::vec3 n(std::cos(u) * std::cos(v), std::sin(v), std::sin(u) * std::cos(v));
            mesh.positions.emplace_back(std::cos(u) * (1.0f + r * std::cos(v)), r * std::sin(v),
                                        std::sin(u) * (1.0f + r * std::cos(v)));
            mesh.normals.push_back(n);
            mesh.colors.emplace_back(static_cast<std::uint8_t>(128 + 127 * std::cos(u)),
                                     static_cast<std::uint8_t>(128 + 127 * std::sin(v)), 180, 255);
        }
    }
    for (int i = 0; i < ring; ++i)
        for (int j = 0; j < side; ++j) {
            const auto a = static_cast<std::uint32_t>(i * side + j);
            const auto b = static_cast<std::uint32_t>(((i + 1) % ring) * side + j);
            const auto c = static_cast<std::uint32_t>(((i + 1) % ring) * side + (j + 1) % side);
            const auto d = static_cast<std::uint32_t>(i * side + (j + 1) % side);
            mesh.indices.insert(mesh.indices.end(), {a, b, c, a, c, d});
        }
    return mesh;
}

std::vector<std::string> splitList(const std::string& text)
{
    std::vector<std::string> items;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find(',', start), text.size());
        if (end > start)
            items.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return items;
}

std::vector<Size> parseSizes(const std::string& text)
{
    std::vector<Size> sizes;
    for (const std::string& item : splitList(text)) {
        if (item == "1080p" || item == "4K") {
            for (const Size& size : BenchSizes)
                if (size.name == item)
                    sizes.push_back(size);
            continue;
        }
        const auto size = app::parseSize(item); // the apps' --size
        if (!size)
            throw Error("--sizes: expected 1080p, 4K or WxH, separated by commas, got '" + item +
                        "'");
        sizes.push_back({size.value().width, size.value().height, item});
    }
    if (sizes.empty())
        throw Error("--sizes: no size given");
    return sizes;
}

void captureVariant(const Settings& settings, const std::string& stem,
                    const std::function<void()>& frame, const std::function<io::Image()>& image)
{
    if (!settings.capture)
        return;
    settings.capture->begin(stem);
    frame();
    const io::Image produced = image();
    const std::string path = settings.capture->end();
    if (path.empty())
        throw Error("RenderDoc did not capture " + stem);
    const auto png = std::filesystem::path(path).replace_extension(".png");
    if (auto ok = io::writePng(png, produced, false); !ok)
        throw Error(ok.error());
    log::info("the image it produced: {}", png.string());
}

io::Image readTexture(const gl::Texture& texture)
{
    io::Image image;
    image.width = texture.width();
    image.height = texture.height();
    image.pixels.resize(static_cast<std::size_t>(image.width) * image.height * 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glGetTextureImage(texture.id(), 0, GL_RGBA, GL_UNSIGNED_BYTE,
                      static_cast<GLsizei>(image.pixels.size()), image.pixels.data());
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    gl::check("glGetTextureImage (bench capture)");
    image.flipVertically();
    return image;
}

double median(std::vector<double> values)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

std::size_t parseCount(const std::string& text)
{
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    double scale = 1;
    if (end && (*end == 'k' || *end == 'K'))
        scale = 1e3, ++end;
    else if (end && (*end == 'M' || *end == 'm'))
        scale = 1e6, ++end;
    if (!end || *end != '\0' || !(value > 0))
        return 0;
    return static_cast<std::size_t>(value * scale);
}

double timeFrames(const Settings& settings, const std::function<void()>& frame,
                  const std::function<void()>& finish)
{
    for (int i = 0; i < settings.warmup; ++i) {
        frame();
        finish();
    }
    std::vector<double> times;
    times.reserve(static_cast<std::size_t>(settings.frames));
    for (int i = 0; i < settings.frames; ++i) {
        finish();
        const auto start = std::chrono::steady_clock::now();
        frame();
        finish();
        times.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count());
    }
    return median(times);
}

nlohmann::json header(const std::string& benchmark, const Settings& settings)
{
    auto text = [](GLenum name) {
        const auto* s = reinterpret_cast<const char*>(glGetString(name));
        return std::string(s ? s : "?");
    };
    nlohmann::json j;
    j["benchmark"] = benchmark;
    std::string device = text(GL_RENDERER);
    if (auto devices = cuda::listDevices(); devices && !devices.value().empty())
        device = devices.value()[static_cast<std::size_t>(std::max(0, settings.device))].name;
    j["device"] = device;
    j["gl_renderer"] = text(GL_RENDERER);
    j["driver"] = text(GL_VERSION); // "4.5.0 NVIDIA 580.x" carries the driver version
    j["cuda"] = cuda::versionString();
    j["date"] = fmt::format(
        "{:%Y-%m-%dT%H:%M:%SZ}",
        fmt::gmtime(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now())));
    j["commit"] = settings.commit.empty() ? std::string(tandem::commit()) : settings.commit;
    j["frames"] = settings.frames;
    j["warmup"] = settings.warmup;
    j["statistic"] = "median wall time per frame, GPU work synchronised at each frame's end";
    return j;
}

bool writeJson(const Settings& settings, const nlohmann::json& json)
{
    if (settings.jsonPath.empty())
        return true;
    // Through a temporary name renamed into place; never replacing a file unless asked.
    if (auto written = writeTextFile(settings.jsonPath, json.dump(2) + "\n", settings.overwrite);
        !written) {
        std::fprintf(stderr, "error: %s\n", written.error().c_str());
        return false;
    }
    std::printf("wrote %s\n", settings.jsonPath.c_str());
    return true;
}

std::string ms(double v)
{
    return v >= 0 ? fmt::format("{:.3f}", v) : "n/a";
}

void printTable(const std::vector<std::string>& header,
                const std::vector<std::vector<std::string>>& rows)
{
    std::vector<std::size_t> widths(header.size());
    for (std::size_t c = 0; c < header.size(); ++c) {
        widths[c] = header[c].size();
        for (const auto& row : rows)
            widths[c] = std::max(widths[c], c < row.size() ? row[c].size() : 0);
    }
    auto line = [&](const std::vector<std::string>& cells) {
        std::string text;
        for (std::size_t c = 0; c < widths.size(); ++c)
            text += fmt::format("{:<{}}  ", c < cells.size() ? cells[c] : "", widths[c]);
        std::printf("%s\n", text.c_str());
    };
    line(header);
    std::string rule;
    for (std::size_t w : widths)
        rule += std::string(w, '-') + "  ";
    std::printf("%s\n", rule.c_str());
    for (const auto& row : rows)
        line(row);
    std::fflush(stdout);
}

} // namespace tandem::bench
