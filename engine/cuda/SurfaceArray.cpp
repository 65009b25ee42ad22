#include "engine/cuda/SurfaceArray.h"

#include <cstddef>

#include "engine/cuda/CudaCheck.h"

namespace tandem::cuda {

namespace {

cudaChannelFormatDesc describe(SurfaceArray::Format format, int& bytes)
{
    switch (format) {
    case SurfaceArray::Format::Rgba8:
        bytes = 4;
        return cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
    case SurfaceArray::Format::Rgba16:
        bytes = 8;
        return cudaCreateChannelDesc(16, 16, 16, 16, cudaChannelFormatKindUnsigned);
    case SurfaceArray::Format::R32F:
        bytes = 4;
        return cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    case SurfaceArray::Format::R32UI:
        break;
    }
    bytes = 4;
    return cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindUnsigned);
}

} // namespace

SurfaceArray::SurfaceArray(int width, int height, Format format)
    : m_width(width), m_height(height), m_bytes(0)
{
    const cudaChannelFormatDesc desc = describe(format, m_bytes);
    cudaArray_t array = nullptr;
    TANDEM_CUDA_CHECK(cudaMallocArray(&array, &desc, static_cast<std::size_t>(width),
                                      static_cast<std::size_t>(height), cudaArraySurfaceLoadStore));
    m_array = array;
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypeArray;
    resource.res.array.array = array;
    cudaSurfaceObject_t surface = 0;
    const cudaError_t made = cudaCreateSurfaceObject(&surface, &resource);
    if (made != cudaSuccess) {
        logFailure(cudaFreeArray(array), "cudaFreeArray");
        check(made, "cudaCreateSurfaceObject");
    }
    m_surface = surface;
}

SurfaceArray::~SurfaceArray()
{
    logFailure(cudaDestroySurfaceObject(m_surface), "cudaDestroySurfaceObject");
    logFailure(cudaFreeArray(static_cast<cudaArray_t>(m_array)), "cudaFreeArray");
}

void SurfaceArray::upload(const void* data)
{
    const std::size_t row = static_cast<std::size_t>(m_width) * m_bytes;
    TANDEM_CUDA_CHECK(cudaMemcpy2DToArray(static_cast<cudaArray_t>(m_array), 0, 0, data, row, row,
                                          static_cast<std::size_t>(m_height),
                                          cudaMemcpyHostToDevice));
}

void SurfaceArray::download(void* data) const
{
    const std::size_t row = static_cast<std::size_t>(m_width) * m_bytes;
    TANDEM_CUDA_CHECK(cudaMemcpy2DFromArray(data, row, static_cast<cudaArray_t>(m_array), 0, 0, row,
                                            static_cast<std::size_t>(m_height),
                                            cudaMemcpyDeviceToHost));
}

} // namespace tandem::cuda
