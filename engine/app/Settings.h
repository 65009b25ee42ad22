// The typed settings of a run: what a session needs (SessionSettings: output, what is shown,
// timing, capture, the context) and what a played sequence needs (SequenceSettings). A command
// line is parsed into them once (app/Options.h); Python and the benchmarks fill them directly.
// Sizes are ints, choices enums, the chain parsed, files paths, what may be absent optional.
// validate() holds every check that needs no context, so each front end gets the same usage
// errors. Plain data, any thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "engine/app/SceneFiles.h"
#include "engine/capture/FrameCapture.h"
#include "engine/core/EnumTable.h"
#include "engine/core/Result.h"
#include "engine/frame/Channel.h"
#include "engine/frame/FrameWriter.h"
#include "engine/frame/Residence.h"
#include "engine/postfx/Chain.h"
#include "engine/postfx/PostProcessor.h"
#include "engine/render/ComparePass.h"
#include "engine/render/GBuffer.h"
#include "engine/render/MeshPass.h"
#include "engine/render/PointPass.h"
#include "engine/stream/FolderSource.h"
#include "engine/stream/Playback.h"
#include "engine/stream/Streamer.h"

namespace tandem::app {

/// A render size in pixels.
struct Size {
    int width = 1280;
    int height = 720;
    bool operator==(const Size&) const = default;
};
/// The largest side a size may have.
inline constexpr int MaxSide = 16384;
/// The most --output-threads (each holds a frame in flight: more only cost memory).
inline constexpr unsigned MaxOutputThreads = 256;
/// Parses "WxH" (or "WXH"), each side 1..MaxSide; fails with "expected WxH with each side in
/// 1..16384, got 'TEXT'".
Result<Size> parseSize(std::string_view text);
/// "1280x720".
std::string formatSize(Size size);

/// --serve: where the browser view listens.
struct ServeAddress {
    std::string host = "127.0.0.1"; ///< loopback unless named
    int port = 0;                   ///< 0: any free port
};
/// Parses "PORT" or "HOST:PORT" ("[::1]:PORT" for IPv6), PORT in 0..65535 (0: any free one);
/// fails with "expected [HOST:]PORT with PORT in 0..65535, got 'TEXT'".
Result<ServeAddress> parseServeAddress(std::string_view text);

/// --camera-path: the built-in orbit or a JSON file of keyframes.
struct CameraPathChoice {
    bool orbit = false;
    std::filesystem::path file; ///< when not orbit
    /// "orbit" or the file, as given.
    std::string text() const { return orbit ? "orbit" : file.string(); }
};
/// "orbit" is the orbit, anything else a file.
CameraPathChoice cameraPathChoice(const std::string& text);

struct SessionSettings {
    // --- the context ---
    bool headless = false;         ///< no window (EGL device platform)
    Size size;                     ///< render size; a window's initial size
    std::optional<int> eglDevice;  ///< headless: this EGL device index
    bool vsync = true;             ///< windows: wait for vertical sync
    bool glDebug = false;          ///< a debug context with synchronous KHR_debug output
    std::optional<int> cudaDevice; ///< CUDA device index; none: the first

    // --- output ---
    /// Frames to render, then end; none: headless 1, a window until it is closed.
    std::optional<int> frames;
    std::filesystem::path outDir = "out"; ///< frames, screenshots and saved files
    bool overwrite = false;               ///< replace frames, videos, traces, reports
    frame::OutputFormat format = frame::OutputFormat::Png;
    std::optional<std::filesystem::path> video; ///< an H.264 video instead of frame files
    double fps = 30.0;                          ///< frame rate of the video; the headless clock
    std::optional<unsigned> outputThreads;      ///< encoders, 0..MaxOutputThreads; none or 0: one
                                                ///< per core but one
    /// Names frame files (frame::OutputSettings::name); empty: frame_NNNNNN. Set by the app.
    std::function<std::string(std::uint64_t index)> frameName;
    /// Set by the app (a batch render's --resume): a frame already at its name is another
    /// run's, done (frame::OutputSettings::keepExisting).
    bool keepExisting = false;

