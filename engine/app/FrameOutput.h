// A session's frame output: the read-back ring (pixel-pack buffers and fences), the frame writer
// (files or a video, on worker threads), screenshots (numbered apart, through the same ring),
// and the checks made before a run starts (the folder can be made, no frame of the run would
// be replaced without --overwrite). Nothing here waits for the GPU on the render thread but
// the ring itself (frame::OutputRing) and drain(). Render thread, the GL context current.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/app/Settings.h"
#include "engine/core/Result.h"
#include "engine/core/StopToken.h"
#include "engine/frame/FrameWriter.h"

namespace tandem::frame {
class Frame;
class OutputRing;
struct ReadyFrame;
} // namespace tandem::frame
namespace tandem::profile {
class Profiler;
}
namespace tandem::render {
class SceneRenderer;
}

namespace tandem::app {

class FrameOutput {
public:
    /// The output of `settings` for a run of `frames` frames (-1: until the window closes) at
    /// `width`×`height`: frames are written when `writeFrames`. Fails when the folder cannot be
    /// made, a frame of the run exists and --overwrite was not given, or the writer (ffmpeg)
    /// cannot start; and when `stop` asks while it checks every frame's name (a long run's take
    /// a while), saying so (stoppedWhile()). `profiler` (may be null) times the writer; it must
    /// outlive the output.
    static Result<std::unique_ptr<FrameOutput>> open(const SessionSettings& settings, int frames,
                                                     bool writeFrames, int width, int height,
                                                     int ringDepth, profile::Profiler* profiler,
                                                     const StopToken& stop = {});
    /// Slots the read-back ring of `settings` needs: the CPU runs that many frames ahead of the
    /// GPU (headless nothing else holds it back), enough that the workers never wait for the
    /// GPU, nor the GPU for them.
    static int ringDepth(const SessionSettings& settings, bool writeFrames);
    ~FrameOutput();
    FrameOutput(const FrameOutput&) = delete;
    FrameOutput& operator=(const FrameOutput&) = delete;

    /// Reads frame `index` back from `renderer` (its present target, or with png16 its colour
    /// target; from `frame`'s CUDA-resident output when it ran resident on CUDA and did not
    /// present) when frames are written, a screenshot too when one was asked, and hands on what
    /// the GPU has finished.
    void readBack(const render::SceneRenderer& renderer, frame::Frame& frame, std::uint64_t index);
    /// Asks for a screenshot of the next frame read back (S, F2).
    void requestScreenshot() { m_screenshotAsked = true; }
    /// Whether frame `index` is done already: with keepExisting (a batch render's --resume),
    /// another run has committed its file since this one planned it; counted in
    /// skippedPresent(), and the session skips it unrendered. Looks at the disk: call once a
    /// frame, just before rendering it. Always false without keepExisting.
    bool isPresent(std::uint64_t index);
    /// Frame `index` is not to be written: a batch frame whose sequence frame was skipped, which
    /// at its name would pass for complete (--resume, scripts/batch/merge.py). Named in
    /// withheld(). Call before its readBack().
    void withhold(std::uint64_t index);
    /// Waits for the frames in flight (after the loop; counted) and finishes the writers: fails
    /// with the frame writer's error (a screenshot's is logged). Without `keep` (a run stopped
    /// before its first frame) the frame writer's output is dropped: an empty video is no
    /// video.
    Result<bool> finish(bool keep = true);

    /// The first error the writer met (the run should stop), or empty.
    std::string error() const;
    /// Whether frames are written.
    bool writesFrames() const { return m_writer != nullptr; }
    /// Frames written so far.
    std::uint64_t written() const;
    /// Frames dealt with so far: written, found written by another run (before rendering or
    /// when writing), or withheld; what the progress line counts.
    std::uint64_t settled() const;
    /// Frames skipped because present (isPresent()).
    std::uint64_t skippedPresent() const { return m_present; }
    /// The file names of the frames withheld, in order.
    const std::vector<std::string>& withheld() const { return m_withheldNames; }
    /// The report's "output" section.
    nlohmann::json report() const;
    /// "wrote 12 frames to out" or "out.mp4 holds ..." for an interrupted run's last words.
    void logInterrupted() const;
    /// "wrote 12 frames to out", and how many were skipped because another run had written
    /// them (found before rendering, or when writing).
    void logWritten() const;
    const std::filesystem::path& folder() const { return m_settings.dir; }

private:
    FrameOutput(const frame::OutputSettings& settings, int ringDepth);
    void hand(const frame::ReadyFrame& ready);
    void takeScreenshot(const render::SceneRenderer& renderer);

    frame::OutputSettings m_settings;
    std::unique_ptr<frame::OutputRing> m_ring;
    std::unique_ptr<frame::FrameWriter> m_writer;
    std::unique_ptr<frame::FrameWriter> m_screenshots;
    std::map<std::uint64_t, std::filesystem::path> m_pendingScreenshots;
    std::set<std::uint64_t> m_withheld;
    std::vector<std::string> m_withheldNames;
    std::uint64_t m_present = 0;
    int m_nextScreenshot = 0;
    bool m_screenshotAsked = false;
    bool m_kept = true; ///< finish() kept the writer's output
};

} // namespace tandem::app
