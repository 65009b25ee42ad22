#include "engine/render/TriangleRaster.h"

#include <algorithm>

#include <cub/device/device_scan.cuh>
#include <cuda_runtime_api.h>

#include "engine/cuda/CudaCheck.h"
#include "engine/cuda/DeviceBuffer.h"
#include "engine/render/TriangleRasterMath.h"

namespace tandem::render {
namespace {

using namespace triangles;

__device__ bool loadTriangle(const float4* __restrict__ positions,
                             const uint3* __restrict__ indices, unsigned vertexCount, unsigned t,
                             Vertex (&triangle)[3])
{
    const uint3 i = indices[t];
    if (i.x >= vertexCount || i.y >= vertexCount || i.z >= vertexCount)
        return false;
    const float4 a = positions[i.x], b = positions[i.y], c = positions[i.z];
    triangle[0] = {a.x, a.y, a.z, a.w};
    triangle[1] = {b.x, b.y, b.z, b.w};
    triangle[2] = {c.x, c.y, c.z, c.w};
    return true;
}

__device__ void keep(unsigned long long* keys, int width, int px, int py, float depth, unsigned t)
{
    atomicMin(&keys[static_cast<std::size_t>(py) * width + px],
              static_cast<unsigned long long>(keyOf(depth, t)));
}

/// One thread a triangle: a small one is drawn here; a larger or clipped one counts its tiles.
__global__ void smallTrianglesKernel(const float4* __restrict__ positions,
                                     const uint3* __restrict__ indices, unsigned vertexCount,
                                     unsigned triangleCount, int width, int height,
                                     unsigned long long* keys, unsigned long long* tiles)
{
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= triangleCount)
        return;
    unsigned long long count = 0;
    Vertex triangle[3];
    if (loadTriangle(positions, indices, vertexCount, t, triangle)) {
        Snapped s;
        if (insideAll(triangle[0]) && insideAll(triangle[1]) && insideAll(triangle[2])) {
            if (snap(triangle[0], triangle[1], triangle[2], width, height, s)) {
                if (s.bounds.pixels() <= SmallPixels) {
                    for (int py = s.bounds.y0; py <= s.bounds.y1; ++py)
                        for (int px = s.bounds.x0; px <= s.bounds.x1; ++px) {
                            float depth;
                            if (cover(s, px, py, depth))
                                keep(keys, width, px, py, depth, t);
                        }
                } else {
                    count = static_cast<unsigned long long>(s.bounds.tiles());
                }
            }
        } else {
            const Bounds all = forEachPiece(triangle, width, height, [](const Snapped&) {});
            count = static_cast<unsigned long long>(all.tiles());
        }
    }
    tiles[t] = count;
}

/// One block a tile of a large triangle, one thread a pixel; blocks loop over all tiles
/// (`ends`: the inclusive prefix sum of the tile counts).
__global__ void tilesKernel(const float4* __restrict__ positions, const uint3* __restrict__ indices,
                            unsigned vertexCount, unsigned triangleCount, int width, int height,
                            unsigned long long* keys, const unsigned long long* __restrict__ ends)
{
    const unsigned long long total = ends[triangleCount - 1];
    for (unsigned long long item = blockIdx.x; item < total; item += gridDim.x) {
        unsigned lo = 0, hi = triangleCount - 1; // the first triangle whose end is past item
        while (lo < hi) {
            const unsigned mid = lo + (hi - lo) / 2;
            if (ends[mid] > item)
                hi = mid;
            else
                lo = mid + 1;
        }
        const unsigned t = lo;
        const unsigned long long tile = item - (t > 0 ? ends[t - 1] : 0ull);
        Vertex triangle[3];
        if (!loadTriangle(positions, indices, vertexCount, t, triangle))
            continue;
        const Bounds all = forEachPiece(triangle, width, height, [](const Snapped&) {});
        const int tilesX = all.tilesX();
        const int px = all.x0 + static_cast<int>(tile % tilesX) * TileSize +
                       static_cast<int>(threadIdx.x % TileSize);
        const int py = all.y0 + static_cast<int>(tile / tilesX) * TileSize +
                       static_cast<int>(threadIdx.x / TileSize);
        float depth;
        if (px <= all.x1 && py <= all.y1 && coverAny(triangle, width, height, px, py, depth))
            keep(keys, width, px, py, depth, t);
    }
}

__global__ void resolveKernel(const float4* __restrict__ positions,
                              const uint3* __restrict__ indices, int width, int height,
                              const unsigned long long* __restrict__ keys, float4* output)
{
    const int px = blockIdx.x * blockDim.x + threadIdx.x;
    const int py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= width || py >= height)
        return;
    const std::size_t p = static_cast<std::size_t>(py) * width + px;
    const unsigned long long key = keys[p];
    float value[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (key != EmptyKey) {
        const auto t = static_cast<unsigned>(key & 0xffffffffu);
        const uint3 i = indices[t]; // drawn, so in range
        const float4 a = positions[i.x], b = positions[i.y], c = positions[i.z];
        resolve({a.x, a.y, a.z, a.w}, {b.x, b.y, b.z, b.w}, {c.x, c.y, c.z, c.w}, px, py, width,
                height, t, value);
    }
    output[p] = make_float4(value[0], value[1], value[2], value[3]);
}

} // namespace

