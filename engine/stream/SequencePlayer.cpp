#include "engine/stream/SequencePlayer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "engine/core/Error.h"
#include "engine/core/Log.h"
#include "engine/profile/Profiler.h"
#include "engine/stream/Block.h"
#include "engine/stream/detail/CudaUpload.h"

namespace tandem::stream {

// What the upload passes do this frame, and the staging slots their copies hold; the copies
// themselves are the CUDA half's (detail/CudaUpload.h), made on the CUDA path only.
struct SequencePlayer::Copies {
    std::unique_ptr<detail::CudaUpload> upload; ///< null on the GL path
    render::SceneView pending; ///< the mesh frame the upload pass copies this frame
    bool hasPending = false;   ///< set by stage(), cleared by the join
    /// Compact points the upload pass copies this frame, per set (the front's, when it was
    /// just staged to be shown now, then the back's, for the next frame).
    struct Compact {
        bool pending = false;
        render::SceneView view;
        Ticket ticket; ///< its staging slot, into inFlight once copied
    };
    Compact compact[2];
    bool anyCompact() const { return compact[0].pending || compact[1].pending; }
    /// Staging slots whose copies are in flight, each with the fence that marks its copy done,
    /// released once the fence is passed.
    struct Flight {
        Ticket ticket;
        int fence = -1;
    };
    std::vector<Flight> inFlight;
    interop::BufferRef vertices, indices, offsets, triangles;
};

class SequencePlayer::Upload final : public interop::Pass {
public:
    explicit Upload(SequencePlayer& player) : m_player(player) {}
    const char* name() const override { return "stream.upload"; }
    bool isEnabled() const override
    {
        const Copies& c = *m_player.m_copies;
        return c.hasPending || c.anyCompact() || m_player.m_waitFront;
    }
    interop::Path path() const override { return interop::Path::Cuda; }
    void declare(interop::Uses& uses) override
    {
        Copies& c = *m_player.m_copies;
        if (!c.hasPending)
            return;
        // ReadWrite: a buffer registered without a hint also serves the point pass reading it
        // once it is the front, so the ping-pong never registers again.
        const render::GpuScene& back = *m_player.m_back.scene;
        const auto use = [&](const gl::Buffer& buffer) {
            return uses.buffer(buffer, back.registrations(), interop::Intent::ReadWrite);
        };
        c.vertices = use(back.vertexBuffer());
        c.indices = use(back.indexBuffer());
        c.offsets = use(back.provokingOffsets());
        c.triangles = use(back.provokingTriangles());
    }
    void run(const interop::MappedView* view, interop::PassHooks& hooks) override
    {
        Copies& c = *m_player.m_copies;
        void* frameStream = view->stream();
        // The front's first: this frame waits for it; the back's overlaps what follows.
        for (int set : {m_player.m_front.set, m_player.m_back.set})
            if (c.compact[set].pending)
                m_player.copyCompact(set, hooks);
        if (m_player.m_waitFront) {
            // The front's compact points were copied on the copy stream: the point pass after
            // this waits for them (on the GPU).
            c.upload->waitForPoints(m_player.m_front.set, frameStream);
            m_player.m_waitFront = false;
        }
        if (!c.hasPending)
            return;
        // A mesh frame into the mapped GL buffers: the copy stream starts after the map (GL is
        // done with them), not after the passes that follow on the frame's stream: they overlap.
        c.upload->copyMesh(c.pending,
                           {view->pointer(c.vertices), view->pointer(c.indices),
                            view->pointer(c.offsets), view->pointer(c.triangles)},
                           frameStream, hooks);
        m_player.track(m_player.m_back.ticket);
        m_player.m_back.ticket = Ticket{};
    }

private:
    SequencePlayer& m_player;
};

class SequencePlayer::Join final : public interop::Pass {
public:
    explicit Join(SequencePlayer& player) : m_player(player) {}
    const char* name() const override { return "stream.join"; }
    bool isEnabled() const override
    {
        return m_player.m_copies->hasPending || m_player.m_front.onDevice;
    }
    interop::Path path() const override { return interop::Path::Cuda; }
    void run(const interop::MappedView* view, interop::PassHooks&) override
    {
        Copies& c = *m_player.m_copies;
        // The front's compact points are free for a copy once this frame's passes are done.
        if (m_player.m_front.onDevice)
            c.upload->releasePoints(m_player.m_front.set, view->stream());
        // The unmap must not come before the copies into mapped buffers are done.
        if (c.hasPending)
            c.upload->waitForCopies(view->stream());
        c.hasPending = false;
    }

private:
    SequencePlayer& m_player;
};

SequencePlayer::SequencePlayer(const Source& source, const StreamSettings& settings,
                               UploadPath path, profile::Profiler* profiler)
    : m_source(source), m_path(path),
      m_streamer(std::make_unique<Streamer>(source, settings,
                                            profiler ? &profiler->threadTracks() : nullptr)),
      m_copies(std::make_unique<Copies>()), m_upload(std::make_unique<Upload>(*this)),
      m_join(std::make_unique<Join>(*this))
{
    if (path == UploadPath::CudaCopy)
        m_copies->upload = std::make_unique<detail::CudaUpload>(profiler);
    m_back.set = 1;
    m_slots = m_streamer->stats().slots;
    m_gpuBudget = settings.gpuBudgetBytes;
    if (const auto largest = source.largestFrame()) {
        // Allocated once for the largest frame; when that does not fit, as frames come (one
        // that does not fit is skipped, named).
        try {
            if (std::string over = overGpuBudget(*largest, "the largest frame"); !over.empty())
                throw Error(over);
            m_front.scene = std::make_unique<render::GpuScene>(*largest, "stream front");
            m_back.scene = std::make_unique<render::GpuScene>(*largest, "stream back");
            m_capacity = *largest;
        } catch (const Error& e) {
            log::warning("stream: {}; buffers are made for each frame as it comes instead",
                         e.what());
            m_front.scene.reset();
            m_back.scene.reset();
        }
    }
}

std::string SequencePlayer::overGpuBudget(const render::SceneCounts& counts,
                                          std::string_view what) const
{
    // Two buffer sets (front and back).
    if (m_gpuBudget == 0 || 2 * counts.bytes() <= m_gpuBudget)
        return {};
    return fmt::format("{} needs {:.1f} MiB of GPU buffers (two sets), more than --gpu-memory-mb "
                       "allows ({:.0f} MiB)",
                       what, 2.0 * counts.bytes() / 1048576.0, m_gpuBudget / 1048576.0);
}

SequencePlayer::~SequencePlayer()
{
    // Waits for the copies in flight before their staging slots go back.
    m_copies->upload.reset();
    for (const Copies::Flight& flight : m_copies->inFlight)
        m_streamer->release(flight.ticket);
    if (m_copies->hasPending)
        m_streamer->release(m_back.ticket);
    for (const Copies::Compact& compact : m_copies->compact)
        if (compact.pending)
            m_streamer->release(compact.ticket);
}

Result<bool> SequencePlayer::preload(bool quiet, const StopToken& stop)
{
    const int count = m_source.frameCount();
    const StreamStats before = m_streamer->stats();
    if (before.slots < count)
        return fail(fmt::format(
            "--preload: the staging budget holds {} frames of {} and the "
            "sequence has {}; raise --cache-mb to at least {:.0f}",
            before.slots, m_source.description(), count,
            std::ceil(static_cast<double>(before.budgetBytes) / before.slots * count / 1048576.0) +
                1));
    std::vector<int> all(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i)
        all[static_cast<std::size_t>(i)] = i;
    m_streamer->want(all);
    // Frames that did not fit beside the others (a streamer made for a preload keeps every
    // loaded frame): what they asked for is what the budget lacks, at least.
    std::vector<int> refused;
    std::size_t lacking = 0;
    for (int i = 0; i < count; ++i) {
        if (const int signal = stop.stopRequested(); signal != 0) {
            if (!quiet)
                std::fprintf(stderr, "\n");
            return fail(stoppedWhile(signal, fmt::format("preloading {} ({} of {} frames loaded)",
                                                         m_source.description(), i, count)));
        }
        const Ticket ticket = m_streamer->wait(i);
        if (ticket.overBudget > 0) {
            refused.push_back(i);
            lacking += ticket.overBudget;
        }
        m_streamer->release(ticket);
        if (!quiet && (i % 16 == 15 || i + 1 == count))
            std::fprintf(stderr, "\rpreloading: %d/%d frames", i + 1, count);
    }
    if (!quiet)
        std::fprintf(stderr, "\n");
    if (!refused.empty()) {
        const StreamStats after = m_streamer->stats();
        return fail(fmt::format(
            "--preload: {} does not fit in the staging budget (--cache-mb {:.0f}): {} of its {} "
            "frames loaded, {} did not ({}{}); raise --cache-mb to at least {:.0f}",
            m_source.description(), after.budgetBytes / 1048576.0, count - refused.size(), count,
            refused.size(), m_source.frameName(refused.front()), refused.size() > 1 ? ", …" : "",
            std::ceil((after.allocatedBytes + lacking) / 1048576.0) + 1));
    }
    m_streamer->resetAccessCounters();
    return true;
}

const render::GpuScene* SequencePlayer::scene() const
{
    return m_front.index >= 0 ? m_front.scene.get() : nullptr;
}

interop::Pass& SequencePlayer::uploadPass()
{
    return *m_upload;
}

interop::Pass& SequencePlayer::joinPass()
{
    return *m_join;
}

std::vector<std::string> SequencePlayer::takeWarnings()
{
    return std::exchange(m_warnings, {});
}

void SequencePlayer::warn(std::string warning)
{
    log::warning("{}", warning);
    m_recent.push_back(warning);
    if (m_recent.size() > 4)
        m_recent.erase(m_recent.begin());
    m_warnings.push_back(std::move(warning));
}

void SequencePlayer::skip(const Ticket& ticket)
{
    m_failed.push_back(ticket.index);
    ++m_stats.skipped;
    warn(fmt::format("skipped frame {}: {}", ticket.index, ticket.error));
    m_streamer->release(ticket);
}

void SequencePlayer::ensureCapacity(Buffers& buffers, const render::SceneCounts& counts)
{
    if (buffers.scene && counts.fitsIn(buffers.scene->capacity()))
        return;
    // A source that did not know its largest frame: grow both ways, with headroom, so a
    // sequence of slowly growing frames reallocates rarely.
    render::SceneCounts grown = render::SceneCounts::max(m_capacity, counts);
    const auto headroom = [](std::uint32_t n) {
        return static_cast<std::uint32_t>(std::min<std::uint64_t>(n + n / 4, 0xfffffffeu));
    };
    grown = {headroom(grown.objects), headroom(grown.vertices), headroom(grown.indices),
             headroom(grown.provokingOffsets), headroom(grown.provokingTriangles)};
    if (m_gpuBudget > 0 && 2 * grown.bytes() > m_gpuBudget)
        grown = counts; // no headroom where the budget has none
    m_capacity = grown;
    buffers.scene.reset();
    buffers.scene = std::make_unique<render::GpuScene>(grown, &buffers == &m_front ? "stream front"
                                                                                   : "stream back");
    ++m_stats.reallocations;
}

bool SequencePlayer::stage(Ticket ticket, bool immediate)
{
    if (!ticket.isOk()) {
        skip(ticket);
        return false;
    }
    if (!ticket.warnings.empty() &&
        std::find(m_warned.begin(), m_warned.end(), ticket.index) == m_warned.end()) {
        // Once a frame: a looping sequence would repeat them.
        m_warned.push_back(ticket.index);
        for (const std::string& warning : ticket.warnings)
            warn(fmt::format("frame {}: {}", ticket.index, warning));
    }
    // The streamer's loader checked the contents (Streamer.h): only the header is read again.
    auto view = viewBlock(ticket.block, m_source.frameName(ticket.index), true);
    if (!view) {
        ticket.error = view.error();
        skip(ticket);
        return false;
    }
    const render::SceneView& v = view.value();
    if (std::string over = overGpuBudget(v.counts(), "the frame"); !over.empty()) {
        ticket.error = fmt::format("{}: {}", m_source.frameName(ticket.index), over);
        skip(ticket);
        return false;
    }
    try {
        ensureCapacity(m_back, v.counts());
    } catch (const Error& e) {
        // Too large for the GPU (or --gpu-memory-mb): this frame alone is skipped.
        ticket.error = fmt::format("{}: {}", m_source.frameName(ticket.index), e.what());
        skip(ticket);
        return false;
    }
    const std::size_t bytes = v.counts().bytes();
    m_back.onDevice = false;
    m_back.devicePoints = false;
    m_back.splats = {};
    if (m_path == UploadPath::CudaCopy && v.vertices.empty() &&
        (v.isCompact() || !v.splats.empty())) {
        // Compact points and splats into CUDA memory by the frame's first pass, on the copy
        // stream: the frame that shows them waits for the copy on the GPU.
        Copies& c = *m_copies;
        Copies::Compact& pending = c.compact[m_back.set];
        if (pending.pending)
            m_streamer->release(pending.ticket); // replaced before it was copied
        ensureDeviceCapacity(m_back.set, v.positions.size(), v.splats.region.size());
        m_back.scene->setContents(v, false);
        m_back.scene->setSplats(
            v.splats.empty() ? render::GpuSplats{}
                             : render::GpuSplats::elsewhere(v.splats.count, v.splats.shDegree));
        pending = {true, v, ticket};
        m_back.onDevice = true;
        m_back.devicePoints = v.isCompact();
        if (!v.splats.empty())
            m_back.splats = {m_copies->upload->splats(m_back.set), v.splats.count,
                             v.splats.shDegree, v.splats.encoding};
        ++m_stats.cudaCopies;
    } else if (m_path == UploadPath::GlSubData || immediate) {
        m_back.scene->setContents(v, true);
        m_back.scene->setSplats(v.splats.empty() ? render::GpuSplats{}
                                                 : render::GpuSplats(v.splats));
        m_streamer->release(ticket);
    } else {
        // A mesh frame's splats (rare: meshes and splats in one frame) go through the host.
        m_back.scene->setSplats(v.splats.empty() ? render::GpuSplats{}
                                                 : render::GpuSplats(v.splats));
        m_back.scene->setContents(v, false);
        m_copies->pending = v;
        m_copies->hasPending = true;
        m_back.ticket = ticket;
        ++m_stats.cudaCopies;
    }
    m_back.index = ticket.index;
    ++m_stats.uploads;
    m_stats.bytesUploaded += bytes;
    return true;
}

render::PointPass::DevicePoints SequencePlayer::devicePoints() const
{
    if (m_front.index < 0 || !m_front.devicePoints)
        return {};
    const int set = m_front.set;
    return {m_copies->upload->positions(set), m_copies->upload->attributes(set)};
}

render::DeviceSplatRegion SequencePlayer::deviceSplats() const
{
    if (m_front.index < 0)
        return {};
    return m_front.splats;
}

void SequencePlayer::copyCompact(int set, interop::PassHooks& hooks)
{
    Copies& c = *m_copies;
    c.upload->copyToDevice(set, c.compact[set].view, hooks);
    track(c.compact[set].ticket);
    c.compact[set] = {};
}

void SequencePlayer::releaseFinished()
{
    Copies& c = *m_copies;
    if (c.hasPending) {
        // The frame before did not run the passes (it was not rendered): copy now instead.
        m_back.scene->setContents(c.pending, true);
        c.hasPending = false;
        m_streamer->release(m_back.ticket);
    }
    std::erase_if(c.inFlight, [&](const Copies::Flight& flight) {
        if (!c.upload->isDone(flight.fence))
            return false;
        m_streamer->release(flight.ticket);
        c.upload->recycle(flight.fence);
        return true;
    });
}

void SequencePlayer::reclaim(int index)
{
    Copies& c = *m_copies;
    std::erase_if(c.inFlight, [&](const Copies::Flight& flight) {
        if (flight.ticket.index != index)
            return false;
        c.upload->wait(flight.fence);
        m_streamer->release(flight.ticket);
        c.upload->recycle(flight.fence);
        return true;
    });
}

void SequencePlayer::track(const Ticket& ticket)
{
    m_copies->inFlight.push_back({ticket, m_copies->upload->fence()});
}

void SequencePlayer::ensureDeviceCapacity(int set, std::size_t points, std::size_t splatBytes)
{
    m_copies->upload->reserve(set, points, m_capacity.vertices, splatBytes);
}

void SequencePlayer::update(const Playback& playback, bool waitForFrame)
{
    releaseFinished();
    const int want = playback.frame();
    if (want != m_lastWanted) {
        if (!m_wantedShown && m_lastWanted >= 0)
            ++m_stats.dropped;
        m_lastWanted = want;
        m_wantedShown = m_front.index == want;
    }
    m_streamer->want(playback.upcoming(m_slots));
    const auto failed = [this](int index) {
        return std::find(m_failed.begin(), m_failed.end(), index) != m_failed.end();
    };
    if (failed(want)) {
        m_wantedShown = true; // skipped, not dropped
    } else if (m_front.index != want) {
        if (m_back.index != want) {
            // A frame shown a moment ago (stepping back) may still be held by its copy: the
            // streamer would wait for this thread to release it.
            reclaim(want);
            std::optional<Ticket> ticket = waitForFrame
                                               ? std::optional<Ticket>(m_streamer->wait(want))
                                               : m_streamer->take(want);
            if (ticket && !stage(std::move(*ticket), true) && failed(want))
                m_wantedShown = true; // failed to load just now: skipped, not late or dropped
        }
        if (m_back.index == want) {
            std::swap(m_front, m_back);
            m_waitFront = m_front.onDevice;
            ++m_stats.shown;
            m_wantedShown = true;
        } else if (m_front.index >= 0 && !m_wantedShown) {
            ++m_stats.late;
        }
    }
    // Start the next frame's upload now: it lands in the back buffers during this frame.
    if (m_front.index == want && !m_copies->hasPending && !m_copies->compact[m_back.set].pending) {
        const std::vector<int> next = playback.upcoming(2);
        if (next.size() > 1 && m_back.index != next[1] && !failed(next[1])) {
            if (auto ticket = m_streamer->take(next[1]))
                stage(std::move(*ticket), false);
        }
    }
    if (m_updates++ < 4)
        log::debug("stream: update {}: want {}, front {} (set {}{}), back {} (set {}{}), {} in "
                   "flight",
                   m_updates, want, m_front.index, m_front.set, m_front.onDevice ? ", cuda" : "",
                   m_back.index, m_back.set, m_back.onDevice ? ", cuda" : "",
                   m_copies->inFlight.size());
}

} // namespace tandem::stream
