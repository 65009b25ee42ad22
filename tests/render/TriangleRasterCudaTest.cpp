// gpu tier: render::TriangleRaster's kernels write the same bits as its host twin (output and
// visibility keys) for small triangles, large ones (the tile path), clipped ones and batches,
// and agree with GL's rasterizer on this GPU (frame::TensorRaster's CUDA path) as the gl tier's
// twin does with Mesa's: a differing pixel only within a subpixel of an edge, and few of them.
// The test reports how many differ.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "engine/cuda/CudaCheck.h"
#include "engine/cuda/DeviceBuffer.h"
#include "engine/frame/TensorRaster.h"
#include "engine/render/TriangleRaster.h"
#include "tests/render/ClipMeshes.h"
#include "tests/support/GpuTestContext.h"

namespace tandem::render {
namespace {

using TriangleRasterCuda = test::GpuTest;

template <class T> cuda::DeviceBuffer<T> upload(const std::vector<T>& host)
{
    cuda::DeviceBuffer<T> device(host.size());
    if (!host.empty())
        TANDEM_CUDA_CHECK(cudaMemcpy(device.data(), host.data(), host.size() * sizeof(T),
                                     cudaMemcpyHostToDevice));
    return device;
}

template <class T> std::vector<T> download(const T* device, std::size_t count)
{
    std::vector<T> host(count);
    TANDEM_CUDA_CHECK(cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
}

/// Rasterizes with the kernels, the host twin and GL; checks the first two equal bit for bit and
/// compares the kernels' result with GL's.
test::Comparison checkAll(const std::vector<float>& clip, const std::vector<std::uint32_t>& indices,
                          const ClipRasterShape& shape)
{
    const auto positions = upload(clip);
    const auto triangles = upload(indices);
    const std::size_t floats = shape.outputBytes() / sizeof(float);
    cuda::DeviceBuffer<float> output(floats);
    TriangleRaster kernels;
    kernels.rasterize(positions.data(), triangles.data(), output.data(), shape, nullptr);
    TANDEM_CUDA_CHECK(cudaDeviceSynchronize());
    const auto fromKernels = download(output.data(), floats);
    const std::size_t pixels = static_cast<std::size_t>(shape.width) * shape.height;
    const auto keys = download(kernels.keys(), pixels);

    std::vector<float> twin(floats);
    std::vector<std::uint64_t> twinKeys(pixels * shape.batch);
    rasterizeTrianglesHost(clip.data(), indices.data(), twin.data(), shape, twinKeys.data());
    std::size_t differing = 0;
    for (std::size_t i = 0; i < floats; ++i)
        differing += std::memcmp(&fromKernels[i], &twin[i], sizeof(float)) != 0;
    EXPECT_EQ(differing, 0u) << "output floats differing from the host twin's";
    EXPECT_TRUE(std::equal(keys.begin(), keys.end(), twinKeys.end() - static_cast<long>(pixels)))
        << "visibility keys differ from the host twin's";

    frame::TensorRaster gl;
    cuda::DeviceBuffer<float> glOutput(floats);
    gl.rasterizeCuda(positions.data(), triangles.data(), glOutput.data(), shape, nullptr);
    gl.unmap();
    TANDEM_CUDA_CHECK(cudaDeviceSynchronize());
    const auto fromGl = download(glOutput.data(), floats);
    const test::Comparison c = test::compareWithGl(fromGl, fromKernels, clip, indices, shape);
    std::printf("%dx%d, %zu triangles, batch %zu: %zu of %zu covered pixels differ from GL's\n",
                shape.width, shape.height, shape.triangles, shape.batch, c.mismatched, c.covered);
    return c;
}

TEST_F(TriangleRasterCuda, GridsEqualTheHostTwinAndAgreeWithGl)
{
    for (int n : {20, 70, 300}) {
        const io::MeshData mesh = test::wavyGrid(n);
        for (const auto& [width, height] : {std::pair{96, 80}, std::pair{333, 257}}) {
            const auto clip = test::clipPositions(mesh, test::identityViewCamera(),
                                                  static_cast<float>(width) / height);
            const ClipRasterShape shape{1, mesh.positions.size(), mesh.indices.size() / 3, width,
                                        height};
            const test::Comparison c = checkAll(clip, mesh.indices, shape);
            EXPECT_GT(c.covered, static_cast<std::size_t>(width) * height / 4);
            EXPECT_LE(c.mismatched * 2000, c.covered) << n << " quads, " << width << "x" << height;
        }
    }
}

TEST_F(TriangleRasterCuda, LargeClippedAndBatchedTrianglesEqualTheHostTwin)
{
    const io::MeshData mesh = test::clipScene(11, 30);
    const int width = 640, height = 480;
    auto clip = test::clipPositions(mesh, test::identityViewCamera(), 4.0f / 3.0f);
    Camera turned = test::identityViewCamera();
    turned.target = glm::vec3(0.3f, -0.1f, -1.0f);
    const auto second = test::clipPositions(mesh, turned, 4.0f / 3.0f);
    const test::Comparison c = checkAll(
        clip, mesh.indices, {1, mesh.positions.size(), mesh.indices.size() / 3, width, height});
    EXPECT_GT(c.covered, static_cast<std::size_t>(width) * height / 2);
    EXPECT_LE(c.mismatched * 200, c.covered);
    clip.insert(clip.end(), second.begin(), second.end());
    checkAll(clip, mesh.indices,
             {2, mesh.positions.size(), mesh.indices.size() / 3, width, height});
}

} // namespace
} // namespace tandem::render
