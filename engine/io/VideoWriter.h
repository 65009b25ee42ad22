// H.264 MP4 video from RGBA8 frames, encoded by an ffmpeg child process that reads raw frames
// on a pipe (Debian's ffmpeg package; $TANDEM_FFMPEG or `ffmpeg` on PATH). Does not link
// libav*, and never leaves half a video: output goes to PATH.partial, renamed by finish().
// Opening one ignores SIGPIPE for the whole process (a dead ffmpeg becomes an EPIPE error).
// Any one thread at a time.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>

#include <sys/types.h>

#include "engine/core/Result.h"
#include "engine/io/Image.h"

namespace tandem::io {

class VideoWriter {
public:
    /// The ffmpeg to run: $TANDEM_FFMPEG when set (and only there), else `ffmpeg` on PATH.
    /// Fails with a message saying what was looked for and how to install it.
    static Result<std::filesystem::path> findFfmpeg();

    /// Starts ffmpeg encoding `width`x`height` frames at `fps` into `path` (H.264 in MP4, crf
    /// 18, yuv420p; odd sizes padded to even). Refuses to replace an existing file unless
    /// `overwrite`; fails naming the file when it cannot be written, and when ffmpeg is
    /// missing or cannot start. Expects nothing of the frames yet.
    static Result<std::unique_ptr<VideoWriter>> open(const std::filesystem::path& path, int width,
                                                     int height, double fps, bool overwrite);

    /// Without finish(): kills ffmpeg, waits for it and removes the partial file. Never throws.
    ~VideoWriter();

    VideoWriter(const VideoWriter&) = delete;
    VideoWriter& operator=(const VideoWriter&) = delete;

    /// Sends one frame (RGBA8, rows top to bottom, the size given to open()). Blocks on the pipe
    /// while ffmpeg is behind (CPU encoding, not the GPU). Fails, with the end of ffmpeg's
    /// error output, when ffmpeg has died; the writer is then finished and the partial file
    /// removed. Fails without side effects when the frame's size is wrong.
    Result<bool> write(const Image& frame);

    /// Closes the pipe, waits for ffmpeg to encode the rest and exit (blocks), and renames the
    /// partial file to the output. On failure (ffmpeg's exit status, no frames written)
    /// returns the end of ffmpeg's error output and removes the partial file. Call once.
    Result<bool> finish();

    /// The output file.
    const std::filesystem::path& path() const { return m_path; }
    /// Frames accepted by write() so far.
    std::int64_t frameCount() const { return m_frameCount; }

private:
    VideoWriter(std::filesystem::path path, int width, int height);
    /// Closes the pipe, waits for ffmpeg, removes the partial file and returns `what` with
    /// ffmpeg's exit status and last lines.
    Failure abandon(const std::string& what);
    /// Waits for ffmpeg to exit (blocks) and keeps its wait status in m_status.
    void reap();

    std::filesystem::path m_path;
    std::filesystem::path m_partial; ///< m_path + ".partial", what ffmpeg writes
    std::filesystem::path m_log;     ///< ffmpeg's stderr, in the temporary folder
    int m_width = 0;
    int m_height = 0;
    pid_t m_child = -1; ///< -1 once reaped
    int m_status = -1;  ///< ffmpeg's wait status once reaped; -1 while unknown
    int m_pipe = -1;    ///< write end of ffmpeg's stdin; -1 once closed
    std::int64_t m_frameCount = 0;
    bool m_done = false; ///< finished, or failed and cleaned up
};

} // namespace tandem::io
