// Move-only owners of a CUDA stream and a CUDA event. Destructors never throw and tolerate the
// driver shutting down at exit. Include only where CUDA headers are allowed (cuda/, interop/,
// the CUDA side of postfx/).
#pragma once

#include <optional>
#include <utility>

#include <cuda_runtime_api.h>

namespace tandem::cuda {

/// A non-blocking CUDA stream (cudaStreamCreateWithFlags(cudaStreamNonBlocking)).
class Stream {
public:
    /// Creates a stream on the current device. Throws CudaError on failure.
    Stream();
    ~Stream();
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    Stream(Stream&& other) noexcept : m_stream(std::exchange(other.m_stream, nullptr)) {}
    Stream& operator=(Stream&& other) noexcept;

    cudaStream_t get() const noexcept { return m_stream; }
    /// Waits for everything queued on the stream. Blocks the CPU.
    void synchronize() const;

private:
    cudaStream_t m_stream = nullptr;
};

/// A CUDA event. `timing` false creates it with cudaEventDisableTiming (for ordering only).
class Event {
public:
    explicit Event(bool timing = true);
    ~Event();
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    Event(Event&& other) noexcept : m_event(std::exchange(other.m_event, nullptr)) {}
    Event& operator=(Event&& other) noexcept;

    cudaEvent_t get() const noexcept { return m_event; }
    /// Records the event on `stream`.
    void record(cudaStream_t stream);
    /// Whether the work before the event has completed (cudaEventQuery; never blocks).
    bool isDone() const;
    /// Milliseconds from `start` to this event if both completed, else nullopt. Never blocks.
    std::optional<float> elapsedSince(const Event& start) const;
    /// Waits for the event. Blocks the CPU.
    void synchronize() const;

private:
    cudaEvent_t m_event = nullptr;
};

} // namespace tandem::cuda