struct TriangleRaster::Scratch {
    cuda::DeviceBuffer<unsigned long long> keys;  // H × W
    cuda::DeviceBuffer<unsigned long long> tiles; // T
    cuda::DeviceBuffer<unsigned long long> ends;  // T
    cuda::DeviceBuffer<unsigned char> scan;       // CUB's temporary storage
    int tileBlocks = 0;
    /// Recorded on the stream of the last call after its last kernel: a call on another stream
    /// waits for it before it reuses the scratch memory.
    cudaEvent_t done = nullptr;
    bool recorded = false;

    ~Scratch()
    {
        if (!done)
            return;
        // A failure is logged; the driver unloading at exit is not one.
        const cudaError_t result = cudaEventDestroy(done);
        cuda::clearError("cudaEventDestroy(TriangleRaster)",
                         result == cudaErrorCudartUnloading ? result : cudaSuccess);
    }
};

TriangleRaster::TriangleRaster() : m_scratch(std::make_unique<Scratch>()) {}
TriangleRaster::~TriangleRaster() = default;

const std::uint64_t* TriangleRaster::keys() const
{
    return reinterpret_cast<const std::uint64_t*>(m_scratch->keys.data());
}

std::size_t TriangleRaster::prepare(std::size_t pixels, std::size_t triangleCount, void* stream)
{
    const auto s = static_cast<cudaStream_t>(stream);
    Scratch& scratch = *m_scratch;
    if (!scratch.done)
        TANDEM_CUDA_CHECK(cudaEventCreateWithFlags(&scratch.done, cudaEventDisableTiming));
    // The previous call may still be using the scratch memory on another stream. (Growing it
    // below frees the old buffers, which cudaFree does only once the device is done with them.)
    if (scratch.recorded)
        TANDEM_CUDA_CHECK(cudaStreamWaitEvent(s, scratch.done, 0));
    scratch.keys.reserve(pixels);
    scratch.tiles.reserve(std::max<std::size_t>(triangleCount, 1));
    scratch.ends.reserve(std::max<std::size_t>(triangleCount, 1));
    std::size_t scanBytes = 0;
    TANDEM_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, scanBytes, scratch.tiles.data(),
                                                    scratch.ends.data(),
                                                    static_cast<unsigned>(triangleCount), s));
    scratch.scan.reserve(std::max<std::size_t>(scanBytes, 1));
    if (scratch.tileBlocks == 0) {
        int device = 0, processors = 0;
        TANDEM_CUDA_CHECK(cudaGetDevice(&device));
        TANDEM_CUDA_CHECK(
            cudaDeviceGetAttribute(&processors, cudaDevAttrMultiProcessorCount, device));
        scratch.tileBlocks = processors * 8;
    }
    return scanBytes;
}

