// The session every app runs in: it owns, in a teardown-safe order, what it runs on (Bringup:
// RenderDoc, the context, the doctor's verdict, post-processing), the renderer and the scene,
// the profiler, the frame (and its one handoff), the overlay with the panels the app composes,
// the trace, and frame output (FrameOutput); it routes input (InputRouter), shows progress,
// writes the report (SessionReport.cpp) and turns the run's outcome into an exit code. An app
// fills SessionSettings (the command line through app/Options.h), opens a session, gives it a
// scene and runs the loop:
//     while (session->nextFrame()) session->renderFrame();
//     return session->finish();
// What an app registers (keys, panels, drop and report handlers) returns a handle that
// unregisters it. The session changes nothing outside itself: the process's signals are the
// entry point's, and reach it as AppInfo::stop. Render thread.
#pragma once

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/app/Bringup.h"
#include "engine/app/InputRouter.h"
#include "engine/app/Options.h"
#include "engine/app/Report.h"
#include "engine/app/Settings.h"
#include "engine/core/Registration.h"
#include "engine/core/Result.h"
#include "engine/io/CameraPath.h"
#include "engine/platform/Input.h"
#include "engine/profile/Profiler.h"
#include "engine/render/ComparePass.h"
#include "engine/render/GeometryPass.h"
#include "engine/render/OrbitController.h"
#include "engine/render/Scene.h"
#include "engine/ui/Overlay.h"

namespace tandem {
class Progress;
}
namespace tandem::frame {
class Frame;
} // namespace tandem::frame
namespace tandem::profile {
class Trace;
}
namespace tandem::render {
class GpuScene;
class SceneRenderer;
} // namespace tandem::render

namespace tandem::app {

class FrameOutput;
class RemoteView;

/// Why open() failed: an exit code (ExitUsage, ExitInput) and the message.
struct OpenFailure {
    int exitCode = ExitInput;
    std::string message;
};

class Session {
public:
    /// Validates `settings` (validate(): a bad value is a usage error), gets RenderDoc into the
    /// process if asked (re-executing with it preloaded, `app.argv`: call before anything loads
    /// GL), creates the context, runs the interop doctor, and sets up everything else. Null on
    /// failure, with `failure` saying why. `app.stop` is polled each frame.
    static std::unique_ptr<Session> open(const AppInfo& app, const SessionSettings& settings,
                                         OpenFailure& failure);
    ~Session();
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    /// Loads `files` (PLY, OBJ; the built-in sample when none) as the objects of one scene,
    /// uploads it and fits the camera to it. Fails naming the file and the problem.
    Result<bool> load(const std::vector<std::string>& files);
    /// Uploads `scene` (replacing the one before) and fits the camera to it.
    void setScene(const render::Scene& scene);
    /// Draws `scene` (not owned; it must stay alive while it is shown, or be replaced) from the
    /// next frame on: a streamed sequence's front buffers, a different one each frame. Call it
    /// between nextFrame() and renderFrame() to show what this frame's input asked for.
    void showScene(const render::GpuScene* scene);
    /// The embedding reads the presented image after each frame (tandem.Viewer.image()):
    /// headless frames are presented too.
    void keepPresenting() { m_keepPresenting = true; }
    /// Compare mode: each frame also renders `second` (not owned; null: off) with the same camera
    /// and shows both as `mode` says (render::ComparePass); `divider` in 0..1 of the width.
    void compare(const render::GpuScene* second, render::CompareMode mode, float divider);
    /// Fits the camera to `bounds` (and makes R return there).
    void fitCamera(const io::Bounds& bounds);

    /// Starts the next frame: input (routed to the overlay, the camera, the keys), resize, the
    /// camera path or spin. False when the run is over: the frames asked for are done, the
    /// window was closed (Esc, Q), the stop token asked (a signal), or frame output failed.
    bool nextFrame();
    /// Renders the frame begun: geometry, the passes, present, overlay, output, capture, swap;
    /// collects the timings that are ready. Never waits for the GPU (but see OutputRing).
    void renderFrame();
    /// Ends the run: drains frame output, writes the trace and the report, checks for GL
    /// errors (this context's). Prints any error and returns the exit code.
    int finish();

    /// Adds an overlay panel (nothing without an overlay); the handle removes it.
    Registration addPanel(ui::Panel panel);
    /// The overlay: null headless without SessionSettings::overlay, or when it failed to start.
    ui::Overlay* overlay() { return m_overlay.get(); }
    /// Calls `action` when `key` is pressed in the window (after the session's own keys).
    Registration onKey(platform::Key key, std::function<void()> action);
    /// Calls `action` with each file or folder dropped on the window.
    Registration onDrop(std::function<void(const std::string&)> action);
    /// Calls `action` with the run report before it is written (an app adds its sections).
    Registration onReport(std::function<void(Report&)> action);
    /// Calls `action` with the stats the browser view sends a few times a second (--serve): an
    /// app adds its sections under "app" (a timeline, streaming health).
    Registration onStats(std::function<void(nlohmann::json&)> action);
    /// The browser view (--serve), or null: an app registers its commands there (seek).
    RemoteView* remote() { return m_remote.get(); }
    /// The camera path (--camera-path), or none; an app may edit it (add keys).
    std::optional<io::CameraPath>& cameraPath() { return m_cameraPath; }
    /// The app moves the camera along the path itself (by its own clock) instead of the session
    /// doing it by rendered frame.
    void driveCameraPath(bool byApp) { m_appDrivesPath = byApp; }
    /// The folder frames, screenshots and saved files go to (--out).
    const std::filesystem::path& outputFolder() const { return m_settings.outDir; }
    /// Ends the run after the frame being rendered (headless: the sequence is done).
    void stop() { m_quit = true; }
    /// Renders `frames` frames and ends (the progress line counts towards it); -1: until the
    /// window closes.
    void setFrameLimit(int frames);

