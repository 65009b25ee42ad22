#include "engine/app/Settings.h"

#include <charconv>

#include <fmt/format.h>

#include "engine/io/VideoWriter.h"
#include "engine/stream/Playback.h"
#include "engine/stream/Source.h"

namespace tandem::app {

namespace {

/// A side of a size: digits only, 1..MaxSide.
std::optional<int> parseSide(std::string_view text)
{
    int value = 0;
    const char* end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, value);
    if (text.empty() || error != std::errc() || stop != end || value < 1 || value > MaxSide)
        return std::nullopt;
    return value;
}

/// "0.1 to 8": a range as people write it (no trailing zeros).
std::string range(double low, double high)
{
    return fmt::format("{} to {}", low, high);
}

constexpr double MiB = 1048576.0;

} // namespace

Result<Size> parseSize(std::string_view text)
{
    const std::size_t x = text.find_first_of("xX");
    if (x != std::string_view::npos) {
        const auto width = parseSide(text.substr(0, x));
        const auto height = parseSide(text.substr(x + 1));
        if (width && height)
            return Size{*width, *height};
    }
    return fail(fmt::format("expected WxH with each side in 1..{}, got '{}'", MaxSide, text));
}

Result<ServeAddress> parseServeAddress(std::string_view text)
{
    const auto bad = [&] {
        return fail(fmt::format("expected [HOST:]PORT with PORT in 0..65535, got '{}'", text));
    };
    ServeAddress address;
    std::string_view port = text;
    if (const std::size_t colon = text.rfind(':'); colon != std::string_view::npos) {
        std::string_view host = text.substr(0, colon);
        if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
            host = host.substr(1, host.size() - 2);
        if (host.empty())
            return bad();
        address.host = std::string(host);
        port = text.substr(colon + 1);
    }
    int value = -1;
    const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (port.empty() || error != std::errc() || end != port.data() + port.size() || value < 0 ||
        value > 65535)
        return bad();
    address.port = value;
    return address;
}

std::string formatSize(Size size)
{
    return fmt::format("{}x{}", size.width, size.height);
}

CameraPathChoice cameraPathChoice(const std::string& text)
{
    if (text == "orbit")
        return {true, {}};
    return {false, text};
}

frame::Channel SessionSettings::shownChannel() const
{
    // With a chain, the output is what is worth seeing, unless a channel was asked for.
    if (channel)
        return *channel;
    return chain.enabledCount() > 0 ? frame::Channel::Output : frame::Channel::Color;
}

Result<bool> validate(const SessionSettings& s)
{
    if (s.size.width < 1 || s.size.height < 1 || s.size.width > MaxSide || s.size.height > MaxSide)
        return fail(fmt::format("--size: expected WxH with each side in 1..{}, got '{}'", MaxSide,
                                formatSize(s.size)));
    if (s.frames && *s.frames < 1)
        return fail("--frames: expected a positive number of frames");
    if (s.capture.frame < -1)
        return fail(
            fmt::format("--capture-frame {}: expected a frame number, 0 or more", s.capture.frame));
    if (const int last = s.frameLimit() - 1; last >= 0 && s.capture.frame > last)
        return fail(fmt::format("--capture-frame {}: the run ends at frame {} ({} frames)",
                                s.capture.frame, last, last + 1));
    if (s.traceFrames < 1)
        return fail("--trace-frames: expected a positive number of frames");
    if (s.warmup < 0)
        return fail("--warmup: expected zero or more frames");
    if (!stream::isFrameRate(s.fps))
        return fail(fmt::format("--fps {} is out of range ({})", s.fps,
                                range(stream::MinFps, stream::MaxFps)));
    if (!(s.pointSize >= 1.0f && s.pointSize <= 64.0f))
        return fail(
            fmt::format("--point-size {} is out of range ({} pixels)", s.pointSize, range(1, 64)));
    if (!(s.splatScale >= 0.01f && s.splatScale <= 100.0f))
        return fail(
            fmt::format("--splat-scale {} is out of range ({})", s.splatScale, range(0.01, 100)));
    if (s.shDegree < 0 || s.shDegree > 3)
        return fail(fmt::format("--sh-degree {} is out of range ({})", s.shDegree, range(0, 3)));
    if (s.pointWorldSize && !(*s.pointWorldSize > 0.0f))
        return fail(fmt::format("--point-world-size {}: expected a positive size in world units",
                                *s.pointWorldSize));
    if (s.format == frame::OutputFormat::Png16 && s.colorFormat != render::ColorFormat::Rgba16F)
        return fail("--format png16 writes the RGBA16F colour target: add --color-format "
                    "rgba16f");
    if (s.video && s.format != frame::OutputFormat::Png)
        return fail("--video writes a video instead of frame files: leave --format out");
    if (s.video)
        if (auto name = io::checkVideoName(*s.video); !name)
            return fail(name.error());
    if (s.outputThreads && *s.outputThreads > MaxOutputThreads)
        return fail(fmt::format("--output-threads {} is out of range (0 to {}; 0: the default)",
                                *s.outputThreads, MaxOutputThreads));
    return true;
}

Result<bool> validate(const SequenceSettings& s)
{
    if (!(s.speed >= stream::Playback::MinSpeed && s.speed <= stream::Playback::MaxSpeed))
        return fail(fmt::format("--speed {} is out of range ({})", s.speed,
                                range(stream::Playback::MinSpeed, stream::Playback::MaxSpeed)));
    if (!(s.divider >= 0.0f && s.divider <= 1.0f))
        return fail(fmt::format("--divider {} is not between 0 and 1", s.divider));
    const double cacheMb = static_cast<double>(s.stream.budgetBytes) / MiB;
    if (!(cacheMb >= 16.0 && cacheMb <= 1048576.0))
        return fail(
            fmt::format("--cache-mb {} is out of range ({} MiB)", cacheMb, range(16, 1048576)));
    const double gpuMb = static_cast<double>(s.stream.gpuBudgetBytes) / MiB;
    if (s.stream.gpuBudgetBytes != 0 && !(gpuMb >= 1.0 && gpuMb <= 1048576.0))
        return fail(
            fmt::format("--gpu-memory-mb {} is out of range ({} MiB)", gpuMb, range(1, 1048576)));
    if (s.stream.loaderThreads < 0 || s.stream.loaderThreads > stream::MaxLoaderThreads)
        return fail(fmt::format("--loader-threads {} is out of range (0 to {}; 0: the default)",
                                s.stream.loaderThreads, stream::MaxLoaderThreads));
    if (!stream::isFrameRate(s.sequence.fps))
        return fail(fmt::format("--sequence-fps {} is out of range ({})", s.sequence.fps,
                                range(stream::MinFps, stream::MaxFps)));
    return true;
}

} // namespace tandem::app
