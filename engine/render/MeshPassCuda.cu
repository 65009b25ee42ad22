// The CUDA side of the mesh pass: kernels over the same per-vertex and per-pixel functions as
// the host twin (MeshShading.h), compiled without FMA contraction so both compute the same bits,
// around the triangle rasterizer's visibility keys.
#include <vector>

#include <cuda_runtime_api.h>

#include "engine/cuda/CudaCheck.h"
#include "engine/cuda/DeviceBuffer.h"
#include "engine/cuda/Stream.h"
#include "engine/render/MeshPass.h"
#include "engine/render/MeshShading.h"
#include "engine/render/TriangleRaster.h"
#include "engine/render/detail/ResolvedPixelCuda.cuh"

namespace tandem::render {

namespace {

using triangles::Vertex;

constexpr std::uint32_t ObjectIsPointsBit = 1u; // render::ObjectIsPoints

/// One thread a vertex of one mesh object: its clip position.
__global__ void clipKernel(const __grid_constant__ PointFrame f, const PointVertex* vertices,
                           std::uint32_t first, std::uint32_t count, Vertex* clip)
{
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count)
        clip[first + i] = meshes::clipVertex(f, vertices[first + i].position);
}

/// One thread a pixel: the triangle that won it (or the background) into the G-buffer.
__global__ void resolveKernel(const __grid_constant__ PointFrame f,
                              const __grid_constant__ meshes::MeshScene scene,
                              const std::uint64_t* keys, cudaSurfaceObject_t color,
                              cudaSurfaceObject_t normal, cudaSurfaceObject_t depth,
                              cudaSurfaceObject_t id)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= f.width || y >= f.height)
        return;
    const std::uint64_t key = keys[static_cast<std::size_t>(y) * f.width + x];
    const ResolvedPixel r = meshes::resolveMeshPixel(f, scene, key, x, y);
    detail::writeResolved(r, f.colorIsHalf, x, y, color, normal, depth, id);
}

} // namespace

struct MeshCuda::State {
    TriangleRaster raster;
    cuda::DeviceBuffer<Vertex> clip;
    std::size_t clipCapacity = 0;
    cuda::DeviceBuffer<float> srgb; ///< srgb8ToLinear() of each code
    cuda::DeviceBuffer<std::uint8_t> texels;
    std::size_t texelCapacity = 0;
    std::uint64_t texelSerial = 0; ///< the scene `texels` hold the texture of (0: none)
};

MeshCuda::MeshCuda() : m_state(std::make_unique<State>()) {}
MeshCuda::~MeshCuda() = default;

void MeshCuda::draw(const MeshLaunch& l, interop::PassHooks& hooks)
{
    State& s = *m_state;
    const auto stream = static_cast<cudaStream_t>(l.stream);
    const PointFrame& f = l.frame;
    if (s.srgb.data() == nullptr) {
        s.srgb.reserve(256, "sRGB decoding table");
        TANDEM_CUDA_CHECK(cudaMemcpyAsync(s.srgb.data(), srgb8ToLinearTable().data(),
                                          256 * sizeof(float), cudaMemcpyHostToDevice, stream));
    }
    if (s.clipCapacity < l.vertexCount) {
        s.clipCapacity = 0; // still right if the allocation throws
        s.clip.reserve(l.vertexCount, "clip positions of mesh vertices");
        s.clipCapacity = l.vertexCount;
    }
    const std::size_t texelBytes =
        l.texels ? static_cast<std::size_t>(l.textureWidth) * l.textureHeight * 4 : 0;
    if (texelBytes > 0 && s.texelSerial != l.textureSerial) {
        if (s.texelCapacity < texelBytes) {
            s.texelCapacity = 0;
            s.texels.reserve(texelBytes, "scene texture for the mesh pass");
            s.texelCapacity = texelBytes;
        }
        // From pageable memory, once per scene: the copy is staged before the call returns.
        TANDEM_CUDA_CHECK(
            cudaMemcpyAsync(s.texels.data(), l.texels, texelBytes, cudaMemcpyHostToDevice, stream));
        s.texelSerial = l.textureSerial;
    }

    hooks.beginStage("meshes.raster", l.stream);
    for (int o = 0; o < l.objectCount; ++o) {
        const PointObject& object = l.hostObjects[o];
        if ((object.flags & ObjectIsPointsBit) || object.vertexCount == 0)
            continue;
        clipKernel<<<(object.vertexCount + 255) / 256, 256, 0, stream>>>(
            f, l.vertices, object.firstVertex, object.vertexCount, s.clip.data());
        cuda::checkLaunch("clipKernel");
    }
    const std::uint64_t* keys =
        s.raster.drawKeys(reinterpret_cast<const float*>(s.clip.data()), l.indices, l.vertexCount,
                          l.triangleCount, f.width, f.height, l.stream);
    hooks.endStage("meshes.raster", l.stream);

    hooks.beginStage("meshes.resolve", l.stream);
    meshes::MeshScene scene{};
    scene.vertices = l.vertices;
    scene.indices = l.indices;
    scene.clip = s.clip.data();
    scene.objects = l.objects;
    scene.objectCount = l.objectCount;
    scene.texels = texelBytes > 0 ? s.texels.data() : nullptr;
    scene.textureWidth = texelBytes > 0 ? l.textureWidth : 0;
    scene.textureHeight = texelBytes > 0 ? l.textureHeight : 0;
    scene.srgbToLinear = s.srgb.data();
    const dim3 block(32, 8);
    const dim3 grid((f.width + 31) / 32, (f.height + 7) / 8);
    resolveKernel<<<grid, block, 0, stream>>>(f, scene, keys, l.color, l.normal, l.depth, l.id);
    cuda::checkLaunch("resolveKernel (meshes)");
    hooks.endStage("meshes.resolve", l.stream);
}

std::vector<double> MeshCuda::time(const MeshLaunch& launch, int rounds)
{
    struct Silent final : interop::PassHooks {
        void beginStage(const char*, void*) override {}
        void endStage(const char*, void*) override {}
    } silent;
    const auto stream = static_cast<cudaStream_t>(launch.stream);
    draw(launch, silent); // scratch memory and the texture in place: not timed
    std::vector<cuda::Event> marks(static_cast<std::size_t>(rounds) + 1);
    marks[0].record(stream);
    for (int r = 0; r < rounds; ++r) {
        draw(launch, silent);
        marks[static_cast<std::size_t>(r) + 1].record(stream);
    }
    marks.back().synchronize(); // counted as a stall there
    std::vector<double> ms;
    for (int r = 0; r < rounds; ++r)
        ms.push_back(static_cast<double>(marks[static_cast<std::size_t>(r) + 1]
                                             .elapsedSince(marks[static_cast<std::size_t>(r)])
                                             .value_or(0.0f)));
    return ms;
}

} // namespace tandem::render
