#include "engine/stream/Streamer.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>

#include <fmt/format.h>

#include "engine/core/Error.h"
#include "engine/core/Log.h"
#include "engine/cuda/PinnedMemory.h"
#include "engine/profile/Tracks.h"
#include "engine/stream/Block.h"

namespace tandem::stream {

namespace {

constexpr std::size_t PageBytes = 4096;

double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

// --- HostMemory ----------------------------------------------------------------------------

HostMemory::HostMemory(bool pinned) : m_pinned(pinned && cuda::canPinMemory())
{
    if (pinned && !m_pinned)
        log::info("stream: no CUDA device, staging memory is not page-locked");
}

void* HostMemory::allocate(std::size_t bytes)
{
    bytes = std::max<std::size_t>(PageBytes, (bytes + PageBytes - 1) / PageBytes * PageBytes);
    if (m_pinned)
        return cuda::allocatePinned(bytes);
    return std::aligned_alloc(PageBytes, bytes);
}

void HostMemory::release(void* memory) noexcept
{
    if (m_pinned)
        cuda::freePinned(memory);
    else
        std::free(memory);
}

// --- Streamer ------------------------------------------------------------------------------

Streamer::Streamer(const Source& source, const StreamSettings& settings,
                   profile::ThreadTracks* tracks)
    : m_source(source), m_settings(settings), m_tracks(tracks), m_memory(settings.pinned)
{
    const std::size_t budget = std::max<std::size_t>(settings.budgetBytes, 2 * PageBytes);
    m_stats.budgetBytes = budget;
    m_stats.pinned = m_memory.isPinned();
    const auto largest = source.largestBlockBytes();
    const std::size_t largestBlock =
        largest ? (*largest + PageBytes - 1) / PageBytes * PageBytes : 0;
    if (largest && 2 * largestBlock > budget)
        log::warning("stream: the largest frame of {} takes {:.1f} MiB and the streaming budget "
                     "({:.0f} MiB, --cache-mb) holds fewer than two: frames that do not fit are "
                     "skipped",
                     source.description(), largestBlock / 1048576.0, budget / 1048576.0);
    int threads = settings.loaderThreads;
    if (threads <= 0)
        threads =
            static_cast<int>(std::clamp(std::thread::hardware_concurrency() * 3 / 4, 1u, 12u));
    threads = std::min(threads, MaxLoaderThreads);
    if (largest && 2 * largestBlock <= budget) {
        const std::size_t block = largestBlock;
        // All slots get their memory now, before playback: page-locking is slow (on an H200
        // host, lazily pinned slots cost the first second of a 1 M-point sequence a third of
        // its frame rate), and the budget is what the user gave. At most the whole sequence.
        // A preload holds every frame at once: as many slots as the budget has room for.
        const std::size_t frames = static_cast<std::size_t>(std::max(source.frameCount(), 2));
        const std::size_t most = settings.preload ? frames : 256;
        const int count = static_cast<int>(std::min<std::size_t>({budget / block, most, frames}));
        m_slots.resize(static_cast<std::size_t>(count));
        for (Slot& slot : m_slots) {
            slot.memory = static_cast<std::uint8_t*>(m_memory.allocate(block));
            if (!slot.memory)
                throw Error(fmt::format("could not allocate {:.0f} MiB of staging memory for {} "
                                        "frames (--cache-mb)",
                                        count * (block / 1048576.0), count),
                            "stream::Streamer");
            slot.capacity = block;
            m_stats.allocatedBytes += block;
        }
    } else {
        // Frame sizes are found as frames load: slots grow within the budget. A preload needs
        // one per frame, or loading the later frames would evict the first ones again. Else two
        // a loader, at least 8: each loader has a slot to fill while the frames loaded wait to
        // be played (with 8, a folder of PLY frames kept at most 8 of 12 loaders busy).
        const std::size_t frames = static_cast<std::size_t>(std::max(source.frameCount(), 1));
        m_slots.resize(settings.preload
                           ? frames
                           : std::min(frames, std::max<std::size_t>(
                                                  8, 2 * static_cast<std::size_t>(threads))));
    }
    m_stats.slots = static_cast<int>(m_slots.size());
    m_priority.assign(static_cast<std::size_t>(std::max(source.frameCount(), 0)), -1);
    m_slotOf.assign(m_priority.size(), -1);
    threads = std::min(threads, static_cast<int>(m_slots.size()));
    m_stats.loaderThreads = threads;
    for (int t = 0; t < threads; ++t)
        m_loaders.emplace_back([this, t] { loaderMain(t); });
}

Streamer::~Streamer()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_work.notify_all();
    m_ready.notify_all();
    for (std::thread& loader : m_loaders)
        loader.join();
    for (Slot& slot : m_slots)
        m_memory.release(slot.memory);
}

void Streamer::want(std::span<const int> order)
{
    {
        std::lock_guard lock(m_mutex);
        if (std::equal(order.begin(), order.end(), m_order.begin(), m_order.end()))
            return;
        setOrder(order);
    }
    m_work.notify_all();
    m_ready.notify_all(); // a loader may wait for the room
}

void Streamer::setOrder(std::span<const int> order)
{
    for (const int index : m_order)
        m_priority[static_cast<std::size_t>(index)] = -1;
    m_order.clear();
    for (const int index : order)
        if (index >= 0 && index < static_cast<int>(m_priority.size()) && priorityOf(index) < 0) {
            m_priority[static_cast<std::size_t>(index)] = static_cast<int>(m_order.size());
            m_order.push_back(index);
        }
}

int Streamer::priorityOf(int index) const
{
    return index >= 0 && index < static_cast<int>(m_priority.size())
               ? m_priority[static_cast<std::size_t>(index)]
               : -1;
}

int Streamer::findSlot(int index) const
{
    return index >= 0 && index < static_cast<int>(m_slotOf.size())
               ? m_slotOf[static_cast<std::size_t>(index)]
               : -1;
}

bool Streamer::pickWork(int& index, int& slot)
{
    // Under the lock, called by every loader each time the order changes (every frame), so
    // it is linear in slots + order. The slot to fill is the one holding what is wanted
    // least: a free slot, else a ready frame not wanted at all (the oldest of those), else the
    // ready frame wanted last. It takes the most urgent frame not loaded, if that frame is
    // wanted sooner than what the slot holds.
    int best = -1;
    long long bestRank = -1;
    for (std::size_t s = 0; s < m_slots.size(); ++s) {
        const Slot& candidate = m_slots[s];
        long long rank = -1;
        if (candidate.state == State::Free) {
            rank = 1LL << 62;
        } else if (candidate.state == State::Ready) {
            const int priority = priorityOf(candidate.index);
            rank =
                priority < 0 ? (1LL << 61) - static_cast<long long>(candidate.readyAt) : priority;
        }
        if (rank > bestRank) {
            bestRank = rank;
            best = static_cast<int>(s);
        }
    }
    for (std::size_t p = 0; p < m_order.size(); ++p) {
        if (findSlot(m_order[p]) >= 0)
            continue; // loaded, loading or taken
        if (best < 0 || bestRank <= static_cast<long long>(p))
            return false; // every slot holds something wanted sooner, or is busy
        index = m_order[p];
        slot = best;
        return true;
    }
    return false;
}

std::span<std::uint8_t> Streamer::grow(int s, std::size_t bytes, std::unique_lock<std::mutex>& lock)
{
    // Under the lock. Frees idle slots' memory first when the budget needs it.
    Slot& slot = m_slots[static_cast<std::size_t>(s)];
    if (slot.capacity >= bytes)
        return {slot.memory, bytes};
    const std::size_t rounded = (bytes + PageBytes - 1) / PageBytes * PageBytes;
    if (rounded > m_stats.budgetBytes) {
        slot.overBudget = bytes;
        return {}; // never fits
    }
    const auto over = [&] {
        return m_stats.allocatedBytes - slot.capacity + rounded > m_stats.budgetBytes;
    };
    if (m_settings.preload) {
        // Every frame keeps its place: only memory no frame holds is given back, and nothing
        // frees up by waiting (the other frames stay loaded).
        evictFor(s, over);
        if (over()) {
            slot.overBudget = bytes;
            return {};
        }
        return allocate(slot, rounded, bytes);
    }
    // The room may be held by another load, a frame the render thread holds, or one wanted
    // sooner: it frees as playback moves on. Wait for that (this slot's own memory given back
    // meanwhile, so two waiting loaders never wait for each other), up to a bound: a caller
    // holding frames while it waits for this one would otherwise never see it; it fails then.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    for (;;) {
        evictFor(s, over);
        if (!over() || m_stop || std::chrono::steady_clock::now() >= deadline)
            break;
        m_memory.release(slot.memory);
        m_stats.allocatedBytes -= slot.capacity;
        slot.memory = nullptr;
        slot.capacity = 0;
        m_ready.wait_until(lock, deadline);
    }
    if (over()) {
        slot.overBudget = bytes;
        return {};
    }
    return allocate(slot, rounded, bytes);
}

