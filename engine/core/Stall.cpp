#include "engine/core/Stall.h"

namespace tandem {

namespace {

/// The innermost live StallScope of this thread; each links to the one before it.
thread_local StallScope* t_innermost = nullptr;

} // namespace

void StallCounter::record(StallCause cause) noexcept
{
    m_counts[static_cast<std::size_t>(cause)].fetch_add(1, std::memory_order_relaxed);
}

std::array<std::uint64_t, StallCauseCount> StallCounter::counts() const noexcept
{
    std::array<std::uint64_t, StallCauseCount> counts{};
    for (std::size_t i = 0; i < StallCauseCount; ++i)
        counts[i] = m_counts[i].load(std::memory_order_relaxed);
    return counts;
}

StallScope::StallScope(StallCounter& counter) noexcept : m_counter(counter), m_previous(t_innermost)
{
    t_innermost = this;
}

StallScope::~StallScope()
{
    if (t_innermost == this) {
        t_innermost = m_previous;
        return;
    }
    // Ended out of order (an inner scope still lives): unlink it from the chain.
    for (StallScope* scope = t_innermost; scope; scope = scope->m_previous)
        if (scope->m_previous == this) {
            scope->m_previous = m_previous;
            return;
        }
}

StallCounter* currentStallCounter() noexcept
{
    return t_innermost ? &t_innermost->m_counter : nullptr;
}

void recordStall(StallCause cause) noexcept
{
    if (StallCounter* counter = currentStallCounter())
        counter->record(cause);
}

} // namespace tandem
