// H.264 MP4 video from RGBA8 frames, encoded by an ffmpeg child process that reads raw frames
// on a pipe (Debian's ffmpeg package; $TANDEM_FFMPEG or `ffmpeg` on PATH). Does not link
// libav*, and never leaves half a video: ffmpeg writes an AtomicFile's temporary, which is
// committed only once what ffmpeg wrote is checked to be a whole MP4 (ffmpeg 5.1 exits 0 when
// writing the end of the file fails on a full disk). ffmpeg's messages stay in memory (a pipe),
// so nothing is left in the temporary folder if the process is killed. A write to a dead ffmpeg
// is an EPIPE error: SIGPIPE is held off in the writing thread only. Any one thread at a time.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>

#include <sys/types.h>

#include "engine/core/AtomicFile.h"
#include "engine/core/Result.h"
#include "engine/io/Image.h"

namespace tandem::io {

/// The video file name extension written, with the dot.
inline constexpr const char* VideoExtension = ".mp4";

/// Fails, saying what is written, unless `path` ends in .mp4 (any case): a name promising
/// another format (.gif, .mkv) would hold an MP4.
Result<bool> checkVideoName(const std::filesystem::path& path);

/// Checks that the open file `fd` is a whole MP4: its top-level boxes add up to the file's size,
/// and ftyp, moov and mdat are among them. Fails saying what is wrong ("no moov box", "the mdat
/// box at byte 48 claims 9000 bytes, 120 are left"); the caller names the file.
Result<bool> checkMp4(int fd);

class VideoWriter {
public:
    /// The ffmpeg to run: $TANDEM_FFMPEG when set (and only there), else `ffmpeg` on PATH.
    /// Fails with a message saying what was looked for and how to install it.
    static Result<std::filesystem::path> findFfmpeg();

    /// Starts ffmpeg encoding `width`x`height` frames at `fps` into `path` (H.264 in MP4, crf
    /// 18, yuv420p; odd sizes padded to even, with a warning naming both sizes). Removes the
    /// temporaries of killed writers in the folder first. Refuses to replace an existing file
    /// unless `overwrite`; fails naming the file when it cannot be written, and when ffmpeg is
    /// missing or cannot start. Expects nothing of the frames yet.
    static Result<std::unique_ptr<VideoWriter>> open(const std::filesystem::path& path, int width,
                                                     int height, double fps, bool overwrite);

    /// Without finish(): kills ffmpeg, waits for it and removes the temporary. Never throws.
    ~VideoWriter();

    VideoWriter(const VideoWriter&) = delete;
    VideoWriter& operator=(const VideoWriter&) = delete;

    /// Sends one frame (RGBA8, rows top to bottom, the size given to open()). Blocks on the pipe
    /// while ffmpeg is behind (CPU encoding, not the GPU). Fails, with the end of ffmpeg's
    /// error output, when ffmpeg has died; the writer is then finished and the temporary
    /// removed. Fails without side effects when the frame's size is wrong.
    Result<bool> write(const Image& frame);

    /// Closes the pipe, waits for ffmpeg to encode the rest and exit (blocks), checks what it
    /// wrote (checkMp4) and commits the file (not replacing one that appeared meanwhile unless
    /// `overwrite`). On failure (ffmpeg's exit status, no frames written, an incomplete MP4,
    /// another writer's file at the name) returns the reason, with the end of ffmpeg's error
    /// output, and removes the temporary. Call once.
    Result<bool> finish();

    /// The output file.
    const std::filesystem::path& path() const { return m_path; }
    /// Frames accepted by write() so far.
    std::int64_t frameCount() const { return m_frameCount; }

private:
    VideoWriter(std::filesystem::path path, int width, int height);
    /// Closes the pipe, waits for ffmpeg, removes the temporary and returns `what` with
    /// ffmpeg's exit status and last lines.
    Failure abandon(const std::string& what);
    /// Waits for ffmpeg to exit (blocks) and keeps its wait status in m_status; then waits for
    /// the end of its messages.
    void reap();
    /// Keeps what ffmpeg prints (its last few KiB) until the pipe closes. On its own thread.
    void readMessages(int fd);
    /// The last few lines ffmpeg printed, joined with " | ".
    std::string messageTail();

    std::filesystem::path m_path;
    AtomicFile m_file; ///< the temporary ffmpeg writes, committed by finish()
    int m_width = 0;
    int m_height = 0;
    pid_t m_child = -1; ///< -1 once reaped
    int m_status = -1;  ///< ffmpeg's wait status once reaped; -1 while unknown
    int m_pipe = -1;    ///< write end of ffmpeg's stdin; -1 once closed
    std::thread m_messageReader;
    std::mutex m_messageMutex;
    std::string m_messages; ///< the end of ffmpeg's stderr
    std::int64_t m_frameCount = 0;
    bool m_done = false; ///< finished, or failed and cleaned up
};

} // namespace tandem::io
