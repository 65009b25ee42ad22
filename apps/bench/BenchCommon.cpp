#include "BenchCommon.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <glad/gl.h>

#include "engine/core/Error.h"
#include "engine/core/Log.h"
#include "engine/cuda/Device.h"
#include "engine/gl/Gl.h"
#include "engine/gl/Texture.h"

#ifndef TANDEM_GIT_COMMIT
#define TANDEM_GIT_COMMIT "unknown"
#endif

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
    j["commit"] = settings.commit.empty() ? std::string(TANDEM_GIT_COMMIT) : settings.commit;
    j["frames"] = settings.frames;
    j["warmup"] = settings.warmup;
    j["statistic"] = "median wall time per frame, GPU work synchronised at each frame's end";
    return j;
}

bool writeJson(const Settings& settings, const nlohmann::json& json)
{
    if (settings.jsonPath.empty())
        return true;
    std::error_code ec;
    if (!settings.overwrite && std::filesystem::exists(settings.jsonPath, ec)) {
        std::fprintf(stderr, "error: %s already exists (pass --overwrite)\n",
                     settings.jsonPath.c_str());
        return false;
    }
    std::ofstream out(settings.jsonPath);
    out << json.dump(2) << '\n';
    if (!out) {
        std::fprintf(stderr, "error: %s: cannot write\n", settings.jsonPath.c_str());
        return false;
    }
    std::printf("wrote %s\n", settings.jsonPath.c_str());
    return true;
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
