#include "engine/app/SequenceRun.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>

#include <unistd.h>

#include <fmt/format.h>

#include "engine/app/Batch.h"
#include "engine/app/Controls.h"
#include "engine/app/FrameOutput.h"
#include "engine/app/RemoteView.h"
#include "engine/app/Report.h"
#include "engine/app/Session.h"
#include "engine/core/File.h"
#include "engine/core/Log.h"
#include "engine/core/Plural.h"
#include "engine/cuda/Device.h"
#include "engine/frame/Frame.h"
#include "engine/gl/Gl.h"
#include "engine/io/CameraPath.h"
#include "engine/render/SplatPass.h"
#include "engine/stream/Block.h"
#include "engine/stream/Open.h"
#include "engine/ui/PlaybackPanel.h"

namespace tandem::app {

std::string sequenceKeysHelp()
{
    return ui::controlsHelp(SequenceControls) +
           "; the overlay's playback panel (F1) has the timeline slider";
}

const char* headlessFramesHelp()
{
    return "the sequence played once at --fps; with --every-frame each sequence frame once; "
           "with --frame-range the range's frames";
}

namespace {

/// The process's resident set, MiB (Linux); 0 when unknown.
double residentMb()
{
    std::FILE* f = std::fopen("/proc/self/statm", "r");
    if (!f)
        return 0.0;
    unsigned long long size = 0, resident = 0;
    const int read = std::fscanf(f, "%llu %llu", &size, &resident);
    std::fclose(f);
    return read == 2 ? resident * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1048576.0 : 0.0;
}

/// Frames between memory samples.
constexpr int MemoryEvery = 25;

} // namespace

Result<std::unique_ptr<SequenceRun>> SequenceRun::open(Session& session,
                                                       std::unique_ptr<stream::Source> source,
                                                       const SequenceSettings& settings,
                                                       bool& usage,
                                                       std::unique_ptr<stream::Source> compare)
{
    usage = true;
    if (auto valid = validate(settings); !valid)
        return fail(valid.error());
    const bool cudaFrame = session.frame().path() == interop::Path::Cuda;
    usage = false;
    if (settings.upload == UploadChoice::Cuda && !cudaFrame)
        return fail("--upload cuda needs the passes on CUDA, and they run on the host here "
                    "(no GPU, or --backend host)");
    log::info("sequence: {}", source->description());
    SequenceSettings effective = settings;
    // A preloaded sequence keeps every frame it loaded (a slot each, none evicted).
    effective.stream.preload = settings.preload;
    if (compare) {
        // Two sequences render each frame: both upload through GL, the CUDA point pass then
        // reading each one's vertex buffer.
        effective.upload = UploadChoice::Gl;
        log::info("compare: {} ({} mode)", compare->description(),
                  render::CompareModes.name(settings.compareMode));
    }
    std::unique_ptr<SequenceRun> run(new SequenceRun(session, std::move(source), effective));
    if (compare) {
        run->m_compareMode = settings.compareMode;
        run->m_divider = settings.divider;
        run->m_compareSource = std::move(compare);
        stream::StreamSettings streamed = effective.stream;
        streamed.preload = false; // only the first sequence is preloaded
        run->m_comparePlayer = std::make_unique<stream::SequencePlayer>(
            *run->m_compareSource, streamed, stream::UploadPath::GlSubData, &session.profiler());
        run->m_registered.push_back(session.addPanel({"Compare", true, [r = run.get()] {
                                                          ui::comparePanel(
                                                              r->m_compareMode, r->m_divider,
                                                              r->m_compareSource->description());
                                                      }}));
    }
    if (settings.preload)
        if (auto loaded = run->m_player->preload(session.settings().quiet, session.app().stop);
            !loaded)
            return fail(loaded.error());
    run->m_start = run->m_last = std::chrono::steady_clock::now();
    return run;
}

int SequenceRun::headlessFrames(const SessionSettings& session, const SequenceSettings& settings,
                                const stream::Source& source)
{
    const int count = source.frameCount();
    if (settings.batch)
        return static_cast<int>(settings.batch->jobs().size());
    if (session.frames)
        return *session.frames;
    if (settings.everyFrame)
        return count;
    // At most a billion output frames: a tiny sequence rate cannot overflow the count.
    const double frames = std::ceil(count / source.fps() * session.fps / settings.speed - 1e-9);
    return static_cast<int>(std::clamp(frames, 1.0, 1e9));
}

SequenceRun::SequenceRun(Session& session, std::unique_ptr<stream::Source> source,
                         const SequenceSettings& settings)
    : m_session(session), m_source(std::move(source)), m_settings(settings),
      m_playback(m_source->frameCount(), m_source->fps())
{
    const bool headless = session.isHeadless();
    // Watched from a browser (--serve) without a frame count, a headless run plays as a window
    // does: on the clock, looping, never waiting for a frame, until stopped.
    m_live =
        !headless || (session.settings().serve && !session.settings().frames && !settings.batch);
    startPlayer();
    m_playback.setSpeed(settings.speed);
    m_playback.setEveryFrame(settings.everyFrame);
    m_playback.setLoopMode(settings.loop ? *settings.loop
                           : m_live      ? stream::LoopMode::Loop
                                         : stream::LoopMode::Once);
    m_headlessFrames = headlessFrames(session.settings(), settings, *m_source);
    if (headless)
        session.setFrameLimit(m_live ? -1 : m_headlessFrames);
    session.driveCameraPath(true);
    bindKeys();
    m_registered.push_back(session.addPanel(
        {"Playback", true, [this] {
             ui::playbackPanel(m_playback, m_player->stats(), m_player->streamStats(),
                               m_player->recentWarnings(), m_source->description(),
                               m_player->shownFrame(), SequenceControls);
         }}));
    m_registered.push_back(session.onReport([this](Report& r) { report(r); }));
    m_registered.push_back(session.onStats([this](nlohmann::json& app) { stats(app); }));
    if (RemoteView* remote = session.remote()) {
        m_registered.push_back(remote->onCommand("seek", [this](const nlohmann::json& args) {
            if (const auto frame = args.find("frame"); frame != args.end() && frame->is_number())
                m_playback.seek(static_cast<int>(std::clamp(
                    frame->get<double>(), 0.0, static_cast<double>(m_source->frameCount() - 1))));
            return RemoteView::Reply();
        }));
        // P in the page: the camera path downloaded by the browser, not written here.
        m_registered.push_back(remote->onCommand("camera_path", [this](const nlohmann::json&) {
            const auto& path = m_session.cameraPath();
            if (!path || path->keys.empty())
                return RemoteView::Reply(nlohmann::json{
                    {"type", "error"}, {"message", "no camera path (K adds a key)"}});
            return RemoteView::Reply(nlohmann::json{{"type", "download"},
                                                    {"name", "camera_path.json"},
                                                    {"text", io::formatCameraPath(*path)}});
        }));
    }
    m_registered.push_back(session.onDrop([this](const std::string& path) {
        log::info("dropped on the window: {}", path);
        m_dropped = path;
    }));
    m_start = m_last = std::chrono::steady_clock::now();
}

void SequenceRun::startPlayer()
{
    frame::Frame& frame = m_session.frame();
    const bool cudaFrame = frame.path() == interop::Path::Cuda;
    const stream::UploadPath path = m_settings.upload == UploadChoice::Gl || !cudaFrame
                                        ? stream::UploadPath::GlSubData
                                        : stream::UploadPath::CudaCopy;
    m_player = std::make_unique<stream::SequencePlayer>(*m_source, m_settings.stream, path,
                                                        &m_session.profiler());
    if (path == stream::UploadPath::CudaCopy) {
        m_uploadPass = frame.addFirstPass(m_player->uploadPass());
        m_joinPass = frame.addPass(m_player->joinPass());
    }
    const stream::StreamStats s = m_player->streamStats();
    log::info("streaming: {}, {}, {:.0f} of {:.0f} MiB{}, upload {}",
              counted(s.loaderThreads, "loader thread", "loader threads"),
              counted(s.slots, "staging slot", "staging slots"), s.allocatedBytes / 1048576.0,
              s.budgetBytes / 1048576.0, s.pinned ? " page-locked" : "",
              stream::UploadPaths.name(path));
    m_fitted = false;
    std::optional<io::Bounds> bounds = m_source->bounds();
    if (!bounds && m_settings.batch) {
        // Every piece of a batch render must frame the sequence alike, whichever frame it
        // starts at: the camera fits the sequence's first frame.
        std::vector<std::uint8_t> memory;
        auto block = m_source->load(0, [&memory](std::size_t bytes) {
            memory.resize(bytes);
            return std::span<std::uint8_t>(memory);
        });
        if (block && block.value().size() >= sizeof(stream::BlockHeader)) {
            stream::BlockHeader header;
            std::memcpy(&header, block.value().data(), sizeof header);
            bounds = stream::boundsFrom(header.boundsMin, header.boundsMax);
        } else {
            log::warning("batch: the first frame did not load ({}): the camera fits the first "
                         "frame shown, so ranges starting elsewhere may be framed differently",
                         block ? "too short" : block.error());
        }
    }
    if (bounds) {
        m_session.fitCamera(*bounds);
        m_fitted = true;
    }
}

void SequenceRun::openDropped()
{
    const std::string path = std::exchange(m_dropped, std::string());
    auto source = stream::openSource(path, m_settings.sequence, m_session.app().stop);
    if (!source) {
        log::warning("could not open {}: {}", path, source.error());
        return;
    }
    for (const std::string& warning : source.warnings())
        log::warning("{}", warning);
    log::info("sequence: {}", source.value()->description());
    // The old player's passes leave the frame and its buffers go before the new ones come.
    frame::Frame& frame = m_session.frame();
    m_uploadPass.reset();
    m_joinPass.reset();
    if (render::PointPass* points = frame.pointPass())
        points->setDevicePoints({});
    frame.splatPass().setDeviceSplats({});
    m_player.reset();
    m_source = std::move(source.value());
    m_settings.stream.preload = false; // a dropped sequence streams (it is not preloaded)
    const stream::Playback old = m_playback;
    m_playback = stream::Playback(m_source->frameCount(), m_source->fps());
    m_playback.setSpeed(old.speed());
    m_playback.setEveryFrame(old.isEveryFrame());
    m_playback.setLoopMode(old.loopMode());
    startPlayer();
}

SequenceRun::~SequenceRun() = default;

void SequenceRun::Memory::add(double v)
{
    if (first < 0)
        first = v;
    min = std::min(min, v);
    max = std::max(max, v);
    last = v;
}

void SequenceRun::bindKeys()
{
    using platform::Key;
    const auto bind = [this](Key key, std::function<void()> action) {
        m_registered.push_back(m_session.onKey(key, std::move(action)));
    };
    bind(Key::Space, [this] { m_playback.togglePlay(); });
    bind(Key::Right, [this] { m_playback.step(1); });
    bind(Key::Left, [this] { m_playback.step(-1); });
    bind(Key::Home, [this] { m_playback.toStart(); });
    bind(Key::End, [this] { m_playback.toEnd(); });
    bind(Key::Plus, [this] { m_playback.faster(); });
    bind(Key::Minus, [this] { m_playback.slower(); });
    bind(Key::K, [this] {
        auto& path = m_session.cameraPath();
        if (!path)
            path.emplace();
        const render::OrbitController& c = m_session.controller();
        const float frame = static_cast<float>(m_playback.frame());
        path->addKey({frame, c.yaw(), c.pitch(), c.distanceScale(), c.targetOffset()});
        log::info("camera key at frame {} (yaw {:.1f}, pitch {:.1f}, distance {:.2f}); {}", frame,
                  c.yaw(), c.pitch(), c.distanceScale(), counted(path->keys.size(), "key", "keys"));
    });
    bind(Key::P, [this] { saveCameraPath(); });
    bind(Key::L, [this] {
        const stream::LoopMode next = stream::LoopModes.next(m_playback.loopMode());
        m_playback.setLoopMode(next);
        log::info("loop mode: {}", stream::LoopModes.name(next));
    });
}

void SequenceRun::saveCameraPath()
{
    const auto& path = m_session.cameraPath();
    if (!path || path->keys.empty()) {
        log::warning("P: no camera path to save (K adds a key)");
        return;
    }
    const std::filesystem::path folder = m_session.outputFolder();
    std::error_code error;
    std::filesystem::create_directories(folder, error);
    // The first free name: a name taken meanwhile (another process) is found by the write,
    // which never replaces, and the next is tried.
    for (int n = 0; n < 100000; ++n) {
        const std::filesystem::path file = folder / fmt::format("camera_path_{:03d}.json", n);
        bool existed = false;
        auto written = writeTextFile(file, io::formatCameraPath(*path), false, &existed);
        if (existed)
            continue;
        if (!written)
            log::warning("P: {}", written.error());
        else
            log::info("saved the camera path ({}) to {}", counted(path->keys.size(), "key", "keys"),
                      file.string());
        return;
    }
}

void SequenceRun::update()
{
    if (!m_dropped.empty())
        openDropped();
    const auto now = std::chrono::steady_clock::now();
    const bool headless = m_session.isHeadless();
    double seconds = std::chrono::duration<double>(now - m_last).count();
    if (!m_live)
        seconds = m_updates == 0 ? 0.0 : 1.0 / m_session.settings().fps;
    m_last = now;
    if (m_settings.batch) {
        // The job's sequence frame, along its camera path (playing on from there, so the
        // frames after it are loaded ahead). The session's frame is the job: it skips those
        // another run has written meanwhile.
        const BatchJob& job = m_settings.batch->jobs()[std::min<std::size_t>(
            static_cast<std::size_t>(m_session.frameIndex()), m_settings.batch->jobs().size() - 1)];
        m_playback.seek(job.frame);
        if (job.path >= 0)
            m_session.cameraPath() = m_settings.batch->paths()[static_cast<std::size_t>(job.path)];
    } else if (m_updates > 0 || m_playback.isEveryFrame()) {
        m_playback.advance(seconds);
    }
    // Headless renders are exact: each output frame waits for its sequence frame. A window
    // never waits, but for the very first frame.
    m_player->update(m_playback, !m_live || m_player->scene() == nullptr);
    if (render::PointPass* points = m_session.frame().pointPass())
        points->setDevicePoints(m_player->devicePoints());
    m_session.frame().splatPass().setDeviceSplats(m_player->deviceSplats());
    // The staging ring's fill and the frames that came late, as counter tracks of the trace.
    const stream::StreamStats streaming = m_player->streamStats();
    profile::Profiler& profiler = m_session.profiler();
    profiler.counter("stream: staged frames", streaming.readySlots);
    profiler.counter("stream: late frames", static_cast<double>(m_player->stats().late));
    ++m_updates;
    // From when the staging slots have all been filled once (each gets its memory then).
    const int memoryAfter = 100 + 2 * m_player->streamStats().slots;
    if (m_updates >= memoryAfter && m_updates % MemoryEvery == 0) {
        m_rss.add(residentMb());
        // cudaMemGetInfo where CUDA runs (the device's own count), else what GL says.
        std::size_t free =
            m_player->uploadPath() == stream::UploadPath::CudaCopy ? cuda::freeMemory() : 0;
        if (free == 0)
            free = gl::freeVideoMemory();
        if (free > 0)
            m_gpuFree.add(static_cast<double>(free) / 1048576.0);
    }
    bool complete = m_player->shownFrame() == m_playback.frame();
    if (m_comparePlayer) {
        // The second sequence shows the first's frame (its last, where it is shorter).
        stream::Playback follow(m_compareSource->frameCount(), m_compareSource->fps());
        follow.seek(std::min(m_playback.frame(), m_compareSource->frameCount() - 1));
        follow.pause();
        m_comparePlayer->update(follow, headless || m_comparePlayer->scene() == nullptr);
        for (const std::string& warning : m_comparePlayer->takeWarnings())
            (void)warning; // logged by the player
        complete = complete && m_comparePlayer->shownFrame() == follow.frame();
    }
    // A batch frame shows its sequence frame or is not written: at its name it would pass for
    // done (--resume, scripts/batch/merge.py), the frame before or nothing in its place.
    if (m_settings.batch && !complete)
        m_session.output().withhold(static_cast<std::uint64_t>(m_session.frameIndex()));
    if ((!m_player->scene() || (m_comparePlayer && !m_comparePlayer->scene())) && !m_empty)
        m_empty = std::make_unique<render::GpuScene>(render::SceneCounts{}, "no frame yet");
    if (m_comparePlayer) {
        const render::GpuScene* second = m_comparePlayer->scene();
        m_session.compare(second ? second : m_empty.get(), m_compareMode, m_divider);
    }
    if (!m_player->scene())
        m_session.showScene(m_empty.get());
    if (const render::GpuScene* scene = m_player->scene()) {
        m_session.showScene(scene);
        if (!m_fitted) {
            m_session.fitCamera(scene->bounds());
            m_fitted = true;
        }
    }
    // The camera follows the path by the sequence's clock while playing (and always headless),
    // after the fit, which resets the pose: else frame 0 of a folder would be drawn from the
    // fitted camera, not the path's, unlike the same frame of a batch piece (fitted at start).
    if (const auto& path = m_session.cameraPath();
        path && !path->keys.empty() && (headless || m_playback.isPlaying())) {
        const io::CameraKey key = path->at(static_cast<float>(m_playback.frame()));
        m_session.controller().setPose(key.yaw, key.pitch, key.distanceScale, key.target);
    }
}

int SequenceRun::finish(int code) const
{
    // Names as the source gives them, the first few: a sequence of corrupt frames could list
    // thousands. One more than boundedList() shows, so that it says there are more.
    const auto names = [](const stream::Source& source, const std::vector<int>& frames) {
        std::vector<std::string> named;
        for (std::size_t i = 0; i < frames.size() && i < 6; ++i)
            named.push_back(source.frameName(frames[i]));
        return boundedList(named);
    };
    const auto sayFailed = [&](const stream::SequencePlayer& player, const stream::Source& source,
                               const char* which) {
        const std::vector<int>& failed = player.failedFrames();
        if (!failed.empty())
            log::warning("{}skipped {} of {} that did not load: {}", which,
                         counted(failed.size(), "sequence frame", "sequence frames"),
                         source.frameCount(), names(source, failed));
    };
    sayFailed(*m_player, *m_source, "");
    if (m_comparePlayer)
        sayFailed(*m_comparePlayer, *m_compareSource, "--compare: ");
    std::string failure;
    if (const auto& withheld = m_session.output().withheld(); !withheld.empty())
        failure = fmt::format("{} not written ({} did not load, above): {}; --resume renders {} "
                              "again",
                              counted(withheld.size(), "batch frame", "batch frames"),
                              withheld.size() == 1 ? "its sequence frame" : "their sequence frames",
                              boundedList(withheld), withheld.size() == 1 ? "it" : "them");
    else if (m_player->stats().shown == 0 && !m_player->failedFrames().empty())
        failure = fmt::format("no sequence frame was rendered: every frame shown was skipped "
                              "({}); the output holds no frame of {}",
                              names(*m_source, m_player->failedFrames()), m_source->description());
    if (failure.empty())
        return code;
    if (code != ExitOk) {
        log::error("{}", failure); // the run has failed (or was stopped) already
        return code;
    }
    return exitWith(ExitInput, failure);
}

void SequenceRun::stats(nlohmann::json& app) const
{
    const stream::PlayerStats p = m_player->stats();
    const stream::StreamStats s = m_player->streamStats();
    const std::uint64_t asked = s.hits + s.misses;
    app["timeline"] = {{"frame", m_player->shownFrame()},
                       {"frames", m_source->frameCount()},
                       {"seconds", m_player->shownFrame() / m_source->fps()},
                       {"speed", m_playback.speed()},
                       {"playing", m_playback.isPlaying()},
                       {"loop", stream::LoopModes.name(m_playback.loopMode())}};
    app["health"] = {{"cache hit rate", asked > 0 ? static_cast<double>(s.hits) / asked : 0.0},
                     {"late", p.late},
                     {"dropped", p.dropped},
                     {"skipped", p.skipped},
                     {"loaded", s.loaded},
                     {"failed to load", s.failed}};
    app["warnings"] = m_player->recentWarnings();
}

void SequenceRun::report(Report& r) const
{
    const stream::PlayerStats p = m_player->stats();
    const stream::StreamStats s = m_player->streamStats();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
    const std::uint64_t asked = s.hits + s.misses;
    const char* gpuFreeFrom = m_player->uploadPath() == stream::UploadPath::CudaCopy
                                  ? "cudaMemGetInfo"
                                  : "GL (GL_NVX_gpu_memory_info)";
    r.set("streaming",
          {{"source", m_source->description()},
           {"sequence_frames", m_source->frameCount()},
           {"sequence_fps", m_source->fps()},
           {"every_frame", m_playback.isEveryFrame()},
           {"speed", m_playback.speed()},
           {"loop", stream::LoopModes.name(m_playback.loopMode())},
           {"upload_path", stream::UploadPaths.name(m_player->uploadPath())},
           {"staging_pinned", s.pinned},
           {"cache_budget_mb", s.budgetBytes / 1048576.0},
           {"cache_allocated_mb", s.allocatedBytes / 1048576.0},
           {"staging_slots", s.slots},
           {"loader_threads", s.loaderThreads},
           {"frames_shown", p.shown},
           {"frames_late", p.late},
           {"frames_dropped", p.dropped},
           {"frames_skipped", p.skipped},
           {"uploads", p.uploads},
           {"bytes_uploaded", p.bytesUploaded},
           {"upload_gb_per_s", seconds > 0 ? p.bytesUploaded / seconds / 1e9 : 0.0},
           {"gpu_buffer_reallocations", p.reallocations},
           {"frames_loaded", s.loaded},
           {"frames_failed_to_load", s.failed},
           {"bytes_loaded", s.bytesLoaded},
           {"mean_load_ms",
            s.loaded + s.failed > 0 ? 1e3 * s.loadSeconds / (s.loaded + s.failed) : 0.0},
           {"loader_busy",
            seconds > 0 && s.loaderThreads > 0 ? s.loadSeconds / (seconds * s.loaderThreads) : 0.0},
           {"cache_hits", s.hits},
           {"cache_misses", s.misses},
           {"cache_hit_rate", asked > 0 ? static_cast<double>(s.hits) / asked : 0.0},
           {"loader_waits", s.waits},
           {"loader_wait_seconds", s.waitSeconds},
           {"wall_seconds", seconds},
           {"host_rss_mb",
            m_rss.first < 0
                ? nlohmann::json(nullptr)
                : nlohmann::json{{"after_warmup", m_rss.first},
                                 {"max", m_rss.max},
                                 {"end", m_rss.last},
                                 {"growth", m_rss.max - m_rss.first},
                                 {"samples_from_frame", 100 + 2 * m_player->streamStats().slots}}},
           {"gpu_free_mb", m_gpuFree.first < 0 ? nlohmann::json(nullptr)
                                               : nlohmann::json{{"from", gpuFreeFrom},
                                                                {"after_warmup", m_gpuFree.first},
                                                                {"min", m_gpuFree.min},
                                                                {"end", m_gpuFree.last}}},
           {"frames_per_second", seconds > 0 ? m_updates / seconds : 0.0}});
}

} // namespace tandem::app
