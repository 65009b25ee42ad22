#include "engine/frame/FrameWriter.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "engine/core/File.h"
#include "engine/io/Pam.h"
#include "engine/io/VideoWriter.h"
#include "engine/profile/Profiler.h"

namespace tandem::frame {

const char* extensionOf(OutputFormat format)
{
    return format == OutputFormat::Pam ? ".pam" : ".png";
}

FrameWriter::FrameWriter(const OutputSettings& settings, int width, int height)
    : m_settings(settings), m_width(width), m_height(height)
{}

Result<std::unique_ptr<FrameWriter>> FrameWriter::open(const OutputSettings& settings, int width,
                                                       int height, profile::Profiler* profiler)
{
    std::unique_ptr<FrameWriter> writer(new FrameWriter(settings, width, height));
    if (!settings.video.empty()) {
        if (settings.video.has_parent_path())
            if (auto ok = prepareOutputDirectory(settings.video.parent_path()); !ok)
                return fail(ok.error());
        auto video =
            io::VideoWriter::open(settings.video, width, height, settings.fps, settings.overwrite);
        if (!video)
            return fail(video.error());
        writer->m_video = std::move(video.value());
    } else if (auto ok = prepareOutputDirectory(settings.dir); !ok) {
        return fail(ok.error());
    }
    unsigned threads = settings.threads;
    if (threads == 0)
        threads = std::max(1u, std::thread::hardware_concurrency() - 1);
    for (unsigned i = 0; i < threads; ++i)
        writer->m_workers.emplace_back([w = writer.get(), i, profiler] { w->work(i, profiler); });
    return writer;
}

FrameWriter::~FrameWriter()
{
    (void)finish();
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_work.notify_all();
    for (auto& worker : m_workers)
        worker.join();
    // A video finish() did not complete is removed by its own destructor.
}

std::filesystem::path framePath(const OutputSettings& settings, std::uint64_t index)
{
    if (settings.name)
        return settings.dir / settings.name(index);
    return settings.dir /
           fmt::format("{}_{:05d}{}", settings.prefix, index, extensionOf(settings.format));
}

std::filesystem::path FrameWriter::framePath(std::uint64_t index) const
{
    if (m_video)
        return {};
    return frame::framePath(m_settings, index);
}

void FrameWriter::submit(const ReadyFrame& frame, std::function<void()> release,
                         std::filesystem::path path)
{
    if (m_video && path.empty() && !m_videoStarted) {
        std::lock_guard lock(m_videoMutex);
        m_videoNext = frame.index;
        m_videoStarted = true;
    }
    std::unique_lock lock(m_mutex);
    const std::size_t limit = 2 * std::max<std::size_t>(1, m_workers.size());
    if (m_queue.size() >= limit) {
        ++m_queueWaits;
        m_space.wait(lock, [&] { return m_queue.size() < limit; });
    }
    m_queue.push_back(Job{frame, std::move(release), std::move(path)});
    lock.unlock();
    m_work.notify_one();
}

void FrameWriter::work(unsigned worker, profile::Profiler* profiler)
{
    profile::CpuTrack* track = nullptr;
    if (profiler) {
        static const char* const names[] = {"output 1",  "output 2",  "output 3",  "output 4",
                                            "output 5",  "output 6",  "output 7",  "output 8",
                                            "output 9",  "output 10", "output 11", "output 12",
                                            "output 13", "output 14", "output 15", "output 16"};
        track = &profiler->threadTrack(names[std::min<unsigned>(worker, 15)]);
    }
    for (;;) {
        Job job;
        {
            std::unique_lock lock(m_mutex);
            m_work.wait(lock, [&] { return m_stop || !m_queue.empty(); });
            if (m_queue.empty())
                return;
            job = std::move(m_queue.front());
            m_queue.pop_front();
            ++m_busy;
        }
        m_space.notify_one();
        const auto start = std::chrono::steady_clock::now();
        if (track) {
            profile::ThreadScope scope(*track, "output.write");
            process(job);
        } else {
            process(job);
        }
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        {
            std::lock_guard lock(m_mutex);
            m_writeMsTotal += ms;
            --m_busy;
        }
        m_idle.notify_all();
    }
}

void FrameWriter::process(Job& job)
{
    const ReadyFrame& f = job.frame;
    const std::size_t row = f.rowBytes();
    // Copy out (flipping GL's bottom-up rows) and give the slot back before the slow part.
    io::Image image;
    std::vector<std::uint16_t> wide;
    if (f.format == PixelFormat::Rgba8) {
        image.width = f.width;
        image.height = f.height;
        image.pixels.resize(row * static_cast<std::size_t>(f.height));
        for (int y = 0; y < f.height; ++y)
            std::memcpy(image.row(y), f.pixels + row * static_cast<std::size_t>(f.height - 1 - y),
                        row);
    } else {
        wide.resize(row / 2 * static_cast<std::size_t>(f.height));
        for (int y = 0; y < f.height; ++y)
            std::memcpy(wide.data() + row / 2 * static_cast<std::size_t>(y),
                        f.pixels + row * static_cast<std::size_t>(f.height - 1 - y), row);
    }
    job.release();
    if (!error().empty())
        return; // after a failure nothing more is written
    if (m_video && job.path.empty()) {
        appendVideo(f.index, std::move(image));
        return;
    }
    const std::filesystem::path path = job.path.empty() ? framePath(f.index) : job.path;
    Result<bool> written = true;
    if (f.format == PixelFormat::Rgba16)
        written = io::writePng16(path, f.width, f.height, wide.data(), m_settings.overwrite);
    else if (m_settings.format == OutputFormat::Pam && job.path.empty())
        written = io::writePam(path, image, m_settings.overwrite);
    else
        written = io::writePng(path, image, m_settings.overwrite || !job.path.empty());
    if (!written)
        recordError(written.error());
    else
        ++m_written;
}

void FrameWriter::appendVideo(std::uint64_t index, io::Image image)
{
    // A window resized mid-video: the video keeps its size (cropped or padded with black).
    if (image.width != m_width || image.height != m_height) {
        io::Image fitted;
        fitted.width = m_width;
        fitted.height = m_height;
        fitted.pixels.assign(static_cast<std::size_t>(m_width) * m_height * 4, 0);
        const int w = std::min(m_width, image.width);
        for (int y = 0; y < std::min(m_height, image.height); ++y)
            std::memcpy(fitted.row(y), image.row(y), static_cast<std::size_t>(w) * 4);
        image = std::move(fitted);
    }
    std::lock_guard lock(m_videoMutex);
    m_videoPending.emplace(index, std::move(image));
    while (!m_videoPending.empty() && m_videoPending.begin()->first == m_videoNext) {
        auto written = m_video->write(m_videoPending.begin()->second);
        m_videoPending.erase(m_videoPending.begin());
        ++m_videoNext;
        if (!written) {
            recordError(written.error());
            m_videoPending.clear();
            return;
        }
        ++m_written;
    }
}

void FrameWriter::recordError(const std::string& message)
{
    std::lock_guard lock(m_mutex);
    if (m_error.empty())
        m_error = message;
}

std::string FrameWriter::error() const
{
    std::lock_guard lock(m_mutex);
    return m_error;
}

double FrameWriter::meanWriteMs() const
{
    std::lock_guard lock(m_mutex);
    const auto n = m_written.load();
    return n ? m_writeMsTotal / static_cast<double>(n) : 0.0;
}

Result<bool> FrameWriter::finish()
{
    {
        std::unique_lock lock(m_mutex);
        m_idle.wait(lock, [&] { return m_queue.empty() && m_busy == 0; });
    }
    if (m_video) {
        std::unique_ptr<io::VideoWriter> video = std::move(m_video);
        if (!error().empty())
            return fail(error()); // the partial video goes with `video`
        if (!m_videoPending.empty())
            recordError(fmt::format("{}: frame {} never arrived; the video would have a gap",
                                    m_settings.video.string(), m_videoNext));
        else if (auto done = video->finish(); !done)
            recordError(done.error());
    }
    if (!error().empty())
        return fail(error());
    return true;
}

} // namespace tandem::frame
