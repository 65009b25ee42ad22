// tandem-bench tensor-raster: what tandem.rasterize costs in the engine, against the engine's
// own geometry pass on the same mesh in the same run. The mesh is the Python issue's grid:
// grid×grid quads over [-0.9, 0.9]² with z = 0.3·sin 6x·cos 6y (1024: 2.10 M triangles). The
// rasterize path takes it as clip-space positions (x, y, z, 1) in CUDA memory, as a PyTorch
// caller hands it over, through frame::TensorRaster (both ways of naming triangles, batch 1 and
// 8); the geometry pass draws the same grid, x stretched by the aspect ratio, from a camera that
// puts it on the same pixels, and the handoff is timed as the raster benchmark does; the CUDA
// rasterizer (render::TriangleRaster, tandem.rasterize's default for CUDA tensors) on the same
// inputs, with how many pixels name another triangle than GL's; and the floor of drawing the
// same triangles in CUDA (render/TriangleFloor.h). CUDA builds only.
#include "TensorRasterBench.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "engine/cuda/CudaCheck.h"
#include "engine/cuda/DeviceBuffer.h"
#include "engine/cuda/Stream.h"
#include "engine/frame/Frame.h"
#include "engine/frame/TensorRaster.h"
#include "engine/profile/Profiler.h"
#include "engine/render/GBuffer.h"
#include "engine/render/GeometryPass.h"
#include "engine/render/GpuScene.h"
#include "engine/render/SceneRenderer.h"
#include "engine/render/TriangleFloor.h"

namespace tandem::bench {

namespace {

/// The grid's vertices (x, y, z) and triangles.
struct Grid {
    std::vector<glm::vec3> points;
    std::vector<std::uint32_t> indices;
};

Grid makeGrid(int n)
{
    Grid grid;
    const auto side = static_cast<std::size_t>(n) + 1;
    grid.points.reserve(side * side);
    for (std::size_t j = 0; j < side; ++j)
        for (std::size_t i = 0; i < side; ++i) {
            const float x = -0.9f + 1.8f * static_cast<float>(i) / static_cast<float>(n);
            const float y = -0.9f + 1.8f * static_cast<float>(j) / static_cast<float>(n);
            grid.points.emplace_back(x, y, 0.3f * std::sin(6.0f * x) * std::cos(6.0f * y));
        }
    grid.indices.reserve(static_cast<std::size_t>(n) * n * 6);
    for (std::size_t j = 0; j < static_cast<std::size_t>(n); ++j)
        for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i) {
            const auto a = static_cast<std::uint32_t>(j * side + i);
            const auto b = a + 1, c = a + static_cast<std::uint32_t>(side), d = c + 1;
            grid.indices.insert(grid.indices.end(), {a, b, d, a, d, c});
        }
    return grid;
}

} // namespace

