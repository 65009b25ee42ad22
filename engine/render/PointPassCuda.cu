// The CUDA side of the point pass: kernels over the same per-point functions as the host
// version (PointSplat.h), compiled without FMA contraction so both compute the same bits.
#include "engine/cuda/CudaCheck.h"
#include "engine/render/PointPass.h"
#include "engine/render/detail/ResolvedPixelCuda.cuh"

namespace tandem::render {

namespace {

constexpr std::uint32_t ObjectIsPointsBit = 1u; // render::ObjectIsPoints

/// One thread per point of one object: what the resolve needs of it, packed.
__global__ void packKernel(const PointVertex* vertices, std::uint32_t first, std::uint32_t count,
                           std::uint32_t flags, PointAttributes* attributes)
{
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        attributes[first + i] = packPoint(vertices[first + i], flags);
}

/// One thread per pixel: the key a pixel starts with (the meshes' depth, or empty).
__global__ void initKernel(const __grid_constant__ PointFrame f, cudaSurfaceObject_t meshDepth,
                           std::uint64_t* keys, int pitch)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= f.width || y >= f.height)
        return;
    keys[static_cast<long long>(y) * pitch + x] =
        f.meshDrawn ? initialKey(surf2Dread<float>(meshDepth, x * 4, y)) : EmptyPointKey;
}

/// One thread per point of one object: each pixel of its splat an atomicMin of its key (a
/// pixel behind a mesh already holds a smaller key).
__global__ void rasterizeKernel(const __grid_constant__ PointFrame f, const float* positions,
                                int stride, std::uint32_t first, std::uint32_t count,
                                std::uint64_t* keys, int pitch)
{
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count)
        return;
    const std::uint32_t index = first + i;
    const Projected p = projectPoint(f, positions + static_cast<std::size_t>(index) * stride);
    if (!p.visible)
        return;
    const std::uint64_t key = pointKey(p.depth, index);
    const SplatBox box = splatBox(f, p);
    for (int py = box.y0; py <= box.y1; ++py) {
        const SplatRow row = splatRow(p, box, py);
        for (int px = row.x0; px <= row.x1; ++px) {
            if (!splatCovers(p, px, py))
                continue;
            std::uint64_t* slot = keys + static_cast<long long>(py) * pitch + px;
            // A plain load first: most splat pixels of a dense cloud already hold a nearer key,
            // and a read costs less than an atomic.
            if (key < *slot)
                atomicMin(reinterpret_cast<unsigned long long*>(slot),
                          static_cast<unsigned long long>(key));
        }
    }
}

/// One thread per pixel: the winning point, if any, into the G-buffer's targets (or, when no
/// mesh was drawn, the background where no point won).
__global__ void resolveKernel(const __grid_constant__ PointFrame f,
                              const PointAttributes* attributes, const PointObject* objects,
                              int objectCount, const std::uint64_t* keys, int pitch,
                              cudaSurfaceObject_t depth, cudaSurfaceObject_t color,
                              cudaSurfaceObject_t normal, cudaSurfaceObject_t id)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= f.width || y >= f.height)
        return;
    const std::uint64_t key = keys[static_cast<long long>(y) * pitch + x];
    const auto index = static_cast<std::uint32_t>(key);
    const int o = index == NoPointIndex ? -1 : objectOf(objects, objectCount, index);
    if (o < 0 && f.meshDrawn)
        return;
    const ResolvedPixel r =
        o < 0 ? backgroundPixel(f)
              : resolvePoint(f, attributes[index], keyDepth(key), x, y, pointId(objects[o], index));
    detail::writeResolved(r, f.colorIsHalf, x, y, color, normal, depth, id);
}

__global__ void bareKernel(const __grid_constant__ PointFrame f, const PointVertex* vertices,
                           std::uint32_t count, std::uint64_t* keys, int pitch)
{
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count)
        return;
    const Projected p = projectPoint(f, vertices[i].position);
    if (!p.visible)
        return;
    const int px = clampi(static_cast<int>(p.x), 0, f.width - 1);
    const int py = clampi(static_cast<int>(p.y), 0, f.height - 1);
    atomicMin(reinterpret_cast<unsigned long long*>(keys + static_cast<long long>(py) * pitch + px),
              static_cast<unsigned long long>(pointKey(p.depth, i)));
}

} // namespace

void rasterizePointsCuda(const PointLaunch& l, interop::PassHooks& hooks)
{
    const auto stream = static_cast<cudaStream_t>(l.stream);
    const PointFrame& f = l.frame;
    if (l.pack) {
        hooks.beginStage("points.pack", l.stream);
        for (int o = 0; o < l.objectCount; ++o) {
            const PointObject& object = l.hostObjects[o];
            if (!(object.flags & ObjectIsPointsBit) || object.vertexCount == 0)
                continue;
            packKernel<<<(object.vertexCount + 255) / 256, 256, 0, stream>>>(
                l.vertices, object.firstVertex, object.vertexCount, object.flags, l.attributes);
            cuda::checkLaunch("packKernel");
        }
        hooks.endStage("points.pack", l.stream);
    }
    const dim3 block(32, 8);
    const dim3 grid((f.width + 31) / 32, (f.height + 7) / 8);
    hooks.beginStage("points.raster", l.stream);
    initKernel<<<grid, block, 0, stream>>>(f, l.depth, l.keys, l.pitch);
    cuda::checkLaunch("initKernel");
    for (int o = 0; o < l.objectCount; ++o) {
        const PointObject& object = l.hostObjects[o];
        if (!(object.flags & ObjectIsPointsBit) || object.vertexCount == 0)
            continue;
        const unsigned blocks = (object.vertexCount + 255) / 256;
        rasterizeKernel<<<blocks, 256, 0, stream>>>(f, l.positions, l.positionStride,
                                                    object.firstVertex, object.vertexCount, l.keys,
                                                    l.pitch);
        cuda::checkLaunch("rasterizeKernel");
    }
    hooks.endStage("points.raster", l.stream);
    hooks.beginStage("points.resolve", l.stream);
    resolveKernel<<<grid, block, 0, stream>>>(f, l.packed, l.objects, l.objectCount, l.keys,
                                              l.pitch, l.depth, l.color, l.normal, l.id);
    cuda::checkLaunch("resolveKernel");
    hooks.endStage("points.resolve", l.stream);
}

void bareAtomicMinCuda(void* stream, const PointFrame& frame, const PointVertex* vertices,
                       std::uint32_t count, std::uint64_t* keys, int pitch)
{
    bareKernel<<<(count + 255) / 256, 256, 0, static_cast<cudaStream_t>(stream)>>>(
        frame, vertices, count, keys, pitch);
    cuda::checkLaunch("bareKernel");
}

} // namespace tandem::render
