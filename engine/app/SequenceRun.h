// A volumetric video sequence played in a session: opens the source, streams it through a
// sequence player (the CUDA upload inside the frame's handoff when the frame's passes run on
// CUDA, else GL), drives the playback clock — wall time in a window, the output frame rate or
// every frame headless —, binds the playback keys and the overlay panel, shows the frame the
// clock wants, and adds streaming statistics to the report. What it registers with the session
// (keys, panels, the drop and report handlers, the player's passes in the frame) it holds
// handles to: destroyed before the session, it leaves nothing behind. Render thread.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/app/Settings.h"
#include "engine/core/Registration.h"
#include "engine/core/Result.h"
#include "engine/render/ComparePass.h"
#include "engine/stream/FolderSource.h"
#include "engine/stream/Playback.h"
#include "engine/stream/SequencePlayer.h"

namespace tandem::app {

class Session;

/// The playback keys (SequenceControls), for --help and the help panel.
std::string sequenceKeysHelp();
/// What a headless run of a sequence renders without --frames (SequenceRun::headlessFrames),
/// for --frames' help.
const char* headlessFramesHelp();

class SequenceRun {
public:
    /// The frames a headless run of `source` renders with `settings` in a session of
    /// `session`: the batch's jobs, --frames, every sequence frame, or the sequence's length
    /// at the output rate (--fps), at most a billion.
    static int headlessFrames(const SessionSettings& session, const SequenceSettings& settings,
                              const stream::Source& source);
    /// Plays `source` (from stream::openSource, opened before the session, so a missing or
    /// broken sequence fails without a context) in `session`: fails with a usage error for bad
    /// settings (validate(), exit 2) or an input error (exit 1: --upload cuda without CUDA, a
    /// --preload larger than the budget), `usage` saying which. `compare` (may be null): a second
    /// sequence on the same timeline and camera, shown with the first as settings.compareMode
    /// says (both upload through GL then).
    static Result<std::unique_ptr<SequenceRun>>
    open(Session& session, std::unique_ptr<stream::Source> source, const SequenceSettings& settings,
         bool& usage, std::unique_ptr<stream::Source> compare = nullptr);
    ~SequenceRun();

    /// Between Session::nextFrame() (input: keys move the clock) and renderFrame(): moves the
    /// clock, brings its frame to the screen (or counts it late), logs skipped frames. Until a
    /// first frame has loaded (it failed, say), an empty scene is shown.
    void update();

    /// After Session::finish(), whose exit code is `code`: says which sequence frames were
    /// skipped (how many, the first names) and fails the run (exit 1, "error: ...") when no
    /// sequence frame reached the screen, or when batch frames were left unwritten because
    /// their sequence frame was skipped (named; --resume renders them again). A `code` that
    /// already says the run failed or was stopped stays. Returns the exit code.
    int finish(int code) const;

    /// How many frames a headless run renders (the sequence once, or --frames).
    int headlessFrames() const { return m_headlessFrames; }
    stream::Playback& playback() { return m_playback; }
    const stream::SequencePlayer& player() const { return *m_player; }
    const stream::Source& source() const { return *m_source; }

private:
    SequenceRun(Session& session, std::unique_ptr<stream::Source> source,
                const SequenceSettings& settings);
    /// Makes the player for m_source and adds its passes to the frame; fits the camera.
    void startPlayer();
    /// Replaces the sequence with the one dropped on the window (a warning if it will not open).
    void openDropped();
    void bindKeys();
    /// Writes the camera path to --out/camera_path_NNN.json (the first free number).
    void saveCameraPath();
    void report(class Report& report) const;
    /// The browser view's "app" stats: the timeline, streaming health, recent warnings.
    void stats(nlohmann::json& app) const;

    Session& m_session;
    std::unique_ptr<stream::Source> m_source;
    SequenceSettings m_settings;
    stream::Playback m_playback;
    std::unique_ptr<stream::SequencePlayer> m_player;
    std::chrono::steady_clock::time_point m_last;
    std::chrono::steady_clock::time_point m_start;
    int m_headlessFrames = 0;
    int m_updates = 0;
    bool m_live = true; ///< on the clock, never waiting (a window, or headless --serve)
    // Memory over the run, sampled every few frames (MiB): host RSS, the GPU's free memory.
    struct Memory {
        double first = -1, min = 1e300, max = 0, last = 0;
        void add(double v);
    };
    Memory m_rss, m_gpuFree;
    bool m_fitted = false;
    std::string m_dropped; ///< a path dropped on the window, opened before the next frame
    std::unique_ptr<render::GpuScene> m_empty; ///< shown before any frame has loaded
    // Compare mode: the second sequence, its player and clock (following the first's frame).
    std::unique_ptr<stream::Source> m_compareSource;
    std::unique_ptr<stream::SequencePlayer> m_comparePlayer;
    render::CompareMode m_compareMode = render::CompareMode::Split;
    float m_divider = 0.5f;
    // Last, so they go first: what this run registered with the session.
    Registration m_uploadPass, m_joinPass; ///< the player's passes in the frame
    std::vector<Registration> m_registered;
};

} // namespace tandem::app
