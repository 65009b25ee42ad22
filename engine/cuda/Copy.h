// Stream-ordered copies and the current device, without CUDA types in the interface, for code
// outside cuda/ that moves bytes between memory it was handed (tensors) and mapped GL buffers.
// A build without CUDA has stubs that throw.
#pragma once
#include <cstddef>

namespace tandem::cuda {

/// Copies `bytes` from `source` to `destination`, any memory CUDA addresses (device, pinned or
/// mapped; cudaMemcpyAsync with cudaMemcpyDefault), on `stream` (a cudaStream_t; null: the
/// legacy default stream). Device-to-device copies do not block the CPU. Throws CudaError, or
/// Error without CUDA.
void copyAsync(void* destination, const void* source, std::size_t bytes, void* stream);

/// Copies `bytes` from `source` to `destination` (cudaMemcpy, cudaMemcpyDefault) and returns
/// when they are there: one-off uploads (a scene's data). Throws CudaError, or Error without
/// CUDA.
void copy(void* destination, const void* source, std::size_t bytes);

/// A CUDA event (no timing) recorded on one stream and waited for on another, without CUDA types
/// in the interface. Made on the first record(); a build without CUDA throws there.
class StreamEvent {
public:
    StreamEvent() = default;
    ~StreamEvent();
    StreamEvent(const StreamEvent&) = delete;
    StreamEvent& operator=(const StreamEvent&) = delete;

    /// Records the event on `stream` (a cudaStream_t). Throws CudaError, or Error without CUDA.
    void record(void* stream);
    /// The cudaEvent_t, or null before the first record().
    void* handle() const { return m_event; }

private:
    void* m_event = nullptr;
};

/// Work later queued on `stream` (a cudaStream_t) waits for `event` (a cudaEvent_t; null:
/// nothing to wait for); the CPU does not. Throws CudaError, or Error without CUDA.
void streamWait(void* stream, void* event);

/// The calling thread's current CUDA device (cudaGetDevice). Throws CudaError, or Error without
/// CUDA.
int currentDevice();

/// Makes `device` current on the calling thread (cudaSetDevice). Throws CudaError, or Error
/// without CUDA.
void setCurrentDevice(int device);

} // namespace tandem::cuda
