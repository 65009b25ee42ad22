// Writes read-back frames off the render thread: a pool of workers copies each frame out of its
// ring slot (giving the slot back at once) and encodes it (PNG through libspng, 16-bit PNG), or
// writes a raw PAM straight from its slot (then gives it back), through AtomicFile (a temporary
// unique to the writer, synced, renamed into place without replacing); or feeds the frames, in
// order, to ffmpeg for a video. Frames are never overwritten unless asked, never lost: finish()
// waits for the last ones. Render thread for submit()/finish(); the work runs on its own threads.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/core/EnumTable.h"
#include "engine/core/Result.h"
#include "engine/frame/OutputRing.h"
#include "engine/io/Image.h"

namespace tandem::io {
class VideoWriter;
}
namespace tandem::profile {
class Profiler;
}

namespace tandem::frame {

/// How frames are written.
enum class OutputFormat {
    Png,   ///< the presented image, 8-bit (RGB when opaque)
    Png16, ///< the G-buffer's RGBA16F colour target (linear, before the chain) clamped to
           ///< [0, 1] and sRGB-encoded into 16-bit RGBA
    Pam,   ///< the presented image, raw 8-bit RGBA (netpbm P7)
    None,  ///< nothing written: frames are rendered only (benchmarks, dry runs)
};
/// --format's values.
inline constexpr EnumTable<OutputFormat, 4> OutputFormats{
    "frame format",
    {{{OutputFormat::Png, "png", "8-bit PNG (libspng, off the render thread)"},
      {OutputFormat::Png16, "png16",
       "the RGBA16F colour target as 16-bit PNG; needs --color-format rgba16f"},
      {OutputFormat::Pam, "pam", "raw RGBA8 (netpbm PAM)"},
      {OutputFormat::None, "none", "nothing written: render only"}}}};
/// The file extension, with the dot.
const char* extensionOf(OutputFormat format);

struct OutputSettings {
    std::filesystem::path dir = "out"; ///< frames go to DIR/PREFIX_NNNNNN.EXT
    std::string prefix = "frame";
    OutputFormat format = OutputFormat::Png;
    std::filesystem::path video; ///< non-empty: an H.264 video through ffmpeg instead of files
    double fps = 30.0;           ///< the video's frame rate
    bool overwrite = false;      ///< replace existing files
    /// A file already at a frame's name is another run's frame (a batch task resumed beside a
    /// live one): counted in framesExisting(), not an error. Without it, an error.
    bool keepExisting = false;
    unsigned threads = 0; ///< workers; 0: one per hardware thread but the render thread's
    /// Names frame `index`'s file in `dir` (a batch render names frames by sequence frame and
    /// camera path); empty: PREFIX_NNNNNN.EXT (the width batch renders use too).
    std::function<std::string(std::uint64_t index)> name;
};

/// The file frame `index` goes to under `settings` (frame files, not a video).
std::filesystem::path framePath(const OutputSettings& settings, std::uint64_t index);

class FrameWriter {
public:
    /// Opens the output for frames of `width`×`height`: checks the folder can be written (and
    /// removes the temporaries that killed writers left in it), or starts ffmpeg for a video.
    /// Fails with the reason (no ffmpeg, an existing video, an unwritable folder). `profiler`,
    /// if given, gets a CPU track per worker ("output N").
    static Result<std::unique_ptr<FrameWriter>> open(const OutputSettings& settings, int width,
                                                     int height, profile::Profiler* profiler);
    /// Waits for the queued frames (see finish()); a video not finished is removed.
    ~FrameWriter();
    FrameWriter(const FrameWriter&) = delete;
    FrameWriter& operator=(const FrameWriter&) = delete;

    /// The file frame `index` goes to (empty for a video).
    std::filesystem::path framePath(std::uint64_t index) const;

    /// Queues `frame` (its pixels valid until `release` is called, which a worker does once it
    /// has copied them, or written them: PAM). `path`, if given, overrides the frame's file name
    /// (screenshots; never part of a video). Blocks when the workers are 2 frames per worker behind
    /// (counted in queueWaits(): CPU work, not the GPU).
    void submit(const ReadyFrame& frame, std::function<void()> release,
                std::filesystem::path path = {});
    /// Waits until every queued frame is written and, for a video, ffmpeg has finished and the
    /// file is renamed into place. Returns the first error. With --overwrite, warns once about
    /// frames of an earlier, longer run left past this run's last (how many, which names).
    /// Blocks (CPU and disk, not the GPU).
    Result<bool> finish();

    /// The first error a worker met ("out/frame_000012.png: cannot write: No space left"), or
    /// empty. After an error no further frame is written.
    std::string error() const;
    std::uint64_t written() const { return m_written.load(); }
    /// Frames found already written by another run (keepExisting), not written here.
    std::uint64_t framesExisting() const { return m_existing.load(); }
    /// Times submit() waited for a worker.
    std::uint64_t queueWaits() const { return m_queueWaits; }
    /// Mean milliseconds a worker spent encoding and writing one frame.
    double meanWriteMs() const;
    unsigned threads() const { return static_cast<unsigned>(m_workers.size()); }

private:
    struct Job {
        ReadyFrame frame;
        std::function<void()> release;
        std::filesystem::path path;
    };
    FrameWriter(const OutputSettings& settings, int width, int height);
    void work(unsigned worker, profile::Profiler* profiler);
    void process(Job& job);
    void appendVideo(std::uint64_t index, io::Image image);
    void recordError(const std::string& message);
    /// Counts a frame file's write: written, another run's (keepExisting) or the first error.
    void settle(const Result<bool>& written, bool existed);
    /// With --overwrite: warns about frames named like this run's past its last one.
    void warnAboutOlderFrames() const;

    OutputSettings m_settings;
    int m_width;
    int m_height;
    std::unique_ptr<io::VideoWriter> m_video;
    std::vector<std::thread> m_workers;
    mutable std::mutex m_mutex;
    std::condition_variable m_work;
    std::condition_variable m_space;
    std::condition_variable m_idle;
    std::deque<Job> m_queue;
    std::size_t m_busy = 0;
    bool m_stop = false;
    std::string m_error;
    std::atomic<std::uint64_t> m_written{0};
    std::atomic<std::uint64_t> m_existing{0};
    std::uint64_t m_framesEnd = 0; ///< one past the highest frame index submitted
    bool m_finished = false;       ///< finish() has run once
    std::uint64_t m_queueWaits = 0;
    double m_writeMsTotal = 0;
    // The video takes frames in order: frames that arrive early wait here.
    std::mutex m_videoMutex;
    std::map<std::uint64_t, io::Image> m_videoPending;
    std::uint64_t m_videoNext = 0;
    bool m_videoStarted = false;
};

} // namespace tandem::frame