int runTensorRasterBench(const Settings& settings, int gridSize)
{
    auto context = makeContext(settings.device);
    std::printf("tensor-raster benchmark on %s\n", context->description().c_str());
    interop::InteropStatus doctor;
    const frame::Residence residence =
        makeResidence(settings, *context, postfx::BackendChoice::Auto, &doctor);
    if (residence.path != interop::Path::Cuda) {
        std::fprintf(stderr, "error: tensor-raster needs GL-CUDA interop: %s\n",
                     doctor.reason.c_str());
        return 1;
    }
    const Grid grid = makeGrid(gridSize);
    const std::size_t vertices = grid.points.size();
    const std::size_t triangles = grid.indices.size() / 3;
    std::printf("grid %d: %zu vertices, %zu triangles\n", gridSize, vertices, triangles);

    // The clip-space positions and triangles in CUDA memory, a batch of 8 copies.
    constexpr std::size_t MaxBatch = 8;
    std::vector<float> clip;
    clip.reserve(vertices * 4 * MaxBatch);
    for (std::size_t item = 0; item < MaxBatch; ++item)
        for (const glm::vec3& p : grid.points)
            clip.insert(clip.end(), {p.x, p.y, p.z, 1.0f});
    cuda::DeviceBuffer<float> positions(clip.size());
    cuda::DeviceBuffer<std::uint32_t> indices(grid.indices.size());
    TANDEM_CUDA_CHECK(cudaMemcpy(positions.data(), clip.data(), clip.size() * sizeof(float),
                                 cudaMemcpyHostToDevice));
    TANDEM_CUDA_CHECK(cudaMemcpy(indices.data(), grid.indices.data(),
                                 grid.indices.size() * sizeof(std::uint32_t),
                                 cudaMemcpyHostToDevice));
    cuda::Stream stream;

    profile::ProfilerOptions off;
    off.enabled = false;
    profile::Profiler profiler(off);
    render::GeometryPass geometry;
    frame::TensorRaster pulled(render::TriangleIds::Pulled);
    frame::TensorRaster primitiveIds(render::TriangleIds::PrimitiveId);
    frame::TensorRaster kernels;

    nlohmann::json json = header("tensor-raster", settings);
    json["grid"] = gridSize;
    json["triangles"] = triangles;
    json["vertices"] = vertices;
    nlohmann::json results = nlohmann::json::array();
    std::vector<std::vector<std::string>> rows;
    for (const Size& size : BenchSizes) {
        const float aspect = static_cast<float>(size.width) / static_cast<float>(size.height);
        render::Scene scene;
        io::MeshData mesh;
        for (const glm::vec3& p : grid.points)
            mesh.positions.emplace_back(p.x * aspect, p.y, p.z);
        mesh.indices = grid.indices;
        scene.objects.push_back({"grid", std::move(mesh)});
        const render::GpuScene gpuScene(scene, "bench.grid");
        render::Camera camera;
        camera.fovY = 45.0f;
        camera.eye = glm::vec3(0.0f, 0.0f, 1.0f / std::tan(glm::radians(22.5f)));
        camera.target = glm::vec3(0.0f);

        render::SceneRenderer renderer(size.width, size.height, render::ColorFormat::Rgba8, true);
        frame::Frame frame(renderer, residence, profiler);
        auto finishFrame = [&] {
            glFinish();
            frame.synchronize();
        };
        const double engineMs = timeFrames(
            settings,
            [&] { geometry.draw(renderer.gbuffer(), gpuScene, camera, render::GeometryOptions{}); },
            [] { glFinish(); });
        // The frame with and without one more handoff: the difference is the handoff.
        const postfx::Chain none;
        auto render = [&] {
            frame.render(gpuScene, camera, none, frame::Channel::Color, render::GeometryOptions{});
        };
        const double without = timeFrames(settings, render, finishFrame);
        HandoffProbe probe(renderer.gbuffer());
        Registration added = frame.addPass(probe);
        const double with = timeFrames(settings, render, finishFrame);
        added.reset();
        const double handoffMs = with - without;
        const double reference = engineMs + handoffMs;

        nlohmann::json r = {
            {"size", size.name},       {"width", size.width},
            {"height", size.height},   {"engine_geometry_ms", engineMs},
            {"handoff_ms", handoffMs}, {"engine_geometry_plus_handoff_ms", reference}};
        for (std::size_t batch : {std::size_t{1}, MaxBatch}) {
            const render::ClipRasterShape shape{batch, vertices, triangles, size.width,
                                                size.height};
            cuda::DeviceBuffer<float> output(shape.outputBytes() / sizeof(float));
            for (auto* raster : {&pulled, &primitiveIds}) {
                const char* ids =
                    render::TriangleIdChoices.name(raster->raster().triangleIds()).data();
                const double tensorMs = timeFrames(
                    settings,
                    [&] {
                        raster->rasterizeCuda(positions.data(), indices.data(), output.data(),
                                              shape, stream.get());
                    },
                    [&] {
                        glFinish();
                        stream.synchronize();
                    });
                raster->unmap();
                const std::string key = fmt::format("tensor_{}_b{}", ids, batch);
                // Where the time goes: the GL draws alone (visibility and resolve per item).
                r[key + "_gl_draw_ms"] = timeFrames(
                    settings, [&] { raster->raster().draw(shape); }, [] { glFinish(); });
                r[key + "_ms"] = tensorMs;
                r[key + "_per_item_ms"] = tensorMs / static_cast<double>(batch);
                // Batch B against B geometry passes and one handoff.
                const double batchReference = static_cast<double>(batch) * engineMs + handoffMs;
                r[key + "_ratio"] = tensorMs / batchReference;
                rows.push_back({size.name, fmt::format("{} b{}", ids, batch), ms(engineMs),
                                ms(handoffMs), ms(tensorMs),
                                ms(r[key + "_gl_draw_ms"].get<double>()),
                                fmt::format("{:.2f}", tensorMs / batchReference)});
            }
            // The CUDA rasterizer: kernels on the stream, no GL, no handoff.
            const double cudaMs = timeFrames(
                settings,
                [&] {
                    kernels.rasterizeInCuda(positions.data(), indices.data(), output.data(), shape,
                                            stream.get());
                },
                [&] { stream.synchronize(); });
            const std::string key = fmt::format("tensor_cuda_b{}", batch);
            const double batchReference = static_cast<double>(batch) * engineMs + handoffMs;
            r[key + "_ms"] = cudaMs;
            r[key + "_per_item_ms"] = cudaMs / static_cast<double>(batch);
            r[key + "_ratio"] = cudaMs / batchReference;
            rows.push_back({size.name, fmt::format("cuda b{}", batch), ms(engineMs), ms(handoffMs),
                            ms(cudaMs), "-", fmt::format("{:.2f}", cudaMs / batchReference)});
        }
        // The floor of rasterizing these triangles in CUDA (render/TriangleFloor.h), and the CUDA
        // rasterizer's output against GL's.
        {
            const std::size_t pixels =
                static_cast<std::size_t>(size.width) * static_cast<std::size_t>(size.height);
            cuda::DeviceBuffer<std::uint64_t> keys(pixels);
            const double floorMs = timeFrames(
                settings,
                [&] {
                    render::triangleFloorCuda(stream.get(), positions.data(), indices.data(),
                                              triangles, size.width, size.height, keys.data());
                },
                [&] { stream.synchronize(); });
            // The CUDA rasterizer's output against GL's on the same input.
            const render::ClipRasterShape one{1, vertices, triangles, size.width, size.height};
            cuda::DeviceBuffer<float> glOutput(one.outputBytes() / sizeof(float));
            cuda::DeviceBuffer<float> cudaOutput(one.outputBytes() / sizeof(float));
            primitiveIds.rasterizeCuda(positions.data(), indices.data(), glOutput.data(), one,
                                       stream.get());
            primitiveIds.unmap();
            kernels.rasterizeInCuda(positions.data(), indices.data(), cudaOutput.data(), one,
                                    stream.get());
            stream.synchronize();
            std::vector<float> fromGl(pixels * 4), fromCuda(pixels * 4);
            TANDEM_CUDA_CHECK(
                cudaMemcpy(fromGl.data(), glOutput.data(), pixels * 16, cudaMemcpyDeviceToHost));
            TANDEM_CUDA_CHECK(cudaMemcpy(fromCuda.data(), cudaOutput.data(), pixels * 16,
                                         cudaMemcpyDeviceToHost));
            std::size_t glCovered = 0, cudaCovered = 0, differing = 0;
            double largest = 0.0; // |difference| of u, v, z/w where the triangle is the same
            for (std::size_t p = 0; p < pixels; ++p) {
                glCovered += fromGl[4 * p + 3] != 0.0f;
                cudaCovered += fromCuda[4 * p + 3] != 0.0f;
                if (fromGl[4 * p + 3] != fromCuda[4 * p + 3]) {
                    ++differing;
                    continue;
                }
                for (int c = 0; c < 3; ++c)
                    largest = std::max(largest, static_cast<double>(std::abs(fromGl[4 * p + c] -
                                                                             fromCuda[4 * p + c])));
            }
            r["cuda_triangle_floor_ms"] = floorMs;
            r["gl_covered_pixels"] = glCovered;
            r["cuda_covered_pixels"] = cudaCovered;
            r["cuda_pixels_naming_another_triangle"] = differing;
            r["cuda_largest_value_difference"] = largest;
            std::printf("%s: CUDA rasterizer against GL: covers %zu pixels, GL %zu; %zu name "
                        "another triangle (%.4f %%); values differ by at most %.2g where the "
                        "triangle is the same. Floor (one atomicMin a covered pixel, no clipping, "
                        "no fill rule, no resolve): %.3f ms\n",
                        size.name.c_str(), cudaCovered, glCovered, differing,
                        100.0 * static_cast<double>(differing) / static_cast<double>(glCovered),
                        largest, floorMs);
        }
        gl::check("tensor-raster benchmark");
        results.push_back(r);
    }
    std::printf("\ntensor raster vs the geometry pass + one handoff (median of %d calls, each "
                "ended by glFinish and a stream synchronize)\n",
                settings.frames);
    printTable({"size", "variant", "geometry ms", "handoff ms", "tensor raster ms",
                "its GL draws ms", "ratio to B x geometry + handoff"},
               rows);
    json["results"] = results;
    json["statistic"] = "median wall time per call, GPU work synchronised after each call";
    return writeJson(settings, json) ? 0 : 1;
}

} // namespace tandem::bench
