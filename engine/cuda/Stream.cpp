#include "engine/cuda/Stream.h"

#include "engine/core/Stall.h"
#include "engine/cuda/CudaCheck.h"

namespace tandem::cuda {

Stream::Stream()
{
    TANDEM_CUDA_CHECK(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking));
}

Stream::~Stream()
{
    if (m_stream)
        logFailure(cudaStreamDestroy(m_stream), "cudaStreamDestroy");
}

Stream& Stream::operator=(Stream&& other) noexcept
{
    if (this != &other) {
        if (m_stream)
            logFailure(cudaStreamDestroy(m_stream), "cudaStreamDestroy");
        m_stream = std::exchange(other.m_stream, nullptr);
    }
    return *this;
}

void Stream::synchronize() const
{
    recordStall(StallCause::StreamSync);
    TANDEM_CUDA_CHECK(cudaStreamSynchronize(m_stream));
}

Event::Event(bool timing)
{
    TANDEM_CUDA_CHECK(
        cudaEventCreateWithFlags(&m_event, timing ? cudaEventDefault : cudaEventDisableTiming));
}

Event::~Event()
{
    if (m_event)
        logFailure(cudaEventDestroy(m_event), "cudaEventDestroy");
}

Event& Event::operator=(Event&& other) noexcept
{
    if (this != &other) {
        if (m_event)
            logFailure(cudaEventDestroy(m_event), "cudaEventDestroy");
        m_event = std::exchange(other.m_event, nullptr);
    }
    return *this;
}

void Event::record(cudaStream_t stream)
{
    TANDEM_CUDA_CHECK(cudaEventRecord(m_event, stream));
}

bool Event::isDone() const
{
    const cudaError_t status = cudaEventQuery(m_event);
    if (status == cudaErrorNotReady)
        return false;
    check(status, "cudaEventQuery");
    return true;
}

std::optional<float> Event::elapsedSince(const Event& start) const
{
    if (!start.isDone() || !isDone())
        return std::nullopt;
    float ms = 0.0f;
    TANDEM_CUDA_CHECK(cudaEventElapsedTime(&ms, start.m_event, m_event));
    return ms;
}

void Event::synchronize() const
{
    recordStall(StallCause::StreamSync);
    TANDEM_CUDA_CHECK(cudaEventSynchronize(m_event));
}

} // namespace tandem::cuda