    const SessionSettings& settings() const { return m_settings; }
    const AppInfo& app() const { return m_app; }
    frame::Frame& frame() { return *m_frame; }
    const frame::Frame& frame() const { return *m_frame; }
    render::OrbitController& controller() { return m_controller; }
    postfx::Chain& chain() { return m_chain; }
    const postfx::Chain& chain() const { return m_chain; }
    profile::Profiler& profiler() { return *m_profiler; }
    const profile::Profiler& profiler() const { return *m_profiler; }
    render::SceneRenderer& renderer() { return *m_renderer; }
    const render::SceneRenderer& renderer() const { return *m_renderer; }
    platform::Context& context() { return *m_up.context; }
    const Bringup& bringup() const { return m_up; }
    /// What frames draw now (the app's scene, or the one load() made).
    const render::GpuScene* shownScene() const { return m_shown; }
    const FrameOutput& output() const { return *m_output; }
    /// Frame output, for an app that withholds a frame (FrameOutput::withhold()).
    FrameOutput& output() { return *m_output; }
    frame::Channel channel() const { return m_channel; }
    const render::GeometryOptions& geometry() const { return m_geometry; }
    /// The files load() read.
    const std::vector<std::string>& files() const { return m_files; }
    bool isHeadless() const { return m_headless; }
    /// Frames rendered so far.
    int framesRendered() const { return m_rendered; }
    /// The index of the frame begun (its name in the output, the batch job it is): frames
    /// rendered plus those skipped because another run had written them (--resume).
    int frameIndex() const { return m_index; }
    /// The signal (or other reason) that stopped the loop, or 0.
    int interruptedBy() const { return m_interrupted; }

private:
    Session(const AppInfo& app, const SessionSettings& settings);
    std::optional<OpenFailure> setUp();
    void addPanels();
    void bindKeys();
    void collect();
    bool outputFailed();
    void serve();
    void addRemoteCommands();
    nlohmann::json remoteStats() const;
    Report makeReport() const;

    AppInfo m_app;
    SessionSettings m_settings;
    // What the settings say, and what input changes.
    int m_frames = -1;
    bool m_headless = false;
    bool m_keepPresenting = false;
    frame::Channel m_channel = frame::Channel::Color;
    postfx::Chain m_chain;
    std::optional<io::CameraPath> m_cameraPath;
    render::GeometryOptions m_geometry;
    std::vector<std::string> m_files;

    // Owned, in the order they are made; they die in reverse.
    Bringup m_up;
    std::unique_ptr<render::SceneRenderer> m_renderer;
    std::unique_ptr<render::GpuScene> m_scene;
    std::unique_ptr<profile::Profiler> m_profiler;
    std::unique_ptr<frame::Frame> m_frame;
    std::unique_ptr<ui::Overlay> m_overlay;
    std::unique_ptr<profile::Trace> m_trace;
    std::unique_ptr<FrameOutput> m_output;
    std::unique_ptr<RemoteView> m_remote;
    std::unique_ptr<Progress> m_progress;

    render::OrbitController m_controller;
    InputRouter m_input;
    io::Bounds m_bounds;
    std::deque<profile::FrameRecord> m_history;
    Registry<std::function<void(Report&)>> m_reporters;
    Registry<std::function<void(nlohmann::json&)>> m_statsSections;
    /// The session's own panels and keys: their handles die with it, before the overlay.
    std::vector<Registration> m_own;
    const render::GpuScene* m_shown = nullptr;  ///< what frames draw: m_scene or the app's
    const render::GpuScene* m_second = nullptr; ///< compare mode: the other scene
    render::CompareMode m_compareMode = render::CompareMode::Split;
    float m_divider = 0.5f;
    std::unique_ptr<render::ComparePass> m_comparePass;
    int m_index = 0; ///< the frame being rendered
    int m_rendered = 0;
    /// When the first and the last frame were rendered: the loop's own rate, for the report.
    std::chrono::steady_clock::time_point m_firstFrameAt{}, m_lastFrameAt{};
    bool m_quit = false;
    int m_interrupted = 0; ///< the signal that stopped the loop (SIGINT, SIGTERM), or 0
    bool m_appDrivesPath = false;
    bool m_capturing = false;
    bool m_writesFrames = false; ///< frames go to files or a video (their size is fixed)
    std::string m_error;
};

} // namespace tandem::app
