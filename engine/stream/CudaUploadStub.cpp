// SequencePlayer's CUDA half in a build without CUDA: the CUDA upload path cannot be chosen, so
// the constructor throws and no other member is ever called.
#include "engine/stream/detail/CudaUpload.h"

#include "engine/core/Error.h"

namespace tandem::stream::detail {

struct CudaUpload::State {};

CudaUpload::CudaUpload(profile::Profiler*)
{
    throw Error("the CUDA upload path needs a build with CUDA", "stream::SequencePlayer");
}

CudaUpload::~CudaUpload() = default;

void CudaUpload::reserve(int, std::size_t, std::size_t, std::size_t) {}

const float* CudaUpload::positions(int) const
{
    return nullptr;
}

const render::PointAttributes* CudaUpload::attributes(int) const
{
    return nullptr;
}

const void* CudaUpload::splats(int) const
{
    return nullptr;
}

void CudaUpload::copyToDevice(int, const render::SceneView&, interop::PassHooks&) {}
void CudaUpload::waitForPoints(int, void*) {}
void CudaUpload::releasePoints(int, void*) {}
void CudaUpload::copyMesh(const render::SceneView&, const MeshTargets&, void*, interop::PassHooks&)
{}
void CudaUpload::waitForCopies(void*) {}

int CudaUpload::fence()
{
    return 0;
}

bool CudaUpload::isDone(int) const
{
    return true;
}

void CudaUpload::wait(int) const {}
void CudaUpload::recycle(int) {}

} // namespace tandem::stream::detail
