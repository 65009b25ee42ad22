// The profiler's CUDA half in a build without CUDA: nothing is ever recorded (the profiler asks
// isAvailable() before it records a CUDA span), so every call is a no-op.
#include "engine/profile/detail/CudaTimeline.h"

namespace tandem::profile::detail {

struct CudaTimeline::State {};

CudaTimeline::CudaTimeline(std::size_t, std::int64_t) {}
CudaTimeline::~CudaTimeline() = default;

bool CudaTimeline::isAvailable()
{
    return false;
}

void CudaTimeline::resetSlot(std::size_t) {}
void CudaTimeline::breakBoundaries(std::size_t) {}

EventRef CudaTimeline::begin(std::size_t, int track, void*, bool)
{
    return {track, 0};
}

EventRef CudaTimeline::boundary(std::size_t, int track, void*)
{
    return {track, 0};
}

bool CudaTimeline::isComplete(std::size_t) const
{
    return true;
}

float CudaTimeline::elapsedMs(std::size_t, EventRef, EventRef) const
{
    return 0.0f;
}

bool CudaTimeline::prepareClock(void*, double)
{
    return false;
}

double CudaTimeline::clockTime(std::size_t, EventRef)
{
    return 0.0;
}

void CudaTimeline::pushRange(const char*) {}
void CudaTimeline::popRange() {}
void CudaTimeline::synchronizeDevice() {}

} // namespace tandem::profile::detail
