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

#if TANDEM_HAS_CUDA
#include <cuda_runtime.h>

#include "engine/cuda/CudaCheck.h"
#include "engine/cuda/Stream.h"
#endif

namespace tandem::stream {

// The CUDA side: the copy stream; per buffer set, CUDA memory for compact points and the
// events that order its copies with the frames that read it; and the mesh copy waiting for this
// frame's handoff.
struct SequencePlayer::Cuda {
#if TANDEM_HAS_CUDA
    // Made only on the CUDA path (a machine without a GPU has none).
    std::optional<cuda::Stream> copy;
    std::optional<cuda::Event> mapped;      ///< mesh copies start after the frame's map
    std::optional<cuda::Event> done;        ///< the last copy issued
    std::optional<cuda::Event> copied[2];   ///< a set's compact points arrived
    std::optional<cuda::Event> released[2]; ///< the last frame reading a set's points ended
#endif
    void* positions[2] = {nullptr, nullptr};  ///< device, 3 floats a point
    void* attributes[2] = {nullptr, nullptr}; ///< device, render::PointAttributes
    std::size_t capacity[2] = {0, 0};         ///< points
    render::SceneView pending;                ///< the mesh frame the upload pass copies this frame
    bool hasPending = false;                  ///< set by stage(), cleared by the join
    /// Compact points the upload pass copies this frame, per set (the front's, when it was
    /// just staged to be shown now, then the back's, for the next frame).
    struct Compact {
        bool pending = false;
        render::SceneView view;
        Ticket ticket; ///< its staging slot, into inFlight once copied
    };
    Compact compact[2];
    bool anyCompact() const
    {
        return compact[0].pending || compact[1].pending;
    }
    /// Staging slots whose copies are in flight, each with the event that marks its copy done
    /// (from a pool), released once the event completes.
    struct Flight {
        Ticket ticket;
        int event = -1;
    };
    std::vector<Flight> inFlight;
#if TANDEM_HAS_CUDA
    std::vector<cuda::Event> events;
#endif
    std::vector<int> freeEvents;
    interop::BufferRef vertices, indices, offsets, triangles;
};

class SequencePlayer::Upload final : public interop::Pass {
public:
    explicit Upload(SequencePlayer& player) : m_player(player) {}
    const char* name() const override { return "stream.upload"; }
    bool isEnabled() const override
    {
        const Cuda& c = *m_player.m_cuda;
        return c.hasPending || c.anyCompact() || m_player.m_waitFront;
    }
    interop::Path path() const override { return interop::Path::Cuda; }
    void declare(interop::Uses& uses) override
    {
        Cuda& c = *m_player.m_cuda;
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
#if TANDEM_HAS_CUDA
        Cuda& c = *m_player.m_cuda;
        auto frameStream = static_cast<cudaStream_t>(view->stream());
        // The front's first: this frame waits for it; the back's overlaps what follows.
        for (int set : {m_player.m_front.set, m_player.m_back.set})
            if (c.compact[set].pending)
                m_player.copyCompact(set, hooks);
        if (m_player.m_waitFront) {
            // The front's compact points were copied on the copy stream: the point pass after
            // this waits for them (on the GPU).
            TANDEM_CUDA_CHECK(
                cudaStreamWaitEvent(frameStream, c.copied[m_player.m_front.set]->get(), 0));
            m_player.m_waitFront = false;
        }
        if (!c.hasPending)
            return;
        // A mesh frame into the mapped GL buffers: the copy stream starts after the map (GL is
        // done with them), not after the passes that follow on the frame's stream: they overlap.
        c.mapped->record(frameStream);
        TANDEM_CUDA_CHECK(cudaStreamWaitEvent(c.copy->get(), c.mapped->get(), 0));
        hooks.beginStage("stream.upload", c.copy->get());
        const auto copy = [&](interop::BufferRef ref, const auto& span) {
            if (!span.empty())
                TANDEM_CUDA_CHECK(cudaMemcpyAsync(view->pointer(ref), span.data(),
                                                  span.size_bytes(), cudaMemcpyHostToDevice,
                                                  c.copy->get()));
        };
        copy(c.vertices, c.pending.vertices);
        copy(c.indices, c.pending.indices);
        copy(c.offsets, c.pending.provokingOffsets);
        copy(c.triangles, c.pending.provokingTriangles);
        hooks.endStage("stream.upload", c.copy->get());
        c.done->record(c.copy->get());
        m_player.track(m_player.m_back.ticket);
        m_player.m_back.ticket = Ticket{};
#else
        (void)view;
        (void)hooks;
#endif
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
        return m_player.m_cuda->hasPending || m_player.m_front.onDevice;
    }
    interop::Path path() const override { return interop::Path::Cuda; }
    void run(const interop::MappedView* view, interop::PassHooks&) override
    {
        Cuda& c = *m_player.m_cuda;
#if TANDEM_HAS_CUDA
        auto frameStream = static_cast<cudaStream_t>(view->stream());
        // The front's compact points are free for a copy once this frame's passes are done.
        if (m_player.m_front.onDevice)
            c.released[m_player.m_front.set]->record(frameStream);
        // The unmap must not come before the copies into mapped buffers are done.
        if (c.hasPending)
            TANDEM_CUDA_CHECK(cudaStreamWaitEvent(frameStream, c.done->get(), 0));
#else
        (void)view;
#endif
        c.hasPending = false;
    }

private:
    SequencePlayer& m_player;
};

SequencePlayer::SequencePlayer(const Source& source, const StreamSettings& settings,
                               UploadPath path, profile::Profiler* profiler)
    : m_source(source), m_path(path), m_profiler(profiler),
      m_streamer(std::make_unique<Streamer>(source, settings, profiler)),
      m_cuda(std::make_unique<Cuda>()), m_upload(std::make_unique<Upload>(*this)),
      m_join(std::make_unique<Join>(*this))
{
#if !TANDEM_HAS_CUDA
    if (path == UploadPath::CudaCopy)
        throw Error("the CUDA upload path needs a build with CUDA", "stream::SequencePlayer");
#else
    if (path == UploadPath::CudaCopy) {
        Cuda& c = *m_cuda;
        c.copy.emplace();
        c.mapped.emplace(false);
        c.done.emplace(false);
        for (int set = 0; set < 2; ++set) {
            c.copied[set].emplace(false);
            c.released[set].emplace(false);
        }
        if (profiler)
            profiler->nameStream(c.copy->get(), "copy");
    }
#endif
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
#if TANDEM_HAS_CUDA
    Cuda& c = *m_cuda;
    if (c.copy)
        c.copy->synchronize();
    for (int set = 0; set < 2; ++set) {
        if (c.released[set])
            c.released[set]->synchronize();
        // Destructors never throw: a failure at exit is only logged.
        if (c.positions[set] && cudaFree(c.positions[set]) != cudaSuccess)
            log::warning("stream: cudaFree failed: {}", cudaGetErrorString(cudaGetLastError()));
        if (c.attributes[set] && cudaFree(c.attributes[set]) != cudaSuccess)
            log::warning("stream: cudaFree failed: {}", cudaGetErrorString(cudaGetLastError()));
    }
#endif
    for (const Cuda::Flight& flight : m_cuda->inFlight)
        m_streamer->release(flight.ticket);
    if (m_cuda->hasPending)
        m_streamer->release(m_back.ticket);
    for (const Cuda::Compact& compact : m_cuda->compact)
        if (compact.pending)
            m_streamer->release(compact.ticket);
}

Result<bool> SequencePlayer::preload(bool quiet)
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
    for (int i = 0; i < count; ++i) {
        const Ticket ticket = m_streamer->wait(i);
        m_streamer->release(ticket);
        if (!quiet && (i % 16 == 15 || i + 1 == count))
            std::fprintf(stderr, "\rpreloading: %d/%d frames", i + 1, count);
    }
    if (!quiet)
        std::fprintf(stderr, "\n");
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
    auto view = viewBlock(ticket.block, m_source.frameName(ticket.index));
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
    if (m_path == UploadPath::CudaCopy && v.isCompact()) {
        // Compact points into CUDA memory by the frame's first pass, on the copy stream: the
        // frame that shows them waits for the copy on the GPU.
        Cuda& c = *m_cuda;
        Cuda::Compact& pending = c.compact[m_back.set];
        if (pending.pending)
            m_streamer->release(pending.ticket); // replaced before it was copied
        ensureDeviceCapacity(m_back.set, v.positions.size());
        m_back.scene->setContents(v, false);
        pending = {true, v, ticket};
        m_back.onDevice = true;
        ++m_stats.cudaCopies;
    } else if (m_path == UploadPath::GlSubData || immediate) {
        m_back.scene->setContents(v, true);
        m_streamer->release(ticket);
    } else {
        m_back.scene->setContents(v, false);
        m_cuda->pending = v;
        m_cuda->hasPending = true;
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
    if (m_front.index < 0 || !m_front.onDevice)
        return {};
    const int set = m_front.set;
    return {static_cast<const float*>(m_cuda->positions[set]),
            static_cast<const render::PointAttributes*>(m_cuda->attributes[set])};
}

void SequencePlayer::copyCompact(int set, interop::PassHooks& hooks)
{
#if TANDEM_HAS_CUDA
    Cuda& c = *m_cuda;
    const render::SceneView& view = c.compact[set].view;
    // Not before the last frame that read this set is done with it; nothing else: the copy
    // overlaps the rest of this frame and the next one's start.
    TANDEM_CUDA_CHECK(cudaStreamWaitEvent(c.copy->get(), c.released[set]->get(), 0));
    hooks.beginStage("stream.upload", c.copy->get());
    TANDEM_CUDA_CHECK(cudaMemcpyAsync(c.positions[set], view.positions.data(),
                                      view.positions.size_bytes(), cudaMemcpyHostToDevice,
                                      c.copy->get()));
    TANDEM_CUDA_CHECK(cudaMemcpyAsync(c.attributes[set], view.attributes.data(),
                                      view.attributes.size_bytes(), cudaMemcpyHostToDevice,
                                      c.copy->get()));
    hooks.endStage("stream.upload", c.copy->get());
    c.copied[set]->record(c.copy->get());
    c.done->record(c.copy->get());
    track(c.compact[set].ticket);
    c.compact[set] = {};
#else
    (void)set;
    (void)hooks;
#endif
}

void SequencePlayer::releaseFinished()
{
    Cuda& c = *m_cuda;
    if (c.hasPending) {
        // The frame before did not run the passes (it was not rendered): copy now instead.
        m_back.scene->setContents(c.pending, true);
        c.hasPending = false;
        m_streamer->release(m_back.ticket);
    }
#if TANDEM_HAS_CUDA
    std::erase_if(c.inFlight, [&](const Cuda::Flight& flight) {
        if (!c.events[static_cast<std::size_t>(flight.event)].isDone())
            return false;
        m_streamer->release(flight.ticket);
        c.freeEvents.push_back(flight.event);
        return true;
    });
#endif
}

void SequencePlayer::reclaim(int index)
{
#if TANDEM_HAS_CUDA
    Cuda& c = *m_cuda;
    std::erase_if(c.inFlight, [&](const Cuda::Flight& flight) {
        if (flight.ticket.index != index)
            return false;
        c.events[static_cast<std::size_t>(flight.event)].synchronize();
        m_streamer->release(flight.ticket);
        c.freeEvents.push_back(flight.event);
        return true;
    });
#else
    (void)index;
#endif
}

void SequencePlayer::track(const Ticket& ticket)
{
#if TANDEM_HAS_CUDA
    Cuda& c = *m_cuda;
    if (c.freeEvents.empty()) {
        c.events.emplace_back(false);
        c.freeEvents.push_back(static_cast<int>(c.events.size()) - 1);
    }
    const int event = c.freeEvents.back();
    c.freeEvents.pop_back();
    c.events[static_cast<std::size_t>(event)].record(c.copy->get());
    c.inFlight.push_back({ticket, event});
#else
    m_streamer->release(ticket);
#endif
}

void SequencePlayer::ensureDeviceCapacity(int set, std::size_t points)
{
#if TANDEM_HAS_CUDA
    Cuda& c = *m_cuda;
    if (c.capacity[set] >= points)
        return;
    // Nothing may still read or write the old memory.
    c.copy->synchronize();
    c.released[set]->synchronize();
    TANDEM_CUDA_CHECK(cudaFree(c.positions[set]));
    TANDEM_CUDA_CHECK(cudaFree(c.attributes[set]));
    c.positions[set] = c.attributes[set] = nullptr;
    const std::size_t capacity = std::max<std::size_t>(points, m_capacity.vertices);
    TANDEM_CUDA_CHECK(cudaMalloc(&c.positions[set], capacity * sizeof(glm::vec3)));
    TANDEM_CUDA_CHECK(cudaMalloc(&c.attributes[set], capacity * sizeof(render::PointAttributes)));
    c.capacity[set] = capacity;
#else
    (void)set;
    (void)points;
#endif
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
    if (m_front.index == want && !m_cuda->hasPending && !m_cuda->compact[m_back.set].pending) {
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
                   m_cuda->inFlight.size());
}

} // namespace tandem::stream
