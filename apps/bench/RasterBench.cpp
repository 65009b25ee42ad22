// tandem-bench raster: the engine's geometry pass (four G-buffer targets + depth) and its
// handoff to CUDA for a generated mesh of about 2 million triangles at 1080p and 4K, beside a
// bare draw of the same vertex and index buffers into a plain RGBA8 + depth framebuffer in the
// same run.
#include "RasterBench.h"

#include <cmath>
#include <cstdio>
#include <optional>

#include <fmt/format.h>
#include <glad/gl.h>

#include "engine/gl/Debug.h"
#include "engine/gl/Framebuffer.h"
#include "engine/gl/Program.h"
#include "engine/gl/Texture.h"
#include "engine/render/Bindings.h"
#include "engine/render/GBuffer.h"
#include "engine/render/GeometryPass.h"
#include "engine/render/GpuMesh.h"
#include "engine/render/OrbitCamera.h"
#include "engine/ui/PostfxWiring.h"

#ifdef TANDEM_HAS_CUDA
#include "engine/cuda/Device.h"
#include "engine/cuda/Stream.h"
#include "engine/interop/Registry.h"
#endif

namespace tandem::bench {

namespace {

/// A wavy torus with `triangles` triangles (rounded to a grid), normals and colours.
io::MeshData makeTorus(int triangles)
{
    const int ring = static_cast<int>(std::sqrt(triangles / 2.0) * 1.4);
    const int side = std::max(3, triangles / 2 / ring);
    io::MeshData mesh;
    mesh.positions.reserve(static_cast<std::size_t>(ring) * side);
    for (int i = 0; i < ring; ++i) {
        const float u = 2.0f * 3.14159265f * i / ring;
        for (int j = 0; j < side; ++j) {
            const float v = 2.0f * 3.14159265f * j / side;
            const float r = 0.35f + 0.03f * std::sin(9.0f * u) * std::cos(7.0f * v);
            const glm::vec3 n(std::cos(u) * std::cos(v), std::sin(v), std::sin(u) * std::cos(v));
            mesh.positions.emplace_back(std::cos(u) * (1.0f + r * std::cos(v)), r * std::sin(v),
                                        std::sin(u) * (1.0f + r * std::cos(v)));
            mesh.normals.push_back(n);
            mesh.colors.emplace_back(static_cast<std::uint8_t>(128 + 127 * std::cos(u)),
                                     static_cast<std::uint8_t>(128 + 127 * std::sin(v)), 180, 255);
        }
    }
    for (int i = 0; i < ring; ++i)
        for (int j = 0; j < side; ++j) {
            const auto a = static_cast<std::uint32_t>(i * side + j);
            const auto b = static_cast<std::uint32_t>(((i + 1) % ring) * side + j);
            const auto c = static_cast<std::uint32_t>(((i + 1) % ring) * side + (j + 1) % side);
            const auto d = static_cast<std::uint32_t>(i * side + (j + 1) % side);
            mesh.indices.insert(mesh.indices.end(), {a, b, c, a, c, d});
        }
    return mesh;
}

std::string ms(double v)
{
    return fmt::format("{:.3f}", v);
}

} // namespace

int runRasterBench(const Settings& settings, int triangles)
{
    auto context = makeContext(settings.device);
    std::printf("raster benchmark on %s\n", context->description().c_str());
    const io::MeshData data = makeTorus(triangles);
    render::GpuMesh mesh(data, "bench.torus");
    const double tris = static_cast<double>(mesh.indexCount() / 3);
    std::printf("mesh: %u vertices, %.0f triangles\n", mesh.vertexCount(), tris);
    render::OrbitCamera camera;
    camera.fit(mesh.bounds());
    render::GeometryPass geometry;
    gl::Program bare(
        {{GL_VERTEX_SHADER, "bench/Bare.vert.glsl"}, {GL_FRAGMENT_SHADER, "bench/Bare.frag.glsl"}},
        "bench.bare");
    // Diagnostics: which of the visibility pass's differences from the bare draw cost time.
    gl::Program bareUint({{GL_VERTEX_SHADER, "bench/Bare.vert.glsl"},
                          {GL_FRAGMENT_SHADER, "bench/Bare.frag.glsl", "#define UINT_TARGET\n"}},
                         "bench.bare.uint");
    gl::Program barePrimitiveId(
        {{GL_VERTEX_SHADER, "bench/Bare.vert.glsl"},
         {GL_FRAGMENT_SHADER, "bench/Bare.frag.glsl", "#define PRIMITIVE_ID\n"}},
        "bench.bare.primitive_id");
    gl::Program bareVertexId(
        {{GL_VERTEX_SHADER, "bench/Bare.vert.glsl", "#define FLAT_VERTEX_ID\n"},
         {GL_FRAGMENT_SHADER, "bench/Bare.frag.glsl", "#define FLAT_VERTEX_ID\n"}},
        "bench.bare.vertex_id");
    gl::Buffer cameraBlock(sizeof(render::CameraBlock), nullptr, GL_DYNAMIC_STORAGE_BIT,
                           "bench.camera");
#ifdef TANDEM_HAS_CUDA
    // The handoff column needs a GPU; without one the rest still runs (on llvmpipe, say).
    std::optional<cuda::Stream> stream;
    if (auto device = cuda::selectDevice(settings.device); device)
        stream.emplace();
    else
        std::printf("no CUDA device (%s): handoff not measured\n", device.error().c_str());
#endif
    auto finish = [&] {
        glFinish();
#ifdef TANDEM_HAS_CUDA
        if (stream)
            stream->synchronize();
#endif
    };

    nlohmann::json json = header("raster", settings);
    json["triangles"] = tris;
    json["vertices"] = mesh.vertexCount();
    nlohmann::json results = nlohmann::json::array();
    std::vector<std::vector<std::string>> rows;
    std::vector<std::vector<std::string>> diagnostics;
    for (const Size& size : BenchSizes) {
        render::GBuffer gbuffer(size.width, size.height, render::ColorFormat::Rgba8);
        const double engineMs = timeFrames(
            settings, [&] { geometry.draw(gbuffer, mesh, camera, render::GeometryOptions{}); },
            finish);
        const bool captured = &size == &BenchSizes[0]; // --renderdoc: the first size's frames
        if (captured)
            captureVariant(
                settings, fmt::format("raster-{}-engine", size.name),
                [&] { geometry.draw(gbuffer, mesh, camera, render::GeometryOptions{}); },
                [&] { return readTexture(gbuffer.color()); });
        // Where the engine's time goes: the visibility raster alone (the resolve is the rest).
        const double visibilityMs = timeFrames(
            settings,
            [&] { geometry.drawVisibility(gbuffer, mesh, camera, render::GeometryOptions{}); },
            finish);

        gl::Texture color(GL_RGBA8, size.width, size.height, "bench.bare.color");
        gl::Texture depth(GL_DEPTH_COMPONENT32F, size.width, size.height, "bench.bare.depth");
        gl::Framebuffer framebuffer("bench.bare");
        framebuffer.attach(GL_COLOR_ATTACHMENT0, color);
        framebuffer.attach(GL_DEPTH_ATTACHMENT, depth);
        framebuffer.setDrawBuffers({GL_COLOR_ATTACHMENT0});
        framebuffer.checkComplete();
        const render::CameraBlock block = render::makeCameraBlock(camera, size.width, size.height);
        cameraBlock.write(0, &block, sizeof block);
        auto drawBare = [&](const gl::Program& program, const gl::Framebuffer& target,
                            bool uintTarget) {
            gl::DebugGroup group("bare");
            const float clear[4] = {0, 0, 0, 1};
            const GLuint clearUint[4] = {0, 0, 0, 0};
            const float far = 1.0f;
            if (uintTarget)
                glClearNamedFramebufferuiv(target.id(), GL_COLOR, 0, clearUint);
            else
                glClearNamedFramebufferfv(target.id(), GL_COLOR, 0, clear);
            glClearNamedFramebufferfv(target.id(), GL_DEPTH, 0, &far);
            glBindFramebuffer(GL_FRAMEBUFFER, target.id());
            glViewport(0, 0, size.width, size.height);
            glEnable(GL_DEPTH_TEST);
            glDepthFunc(GL_LESS);
            glBindBufferBase(GL_UNIFORM_BUFFER, render::binding::UboCamera, cameraBlock.id());
            program.use();
            glBindVertexArray(mesh.vertexArray().id());
            glDrawElements(GL_TRIANGLES, static_cast<GLsizei>(mesh.indexCount()), GL_UNSIGNED_INT,
                           nullptr);
            glBindVertexArray(0);
            glBindFramebuffer(GL_FRAMEBUFFER, 0);
        };
        if (captured)
            captureVariant(
                settings, fmt::format("raster-{}-bare", size.name),
                [&] { drawBare(bare, framebuffer, false); }, [&] { return readTexture(color); });
        const double bareMs = timeFrames(
            settings, [&] { drawBare(bare, framebuffer, false); }, finish);
        const double bareUintMs = timeFrames(
            settings, [&] { drawBare(bareUint, gbuffer.framebuffer(), true); }, finish);
        const double barePrimitiveIdMs = timeFrames(
            settings, [&] { drawBare(barePrimitiveId, framebuffer, false); }, finish);
        const double bareVertexIdMs = timeFrames(
            settings, [&] { drawBare(bareVertexId, framebuffer, false); }, finish);

        double handoffMs = -1;
#ifdef TANDEM_HAS_CUDA
        if (stream) {
            interop::Registry registry;
            registry.update(ui::frameTextures(gbuffer));
            const double withHandoff = timeFrames(
                settings,
                [&] {
                    geometry.draw(gbuffer, mesh, camera, render::GeometryOptions{});
                    interop::Handoff handoff(registry, stream->get());
                },
                finish);
            handoffMs = withHandoff - engineMs;
        }
#endif
        gl::check("raster benchmark frame");
        const double engineRate = tris / (engineMs * 1e-3);
        const double bareRate = tris / (bareMs * 1e-3);
        diagnostics.push_back({size.name, ms(bareMs), ms(bareUintMs), ms(barePrimitiveIdMs),
                               ms(bareVertexIdMs), ms(visibilityMs)});
        rows.push_back({size.name, ms(bareMs), ms(engineMs), ms(visibilityMs),
                        ms(engineMs - visibilityMs), fmt::format("{:.0f}", bareRate / 1e6),
                        fmt::format("{:.0f}", engineRate / 1e6),
                        fmt::format("{:.0f}%", 100.0 * engineRate / bareRate),
                        handoffMs >= 0 ? ms(handoffMs) : "n/a"});
        nlohmann::json r = {{"size", size.name},
                            {"width", size.width},
                            {"height", size.height},
                            {"bare_ms", bareMs},
                            {"engine_geometry_ms", engineMs},
                            {"engine_visibility_ms", visibilityMs},
                            {"engine_resolve_ms", engineMs - visibilityMs},
                            {"bare_mtri_per_s", bareRate / 1e6},
                            {"engine_mtri_per_s", engineRate / 1e6},
                            {"engine_rate_fraction", engineRate / bareRate},
                            {"diagnostic_bare_r32ui_ms", bareUintMs},
                            {"diagnostic_bare_primitive_id_ms", barePrimitiveIdMs},
                            {"diagnostic_bare_flat_vertex_id_ms", bareVertexIdMs}};
        if (handoffMs >= 0)
            r["handoff_ms"] = handoffMs;
        results.push_back(r);
    }
    std::printf("\ngeometry pass vs bare draw (median of %d frames, each ended by glFinish)\n",
                settings.frames);
    printTable({"size", "bare ms", "engine ms", "visibility ms", "resolve ms", "bare Mtri/s",
                "engine Mtri/s", "engine/bare rate", "handoff ms"},
               rows);
    std::printf("\nbare draw variants (ms): what the visibility pass adds\n");
    printTable({"size", "bare rgba8", "bare r32ui", "bare + primitive id", "bare + flat vertex id",
                "visibility pass"},
               diagnostics);
    json["results"] = results;
    return writeJson(settings, json) ? 0 : 1;
}

} // namespace tandem::bench
