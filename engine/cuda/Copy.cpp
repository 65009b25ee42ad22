#include "engine/cuda/Copy.h"

#include <cuda_runtime_api.h>

#include "engine/cuda/CudaCheck.h"

namespace tandem::cuda {

void copyAsync(void* destination, const void* source, std::size_t bytes, void* stream)
{
    if (bytes == 0)
        return;
    TANDEM_CUDA_CHECK(cudaMemcpyAsync(destination, source, bytes, cudaMemcpyDefault,
                                      static_cast<cudaStream_t>(stream)));
}

void copy(void* destination, const void* source, std::size_t bytes)
{
    if (bytes == 0)
        return;
    TANDEM_CUDA_CHECK(cudaMemcpy(destination, source, bytes, cudaMemcpyDefault));
}

StreamEvent::~StreamEvent()
{
    if (m_event)
        logFailure(cudaEventDestroy(static_cast<cudaEvent_t>(m_event)), "cudaEventDestroy");
}

void StreamEvent::record(void* stream)
{
    if (!m_event) {
        cudaEvent_t event = nullptr;
        TANDEM_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
        m_event = event;
    }
    TANDEM_CUDA_CHECK(
        cudaEventRecord(static_cast<cudaEvent_t>(m_event), static_cast<cudaStream_t>(stream)));
}

void streamWait(void* stream, void* event)
{
    if (event)
        TANDEM_CUDA_CHECK(cudaStreamWaitEvent(static_cast<cudaStream_t>(stream),
                                              static_cast<cudaEvent_t>(event), 0));
}

int currentDevice()
{
    int device = -1;
    TANDEM_CUDA_CHECK(cudaGetDevice(&device));
    return device;
}

void setCurrentDevice(int device)
{
    TANDEM_CUDA_CHECK(cudaSetDevice(device));
}

} // namespace tandem::cuda
