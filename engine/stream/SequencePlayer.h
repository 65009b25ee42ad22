// The GPU side of streaming: a sequence's frames go from the streamer's staging slots into two
// ping-ponged GPU buffer sets (allocated once, at the largest frame when the source knows it):
// the front one is drawn, the back one filled, then they swap; the buffer being drawn is never
// written. On the CUDA path the upload is a copy on its own stream: frames of point clouds go
// as compact points (20 bytes a point), and frames' Gaussian splats as their region (packed or
// f32), into CUDA memory the CUDA point and splat passes read, the copy of
// frame N+1 overlapping all of frame N, ordered by events (the frame's first pass waits for the
// copy, its last pass marks the buffers free again); mesh frames go into the GL buffers inside
// the frame's one handoff (started by the first pass, joined by the last). Elsewhere
// glNamedBufferSubData. The render loop never waits for a loader (a late
// frame keeps the previous one on screen and is counted) unless asked to show every frame.
// Render thread, GL context current.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/EnumTable.h"
#include "engine/core/StopToken.h"
#include "engine/interop/Pass.h"
#include "engine/render/GpuScene.h"
#include "engine/render/PointPass.h"
#include "engine/render/SplatRaster.h"
#include "engine/stream/Playback.h"
#include "engine/stream/Streamer.h"

namespace tandem::profile {
class Profiler;
}

namespace tandem::stream {

/// How frames reach the GPU buffers.
enum class UploadPath {
    GlSubData, ///< glNamedBufferSubData from staging, on the render thread
    CudaCopy,  ///< cudaMemcpyAsync from pinned staging on a copy stream, inside the handoff
};
/// The paths' names (reports, logs).
inline constexpr EnumTable<UploadPath, 2> UploadPaths{
    "upload path",
    {{{UploadPath::GlSubData, "gl-subdata", "glNamedBufferSubData on the render thread"},
      {UploadPath::CudaCopy, "cuda-copy", "cudaMemcpyAsync on a copy stream in the handoff"}}}};

/// Counters since the player started.
struct PlayerStats {
    std::uint64_t shown = 0;   ///< sequence frames that reached the screen
    std::uint64_t late = 0;    ///< rendered frames that kept an older frame: the wanted one
                               ///< was not loaded yet
    std::uint64_t dropped = 0; ///< frames the clock wanted that never reached the screen
    std::uint64_t skipped = 0; ///< frames that failed to load (named in warnings)
    std::uint64_t uploads = 0;
    std::uint64_t cudaCopies = 0; ///< uploads that went through the copy stream
    std::uint64_t bytesUploaded = 0;
    std::uint64_t reallocations = 0; ///< GPU buffers grown for a larger frame
};

class SequencePlayer {
public:
    /// Streams `source` (which must outlive the player) with `settings`, uploading on `path`
    /// (CudaCopy: add uploadPass() first and joinPass() last to the frame, whose passes must
    /// run on CUDA). `profiler` may be null. Throws Error when the budget or GPU memory cannot
    /// hold the largest frame, CudaError when the copy stream cannot be made.
    SequencePlayer(const Source& source, const StreamSettings& settings, UploadPath path,
                   profile::Profiler* profiler);
    ~SequencePlayer();
    SequencePlayer(const SequencePlayer&) = delete;
    SequencePlayer& operator=(const SequencePlayer&) = delete;

    /// Before each rendered frame: brings the frame `playback` shows to the front if it is
    /// loaded (else keeps the one shown and counts a late frame), starts the upload of the next
    /// one, and tells the loaders what comes after. `waitForFrame`: block until the wanted frame
    /// is loaded (every-frame rendering; counted as waits).
    void update(const Playback& playback, bool waitForFrame);

    /// Loads every frame into staging memory now (blocking, with a progress line unless
    /// `quiet`), so playback reads nothing from the source. Expects the player made with
    /// StreamSettings::preload (a slot per frame, no loaded frame evicted). Fails when the
    /// budget cannot hold the whole sequence, saying how much it needs; a broken frame is no
    /// failure (it is skipped, named, when it plays). Between frames it polls `stop`: when it
    /// asks, it fails saying so (stoppedWhile()).
    Result<bool> preload(bool quiet, const StopToken& stop = {});