std::span<std::uint8_t> Streamer::allocate(Slot& slot, std::size_t rounded, std::size_t bytes)
{
    m_memory.release(slot.memory);
    m_stats.allocatedBytes -= slot.capacity;
    slot.memory = static_cast<std::uint8_t*>(m_memory.allocate(rounded));
    slot.capacity = slot.memory ? rounded : 0;
    m_stats.allocatedBytes += slot.capacity;
    if (!slot.memory)
        return {};
    return {slot.memory, bytes};
}

template <class Over> void Streamer::evictFor(int s, const Over& over)
{
    // Room from idle slots first, then from loaded frames not wanted, then from those wanted
    // after this one (they load again when their turn comes).
    const int mine = priorityOf(m_slots[static_cast<std::size_t>(s)].index);
    const int passes = m_settings.preload ? 1 : 3; // a preload evicts no loaded frame
    for (int pass = 0; pass < passes && over(); ++pass) {
        for (std::size_t other = 0; other < m_slots.size() && over(); ++other) {
            Slot& idle = m_slots[other];
            if (static_cast<int>(other) == s || !idle.memory)
                continue;
            const int wanted = idle.state == State::Ready ? priorityOf(idle.index) : -2;
            const bool evict =
                (pass == 0 && idle.state == State::Free) ||
                (pass == 1 && idle.state == State::Ready && wanted < 0) ||
                (pass == 2 && idle.state == State::Ready && mine >= 0 && wanted > mine);
            if (!evict)
                continue;
            m_memory.release(idle.memory);
            m_stats.allocatedBytes -= idle.capacity;
            idle.memory = nullptr;
            idle.capacity = 0;
            if (idle.state == State::Ready) {
                m_slotOf[static_cast<std::size_t>(idle.index)] = -1;
                idle = Slot{};
            }
        }
    }
}

