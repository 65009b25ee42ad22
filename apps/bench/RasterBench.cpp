// tandem-bench raster: the engine's geometry pass (four G-buffer targets + depth) and its
// handoff to CUDA for a generated mesh of about 2 million triangles at 1080p and 4K, beside a
// bare draw of the same vertex and index buffers into a plain RGBA8 + depth framebuffer in the
// same run.
#include "RasterBench.h"

#include <cmath>
#include <cstdio>

#include <fmt/format.h>
#include <glad/gl.h>

#include "engine/frame/Frame.h"
#include "engine/gl/Debug.h"
#include "engine/gl/Framebuffer.h"
#include "engine/gl/Program.h"
#include "engine/gl/Texture.h"
#include "engine/profile/Profiler.h"
#include "engine/render/Bindings.h"
#include "engine/render/GBuffer.h"
#include "engine/render/GeometryPass.h"
#include "engine/render/GpuScene.h"
#include "engine/render/OrbitController.h"
#include "engine/render/SceneRenderer.h"

namespace tandem::bench {

int runRasterBench(const Settings& settings, int triangles)
{
    auto context = makeContext(settings.device);
    std::printf("raster benchmark on %s\n", context->description().c_str());
    render::Scene scene;
    scene.objects.push_back({"torus", makeTorus(triangles)});
    render::GpuScene mesh(scene, "bench.torus");
    const double tris = static_cast<double>(mesh.triangleCount());
    std::printf("mesh: %u vertices, %.0f triangles\n", mesh.vertexCount(), tris);
    render::OrbitController controller;
    controller.fit(mesh.bounds());
    const render::Camera camera = controller.camera();
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
    // The handoff column needs GL↔CUDA interop; without it the rest still runs (on llvmpipe).
    interop::InteropStatus doctor;
    const frame::Residence residence =
        makeResidence(settings, *context, postfx::BackendChoice::Auto, &doctor);
    if (residence.path != interop::Path::Cuda)
        std::printf("handoff not measured: %s\n", doctor.reason.c_str());
    profile::ProfilerOptions off;
    off.enabled = false;
    profile::Profiler profiler(off);
    frame::Frame* handoffFrame = nullptr; // the frame whose stream finish() waits for
    auto finish = [&] {
        glFinish();
        if (handoffFrame)
            handoffFrame->synchronize();
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
        if (residence.path == interop::Path::Cuda) {
            // The engine's frame with and without one more handoff (the G-buffer and output,
            // as post-processing maps them): the difference is the handoff.
            render::SceneRenderer renderer(size.width, size.height, render::ColorFormat::Rgba8,
                                           true);
            frame::Frame frame(renderer, residence, profiler);
            handoffFrame = &frame;
            const postfx::Chain none;
            auto render = [&] {
                frame.render(mesh, camera, none, frame::Channel::Color, render::GeometryOptions{});
            };
            const double without = timeFrames(settings, render, finish);
            HandoffProbe probe(renderer.gbuffer());
            Registration added = frame.addPass(probe);
            const double with = timeFrames(settings, render, finish);
            added.reset();
            handoffMs = with - without;
            handoffFrame = nullptr;
        }
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
