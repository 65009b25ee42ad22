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

const char* uploadPathName(UploadPath path)
{
    return path == UploadPath::CudaCopy ? "cuda-copy" : "gl-subdata";
}

// The CUDA side: the copy stream, the event that orders it after the frame's map, the event
// that marks the copies done, and the copies waiting for this frame's handoff.
struct SequencePlayer::Cuda {
#if TANDEM_HAS_CUDA
    // Made only on the CUDA path (a machine without a GPU has none).
    std::optional<cuda::Stream> copy;
    std::optional<cuda::Event> mapped;
    std::optional<cuda::Event> done;
#endif
    render::SceneView pending;    ///< what the upload pass copies this frame
    bool hasPending = false;      ///< set by stage(), cleared by the join
    std::vector<Ticket> inFlight; ///< slots whose copies `done` covers
    interop::BufferRef vertices, indices, offsets, triangles;
};

class SequencePlayer::Upload final : public interop::Pass {
public:
    explicit Upload(SequencePlayer& player) : m_player(player) {}
    const char* name() const override { return "stream.upload"; }
    bool isEnabled() const override { return m_player.m_cuda->hasPending; }
    interop::Path path() const override { return interop::Path::Cuda; }
    void declare(interop::Uses& uses) override
    {
        // ReadWrite: a buffer registered without a hint also serves the point pass reading it
        // once it is the front, so the ping-pong never registers again.
        const render::GpuScene& back = *m_player.m_back.scene;
        Cuda& c = *m_player.m_cuda;
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
        // The copy stream starts after the map (GL is done with the buffers), not after the
        // passes that follow on the frame's stream: they overlap.
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
    bool isEnabled() const override { return m_player.m_cuda->hasPending; }
    interop::Path path() const override { return interop::Path::Cuda; }
    void run(const interop::MappedView* view, interop::PassHooks&) override
    {
        Cuda& c = *m_player.m_cuda;
#if TANDEM_HAS_CUDA
        // The unmap must not come before the copies into mapped buffers are done.
        TANDEM_CUDA_CHECK(
            cudaStreamWaitEvent(static_cast<cudaStream_t>(view->stream()), c.done->get(), 0));
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
        m_cuda->copy.emplace();
        m_cuda->mapped.emplace(false);
        m_cuda->done.emplace(false);
        if (profiler)
            profiler->nameStream(m_cuda->copy->get(), "copy");
    }
#endif
    m_slots = m_streamer->stats().slots;
    if (const auto largest = source.largestFrame()) {
        m_capacity = *largest;
        m_front.scene = std::make_unique<render::GpuScene>(m_capacity, "stream front");
        m_back.scene = std::make_unique<render::GpuScene>(m_capacity, "stream back");
    }
}

SequencePlayer::~SequencePlayer()
{
#if TANDEM_HAS_CUDA
    if (!m_cuda->inFlight.empty() && m_cuda->done)
        m_cuda->done->synchronize();
#endif
    for (const Ticket& ticket : m_cuda->inFlight)
        m_streamer->release(ticket);
    if (m_cuda->hasPending)
        m_streamer->release(m_back.ticket);
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

void SequencePlayer::skip(const Ticket& ticket)
{
    m_failed.push_back(ticket.index);
    ++m_stats.skipped;
    std::string warning = fmt::format("skipped frame {}: {}", ticket.index, ticket.error);
    log::warning("{}", warning);
    m_recent.push_back(warning);
    if (m_recent.size() > 4)
        m_recent.erase(m_recent.begin());
    m_warnings.push_back(std::move(warning));
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
    auto view = viewBlock(ticket.block, m_source.frameName(ticket.index));
    if (!view) {
        ticket.error = view.error();
        skip(ticket);
        return false;
    }
    const render::SceneView& v = view.value();
    ensureCapacity(m_back, v.counts());
    const std::size_t bytes = v.counts().bytes();
    if (m_path == UploadPath::GlSubData || immediate) {
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

void SequencePlayer::releaseFinished()
{
    Cuda& c = *m_cuda;
    if (c.hasPending) {
        // The frame before did not run the passes (it was not rendered): copy now instead.
        m_back.scene->setContents(c.pending, true);
        c.hasPending = false;
        m_streamer->release(m_back.ticket);
    }
    if (m_back.ticket.slot >= 0 && m_back.index == m_back.ticket.index) {
        c.inFlight.push_back(m_back.ticket);
        m_back.ticket = Ticket{};
    }
#if TANDEM_HAS_CUDA
    if (!c.inFlight.empty() && c.done && c.done->isDone()) {
        for (const Ticket& ticket : c.inFlight)
            m_streamer->release(ticket);
        c.inFlight.clear();
    }
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
    const bool broken = std::find(m_failed.begin(), m_failed.end(), want) != m_failed.end();
    if (broken) {
        m_wantedShown = true; // skipped, not dropped
    } else if (m_front.index != want) {
        if (m_back.index != want) {
            std::optional<Ticket> ticket = waitForFrame
                                               ? std::optional<Ticket>(m_streamer->wait(want))
                                               : m_streamer->take(want);
            if (ticket)
                stage(std::move(*ticket), true);
        }
        if (m_back.index == want) {
            std::swap(m_front, m_back);
            ++m_stats.shown;
            m_wantedShown = true;
        } else if (m_front.index >= 0 && !m_wantedShown) {
            ++m_stats.late;
        }
    }
    // Start the next frame's upload now: it lands in the back buffers during this frame.
    if (m_front.index == want && !m_cuda->hasPending) {
        const std::vector<int> next = playback.upcoming(2);
        if (next.size() > 1 && m_back.index != next[1] &&
            std::find(m_failed.begin(), m_failed.end(), next[1]) == m_failed.end()) {
            if (auto ticket = m_streamer->take(next[1]))
                stage(std::move(*ticket), false);
        }
    }
}

} // namespace tandem::stream