void Streamer::loaderMain(int thread)
{
    // Track names live as long as the profiler's traces: one per loader the viewer allows.
    static const std::array<std::string, MaxLoaderThreads> names = [] {
        std::array<std::string, MaxLoaderThreads> made;
        for (int i = 0; i < MaxLoaderThreads; ++i)
            made[static_cast<std::size_t>(i)] = fmt::format("loader {}", i);
        return made;
    }();
    profile::CpuTrack* track =
        m_tracks
            ? &m_tracks->track(
                  names[static_cast<std::size_t>(std::min(thread, MaxLoaderThreads - 1))].c_str())
            : nullptr;
    std::unique_lock lock(m_mutex);
    for (;;) {
        int index = -1, s = -1;
        m_work.wait(lock, [&] { return m_stop || pickWork(index, s); });
        if (m_stop)
            return;
        Slot& slot = m_slots[static_cast<std::size_t>(s)];
        if (slot.index >= 0)
            m_slotOf[static_cast<std::size_t>(slot.index)] = -1;
        m_slotOf[static_cast<std::size_t>(index)] = s;
        slot.state = State::Loading;
        slot.index = index;
        slot.error.clear();
        slot.warnings.clear();
        slot.overBudget = 0;
        slot.block = {};
        lock.unlock();

        const auto start = std::chrono::steady_clock::now();
        const double startMs = track ? track->nowMs() : 0.0;
        const BlockSink sink = [&](std::size_t bytes) {
            std::unique_lock guard(m_mutex);
            return grow(s, bytes, guard);
        };
        Result<std::span<const std::uint8_t>> loaded = m_source.load(index, sink);
        std::vector<std::string> warnings = loaded ? loaded.warnings() : std::vector<std::string>{};
        if (loaded) {
            // Checked here, on the loader, once per load: the render thread then trusts the
            // block (a 0.5 M-triangle frame's indices took it ~1 ms a frame on an H200 host).
            auto view = viewBlock(loaded.value(), m_source.frameName(index));
            if (!view)
                loaded = fail(view.error());
        }
        if (track)
            track->record("load", startMs, track->nowMs());
        const double seconds = secondsSince(start);

        lock.lock();
        m_stats.loadSeconds += seconds;
        if (loaded) {
            slot.block = loaded.value();
            slot.warnings = std::move(warnings);
            slot.overBudget = 0; // the loader may have asked for more first, then fitted
            ++m_stats.loaded;
            m_stats.bytesLoaded += slot.block.size();
        } else {
            slot.error = loaded.error();
            slot.warnings = std::move(warnings); // a frame that loaded but failed its check
            ++m_stats.failed;
        }
        slot.state = State::Ready;
        slot.readyAt = ++m_arrivals;
        m_ready.notify_all();
    }
}

