#include "engine/interop/ResidentReadback.h"

#include <array>
#include <vector>

#include <cuda_runtime_api.h>

#include "engine/core/Log.h"
#include "engine/core/Yuv.h"
#include "engine/cuda/CudaCheck.h"
#include "engine/cuda/DeviceBuffer.h"
#include "engine/cuda/Stream.h"
#include "engine/interop/Yuv420.h"

namespace tandem::interop {

struct ResidentReadback::State {
    /// Frames whose way out to the host may be in flight at once.
    static constexpr std::size_t Staging = 3;
    cuda::Stream stream;
    cuda::Event written{false}; ///< the frame's stream has put the image in a staging buffer
    std::vector<cuda::Event> done;
    /// The image's copies in device memory, linear, each frame's in the next.
    std::array<cuda::DeviceBuffer<std::uint8_t>, Staging> staging;
    /// Their YCbCr planes, for a read-back that crosses as planes.
    std::array<cuda::DeviceBuffer<std::uint8_t>, Staging> planes;
    /// Per staging buffer: its last copy to the host is done (it may be written again).
    std::vector<cuda::Event> drained;
    std::size_t next = 0;
};

ResidentReadback::ResidentReadback(int slots) : m_state(std::make_unique<State>())
{
    for (int i = 0; i < slots; ++i)
        m_state->done.emplace_back(false);
    for (std::size_t i = 0; i < State::Staging; ++i)
        m_state->drained.emplace_back(false);
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
                            void* destination, void* stream, bool yuv420)
{
    State& s = *m_state;
    TANDEM_ASSERT(image.array && width <= image.width && height <= image.height,
                  "interop::ResidentReadback::copy(): no image, or a region outside it");
    TANDEM_ASSERT(!yuv420 || image.bytesPerPixel == 4,
                  "interop::ResidentReadback::copy(): YCbCr planes of an image not RGBA8");
    const auto frameStream = static_cast<cudaStream_t>(stream);
    const std::size_t row = static_cast<std::size_t>(width) * image.bytesPerPixel;
    const std::size_t bytes = row * static_cast<std::size_t>(height);
    const std::size_t b = s.next;
    s.next = (s.next + 1) % State::Staging;
    // As planes, a CUDA pass reads the image's array itself (9 µs at 1080p on the H200, where
    // the array's copy to linear memory and a pass over that took 32); else the image is
    // copied out.
    const bool fromArray = yuv420 && image.surface != 0;
    cuda::DeviceBuffer<std::uint8_t>& buffer = s.staging[b];
    const std::size_t copyBytes = fromArray ? 0 : bytes;
    const std::size_t planeBytes = yuv420 ? Yuv420Layout{width, height}.bytes() : 0;
    if (buffer.bytes() < copyBytes || s.planes[b].bytes() < planeBytes) {
        // A buffer in use (the image grew) is freed only once its last crossing is done: that
        // crossing waited for the copy into it, so nothing reads or writes it after. The first
        // use waits for nothing.
        if ((buffer.bytes() > 0 || s.planes[b].bytes() > 0) && !s.drained[b].isDone())
            s.drained[b].synchronize();
        if (buffer.bytes() < copyBytes)
            buffer.reserve(copyBytes, "frame output staging");
        if (s.planes[b].bytes() < planeBytes)
            s.planes[b].reserve(planeBytes, "frame output YCbCr planes");
    }
    // The frame's stream converts or copies the image out of its array on the GPU
    // (microseconds) and goes on; the copy stream takes it to the host from there while the
    // next frames render. (Copied straight from the array, with the frame's stream waiting for
    // the crossing before writing the image again, PAM output at 1080p on the H200 ran at 749
    // frames/s on a 0.47 ms frame.)
    TANDEM_CUDA_CHECK(cudaStreamWaitEvent(frameStream, s.drained[b].get(), 0));
    if (fromArray) {
        convertToYuv420(image.surface, width, height, s.planes[b].data(), frameStream);
    } else {
        TANDEM_CUDA_CHECK(cudaMemcpy2DFromArrayAsync(
            buffer.data(), row, static_cast<cudaArray_const_t>(image.array), 0, 0, row,
            static_cast<std::size_t>(height), cudaMemcpyDeviceToDevice, frameStream));
        if (yuv420)
            convertToYuv420(buffer.data(), width, height, s.planes[b].data(), frameStream);
    }
    s.written.record(frameStream);
    TANDEM_CUDA_CHECK(cudaStreamWaitEvent(s.stream.get(), s.written.get(), 0));
    TANDEM_CUDA_CHECK(cudaMemcpyAsync(destination, yuv420 ? s.planes[b].data() : buffer.data(),
                                      yuv420 ? planeBytes : bytes, cudaMemcpyDeviceToHost,
                                      s.stream.get()));
    s.done[static_cast<std::size_t>(slot)].record(s.stream.get());
    s.drained[b].record(s.stream.get());
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
