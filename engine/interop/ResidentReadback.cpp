#include "engine/interop/ResidentReadback.h"

#include <vector>

#include <cuda_runtime_api.h>

#include "engine/core/Log.h"
#include "engine/cuda/CudaCheck.h"
#include "engine/cuda/Stream.h"

namespace tandem::interop {

struct ResidentReadback::State {
    cuda::Stream stream;
    cuda::Event written{false}; ///< the frame's stream reached the copy
    cuda::Event copied{false};  ///< the copy is done: the frame's stream waits for it
    std::vector<cuda::Event> done;
};

ResidentReadback::ResidentReadback(int slots) : m_state(std::make_unique<State>())
{
    for (int i = 0; i < slots; ++i)
        m_state->done.emplace_back(false);
}

ResidentReadback::~ResidentReadback()
{
    const cudaError_t result = cudaStreamSynchronize(m_state->stream.get());
    if (result != cudaSuccess && result != cudaErrorCudartUnloading)
        log::warning("frame output: waiting for the read-back copies failed: {}",
                     cudaGetErrorString(result));
    cuda::clearError("cudaStreamSynchronize", result);
}

void ResidentReadback::copy(int slot, const ResidentImage& image, int width, int height,
                            void* destination, void* stream)
{
    State& s = *m_state;
    TANDEM_ASSERT(image.array && width <= image.width && height <= image.height,
                  "interop::ResidentReadback::copy(): no image, or a region outside it");
    const auto frameStream = static_cast<cudaStream_t>(stream);
    s.written.record(frameStream);
    TANDEM_CUDA_CHECK(cudaStreamWaitEvent(s.stream.get(), s.written.get(), 0));
    const std::size_t row = static_cast<std::size_t>(width) * image.bytesPerPixel;
    TANDEM_CUDA_CHECK(cudaMemcpy2DFromArrayAsync(
        destination, row, static_cast<cudaArray_const_t>(image.array), 0, 0, row,
        static_cast<std::size_t>(height), cudaMemcpyDeviceToHost, s.stream.get()));
    s.done[static_cast<std::size_t>(slot)].record(s.stream.get());
    // The next frame writes the image again only once it is copied out.
    s.copied.record(s.stream.get());
    TANDEM_CUDA_CHECK(cudaStreamWaitEvent(frameStream, s.copied.get(), 0));
}

bool ResidentReadback::isDone(int slot) const
{
    return m_state->done[static_cast<std::size_t>(slot)].isDone();
}

void ResidentReadback::wait(int slot) const
{
    // The caller counts the wait (a throttle or the finish).
    TANDEM_CUDA_CHECK(cudaEventSynchronize(m_state->done[static_cast<std::size_t>(slot)].get()));
}

void* ResidentReadback::stream() const
{
    return m_state->stream.get();
}

} // namespace tandem::interop
