#include "engine/app/FrameOutput.h"

#include <algorithm>
#include <thread>

#include <fmt/format.h>

#include "engine/core/File.h"
#include "engine/core/Log.h"
#include "engine/core/Plural.h"
#include "engine/frame/Frame.h"
#include "engine/frame/OutputRing.h"
#include "engine/render/SceneRenderer.h"

namespace fs = std::filesystem;

namespace tandem::app {

namespace {

/// Screenshots are read back through the same ring as frames, numbered apart from them.
constexpr std::uint64_t ScreenshotIndex = std::uint64_t{1} << 62;

} // namespace

FrameOutput::FrameOutput(const frame::OutputSettings& settings, int ringDepth)
    : m_settings(settings), m_ring(std::make_unique<frame::OutputRing>(ringDepth))
{}

FrameOutput::~FrameOutput() = default;

int FrameOutput::ringDepth(const SessionSettings& settings, bool writeFrames)
{
    const unsigned writers = !writeFrames ? 1u
                             : settings.outputThreads.value_or(0) > 0
                                 ? *settings.outputThreads
                                 : std::max(1u, std::thread::hardware_concurrency() - 1);
    return 3 + static_cast<int>(writers);
}

Result<std::unique_ptr<FrameOutput>> FrameOutput::open(const SessionSettings& s, int frames,
                                                       bool writeFrames, int width, int height,
                                                       int ringDepth, profile::Profiler* profiler,
                                                       const StopToken& stop)
{
    frame::OutputSettings settings;
    settings.dir = s.outDir;
    settings.format = s.format;
    settings.video = s.video.value_or(fs::path());
    settings.fps = s.fps;
    settings.overwrite = s.overwrite;
    settings.keepExisting = s.keepExisting;
    settings.threads = s.outputThreads.value_or(0);
    settings.name = s.frameName;
    std::unique_ptr<FrameOutput> output(new FrameOutput(settings, ringDepth));
    if (!writeFrames)
        return output;
    if (settings.video.empty()) {
        if (auto ok = prepareOutputDirectory(settings.dir); !ok)
            return fail(ok.error());
        if (!settings.overwrite && !settings.keepExisting)
            for (int i = 0; i < frames; ++i) {
                // A hundred million names take minutes: a signal ends the check.
                if (i % StopPollSteps == 0)
                    if (const int signal = stop.stopRequested(); signal != 0)
                        return fail(stoppedWhile(
                            signal, fmt::format("checking the names of the {} frames to write "
                                                "({} checked)",
                                                frames, i)));
                const fs::path path = frame::framePath(settings, static_cast<std::uint64_t>(i));
                std::error_code ec;
                if (fs::exists(path, ec))
                    return fail(fmt::format("{} already exists (pass --overwrite to replace "
                                            "frames; a batch render keeps them with --resume)",
                                            path.string()));
            }
    }
    auto writer = frame::FrameWriter::open(settings, width, height, profiler);
    if (!writer)
        return fail(writer.error());
    output->m_writer = std::move(writer.value());
    return output;
}

std::string FrameOutput::error() const
{
    return m_writer ? m_writer->error() : std::string();
}

std::uint64_t FrameOutput::written() const
{
    return m_writer ? m_writer->written() : 0;
}

std::uint64_t FrameOutput::settled() const
{
    return written() + (m_writer ? m_writer->framesExisting() : 0) + m_present +
           m_withheldNames.size();
}

bool FrameOutput::isPresent(std::uint64_t index)
{
    if (!m_writer || !m_settings.keepExisting || !m_settings.video.empty())
        return false;
    // Only a complete frame is ever at its name (each is renamed into place whole).
    std::error_code ec;
    if (!fs::is_regular_file(frame::framePath(m_settings, index), ec))
        return false;
    ++m_present;
    return true;
}

void FrameOutput::withhold(std::uint64_t index)
{
    if (!m_writer || !m_withheld.insert(index).second)
        return;
    m_withheldNames.push_back(
        m_settings.video.empty() ? frame::framePath(m_settings, index).filename().string()
                                 : fmt::format("frame {} of {}", index, m_settings.video.string()));
}

void FrameOutput::hand(const frame::ReadyFrame& ready)
{
    frame::OutputRing& ring = *m_ring;
    auto release = [&ring, slot = ready.slot] {
        ring.release(slot);
    };
    if (ready.index >= ScreenshotIndex) {
        auto path = m_pendingScreenshots.extract(ready.index);
        if (!path) {
            release();
            return;
        }
        if (!m_screenshots) {
            frame::OutputSettings settings;
            settings.dir = m_settings.dir;
            settings.threads = 1;
            auto writer = frame::FrameWriter::open(settings, ready.width, ready.height, nullptr);
            if (!writer) {
                log::error("screenshot: {}", writer.error());
                release();
                return;
            }
            m_screenshots = std::move(writer.value());
        }
        m_screenshots->submit(ready, release, path.mapped()); // it logs the file once written
        return;
    }
    if (m_writer)
        m_writer->submit(ready, release);
    else
        release();
}

void FrameOutput::readBack(const render::SceneRenderer& renderer, frame::Frame& frame,
                           std::uint64_t index)
{
    const auto sink = [this](const frame::ReadyFrame& ready) {
        hand(ready);
    };
    if (m_writer && !m_withheld.contains(index)) {
        if (const auto resident = frame.residentOutput())
            m_ring->readResident(resident->image, resident->stream, renderer.width(),
                                 renderer.height(), index, sink);
        else if (m_settings.format == frame::OutputFormat::Png16)
            m_ring->readTexture(renderer.gbuffer().color(), renderer.width(), renderer.height(),
                                frame::PixelFormat::Rgba16, index, sink);
        else
            m_ring->readFramebuffer(renderer.presentFramebuffer(), renderer.width(),
                                    renderer.height(), index, sink);
    }
    if (m_screenshotAsked) {
        m_screenshotAsked = false;
        takeScreenshot(renderer);
    }
    m_ring->collect(sink);
}

void FrameOutput::takeScreenshot(const render::SceneRenderer& renderer)
{
    if (auto ok = prepareOutputDirectory(m_settings.dir); !ok) {
        log::error("screenshot: {}", ok.error());
        return;
    }
    // The first free name, never one taken by an earlier screenshot still being written.
    fs::path path;
    std::error_code ec;
    do
        path = m_settings.dir / fmt::format("screenshot_{:05d}.png", m_nextScreenshot++);
    while (fs::exists(path, ec));
    const std::uint64_t index = ScreenshotIndex + static_cast<std::uint64_t>(m_nextScreenshot);
    m_pendingScreenshots[index] = path;
    m_ring->readFramebuffer(renderer.presentFramebuffer(), renderer.width(), renderer.height(),
                            index, [this](const frame::ReadyFrame& ready) { hand(ready); });
}

Result<bool> FrameOutput::finish(bool keep)
{
    // The last frames are still in flight: wait for them once, after the loop (counted).
    m_ring->drain([this](const frame::ReadyFrame& ready) { hand(ready); });
    m_kept = keep;
    Result<bool> result = true;
    if (m_writer && keep)
        if (auto done = m_writer->finish(); !done)
            result = fail(done.error());
    if (m_screenshots)
        if (auto done = m_screenshots->finish(); !done)
            log::error("screenshot: {}", done.error());
    return result;
}

void FrameOutput::logWritten() const
{
    if (!m_writer || !m_kept)
        return;
    if (!m_settings.video.empty())
        log::info("wrote {} ({})", m_settings.video.string(),
                  counted(m_writer->written(), "frame", "frames"));
    else if (const std::uint64_t present = m_present + m_writer->framesExisting(); present > 0)
        log::info("wrote {} to {}; skipped {} already present, written meanwhile by another run "
                  "({} found before rendering, {} once rendered)",
                  counted(m_writer->written(), "frame", "frames"), m_settings.dir.string(), present,
                  m_present, m_writer->framesExisting());
    else
        log::info("wrote {} to {}", counted(m_writer->written(), "frame", "frames"),
                  m_settings.dir.string());
}

void FrameOutput::logInterrupted() const
{
    // What was written is complete: say what it is.
    if (m_writer && (!m_kept || m_writer->written() == 0))
        log::warning("interrupted: no frames were written");
    else if (m_writer && !m_settings.video.empty())
        log::warning("interrupted: {} holds the {} rendered before the signal",
                     m_settings.video.string(), counted(m_writer->written(), "frame", "frames"));
    else if (m_writer)
        log::warning("interrupted: {} in {} ({} .. {})",
                     counted(m_writer->written(), "complete frame", "complete frames"),
                     m_settings.dir.string(), m_writer->framePath(0).filename().string(),
                     m_writer->framePath(m_writer->written() - 1).filename().string());
}

nlohmann::json FrameOutput::report() const
{
    nlohmann::json output = {{"ring_depth", m_ring->depth()},
                             {"frames_read_back", m_ring->framesRead()},
                             {"waits_for_a_worker", m_ring->consumerWaits()}};
    if (m_writer) {
        output["format"] = frame::OutputFormats.name(m_settings.format);
        output["video"] = m_settings.video.string();
        output["frames_written"] = m_writer->written();
        output["threads"] = m_writer->threads();
        output["queue_waits"] = m_writer->queueWaits();
        output["mean_write_ms"] = m_writer->meanWriteMs();
        // Frames not written here: another run's (--resume), or withheld (a batch frame whose
        // sequence frame was skipped).
        output["frames_present"] = m_present + m_writer->framesExisting();
        output["frames_withheld"] = m_withheldNames;
    }
    return output;
}

} // namespace tandem::app
