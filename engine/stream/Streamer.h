// The loading side of streaming: loader threads read and decode a sequence's frames into a
// bounded ring of staging slots (pinned host memory where CUDA works, so uploads are DMA) within
// a memory budget, in the order the player asks for them; the render thread takes ready frames
// without ever waiting (take) — or, rendering every frame, waits and counts it (wait) — and
// hands each slot back once its upload is done. Loaders check each block's contents
// (render::validateScene through viewBlock) as they load it: a ticket's block is a valid frame,
// one that is not fails to load, named. Host memory stays within the budget whatever the
// sequence length. Loader threads are named tracks on the trace timeline. No GL.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "engine/stream/Source.h"

namespace tandem::profile {
class ThreadTracks;
}

namespace tandem::stream {

/// Host memory for staging slots: page-locked (cuda/PinnedMemory.h) where CUDA works, so
/// copies to the GPU run at full PCIe speed, else ordinary aligned memory.
class HostMemory {
public:
    /// `pinned`: try page-locked memory (falls back to ordinary memory, saying so once).
    explicit HostMemory(bool pinned);
    /// Bytes, aligned to 4096; null when the system refuses.
    void* allocate(std::size_t bytes);
    void release(void* memory) noexcept;
    bool isPinned() const { return m_pinned; }

private:
    bool m_pinned;
};

/// The most loader threads a streamer runs (--loader-threads' bound).
inline constexpr int MaxLoaderThreads = 64;

struct StreamSettings {
    std::size_t budgetBytes = std::size_t{1024} << 20; ///< staging memory in all (--cache-mb)
    int loaderThreads = 0; ///< 0: three quarters of the cores, 1 to 12; at most MaxLoaderThreads
    bool pinned = true;    ///< page-locked staging (CUDA builds)
    /// GPU memory the player's two buffer sets may take (--gpu-memory-mb); 0: what is free.
    std::size_t gpuBudgetBytes = 0;
    /// The whole sequence is loaded before playing (--preload, SequencePlayer::preload()): a
    /// slot for every frame, and a loaded frame is never evicted for another, so a frame that
    /// does not fit beside the others fails at once (Ticket::overBudget) instead.
    bool preload = false;
};

/// A frame handed to the render thread: its block in a staging slot, or why it failed.
struct Ticket {
    int index = -1;
    int slot = -1;
    std::span<const std::uint8_t> block; ///< empty when failed
    std::string error;                   ///< set when the frame could not be loaded
    std::vector<std::string> warnings;   ///< the source's, about this frame (it loaded)
    /// It failed for want of staging memory (the budget), not because it is broken: the bytes
    /// it asked for.
    std::size_t overBudget = 0;
    bool isOk() const { return error.empty(); }
};

/// Counters since the streamer started.
struct StreamStats {
    std::uint64_t loaded = 0;      ///< frames loaded into staging
    std::uint64_t failed = 0;      ///< frames that could not be loaded (skipped)
    std::uint64_t bytesLoaded = 0; ///< block bytes loaded
    double loadSeconds = 0.0;      ///< loader-thread seconds spent loading
    std::uint64_t hits = 0;        ///< frames ready the first time the render thread asked
    std::uint64_t misses = 0;      ///< frames not ready the first time they were asked for
    std::uint64_t waits = 0;       ///< wait() calls that had to block
    double waitSeconds = 0.0;      ///< render-thread seconds blocked in wait()
    std::size_t budgetBytes = 0;
    std::size_t allocatedBytes = 0; ///< staging memory held now
    int slots = 0;
    int readySlots = 0; ///< loaded frames waiting in staging
    int loaderThreads = 0;
    bool pinned = false;
};

class Streamer {
public:
    /// Starts loader threads over `source` (which must outlive the streamer). When the source
    /// knows its largest frame and two of it fit the budget, there are budget / largest block
    /// slots (at most the sequence's frames, and 256 unless settings.preload), allocated now;
    /// else two a loader thread, at least 8 and at most the sequence's frames (settings.preload:
    /// one a frame), that get their memory as frames load, growing
    /// within the budget, and a frame that does not fit fails alone (skipped by the player,
    /// named). `tracks` (a profiler's; may be null): loader threads report "load" spans on
    /// their own tracks.
    Streamer(const Source& source, const StreamSettings& settings,
             profile::ThreadTracks* tracks = nullptr);
    /// Stops and joins the loaders, frees the staging memory. Expects every ticket released.
    ~Streamer();
    Streamer(const Streamer&) = delete;
    Streamer& operator=(const Streamer&) = delete;