std::optional<Ticket> Streamer::take(int index)
{
    std::lock_guard lock(m_mutex);
    const int s = findSlot(index);
    const bool asked = std::find(m_asked.begin(), m_asked.end(), index) != m_asked.end();
    if (s < 0 || m_slots[static_cast<std::size_t>(s)].state != State::Ready) {
        if (!asked) {
            ++m_stats.misses;
            m_asked.push_back(index);
        }
        return std::nullopt;
    }
    if (asked)
        std::erase(m_asked, index);
    else
        ++m_stats.hits;
    Slot& slot = m_slots[static_cast<std::size_t>(s)];
    slot.state = State::Taken;
    return Ticket{index, s, slot.block, slot.error, slot.warnings, slot.overBudget};
}

Ticket Streamer::wait(int index)
{
    if (auto ready = take(index))
        return *ready;
    const auto start = std::chrono::steady_clock::now();
    std::unique_lock lock(m_mutex);
    if (priorityOf(index) != 0) {
        std::vector<int> order{index};
        for (const int other : m_order)
            if (other != index)
                order.push_back(other);
        setOrder(order);
        m_work.notify_all();
    }
    ++m_stats.waits;
    int s = -1;
    m_ready.wait(lock, [&] {
        s = findSlot(index);
        return m_stop || (s >= 0 && m_slots[static_cast<std::size_t>(s)].state == State::Ready);
    });
    m_stats.waitSeconds += secondsSince(start);
    std::erase(m_asked, index);
    if (m_stop)
        return Ticket{index, -1, {}, "the streamer stopped", {}};
    Slot& slot = m_slots[static_cast<std::size_t>(s)];
    slot.state = State::Taken;
    return Ticket{index, s, slot.block, slot.error, slot.warnings, slot.overBudget};
}

void Streamer::release(const Ticket& ticket)
{
    if (ticket.slot < 0)
        return;
    {
        std::lock_guard lock(m_mutex);
        Slot& slot = m_slots[static_cast<std::size_t>(ticket.slot)];
        TANDEM_ASSERT(slot.state == State::Taken && slot.index == ticket.index,
                      "stream::Streamer::release(): not a taken slot");
        // It stays loaded (a cache of recent frames: a loop that fits the budget loads once)
        // until a loader needs the slot.
        slot.state = State::Ready;
    }
    m_work.notify_all();
    m_ready.notify_all(); // a loader may wait for the room
}

void Streamer::resetAccessCounters()
{
    std::lock_guard lock(m_mutex);
    m_stats.hits = m_stats.misses = m_stats.waits = 0;
    m_stats.waitSeconds = 0.0;
    m_asked.clear();
}

StreamStats Streamer::stats() const
{
    std::lock_guard lock(m_mutex);
    StreamStats s = m_stats;
    s.readySlots = static_cast<int>(std::count_if(
        m_slots.begin(), m_slots.end(), [](const Slot& x) { return x.state == State::Ready; }));
    return s;
}

} // namespace tandem::stream