    // --- what is shown ---
    /// --channel; none: the chain's output when it has stages, else the colour.
    std::optional<frame::Channel> channel;
    render::ColorFormat colorFormat = render::ColorFormat::Rgba8;
    postfx::Chain chain; ///< no stages: none
    postfx::BackendChoice backend = postfx::BackendChoice::Auto;
    float pointSize = 2.0f;              ///< splat diameter in pixels, 1..64
    std::optional<float> pointWorldSize; ///< splat diameter in world units, > 0; replaces it
    render::PointChoice points = render::PointChoice::Auto;
    float splatScale = 1.0f;   ///< multiplies every Gaussian's scales, 0.01..100
    int shDegree = 3;          ///< the highest SH degree splats are drawn with, 0..3
    UpAxis up = UpAxis::PlusY; ///< the axis of tandem-raster's files that points up (--up)
    render::RasterChoice raster = render::RasterChoice::Auto;    ///< who draws meshes
    frame::MemoryChoice frameMemory = frame::MemoryChoice::Auto; ///< where targets may live
    float spin = 0.0f; ///< degrees the camera orbits each frame

    // --- timing ---
    std::optional<std::filesystem::path> report; ///< the JSON run report
    std::optional<std::filesystem::path> trace;  ///< the Chrome trace
    int traceFrames = 100;                       ///< frames in the trace, >= 1
    std::optional<CameraPathChoice> cameraPath;  ///< none: the spin
    int warmup = 0;                              ///< frames left out of statistics, >= 0
    bool overlay = false;       ///< the overlay in headless output too (a window has it)
    bool profile = true;        ///< timer queries and events at all
    bool profileDetail = false; ///< the geometry pass's halves timed apart
    bool captureNoUpload = false;
    capture::CaptureSettings capture; ///< RenderDoc (its name is the app's)

    /// --serve: the browser view (RemoteView); headless without --frames it runs until
    /// stopped and writes no frames.
    std::optional<ServeAddress> serve;

    bool verbose = false; ///< debug messages
    bool quiet = false;   ///< warnings and errors only, no progress line

    /// The frames the session renders: --frames, else 1 headless (without --serve), else -1
    /// (until closed or stopped).
    int frameLimit() const { return frames ? *frames : headless && !serve ? 1 : -1; }
    /// The channel shown: --channel, else the output with a chain, else the colour.
    frame::Channel shownChannel() const;
};

/// Checks `settings` as far as no context is needed: a failure is a usage error (exit 2) whose
/// message names the option ("--frames: expected a positive number of frames").
Result<bool> validate(const SessionSettings& settings);

/// --upload's values: how streamed frames reach the GPU.
enum class UploadChoice { Auto, Cuda, Gl };
inline constexpr EnumTable<UploadChoice, 3> UploadChoices{
    "upload path",
    {{{UploadChoice::Auto, "auto", "cuda when the passes run on CUDA, else gl"},
      {UploadChoice::Cuda, "cuda", "a copy stream inside the frame's handoff"},
      {UploadChoice::Gl, "gl", "glNamedBufferSubData"}}}};

class BatchPlan;

/// What a played sequence needs beyond the session's settings.
struct SequenceSettings {
    std::string spec = "sample"; ///< what stream::openSource() opens
    /// A second sequence on the same timeline and camera (stream::openSource()), or none.
    std::optional<std::string> compare;
    stream::StreamSettings stream;
    stream::SequenceOptions sequence; ///< frame rate of file sequences (--sequence-fps)
    UploadChoice upload = UploadChoice::Auto;
    bool everyFrame = false;              ///< one sequence frame per rendered frame
    bool preload = false;                 ///< load every frame before playing
    double speed = 1.0;                   ///< 0.1..8
    std::optional<stream::LoopMode> loop; ///< none: once headless, loop in a window
    render::CompareMode compareMode = render::CompareMode::Split;
    float divider = 0.5f; ///< split: where, 0..1 of the width
    /// A batch render (--frame-range, --camera-paths): headless, its jobs one per frame, each
    /// shown at its sequence frame along its camera path; null: the clock decides.
    std::shared_ptr<const BatchPlan> batch;
};

/// Checks `settings` as the session's validate() does (speed, divider, memory budgets, loader
/// threads, the sequence rate).
Result<bool> validate(const SequenceSettings& settings);

} // namespace tandem::app
