#include "engine/core/Stall.h"

#include <atomic>

namespace tandem {

namespace {

std::atomic<std::uint64_t> g_counts[StallCauseCount];

} // namespace

void recordStall(StallCause cause)
{
    g_counts[static_cast<std::size_t>(cause)].fetch_add(1, std::memory_order_relaxed);
}

std::array<std::uint64_t, StallCauseCount> stallCounts()
{
    std::array<std::uint64_t, StallCauseCount> counts{};
    for (std::size_t i = 0; i < StallCauseCount; ++i)
        counts[i] = g_counts[i].load(std::memory_order_relaxed);
    return counts;
}

} // namespace tandem
