#include "engine/render/TriangleFloor.h"

#include <cuda_runtime_api.h>

#include "engine/cuda/CudaCheck.h"

namespace tandem::render {
namespace {

__global__ void triangleFloorKernel(const float4* __restrict__ clip,
                                    const uint3* __restrict__ indices, unsigned triangles,
                                    int width, int height, unsigned long long* keys)
{
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= triangles)
        return;
    const uint3 i = indices[t];
    const float4 a = clip[i.x], b = clip[i.y], c = clip[i.z];
    if (a.w <= 0.0f || b.w <= 0.0f || c.w <= 0.0f)
        return;
    const float w = static_cast<float>(width), h = static_cast<float>(height);
    const float ax = (a.x / a.w * 0.5f + 0.5f) * w, ay = (a.y / a.w * 0.5f + 0.5f) * h;
    const float bx = (b.x / b.w * 0.5f + 0.5f) * w, by = (b.y / b.w * 0.5f + 0.5f) * h;
    const float cx = (c.x / c.w * 0.5f + 0.5f) * w, cy = (c.y / c.w * 0.5f + 0.5f) * h;
    const float area = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
    if (area == 0.0f)
        return;
    const float sign = area > 0.0f ? 1.0f : -1.0f;
    const float za = a.z / a.w, zb = b.z / b.w, zc = c.z / c.w;
    // Pixels whose centre (x + 0.5, y + 0.5) lies in the bounding box.
    const int x0 = max(0, static_cast<int>(ceilf(fminf(ax, fminf(bx, cx)) - 0.5f)));
    const int x1 = min(width - 1, static_cast<int>(floorf(fmaxf(ax, fmaxf(bx, cx)) - 0.5f)));
    const int y0 = max(0, static_cast<int>(ceilf(fminf(ay, fminf(by, cy)) - 0.5f)));
    const int y1 = min(height - 1, static_cast<int>(floorf(fmaxf(ay, fmaxf(by, cy)) - 0.5f)));
    for (int y = y0; y <= y1; ++y)
        for (int x = x0; x <= x1; ++x) {
            const float px = x + 0.5f, py = y + 0.5f;
            const float e0 = sign * ((cx - bx) * (py - by) - (cy - by) * (px - bx));
            const float e1 = sign * ((ax - cx) * (py - cy) - (ay - cy) * (px - cx));
            const float e2 = sign * ((bx - ax) * (py - ay) - (by - ay) * (px - ax));
            if (e0 < 0.0f || e1 < 0.0f || e2 < 0.0f)
                continue;
            const float z = (e0 * za + e1 * zb + e2 * zc) / (sign * area);
            const float depth = fminf(fmaxf(z * 0.5f + 0.5f, 0.0f), 1.0f);
            const unsigned long long key =
                (static_cast<unsigned long long>(__float_as_uint(depth)) << 32) | (t + 1u);
            atomicMin(&keys[static_cast<std::size_t>(y) * width + x], key);
        }
}

} // namespace

void triangleFloorCuda(void* stream, const float* clip, const std::uint32_t* indices,
                       std::size_t triangles, int width, int height, std::uint64_t* keys)
{
    const auto s = static_cast<cudaStream_t>(stream);
    TANDEM_CUDA_CHECK(
        cudaMemsetAsync(keys, 0xFF, static_cast<std::size_t>(width) * height * sizeof(*keys), s));
    const auto count = static_cast<unsigned>(triangles);
    triangleFloorKernel<<<(count + 255) / 256, 256, 0, s>>>(
        reinterpret_cast<const float4*>(clip), reinterpret_cast<const uint3*>(indices), count,
        width, height, reinterpret_cast<unsigned long long*>(keys));
    cuda::checkLaunch("triangleFloorKernel");
}

} // namespace tandem::render
