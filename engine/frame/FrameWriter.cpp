#include "engine/frame/FrameWriter.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "engine/core/AtomicFile.h"
#include "engine/core/File.h"
#include "engine/core/Log.h"
#include "engine/core/Srgb.h"
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
    } else {
        const auto stale = removeStaleTemporaries(settings.dir);
        if (!stale.empty())
            log::info("{}: removed {} temporary files left by writers that were killed",
                      settings.dir.string(), stale.size());
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
           fmt::format("{}_{:06d}{}", settings.prefix, index, extensionOf(settings.format));
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
    if (path.empty())
        m_framesEnd = std::max(m_framesEnd, frame.index + 1);
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
    if (m_settings.format == OutputFormat::Pam && f.format == PixelFormat::Rgba8 && !m_video &&
        job.path.empty() && f.width > 0 && f.height > 0) {
        // Raw frames go to their file straight from the slot, GL's bottom-up rows gathered top
        // first by the write itself: no copy of the 8 MB a 1080p frame holds (the copy and its
        // fresh pages were a third of a PAM frame's writer time on the H200). The slot is held
        // for the write; the ring has a slot per worker for it.
        if (error().empty()) {
            const io::ImageView view(f.width, f.height,
                                     f.pixels + row * static_cast<std::size_t>(f.height - 1),
                                     -static_cast<std::ptrdiff_t>(row));
            const std::filesystem::path path = framePath(f.index);
            bool existed = false;
            const Result<bool> written = io::writePam(path, view, m_settings.overwrite, &existed);
            settle(written, existed);
        }
        job.release();
        return;
    }
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
        // The colour target holds linear colour; a PNG holds sRGB, as every image tandem writes.
        for (std::size_t i = 0; i < wide.size(); ++i)
            if (i % 4 != 3)
                wide[i] = linearToSrgb16(wide[i]);
    }
    job.release();
    if (!error().empty())
        return; // after a failure nothing more is written
    if (m_video && job.path.empty()) {
        appendVideo(f.index, std::move(image));
        return;
    }
    if (!job.path.empty()) {
        // A screenshot never replaces a file: one that took its name meanwhile (another
        // process) makes it NAME-2.png, NAME-3.png, ...
        std::filesystem::path path = job.path;
        bool existed = true;
        Result<bool> written = true;
        for (int n = 2; existed && n < 1000; ++n) {
            written = io::writePng(path, image, false, &existed);
            if (existed)
                path = job.path.parent_path() / fmt::format("{}-{}{}", job.path.stem().string(), n,
                                                            job.path.extension().string());
        }
        if (!written) {
            recordError(written.error());
            return;
        }
        ++m_written;
        log::info("screenshot saved to {}", path.string());
        return;
    }
    const std::filesystem::path path = framePath(f.index);
    Result<bool> written = true;
    bool existed = false;
    if (f.format == PixelFormat::Rgba16)
        written =
            io::writePng16(path, f.width, f.height, wide.data(), m_settings.overwrite, &existed);
    else
        written = io::writePng(path, image, m_settings.overwrite, &existed);
    settle(written, existed);
}

void FrameWriter::settle(const Result<bool>& written, bool existed)
{
    if (written)
        ++m_written;
    else if (existed && m_settings.keepExisting)
        ++m_existing; // another run wrote this frame first: whole, and done
    else
        recordError(written.error());
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

void FrameWriter::warnAboutOlderFrames() const
{
    // Frames this run did not write but an earlier run under the same names did: a video made
    // from the folder, or a merge, would take them for this render's.
    const std::string head = m_settings.prefix + "_";
    const std::string extension = extensionOf(m_settings.format);
    std::uint64_t count = 0, first = UINT64_MAX, last = 0;
    std::error_code ec;
    for (std::filesystem::directory_iterator it(m_settings.dir, ec), end; !ec && it != end;
         it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.size() <= head.size() + extension.size() || name.rfind(head, 0) != 0 ||
            name.compare(name.size() - extension.size(), extension.size(), extension) != 0)
            continue;
        const std::string digits =
            name.substr(head.size(), name.size() - head.size() - extension.size());
        if (digits.size() > 18 || digits.find_first_not_of("0123456789") != std::string::npos)
            continue;
        const std::uint64_t index = std::stoull(digits);
        if (index < m_framesEnd)
            continue;
        ++count;
        first = std::min(first, index);
        last = std::max(last, index);
    }
    if (count > 0)
        log::warning("{}: {} {} of an earlier run {} after this run's last frame ({} to {}), "
                     "not replaced by --overwrite: remove {} if {} not part of this render",
                     m_settings.dir.string(), count, count == 1 ? "frame" : "frames",
                     count == 1 ? "remains" : "remain",
                     frame::framePath(m_settings, first).filename().string(),
                     frame::framePath(m_settings, last).filename().string(),
                     count == 1 ? "it" : "them", count == 1 ? "it is" : "they are");
}

Result<bool> FrameWriter::finish()
{
    {
        std::unique_lock lock(m_mutex);
        m_idle.wait(lock, [&] { return m_queue.empty() && m_busy == 0; });
    }
    if (!std::exchange(m_finished, true) && m_settings.overwrite && !m_video &&
        m_settings.video.empty() && !m_settings.name && m_settings.format != OutputFormat::None)
        warnAboutOlderFrames();
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
