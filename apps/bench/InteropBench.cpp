// tandem-bench interop: what handing the G-buffer between GL and CUDA costs per frame at 1080p
// and 4K with 1, 2 and 4 resources — (a) one map/unmap per resource, (b) one batched map/unmap,
// (c) the host path's pixel-pack read-back (+ output upload), (d) glReadPixels to host +
// cudaMemcpy to device — and each post-process stage's kernel time against a device-to-device
// copy of the same bytes. CUDA builds only.
#include "InteropBench.h"

#include <cstdio>
#include <vector>

#include <fmt/format.h>
#include <glad/gl.h>
// After glad: cuda_gl_interop.h includes GL/gl.h, which glad's guard then leaves empty.
#include <cuda_gl_interop.h>

#include "engine/core/File.h"
#include "engine/cuda/CudaCheck.h"
#include "engine/cuda/DeviceBuffer.h"
#include "engine/cuda/Stream.h"
#include "engine/frame/Frame.h"
#include "engine/gl/Buffer.h"
#include "engine/gl/Texture.h"
#include "engine/io/MeshLoader.h"
#include "engine/postfx/Stage.h"
#include "engine/profile/Profiler.h"
#include "engine/render/GpuScene.h"
#include "engine/render/OrbitController.h"
#include "engine/render/SceneRenderer.h"