    /// The frames wanted next, most urgent first: loaders fill free slots in this order and
    /// evict loaded frames not in it (or later in it) when they need room.
    void want(std::span<const int> order);
    /// The frame if it is loaded (or failed), now; never blocks. The slot is the caller's until
    /// release().
    std::optional<Ticket> take(int index);
    /// The frame, blocking until a loader has it (it is made the most urgent); counted. Expects
    /// the caller not to hold the frame's slot itself (it would wait for itself).
    Ticket wait(int index);
    /// Gives a taken slot back (its upload is done); the frame stays loaded there until a loader
    /// needs the room, so taking it again is a hit.
    void release(const Ticket& ticket);

    StreamStats stats() const;
    /// Zeroes the render thread's counters (hits, misses, waits): after a preload.
    void resetAccessCounters();
    /// Whether slot memory is page-locked.
    bool isPinned() const { return m_memory.isPinned(); }

private:
    enum class State { Free, Loading, Ready, Taken };
    struct Slot {
        std::uint8_t* memory = nullptr;
        std::size_t capacity = 0;
        State state = State::Free;
        int index = -1;
        std::span<const std::uint8_t> block;
        std::string error;
        std::vector<std::string> warnings;
        std::size_t overBudget = 0; ///< bytes a load asked for that the budget refused
        std::uint64_t readyAt = 0;  ///< order of arrival, for eviction
    };

    void loaderMain(int thread);
    /// Under the lock: the next frame to load and the slot to load it into, if any.
    bool pickWork(int& index, int& slot);
    /// Under the lock: the order and each frame's place in it.
    void setOrder(std::span<const int> order);
    int priorityOf(int index) const;
    int findSlot(int index) const;
    /// Under `lock`: memory for `bytes` in `slot`, freeing others' within the budget, waiting
    /// (up to 2 s) while other frames hold the room; empty when it cannot fit.
    std::span<std::uint8_t> grow(int slot, std::size_t bytes, std::unique_lock<std::mutex>& lock);
    /// Under the lock: `slot`'s memory replaced by `rounded` bytes (within the budget); the
    /// first `bytes` of it, empty when the system refuses.
    std::span<std::uint8_t> allocate(Slot& slot, std::size_t rounded, std::size_t bytes);
    /// Under the lock: frees other slots' memory while `over()` says the budget needs it.
    template <class Over> void evictFor(int slot, const Over& over);

    const Source& m_source;
    StreamSettings m_settings;
    profile::ThreadTracks* m_tracks;
    HostMemory m_memory;
    mutable std::mutex m_mutex;
    std::condition_variable m_work;  ///< loaders wait for work
    std::condition_variable m_ready; ///< wait() waits for a frame
    std::vector<Slot> m_slots;
    std::vector<int> m_order;
    std::vector<int> m_priority; ///< by frame: its place in m_order, -1 when not wanted
    std::vector<int> m_slotOf;   ///< by frame: the slot that holds or loads it, -1 when none
    std::vector<int> m_asked;    ///< frames asked for and not yet taken (counted as a miss once)
    std::vector<std::thread> m_loaders;
    StreamStats m_stats;
    std::uint64_t m_arrivals = 0;
    bool m_stop = false;
};

} // namespace tandem::stream