void TriangleRaster::drawItem(const float* positions, const std::uint32_t* triangles,
                              std::size_t vertices, std::size_t triangleCount, int width,
                              int height, std::size_t scanBytes, void* stream)
{
    const auto s = static_cast<cudaStream_t>(stream);
    Scratch& scratch = *m_scratch;
    const std::size_t pixels = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
    TANDEM_CUDA_CHECK(cudaMemsetAsync(scratch.keys.data(), 0xff, pixels * 8, s));
    if (triangleCount == 0 || vertices == 0)
        return;
    const auto count = static_cast<unsigned>(triangleCount);
    const auto* items = reinterpret_cast<const float4*>(positions);
    const auto* indices = reinterpret_cast<const uint3*>(triangles);
    smallTrianglesKernel<<<(count + 255) / 256, 256, 0, s>>>(
        items, indices, static_cast<unsigned>(vertices), count, width, height, scratch.keys.data(),
        scratch.tiles.data());
    cuda::checkLaunch("smallTrianglesKernel");
    TANDEM_CUDA_CHECK(cub::DeviceScan::InclusiveSum(
        scratch.scan.data(), scanBytes, scratch.tiles.data(), scratch.ends.data(), count, s));
    tilesKernel<<<scratch.tileBlocks, TileSize * TileSize, 0, s>>>(
        items, indices, static_cast<unsigned>(vertices), count, width, height, scratch.keys.data(),
        scratch.ends.data());
    cuda::checkLaunch("tilesKernel");
}

const std::uint64_t* TriangleRaster::drawKeys(const float* positions,
                                              const std::uint32_t* triangles, std::size_t vertices,
                                              std::size_t triangleCount, int width, int height,
                                              void* stream)
{
    const std::size_t pixels = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
    if (pixels == 0)
        return keys();
    const std::size_t scanBytes = prepare(pixels, triangleCount, stream);
    drawItem(positions, triangles, vertices, triangleCount, width, height, scanBytes, stream);
    TANDEM_CUDA_CHECK(cudaEventRecord(m_scratch->done, static_cast<cudaStream_t>(stream)));
    m_scratch->recorded = true;
    return keys();
}

void TriangleRaster::rasterize(const float* positions, const std::uint32_t* triangles,
                               float* output, const ClipRasterShape& shape, void* stream)
{
    const auto s = static_cast<cudaStream_t>(stream);
    const std::size_t pixels =
        static_cast<std::size_t>(shape.width) * static_cast<std::size_t>(shape.height);
    if (pixels == 0 || shape.batch == 0)
        return;
    if (shape.triangles == 0 || shape.vertices == 0) {
        TANDEM_CUDA_CHECK(cudaMemsetAsync(output, 0, shape.outputBytes(), s));
        return;
    }
    const std::size_t scanBytes = prepare(pixels, shape.triangles, stream);
    const dim3 block(16, 16);
    const dim3 grid((shape.width + 15) / 16, (shape.height + 15) / 16);
    for (std::size_t b = 0; b < shape.batch; ++b) {
        const float* items = positions + b * shape.vertices * 4;
        drawItem(items, triangles, shape.vertices, shape.triangles, shape.width, shape.height,
                 scanBytes, stream);
        resolveKernel<<<grid, block, 0, s>>>(reinterpret_cast<const float4*>(items),
                                             reinterpret_cast<const uint3*>(triangles), shape.width,
                                             shape.height, m_scratch->keys.data(),
                                             reinterpret_cast<float4*>(output) + b * pixels);
        cuda::checkLaunch("resolveKernel");
    }
    TANDEM_CUDA_CHECK(cudaEventRecord(m_scratch->done, s));
    m_scratch->recorded = true;
}

} // namespace tandem::render
