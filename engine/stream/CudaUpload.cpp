#include "engine/stream/detail/CudaUpload.h"

#include <algorithm>
#include <vector>

#include <cuda_runtime_api.h>

#include "engine/core/Log.h"
#include "engine/cuda/CudaCheck.h"
#include "engine/cuda/DeviceBuffer.h"
#include "engine/cuda/Stream.h"
#include "engine/interop/Pass.h"
#include "engine/profile/Profiler.h"

namespace tandem::stream::detail {

struct CudaUpload::State {
    cuda::Stream copy;
    cuda::Event mapped{false}; ///< mesh copies start after the frame's map
    cuda::Event done{false};   ///< the last copy issued
    cuda::Event copied[2] = {cuda::Event(false), cuda::Event(false)};   ///< a set's points arrived
    cuda::Event released[2] = {cuda::Event(false), cuda::Event(false)}; ///< its last reader ended
    cuda::DeviceBuffer<glm::vec3> positions[2];
    cuda::DeviceBuffer<render::PointAttributes> attributes[2];
    cuda::DeviceBuffer<std::uint8_t> splats[2];
    std::vector<cuda::Event> fences; ///< pool
    std::vector<int> freeFences;
};

CudaUpload::CudaUpload(profile::Profiler* profiler) : m_state(std::make_unique<State>())
{
    if (profiler)
        profiler->nameStream(m_state->copy.get(), "copy");
}

CudaUpload::~CudaUpload()
{
    // Nothing may still read or write the memory when it goes. Destructors never throw: a
    // failure at exit is only logged.
    State& s = *m_state;
    cuda::logFailure(cudaStreamSynchronize(s.copy.get()), "cudaStreamSynchronize(stream copy)");
    for (const cuda::Event& released : s.released)
        cuda::logFailure(cudaEventSynchronize(released.get()),
                         "cudaEventSynchronize(stream points released)");
}

void CudaUpload::reserve(int set, std::size_t points, std::size_t atLeast, std::size_t splatBytes)
{
    State& s = *m_state;
    const bool morePoints = s.positions[set].size() < points;
    const bool moreSplats = s.splats[set].size() < splatBytes;
    if (!morePoints && !moreSplats)
        return;
    // Nothing may still read or write the old memory.
    s.copy.synchronize();
    s.released[set].synchronize();
    if (morePoints) {
        const std::size_t capacity = std::max(points, atLeast);
        s.positions[set].reserve(capacity, "streamed point positions");
        s.attributes[set].reserve(capacity, "streamed point attributes");
    }
    if (moreSplats)
        s.splats[set].reserve(splatBytes + splatBytes / 4, "streamed splats");
}

const void* CudaUpload::splats(int set) const
{
    return m_state->splats[set].data();
}

const float* CudaUpload::positions(int set) const
{
    return reinterpret_cast<const float*>(m_state->positions[set].data());
}

const render::PointAttributes* CudaUpload::attributes(int set) const
{
    return m_state->attributes[set].data();
}

void CudaUpload::copyToDevice(int set, const render::SceneView& view, interop::PassHooks& hooks)
{
    State& s = *m_state;
    // Not before the last frame that read this set is done with it; nothing else: the copy
    // overlaps the rest of this frame and the next one's start.
    TANDEM_CUDA_CHECK(cudaStreamWaitEvent(s.copy.get(), s.released[set].get(), 0));
    hooks.beginStage("stream.upload", s.copy.get());
    const auto copy = [&](void* target, const auto& span) {
        if (!span.empty())
            TANDEM_CUDA_CHECK(cudaMemcpyAsync(target, span.data(), span.size_bytes(),
                                              cudaMemcpyHostToDevice, s.copy.get()));
    };
    copy(s.positions[set].data(), view.positions);
    copy(s.attributes[set].data(), view.attributes);
    copy(s.splats[set].data(), view.splats.region);
    hooks.endStage("stream.upload", s.copy.get());
    s.copied[set].record(s.copy.get());
    s.done.record(s.copy.get());
}

void CudaUpload::waitForPoints(int set, void* frameStream)
{
    TANDEM_CUDA_CHECK(
        cudaStreamWaitEvent(static_cast<cudaStream_t>(frameStream), m_state->copied[set].get(), 0));
}

void CudaUpload::releasePoints(int set, void* frameStream)
{
    m_state->released[set].record(static_cast<cudaStream_t>(frameStream));
}

void CudaUpload::copyMesh(const render::SceneView& view, const MeshTargets& targets,
                          void* frameStream, interop::PassHooks& hooks)
{
    State& s = *m_state;
    s.mapped.record(static_cast<cudaStream_t>(frameStream));
    TANDEM_CUDA_CHECK(cudaStreamWaitEvent(s.copy.get(), s.mapped.get(), 0));
    hooks.beginStage("stream.upload", s.copy.get());
    const auto copy = [&](void* target, const auto& span) {
        if (!span.empty())
            TANDEM_CUDA_CHECK(cudaMemcpyAsync(target, span.data(), span.size_bytes(),
                                              cudaMemcpyHostToDevice, s.copy.get()));
    };
    copy(targets.vertices, view.vertices);
    copy(targets.indices, view.indices);
    copy(targets.provokingOffsets, view.provokingOffsets);
    copy(targets.provokingTriangles, view.provokingTriangles);
    hooks.endStage("stream.upload", s.copy.get());
    s.done.record(s.copy.get());
}

void CudaUpload::waitForCopies(void* frameStream)
{
    TANDEM_CUDA_CHECK(
        cudaStreamWaitEvent(static_cast<cudaStream_t>(frameStream), m_state->done.get(), 0));
}

int CudaUpload::fence()
{
    State& s = *m_state;
    if (s.freeFences.empty()) {
        s.fences.emplace_back(false);
        s.freeFences.push_back(static_cast<int>(s.fences.size()) - 1);
    }
    const int fence = s.freeFences.back();
    s.freeFences.pop_back();
    s.fences[static_cast<std::size_t>(fence)].record(s.copy.get());
    return fence;
}

bool CudaUpload::isDone(int fence) const
{
    return m_state->fences[static_cast<std::size_t>(fence)].isDone();
}

void CudaUpload::wait(int fence) const
{
    m_state->fences[static_cast<std::size_t>(fence)].synchronize();
}

void CudaUpload::recycle(int fence)
{
    m_state->freeFences.push_back(fence);
}

} // namespace tandem::stream::detail
