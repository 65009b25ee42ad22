// The one place every CPU wait on the GPU is counted, by cause. Anything that blocks on the
// GPU (a blocking query read, a stream or device synchronize, glFinish, a read-back, a clock
// calibration) calls recordStall() right where it waits, so frames can report their stalls.
// One cause is not a stall of the GPU: a throttle, where the CPU, several frames ahead, waits
// for the oldest of them while the GPU keeps working on the newer ones (a swap chain's wait).
// Thread-safe (relaxed atomics).
#pragma once

#include <array>
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

/// Counts one wait of `cause`. Call it where the wait happens.
void recordStall(StallCause cause);

/// Waits counted since start, by cause.
std::array<std::uint64_t, StallCauseCount> stallCounts();

} // namespace tandem
