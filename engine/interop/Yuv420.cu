#include "engine/interop/Yuv420.h"

#include <cstdint>

#include <cuda_runtime_api.h>

#include "engine/core/Yuv.h"
#include "engine/cuda/CudaCheck.h"

namespace tandem::interop {

namespace {

/// A thread per chroma sample: its up to four luma values, its Cb and Cr.
__global__ void yuv420Kernel(const std::uint8_t* top, std::ptrdiff_t stride, Yuv420Layout layout,
                             std::uint8_t* planes)
{
    const int cx = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int cy = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (cx >= layout.chromaWidth() || cy >= layout.chromaHeight())
        return;
    yuv420Sample(top, stride, layout, cx, cy, planes);
}

/// The same, read straight from the image's array (GL's rows, bottom first).
__global__ void yuv420SurfaceKernel(cudaSurfaceObject_t image, Yuv420Layout layout,
                                    std::uint8_t* planes)
{
    const int cx = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int cy = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (cx >= layout.chromaWidth() || cy >= layout.chromaHeight())
        return;
    const int bottom = layout.height - 1;
    const auto pixel = [image, bottom](int x, int y) {
        const uchar4 p = surf2Dread<uchar4>(image, x * 4, bottom - y);
        return Rgb8{p.x, p.y, p.z};
    };
    yuv420SampleOf(pixel, layout, cx, cy, planes);
}

dim3 gridOf(const Yuv420Layout& layout, dim3 block)
{
    return dim3((static_cast<unsigned>(layout.chromaWidth()) + block.x - 1) / block.x,
                (static_cast<unsigned>(layout.chromaHeight()) + block.y - 1) / block.y);
}

} // namespace

void convertToYuv420(std::uint64_t surface, int width, int height, void* planes, void* stream)
{
    const Yuv420Layout layout{width, height};
    const dim3 block(32, 8);
    yuv420SurfaceKernel<<<gridOf(layout, block), block, 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<cudaSurfaceObject_t>(surface), layout, static_cast<std::uint8_t*>(planes));
    cuda::checkLaunch("yuv420SurfaceKernel");
}

void convertToYuv420(const void* rgba, int width, int height, void* planes, void* stream)
{
    const Yuv420Layout layout{width, height};
    const auto row = static_cast<std::ptrdiff_t>(width) * 4;
    // GL's bottom-up rows read top first: the last row in memory, and a negative stride.
    const auto* top = static_cast<const std::uint8_t*>(rgba) + row * (height - 1);
    const dim3 block(32, 8);
    const dim3 grid((layout.chromaWidth() + 31) / 32, (layout.chromaHeight() + 7) / 8);
    yuv420Kernel<<<grid, block, 0, static_cast<cudaStream_t>(stream)>>>(
        top, -row, layout, static_cast<std::uint8_t*>(planes));
    cuda::checkLaunch("yuv420Kernel");
}

} // namespace tandem::interop
