#include "engine/app/Batch.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <system_error>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "engine/core/AtomicFile.h"
#include "engine/core/File.h"
#include "engine/core/Log.h"
#include "engine/core/Plural.h"
#include "engine/frame/FrameWriter.h"

namespace tandem::app {

namespace fs = std::filesystem;

void addBatchOptions(CLI::App& cli, BatchOptions& o)
{
    cli.add_option("--frame-range", o.frameRange,
                   "headless: render sequence frames A to B-1 (A:B, A: to the end, :B from the "
                   "start), each once and in order, named by sequence frame (frame_000123.png) "
                   "so ranges rendered anywhere merge into one folder; a range past the end "
                   "renders nothing");
    cli.add_option("--camera-paths", o.cameraPaths,
                   "headless: render the range once along each of these camera paths (JSON "
                   "keyframes as --camera-path reads, or orbit), named "
                   "frame_<path name>_000123.png")
        ->expected(1, -1);
    cli.add_flag("--resume", o.resume,
                 "headless: skip frames whose file exists (files are written under a temporary "
                 "name and renamed, so one that exists is complete), and those another run "
                 "writes first, and remove the temporary files of killed runs: a retried task "
                 "renders only what is missing. Without --frame-range: the whole sequence, each "
                 "frame once (as --frame-range 0:)");
    cli.add_option("--batch-plan", o.planPath,
                   "write the plan of a batch render (range, camera paths, every file expected) "
                   "as JSON for scripts/batch/merge.py, and render nothing");
}

namespace {

Result<int> parseBound(const std::string& text, const std::string& whole)
{
    int value = 0;
    const char* end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(text.data(), end, value);
    if (error != std::errc() || stop != end || value < 0)
        return fail(fmt::format("--frame-range {}: expected A:B with frame numbers >= 0", whole));
    return value;
}

/// A camera path's name in file names: its file's stem, letters, digits, '-' and '_' kept.
std::string pathName(const std::string& spec)
{
    std::string name = spec == "orbit" ? "orbit" : fs::path(spec).stem().string();
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_')
            c = '-';
    return name.empty() ? "path" : name;
}

} // namespace

Result<std::pair<int, int>> parseFrameRange(const std::string& text, int frameCount)
{
    const std::size_t colon = text.find(':');
    if (colon == std::string::npos || text.find(':', colon + 1) != std::string::npos)
        return fail(fmt::format("--frame-range {}: expected A:B, A: or :B", text));
    const std::string a = text.substr(0, colon), b = text.substr(colon + 1);
    int first = 0, end = frameCount;
    if (!a.empty()) {
        auto parsed = parseBound(a, text);
        if (!parsed)
            return fail(parsed.error());
        first = parsed.value();
    }
    if (!b.empty()) {
        auto parsed = parseBound(b, text);
        if (!parsed)
            return fail(parsed.error());
        end = parsed.value();
    }
    if (!a.empty() && !b.empty() && end < first)
        return fail(fmt::format("--frame-range {}: the end is before the start", text));
    first = std::min(first, frameCount);
    end = std::min(end, frameCount);
    return std::pair{first, end};
}

Result<BatchPlan> BatchPlan::make(const BatchOptions& options, int frameCount,
                                  const fs::path& outDir, const std::string& extension,
                                  const StopToken& stop)
{
    BatchPlan plan;
    auto range = parseFrameRange(options.frameRange.empty() ? ":" : options.frameRange, frameCount);
    if (!range)
        return fail(range.error());
    plan.m_first = range.value().first;
    plan.m_end = range.value().second;
    plan.m_extension = extension;
    for (const std::string& spec : options.cameraPaths) {
        const std::string name = pathName(spec);
        for (const std::string& other : plan.m_pathNames)
            if (other == name)
                return fail(fmt::format("--camera-paths: two paths named \"{}\" (file names "
                                        "would collide): rename one",
                                        name));
        if (spec == "orbit") {
            plan.m_paths.push_back(io::CameraPath::orbit());
        } else {
            auto path = io::readCameraPath(spec);
            if (!path)
                return fail(path.error());
            plan.m_paths.push_back(std::move(path.value()));
        }
        plan.m_pathNames.push_back(name);
    }
    if (!options.planPath.empty())
        return plan; // the plan only: nothing is rendered, the folder is not touched
    if (auto ok = prepareOutputDirectory(outDir); !ok)
        return fail(ok.error());
    const int pathCount = std::max<int>(1, static_cast<int>(plan.m_paths.size()));
    for (int p = 0; p < pathCount; ++p)
        for (int f = plan.m_first; f < plan.m_end; ++f) {
            if ((f - plan.m_first) % StopPollSteps == 0)
                if (const int signal = stop.stopRequested(); signal != 0)
                    return fail(stoppedWhile(
                        signal,
                        fmt::format("planning the batch render of {} frames ({} planned)",
                                    static_cast<long long>(pathCount) * (plan.m_end - plan.m_first),
                                    plan.m_jobs.size() + plan.m_skipped)));
            BatchJob job{f, plan.m_paths.empty() ? -1 : p,
                         plan.fileName(f, plan.m_paths.empty() ? -1 : p)};
            std::error_code error;
            if (options.resume && fs::is_regular_file(outDir / job.file, error)) {
                ++plan.m_skipped;
                continue;
            }
            plan.m_jobs.push_back(std::move(job));
        }
    // Left by runs killed while writing: never a frame. A live run's are its own.
    if (options.resume)
        if (const auto stale = removeStaleTemporaries(outDir); !stale.empty())
            log::info("{}: removed {} temporary files left by runs that were killed",
                      outDir.string(), stale.size());
    return plan;
}

std::string BatchPlan::fileName(int frame, int path) const
{
    if (path < 0)
        return fmt::format("frame_{:06d}{}", frame, m_extension);
    return fmt::format("frame_{}_{:06d}{}", m_pathNames[static_cast<std::size_t>(path)], frame,
                       m_extension);
}

nlohmann::json BatchPlan::toJson(const std::string& sequence, double fps,
                                 const std::string& size) const
{
    nlohmann::json files = nlohmann::json::array();
    nlohmann::json paths = nlohmann::json::array();
    const int pathCount = std::max<int>(1, static_cast<int>(m_paths.size()));
    for (int p = 0; p < pathCount; ++p) {
        const int path = m_paths.empty() ? -1 : p;
        nlohmann::json names = nlohmann::json::array();
        for (int f = m_first; f < m_end; ++f)
            names.push_back(fileName(f, path));
        paths.push_back({{"name", path < 0 ? "" : m_pathNames[static_cast<std::size_t>(p)]},
                         {"files", std::move(names)}});
    }
    return {{"tandem_batch_plan", 1},
            {"sequence", sequence},
            {"fps", fps},
            {"size", size},
            {"range", {m_first, m_end}},
            {"extension", m_extension},
            {"camera_paths", std::move(paths)}};
}

Result<std::shared_ptr<const BatchPlan>> prepareBatch(const BatchOptions& batch,
                                                      SessionSettings& options, int frameCount,
                                                      double fps, const std::string& spec,
                                                      bool& usage, const StopToken& stop)
{
    usage = true;
    if (!options.headless)
        return fail("--frame-range, --camera-paths, --resume and --batch-plan are for --headless "
                    "renders");
    if (options.spin != 0.0f)
        return fail("--spin turns the camera by rendered frame, which differs between pieces "
                    "of a batch: give a camera path (--camera-paths orbit)");
    if (options.frames)
        return fail(batch.frameRange.empty()
                        ? "--frames with --resume: a resumed render renders the whole sequence "
                          "(or --frame-range A:B)"
                        : "--frames with --frame-range: the range says which frames");
    if (options.video && (batch.resume || batch.cameraPaths.size() > 1))
        return fail("--video with --resume or several camera paths: render frames and let "
                    "scripts/batch/merge.py make the videos");
    if (options.cameraPath && !batch.cameraPaths.empty())
        return fail("--camera-path and --camera-paths: give the paths to --camera-paths");
    if (auto range = parseFrameRange(batch.frameRange.empty() ? ":" : batch.frameRange, frameCount);
        !range)
        return fail(range.error());
    usage = false;
    auto plan = BatchPlan::make(batch, frameCount, options.outDir,
                                frame::extensionOf(options.format), stop);
    if (!plan)
        return fail(plan.error());
    if (!batch.planPath.empty()) {
        const nlohmann::json json = plan.value().toJson(spec, fps, formatSize(options.size));
        // Names that are not UTF-8 are written with U+FFFD rather than failing.
        const std::string text =
            json.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
        if (auto ok = prepareOutputFile(batch.planPath, options.overwrite); !ok)
            return fail(ok.error());
        if (auto written = writeTextFile(batch.planPath, text, options.overwrite); !written)
            return fail(written.error());
        log::info("wrote the plan of frames {} to {} ({} camera paths) to {}", plan.value().first(),
                  plan.value().end() - 1, std::max<std::size_t>(1, plan.value().paths().size()),
                  batch.planPath);
        return std::shared_ptr<const BatchPlan>();
    }
    if (plan.value().jobs().empty()) {
        log::info("nothing to render: frames {} to {} {}", plan.value().first(),
                  plan.value().end() - 1,
                  plan.value().skipped() > 0 ? "are already written" : "are past the sequence");
        return std::shared_ptr<const BatchPlan>();
    }
    if (plan.value().skipped() > 0)
        log::info("resuming: {} already written, {} to render",
                  counted(plan.value().skipped(), "frame", "frames"), plan.value().jobs().size());
    auto shared = std::make_shared<const BatchPlan>(std::move(plan.value()));
    options.keepExisting = batch.resume;
    options.frames = static_cast<int>(shared->jobs().size());
    options.frameName = [shared](std::uint64_t index) {
        return shared->jobs()[static_cast<std::size_t>(index)].file;
    };
    return std::shared_ptr<const BatchPlan>(shared);
}

} // namespace tandem::app
