// The session every app runs in: it owns, in a teardown-safe order, RenderDoc capture, the
// context (window or headless surface), the interop doctor's verdict, post-processing, the
// renderer and the scene, the profiler, the frame (and its one handoff), the overlay with the
// panels the app composes, the trace and report, and frame output (the read-back ring and the
// writers); it routes input between the overlay, the camera and the keys, takes screenshots,
// shows progress, and turns the run's outcome into an exit code. An app parses its options
// (CommonOptions plus its own), opens a session, gives it a scene and runs the loop:
//     while (session->nextFrame()) session->renderFrame();
//     return session->finish();
// Render thread.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/app/CameraInput.h"
#include "engine/app/Options.h"
#include "engine/app/Report.h"
#include "engine/core/Result.h"
#include "engine/frame/Channel.h"
#include "engine/frame/FrameWriter.h"
#include "engine/frame/Residence.h"
#include "engine/interop/Doctor.h"
#include "engine/io/CameraPath.h"
#include "engine/platform/Input.h"
#include "engine/postfx/Chain.h"
#include "engine/postfx/PostProcessor.h"
#include "engine/profile/Profiler.h"
#include "engine/render/ComparePass.h"
#include "engine/render/GBuffer.h"
#include "engine/render/GeometryPass.h"
#include "engine/render/OrbitController.h"
#include "engine/render/Scene.h"
#include "engine/ui/Overlay.h"

namespace tandem {
class Progress;
}
namespace tandem::capture {
class FrameCapture;
}
namespace tandem::frame {
class Frame;
class OutputRing;
} // namespace tandem::frame
namespace tandem::platform {
class Context;
}
namespace tandem::profile {
class Trace;
}
namespace tandem::render {
class GpuScene;
class SceneRenderer;
} // namespace tandem::render

namespace tandem::app {

/// Who the session runs for.
struct AppInfo {
    std::string name;     ///< "tandem-raster": logs, the window title, capture file names
    std::string controls; ///< extra window controls for the start-up log, or empty
};

/// Why open() failed: an exit code (ExitUsage, ExitInput) and the message.
struct OpenFailure {
    int exitCode = ExitInput;
    std::string message;
};

class Session {
public:
    /// Validates `options` (a bad value is a usage error), gets RenderDoc into the process if
    /// asked (re-executing with it preloaded: call before anything loads GL), creates the
    /// context, runs the interop doctor, and sets up everything else. Null on failure, with
    /// `failure` saying why.
    static std::unique_ptr<Session> open(const AppInfo& info, const CommonOptions& options,
                                         char** argv, OpenFailure& failure);
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
    /// Compare mode: each frame also renders `second` (not owned; null: off) with the same camera
    /// and shows both as `mode` says (render::ComparePass); `divider` in 0..1 of the width.
    void compare(const render::GpuScene* second, render::CompareMode mode, float divider);
    /// Fits the camera to `bounds` (and makes R return there).
    void fitCamera(const io::Bounds& bounds);

    /// Starts the next frame: input (routed to the overlay, the camera, the keys), resize, the
    /// camera path or spin. False when the run is over: the frames asked for are done, the
    /// window was closed (Esc, Q), or frame output failed.
    bool nextFrame();
    /// Renders the frame begun: geometry, the passes, present, overlay, output, capture, swap;
    /// collects the timings that are ready. Never waits for the GPU (but see OutputRing).
    void renderFrame();
    /// Ends the run: drains frame output, writes the trace and the report, checks for GL
    /// errors. Prints any error and returns the exit code.
    int finish();