namespace tandem::bench {

namespace {

struct Format {
    GLenum internal, format, type;
    int bytes;
    const char* name;
};
// The G-buffer's formats, in the order the engine registers them.
const Format formats[4] = {{GL_RGBA8, GL_RGBA, GL_UNSIGNED_BYTE, 4, "color rgba8"},
                           {GL_R32F, GL_RED, GL_FLOAT, 4, "depth r32f"},
                           {GL_RGBA16F, GL_RGBA, GL_HALF_FLOAT, 8, "normal rgba16f"},
                           {GL_R32UI, GL_RED_INTEGER, GL_UNSIGNED_INT, 4, "id r32ui"}};

struct Registered {
    gl::Texture texture;
    cudaGraphicsResource* resource = nullptr;
    Format format;
    Registered(const Format& f, int w, int h) : texture(f.internal, w, h, f.name), format(f)
    {
        TANDEM_CUDA_CHECK(cudaGraphicsGLRegisterImage(&resource, texture.id(), GL_TEXTURE_2D,
                                                      cudaGraphicsRegisterFlagsReadOnly));
    }
    ~Registered()
    {
        if (resource)
            cuda::clearError("cudaGraphicsUnregisterResource",
                             cudaGraphicsUnregisterResource(resource));
    }
    Registered(const Registered&) = delete;
    Registered& operator=(const Registered&) = delete;
};

/// Bytes a stage moves per pixel at least, from what its descriptor says it reads (the
/// G-buffer's RGBA8 colour 4 B, depth 4 B, normals 8 B, ids 4 B) plus its float RGBA result
/// (16 B), for the copy comparison. Blur's two passes run fused: one read, one write.
int bytesPerPixel(const postfx::StageDescriptor& d)
{
    return (d.reads & postfx::ReadsSource ? 4 : 0) + (d.reads & postfx::ReadsDepth ? 4 : 0) +
           (d.reads & postfx::ReadsNormal ? 8 : 0) + (d.reads & postfx::ReadsId ? 4 : 0) + 16;
}

} // namespace

int runInteropBench(const Settings& settings)
{
    auto context = makeContext(settings.device);
    std::printf("interop benchmark on %s\n", context->description().c_str());
    cuda::Stream stream;
    nlohmann::json json = header("interop", settings);
    auto finish = [&] {
        glFinish();
        stream.synchronize();
    };

    // --- handoff variants ---
    std::vector<std::vector<std::string>> rows;
    nlohmann::json handoffs = nlohmann::json::array();
    for (const Size& size : BenchSizes) {
        const std::size_t pixels = static_cast<std::size_t>(size.width) * size.height;
        for (int count : {1, 2, 4}) {
            std::vector<std::unique_ptr<Registered>> resources;
            for (int i = 0; i < count; ++i)
                resources.push_back(
                    std::make_unique<Registered>(formats[i], size.width, size.height));
            std::vector<cudaGraphicsResource*> all;
            std::size_t totalBytes = 0;
            for (auto& r : resources) {
                all.push_back(r->resource);
                totalBytes += pixels * static_cast<std::size_t>(r->format.bytes);
            }
            gl::Buffer pack(totalBytes, nullptr, GL_MAP_READ_BIT, "bench.pack");
            gl::Texture output(GL_RGBA8, size.width, size.height, "bench.output");
            std::vector<std::uint8_t> host(totalBytes);
            std::vector<std::uint8_t> outputPixels(pixels * 4, 128);
            cuda::DeviceBuffer<std::uint8_t> device(totalBytes);
            const float clear[4] = {0.25f, 0.5f, 0.75f, 1.0f};
            const GLuint clearId[4] = {7, 0, 0, 0};
            // The GL side of every frame: write every resource, as the geometry pass would.
            auto glWork = [&] {
                for (auto& r : resources)
                    glClearTexImage(r->texture.id(), 0, r->format.format,
                                    r->format.format == GL_RED_INTEGER ? GL_UNSIGNED_INT : GL_FLOAT,
                                    r->format.format == GL_RED_INTEGER
                                        ? static_cast<const void*>(clearId)
                                        : static_cast<const void*>(clear));
            };
            const double base = timeFrames(settings, glWork, finish);
            const double perResource = timeFrames(
                settings,
                [&] {
                    glWork();
                    for (auto* r : all) {
                        TANDEM_CUDA_CHECK(cudaGraphicsMapResources(1, &r, stream.get()));
                        TANDEM_CUDA_CHECK(cudaGraphicsUnmapResources(1, &r, stream.get()));
                    }
                },
                finish);
            const double batched = timeFrames(
                settings,
                [&] {
                    glWork();
                    TANDEM_CUDA_CHECK(cudaGraphicsMapResources(count, all.data(), stream.get()));
                    TANDEM_CUDA_CHECK(cudaGraphicsUnmapResources(count, all.data(), stream.get()));
                },
                finish);
            const double packPath = timeFrames(
                settings,
                [&] {
                    glWork();
                    glBindBuffer(GL_PIXEL_PACK_BUFFER, pack.id());
                    std::size_t offset = 0;
                    for (auto& r : resources) {
                        const std::size_t bytes =
                            pixels * static_cast<std::size_t>(r->format.bytes);
                        glGetTextureImage(
                            r->texture.id(), 0, r->format.format, r->format.type,
                            static_cast<GLsizei>(bytes),
                            reinterpret_cast<void*>(static_cast<std::uintptr_t>(offset)));
                        offset += bytes;
                    }
                    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
                    const void* mapped = glMapNamedBufferRange(
                        pack.id(), 0, static_cast<GLsizeiptr>(totalBytes), GL_MAP_READ_BIT);
                    (void)mapped;
                    glUnmapNamedBuffer(pack.id());
                    glTextureSubImage2D(output.id(), 0, 0, 0, size.width, size.height, GL_RGBA,
                                        GL_UNSIGNED_BYTE, outputPixels.data());
                },
                finish);
            const double readPixels = timeFrames(
                settings,
                [&] {
                    glWork();
                    std::size_t offset = 0;
                    for (auto& r : resources) {
                        const std::size_t bytes =
                            pixels * static_cast<std::size_t>(r->format.bytes);
                        glGetTextureImage(r->texture.id(), 0, r->format.format, r->format.type,
                                          static_cast<GLsizei>(bytes), host.data() + offset);
                        TANDEM_CUDA_CHECK(cudaMemcpyAsync(device.data() + offset,
                                                          host.data() + offset, bytes,
                                                          cudaMemcpyHostToDevice, stream.get()));
                        offset += bytes;
                    }
                },
                finish);
            gl::check("interop benchmark frame");
            rows.push_back({size.name, std::to_string(count), ms(base), ms(perResource - base),
                            ms(batched - base), ms(packPath - base), ms(readPixels - base)});
            handoffs.push_back({{"size", size.name},
                                {"width", size.width},
                                {"height", size.height},
                                {"resources", count},
                                {"base_ms", base},
                                {"a_per_resource_ms", perResource - base},
                                {"b_batched_ms", batched - base},
                                {"c_pixel_pack_ms", packPath - base},
                                {"d_readpixels_memcpy_ms", readPixels - base}});
        }
    }
    std::printf("\nhandoff cost per frame (ms over the GL-only frame; median of %d)\n",
                settings.frames);
    printTable({"size", "resources", "GL-only frame", "(a) map/unmap each", "(b) one batched",
                "(c) pixel-pack + upload", "(d) readPixels + memcpy"},
               rows);
    json["handoff"] = handoffs;

    // --- the engine's own handoff: the G-buffer + output, through the frame ---
    rows.clear();
    nlohmann::json engine = nlohmann::json::array();
    auto mesh = io::loadMesh(dataRoot() / "assets" / "sample.ply");
    if (!mesh)
        throw Error(mesh.error());
    render::Scene scene;
    scene.objects.push_back({"sample", std::move(mesh.value())});
    render::GpuScene gpuMesh(scene, "sample");
    render::OrbitController controller;
    controller.fit(gpuMesh.bounds());
    const render::Camera camera = controller.camera();
    const frame::Residence residence =
        makeResidence(settings, *context, postfx::BackendChoice::Cuda);
    profile::ProfilerOptions off;
    off.enabled = false;
    profile::Profiler quiet(off);
    const postfx::Chain none;
    for (const Size& size : BenchSizes) {
        render::SceneRenderer renderer(size.width, size.height, render::ColorFormat::Rgba8, true);
        frame::Frame frame(renderer, residence, quiet);
        auto render = [&] {
            frame.render(gpuMesh, camera, none, frame::Channel::Color, render::GeometryOptions{});
        };
        auto finishFrame = [&] {
            glFinish();
            frame.synchronize();
        };
        const double base = timeFrames(settings, render, finishFrame);
        HandoffProbe probe(renderer.gbuffer());
        Registration added = frame.addPass(probe);
        const double withHandoff = timeFrames(settings, render, finishFrame);
        added.reset();
        rows.push_back({size.name, "5", ms(base), ms(withHandoff - base)});
        engine.push_back({{"size", size.name},
                          {"resources", 5},
                          {"geometry_ms", base},
                          {"handoff_ms", withHandoff - base}});
    }
    std::printf("\nthe engine's handoff (the frame's one map+unmap of the G-buffer + output, "
                "sample mesh)\n");
    printTable({"size", "resources", "frame without", "handoff"}, rows);
    json["engine_handoff"] = engine;

    // --- post-process stages (the profiler's CUDA spans) against a copy of the same bytes ---
    rows.clear();
    nlohmann::json stages = nlohmann::json::array();
    for (const Size& size : BenchSizes) {
        const std::size_t pixels = static_cast<std::size_t>(size.width) * size.height;
        render::SceneRenderer renderer(size.width, size.height, render::ColorFormat::Rgba8, true);
        profile::Profiler profiler;
        frame::Frame frame(renderer, residence, profiler);
        cuda::DeviceBuffer<std::uint8_t> copyFrom(pixels * 64), copyTo(pixels * 64);
        cuda::Event start, stop;
        const auto descriptors = postfx::stageDescriptors();
        for (int kind = 0; kind < static_cast<int>(descriptors.size()); ++kind) {
            const postfx::StageDescriptor& d = descriptors[static_cast<std::size_t>(kind)];
            postfx::Chain chain;
            chain.stages.push_back(postfx::Stage::make(kind));
            std::vector<double> stageMs;
            for (int i = 0; i < settings.warmup + settings.frames; ++i) {
                profiler.beginFrame();
                frame.render(gpuMesh, camera, chain, frame::Channel::Output,
                             render::GeometryOptions{});
                profiler.endFrame();
                profiler.flush(); // waits: a benchmark measuring kernels, not a frame loop
                for (const auto& record : profiler.takeFrames())
                    for (const auto& span : record.spans)
                        if (span.api == profile::Api::Cuda && std::string(span.name) == d.name &&
                            i >= settings.warmup)
                            stageMs.push_back(span.endMs - span.startMs);
            }
            const std::size_t bytes = pixels * static_cast<std::size_t>(bytesPerPixel(d));
            std::vector<double> copyMs;
            for (int i = 0; i < settings.warmup + settings.frames; ++i) {
                start.record(stream.get());
                // A copy of bytes/2 reads bytes/2 and writes bytes/2: the same traffic.
                TANDEM_CUDA_CHECK(cudaMemcpyAsync(copyTo.data(), copyFrom.data(), bytes / 2,
                                                  cudaMemcpyDeviceToDevice, stream.get()));
                stop.record(stream.get());
                stop.synchronize();
                float elapsed = 0;
                TANDEM_CUDA_CHECK(cudaEventElapsedTime(&elapsed, start.get(), stop.get()));
                if (i >= settings.warmup)
                    copyMs.push_back(elapsed);
            }
            const double stageMedian = median(stageMs);
            const double copyMedian = median(copyMs);
            const double gbps = bytes / (stageMedian * 1e-3) / 1e9;
            rows.push_back({size.name, d.name, std::to_string(bytesPerPixel(d)), ms(stageMedian),
                            ms(copyMedian), fmt::format("{:.0f}", gbps),
                            fmt::format("{:.0f}%", 100.0 * copyMedian / stageMedian)});
            stages.push_back({{"size", size.name},
                              {"stage", d.name},
                              {"bytes_per_pixel", bytesPerPixel(d)},
                              {"kernel_ms", stageMedian},
                              {"copy_same_bytes_ms", copyMedian},
                              {"effective_gb_per_s", gbps},
                              {"fraction_of_copy", copyMedian / stageMedian}});
        }
    }
    std::printf(
        "\npost-process stages (CUDA events; copy = cudaMemcpy D2D moving the same bytes)\n");
    printTable({"size", "stage", "B/pixel", "kernel ms", "copy ms", "GB/s", "of copy"}, rows);
    json["stages"] = stages;
    return writeJson(settings, json) ? 0 : 1;
}

} // namespace tandem::bench
