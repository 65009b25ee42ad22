// tandem-bench's shared harness: the headless context on the GPU in use, wall-clock and
// GL-timestamp timing, medians, the results table and the JSON header (device, driver, date,
// commit). Benchmarks block on the GPU on purpose: they measure, they do not render frames.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/app/Settings.h"
#include "engine/capture/FrameCapture.h"
#include "engine/frame/Residence.h"
#include "engine/interop/Doctor.h"
#include "engine/interop/Pass.h"
#include "engine/io/Image.h"
#include "engine/io/MeshData.h"
#include "engine/platform/Context.h"
#include "engine/postfx/Chain.h"
#include "engine/postfx/PostProcessor.h"
#include "engine/stream/PackWriter.h"

namespace tandem::app {
class Session;
}
namespace tandem::gl {
class Texture;
}
namespace tandem::render {
class GBuffer;
}

namespace tandem::bench {

/// A resolution every benchmark measures.
struct Size {
    int width;
    int height;
    std::string name;
};
/// 1080p and 4K, the sizes all results are quoted at.
inline const Size BenchSizes[] = {{1920, 1080, "1080p"}, {3840, 2160, "4K"}};

struct Settings {
    int frames = 60;                          ///< timed repetitions per variant
    int warmup = 10;                          ///< untimed repetitions first
    int device = -1;                          ///< CUDA device
    std::string commit;                       ///< recorded in the JSON
    std::string jsonPath;                     ///< where to write results, or empty
    bool overwrite = false;                   ///< replace an existing JSON file
    capture::FrameCapture* capture = nullptr; ///< RenderDoc, with --renderdoc
    char** argv = nullptr;                    ///< for sessions opened in-process
};

/// With RenderDoc attached (--renderdoc), runs one extra, untimed repetition of a variant inside
/// a capture (`stem`.rdc in --capture-dir) and writes the image it produced beside it (.png),
/// so a replay can be checked against what the benchmark drew. Does nothing otherwise.
void captureVariant(const Settings& settings, const std::string& stem,
                    const std::function<void()>& frame, const std::function<io::Image()>& image);

/// The RGBA8 contents of `texture`, top row first (waits for the GPU: captures only).
io::Image readTexture(const gl::Texture& texture);

/// A headless GL 4.5 context on the EGL device of CUDA device `cudaDevice` (or any, -1).
std::unique_ptr<platform::Context> makeContext(int cudaDevice);

/// Where frames on `context` run, as the apps decide it (frame::chooseResidence): CUDA device
/// `settings.device` when GL↔CUDA interop works there (`choice` Auto), else the host. Throws
/// Error when `choice` is Cuda and interop cannot work. The doctor's findings go to `doctor` if
/// given.
frame::Residence makeResidence(const Settings& settings, const platform::Context& context,
                               postfx::BackendChoice choice,
                               interop::InteropStatus* doctor = nullptr);

/// A session as the end-to-end benchmarks run it: headless at `size`, `frames` timed after
/// settings.warmup untimed, tonemap,fxaa, no frame output, quiet, its report at `report`
/// (replaced).
app::SessionSettings headlessSession(const Settings& settings, const Size& size, int frames,
                                     const std::filesystem::path& report);

/// Runs `session` to its end, calling `beforeFrame` (may be empty) before each frame; returns
/// the seconds from the end of the settings.warmup-th frame until the GPU finished the last
/// (through finish(): the frames the CPU queued ahead count only once drawn). Throws Error
/// naming `what` when the run fails.
double timedRun(app::Session& session, const Settings& settings,
                const std::function<void()>& beforeFrame, const std::string& what);

/// Writes a pack of `frames` frames at `path` (replaced) as `pack` says, frame i's block made
/// by `block(i)` and encoded on every core, appended in order, named `name(i)`. Throws Error.
void writePack(const std::filesystem::path& path, int frames, const stream::PackSettings& pack,
               const std::function<std::vector<std::uint8_t>(int)>& block,
               const std::function<std::string(int)>& name);

/// A sequence played as tandem-viewer plays it (the session and sequence run, in process):
/// headless, --every-frame, looping, no output (headlessSession()).
struct ViewerPlay {
    std::string name;                 ///< the variant, for the table
    std::string spec;                 ///< the sequence: a pack, folder or pattern
    bool preload = false;             ///< --preload
    std::size_t budgetBytes = 0;      ///< the staging budget (0: the viewer's default)
    int frames = 0;                   ///< timed frames, after settings.warmup untimed
    std::filesystem::path cameraPath; ///< --camera-path keys (empty: the fitted view)
};
struct ViewerPlayed {
    double framesPerSecond = 0.0; ///< timed frames over the wall time until the GPU finished
    double gpuFrameMs = 0.0;      ///< the report's median GPU frame time
    nlohmann::json report;        ///< the run's report (--report)
};
/// Plays `play` at `size`, its report written to `reportPath`; throws Error when it fails.
ViewerPlayed playSequence(const Settings& settings, const Size& size, const ViewerPlay& play,
                          const std::filesystem::path& reportPath);

/// The chain `text` describes; throws Error when it does not parse (a bug in a benchmark).
postfx::Chain parseChainOrThrow(const std::string& text);

/// A CUDA pass that declares what post-processing would (the G-buffer read, its output
/// written) and does nothing else: a frame with it costs one handoff more than without.
class HandoffProbe final : public interop::Pass {
public:
    explicit HandoffProbe(render::GBuffer& gbuffer) : m_gbuffer(gbuffer) {}
    const char* name() const override { return "handoff-probe"; }
    bool isEnabled() const override { return true; }
    interop::Path path() const override { return interop::Path::Cuda; }
    void declare(interop::Uses& uses) override;
    void run(const interop::MappedView*, interop::PassHooks&) override {}

private:
    render::GBuffer& m_gbuffer;
};

/// A wavy torus of about `triangles` triangles (rounded to a grid), with normals and colours.
io::MeshData makeTorus(int triangles);

/// "1M" → 1000000, "10k" → 10000, "2500" → 2500; 0 when malformed.
std::size_t parseCount(const std::string& text);

/// The items of a comma-separated list, empty ones left out.
std::vector<std::string> splitList(const std::string& text);

/// Parses "1080p,4K,640x360" into sizes (names kept as given).
std::vector<Size> parseSizes(const std::string& text);

/// Median of `values` (copied and sorted).
double median(std::vector<double> values);

/// Runs `frame` warmup + frames times; returns the median wall time in ms of one call,
/// each call ended by `finish` (which must wait for the GPU).
double timeFrames(const Settings& settings, const std::function<void()>& frame,
                  const std::function<void()>& finish);

/// JSON fields every result file starts with: device, GL renderer/version (driver), CUDA
/// versions, date, commit, settings.
nlohmann::json header(const std::string& benchmark, const Settings& settings);

/// Writes `json` to settings.jsonPath if set; refuses to overwrite unless asked. Returns false
/// (after printing "error: ...") on failure.
bool writeJson(const Settings& settings, const nlohmann::json& json);

/// Milliseconds for a table cell, three decimals; "n/a" for a negative value (not measured).
std::string ms(double v);

/// Prints rows as an aligned text table.
void printTable(const std::vector<std::string>& header,
                const std::vector<std::vector<std::string>>& rows);

} // namespace tandem::bench