    /// Adds an overlay panel (nothing without an overlay).
    void addPanel(ui::Panel panel);
    /// Calls `action` when `key` is pressed in the window (after the session's own keys).
    void onKey(platform::Key key, std::function<void()> action);
    /// Calls `action` with each file or folder dropped on the window.
    void onDrop(std::function<void(const std::string&)> action);
    /// Calls `action` with the run report before it is written (an app adds its sections).
    void onReport(std::function<void(Report&)> action);
    /// The camera path (--camera-path), or none; an app may edit it (add keys).
    std::optional<io::CameraPath>& cameraPath() { return m_cameraPath; }
    /// The app moves the camera along the path itself (by its own clock) instead of the session
    /// doing it by rendered frame.
    void driveCameraPath(bool byApp) { m_appDrivesPath = byApp; }
    /// The folder frames, screenshots and saved files go to (--out).
    const std::filesystem::path& outputFolder() const { return m_output.dir; }
    /// Ends the run after the frame being rendered (headless: the sequence is done).
    void stop() { m_quit = true; }
    /// Renders `frames` frames and ends (the progress line counts towards it); -1: until the
    /// window closes.
    void setFrameLimit(int frames);

    frame::Frame& frame() { return *m_frame; }
    render::OrbitController& controller() { return m_controller; }
    postfx::Chain& chain() { return m_chain; }
    profile::Profiler& profiler() { return *m_profiler; }
    render::SceneRenderer& renderer() { return *m_renderer; }
    platform::Context& context() { return *m_context; }
    bool isHeadless() const { return m_headless; }
    /// Frames rendered so far.
    int framesRendered() const { return m_rendered; }

private:
    Session(const AppInfo& info, const CommonOptions& options);
    std::optional<OpenFailure> setUp(char** argv);
    void handleInput();
    void collect();
    void readBack();
    void takeScreenshot();
    void hand(const frame::ReadyFrame& ready);
    bool outputFailed();

    AppInfo m_info;
    CommonOptions m_options;
    // What the options say.
    int m_width = 0;
    int m_height = 0;
    int m_frames = -1;
    bool m_headless = false;
    bool m_writeFrames = false;
    frame::Channel m_channel = frame::Channel::Color;
    render::ColorFormat m_colorFormat = render::ColorFormat::Rgba8;
    postfx::Chain m_chain;
    std::optional<io::CameraPath> m_cameraPath;
    frame::OutputSettings m_output;
    render::GeometryOptions m_geometry;
    std::vector<std::string> m_files;

    // Owned, in the order they are made; they die in reverse.
    std::unique_ptr<capture::FrameCapture> m_capture;
    std::unique_ptr<platform::Context> m_context;
    interop::InteropStatus m_doctor;
    frame::Residence m_residence;
    std::unique_ptr<render::SceneRenderer> m_renderer;
    std::unique_ptr<render::GpuScene> m_scene;
    std::unique_ptr<profile::Profiler> m_profiler;
    std::unique_ptr<frame::Frame> m_frame;
    std::unique_ptr<ui::Overlay> m_overlay;
    std::unique_ptr<profile::Trace> m_trace;
    std::unique_ptr<frame::OutputRing> m_ring;
    std::unique_ptr<frame::FrameWriter> m_writer;
    std::unique_ptr<frame::FrameWriter> m_screenshots;
    std::unique_ptr<Progress> m_progress;

    render::OrbitController m_controller;
    CameraInput m_input;
    io::Bounds m_bounds;
    std::deque<profile::FrameRecord> m_history;
    std::map<platform::Key, std::vector<std::function<void()>>> m_keys;
    std::vector<std::function<void(const std::string&)>> m_drops;
    std::vector<std::function<void(Report&)>> m_reporters;
    const render::GpuScene* m_shown = nullptr;  ///< what frames draw: m_scene or the app's
    const render::GpuScene* m_second = nullptr; ///< compare mode: the other scene
    render::CompareMode m_compareMode = render::CompareMode::Split;
    float m_divider = 0.5f;
    std::unique_ptr<render::ComparePass> m_comparePass;
    std::map<std::uint64_t, std::filesystem::path> m_pendingScreenshots;
    int m_index = 0; ///< the frame being rendered
    int m_rendered = 0;
    int m_nextScreenshot = 0;
    bool m_quit = false;
    int m_interrupted = 0; ///< the signal that stopped the loop (SIGINT, SIGTERM), or 0
    bool m_appDrivesPath = false;
    bool m_screenshotAsked = false;
    bool m_capturing = false;
    std::string m_error;
};

} // namespace tandem::app
