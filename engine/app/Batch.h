// Batch rendering of a sequence in pieces (tandem-viewer --headless --frame-range A:B
// --camera-paths P…): the frames of a range, once per camera path, each written under a name
// that says which sequence frame and which path it is (frame_000123.png, or
// frame_<path>_000123.png), so that ranges rendered anywhere (processes, GPUs, Slurm tasks)
// land in one folder without collisions and scripts/batch/merge.py can check that every frame
// is there once. --resume skips frames already written (each is written whole under a
// temporary name and renamed, so a file that exists is complete), also those another run beside
// it commits meanwhile (each frame is looked for again just before it is rendered), and removes
// the temporary files of killed runs (never a live run's): a retried task renders only what is
// missing; without --frame-range it resumes the whole sequence. A frame whose sequence frame
// failed to load is not written (SequenceRun), so the merge finds it missing. --batch-plan
// writes the whole render's plan (what merge.py checks against) and renders nothing.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/app/Settings.h"
#include "engine/core/Result.h"
#include "engine/core/StopToken.h"
#include "engine/io/CameraPath.h"

namespace CLI {
class App; // <CLI/CLI.hpp> where it is called (engine/app/Options.h says why)
}

namespace tandem::app {

struct BatchOptions {
    std::string frameRange;               ///< "A:B", "A:", ":B" (B exclusive); empty: not a batch
    std::vector<std::string> cameraPaths; ///< JSON camera paths, each rendered over the range
    bool resume = false;                  ///< skip frames already written (all: range 0:)
    std::string planPath;                 ///< write the plan here and render nothing

    bool active() const
    {
        return !frameRange.empty() || !cameraPaths.empty() || resume || !planPath.empty();
    }
};

/// Adds --frame-range, --camera-paths, --resume and --batch-plan to `cli`.
void addBatchOptions(CLI::App& cli, BatchOptions& options);

/// Parses "A:B", "A:" or ":B" against `frameCount` frames into [first, end), the end clamped to
/// the count (a range past the end is empty, not an error: the last of several tasks).
Result<std::pair<int, int>> parseFrameRange(const std::string& text, int frameCount);

/// One frame to render: a sequence frame seen along a camera path.
struct BatchJob {
    int frame = 0;
    int path = -1;    ///< index into BatchPlan::paths(), -1: the session's own camera
    std::string file; ///< its name in the output folder
};

class BatchPlan {
public:
    /// The plan for `options` over a sequence of `frameCount` frames, written as `extension`
    /// files into `outDir`. With resume, frames whose file exists are left out (counted in
    /// skipped()) and the temporary files of killed writers are removed (a live writer's are
    /// kept). Fails for a malformed range, a camera path that does not load, two paths with one
    /// name, or an unwritable folder; and when `stop` asks while it lists the jobs (millions of
    /// frames take a while), saying so.
    static Result<BatchPlan> make(const BatchOptions& options, int frameCount,
                                  const std::filesystem::path& outDir, const std::string& extension,
                                  const StopToken& stop = {});

    /// The name of sequence frame `frame` along path `path` (-1: none), e.g. frame_000123.png
    /// or frame_orbit_000123.png.
    std::string fileName(int frame, int path) const;
    /// What is left to render, paths in order, frames in order within each.
    const std::vector<BatchJob>& jobs() const { return m_jobs; }
    const std::vector<io::CameraPath>& paths() const { return m_paths; }
    /// Frames of the range already written (with resume).
    std::size_t skipped() const { return m_skipped; }
    int first() const { return m_first; }
    int end() const { return m_end; }
    /// The plan as merge.py reads it: the range, the paths' names, the file names' pattern and
    /// every expected file.
    nlohmann::json toJson(const std::string& sequence, double fps, const std::string& size) const;

private:
    int m_first = 0;
    int m_end = 0;
    std::string m_extension;
    std::vector<std::string> m_pathNames;
    std::vector<io::CameraPath> m_paths;
    std::vector<BatchJob> m_jobs;
    std::size_t m_skipped = 0;
};

/// A batch render's plan from an app's command line (headless only; --spin, --frames and, with
/// --resume or several paths, --video refused: a usage error, `usage` set): null when there is
/// nothing to render (the plan written with --batch-plan, or every frame of the range there with
/// --resume). Else sets settings.frames and settings.frameName to the plan's jobs, so the
/// session renders and names them (with --resume also settings.keepExisting: a frame another
/// run writes first is done); `spec`, `fps` and settings.size go into a written plan, whose
/// folder is made. `stop` ends the making of the plan (BatchPlan::make()).
Result<std::shared_ptr<const BatchPlan>> prepareBatch(const BatchOptions& batch,
                                                      SessionSettings& options, int frameCount,
                                                      double fps, const std::string& spec,
                                                      bool& usage, const StopToken& stop = {});

} // namespace tandem::app
