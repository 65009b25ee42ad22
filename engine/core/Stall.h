// Counting the CPU's waits on the GPU, by cause, per owner. Anything that blocks on the GPU (a
// blocking query read, a stream or device synchronize, glFinish, a read-back, a clock
// calibration) calls recordStall() right where it waits; the wait is counted by the
// StallCounter its thread reports to, which its owner (a profiler, for the frames it times)
// made current with a StallScope, as a GL context is made current on a thread. Two sessions in
// one process (two Python Viewers, two render threads) count apart; a wait on a thread that
// reports to no counter is counted nowhere.
// One cause is not a stall of the GPU: a throttle, where the CPU, several frames ahead, waits
// for the oldest of them while the GPU keeps working on the newer ones (a swap chain's wait).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "engine/core/EnumTable.h"

namespace tandem {

/// Why the CPU waited for the GPU.
enum class StallCause {
    Readback,    ///< glReadPixels / a mapped pixel-pack buffer
    QueryWait,   ///< a GL query result read that had to wait
    StreamSync,  ///< cudaStreamSynchronize / cudaEventSynchronize
    DeviceSync,  ///< cudaDeviceSynchronize (debug launch checks)
    Finish,      ///< glFinish
    Calibration, ///< reading GL_TIMESTAMP to align clocks
    Throttle,    ///< the CPU is a full ring of frames ahead and waits for the oldest; the GPU
                 ///< still has the newer frames queued, so it does not idle (not a stall)
    Count
};

inline constexpr std::size_t StallCauseCount = static_cast<std::size_t>(StallCause::Count);

/// The causes' names in reports and the overlay (Count is none).
inline constexpr EnumTable<StallCause, StallCauseCount> StallCauses{
    "stall cause",
    {{{StallCause::Readback, "readback", ""},
      {StallCause::QueryWait, "query-wait", ""},
      {StallCause::StreamSync, "stream-sync", ""},
      {StallCause::DeviceSync, "device-sync", ""},
      {StallCause::Finish, "finish", ""},
      {StallCause::Calibration, "calibration", ""},
      {StallCause::Throttle, "throttle", ""}}}};

/// Whether waits of `cause` drain the GPU's queue (every cause but Throttle).
constexpr bool isStall(StallCause cause)
{
    return cause != StallCause::Throttle && cause != StallCause::Count;
}

/// Waits counted by cause, for one owner (a profiler). Thread-safe (relaxed atomics).
class StallCounter {
public:
    StallCounter() = default;
    StallCounter(const StallCounter&) = delete;
    StallCounter& operator=(const StallCounter&) = delete;

    /// Counts one wait of `cause`.
    void record(StallCause cause) noexcept;
    /// Waits counted since the counter was made, by cause.
    std::array<std::uint64_t, StallCauseCount> counts() const noexcept;

private:
    std::array<std::atomic<std::uint64_t>, StallCauseCount> m_counts{};
};

/// Makes `counter` the one the calling thread's recordStall() reports to while the scope lives;
/// the counter current before it is current again afterwards (scopes nest, and one ended out of
/// order is taken out of the chain, never left dangling). Expects to be destroyed on the thread
/// that made it, before `counter`.
class StallScope {
public:
    explicit StallScope(StallCounter& counter) noexcept;
    ~StallScope();
    StallScope(const StallScope&) = delete;
    StallScope& operator=(const StallScope&) = delete;

private:
    friend StallCounter* currentStallCounter() noexcept;
    StallCounter& m_counter;
    StallScope* m_previous;
};

/// Counts one wait of `cause` on the counter the calling thread reports to (the innermost live
/// StallScope's), if any. Call it where the wait happens.
void recordStall(StallCause cause) noexcept;

/// The counter the calling thread reports to now, or null.
StallCounter* currentStallCounter() noexcept;

} // namespace tandem