    /// The scene to draw: the front buffers. Null until the first frame arrives.
    const render::GpuScene* scene() const;
    /// Where the CUDA point pass reads the front frame's points: compact points in CUDA memory
    /// (CUDA path, point-cloud frames), else nulls (the scene's vertex buffer). Set it on the
    /// frame's point pass after each update().
    render::PointPass::DevicePoints devicePoints() const;
    /// Where the CUDA splat pass reads the front frame's Gaussians: their region in CUDA memory
    /// (CUDA path, frames of splats without meshes), else none (the scene's GpuSplats). Set it
    /// on the frame's splat pass after each update().
    render::DeviceSplatRegion deviceSplats() const;
    /// The sequence frame on the front buffers, -1 before the first.
    int shownFrame() const { return m_front.index; }

    /// The CUDA passes of the upload (CudaCopy): first and last of the frame's passes.
    interop::Pass& uploadPass();
    interop::Pass& joinPass();

    UploadPath uploadPath() const { return m_path; }
    PlayerStats stats() const { return m_stats; }
    StreamStats streamStats() const { return m_streamer->stats(); }
    /// The sequence frames that failed to load (skipped), in the order they failed.
    const std::vector<int>& failedFrames() const { return m_failed; }
    /// Warnings since the last call (a frame skipped, naming it and why; a frame's load
    /// warnings, once a frame): the app shows them in the overlay (they are logged already).
    std::vector<std::string> takeWarnings();
    /// The last warnings (at most a few), for the overlay.
    const std::vector<std::string>& recentWarnings() const { return m_recent; }

private:
    class Upload;
    class Join;
    struct Buffers {
        std::unique_ptr<render::GpuScene> scene;
        int index = -1;
        int set = 0;               ///< which of the two (its CUDA events and memory)
        Ticket ticket;             ///< staging slot held until its copy is done
        bool onDevice = false;     ///< its frame's compact points or splats are in CUDA memory
        bool devicePoints = false; ///< its compact points are
        render::DeviceSplatRegion splats; ///< its splats' region (region null: not there)
    };

    /// Puts `ticket`'s frame into the back buffers; false when it failed (skipped).
    bool stage(Ticket ticket, bool immediate);
    /// Why `counts` in two buffer sets exceed --gpu-memory-mb ("`what` needs ..."), or empty.
    std::string overGpuBudget(const render::SceneCounts& counts, std::string_view what) const;
    void ensureCapacity(Buffers& buffers, const render::SceneCounts& counts);
    void releaseFinished();
    void copyCompact(int set, interop::PassHooks& hooks);
    /// Holds `ticket`'s staging slot until the copies issued so far on the copy stream are done.
    void track(const Ticket& ticket);
    /// Releases frame `index`'s slot if a copy still holds it, waiting for the copy (rare: a
    /// frame shown again right after it went up).
    void reclaim(int index);
    void ensureDeviceCapacity(int set, std::size_t points, std::size_t splatBytes);
    void skip(const Ticket& ticket);
    /// Logs `warning` and keeps it for the app and the overlay.
    void warn(std::string warning);

    const Source& m_source;
    UploadPath m_path;
    std::unique_ptr<Streamer> m_streamer;
    render::SceneCounts m_capacity;
    std::size_t m_gpuBudget = 0; ///< bytes; 0: no limit but the GPU's
    Buffers m_front, m_back;
    struct Copies;
    std::unique_ptr<Copies> m_copies;
    std::unique_ptr<Upload> m_upload;
    std::unique_ptr<Join> m_join;
    PlayerStats m_stats;
    std::vector<int> m_failed; ///< frames known to be broken: skipped without reloading
    std::vector<int> m_warned; ///< frames whose load warnings were given
    std::vector<std::string> m_warnings, m_recent;
    int m_lastWanted = -1;
    bool m_wantedShown = true;
    bool m_waitFront = false; ///< the next frame's passes wait for the front's copy
    int m_slots = 2;
    int m_updates = 0;
};

} // namespace tandem::stream
