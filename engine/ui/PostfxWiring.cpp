#include "engine/ui/PostfxWiring.h"

#include <cmath>

#include <glm/glm.hpp>

#include "engine/cuda/Device.h"

namespace tandem::ui {

CudaChoice chooseCudaDevice(postfx::BackendChoice choice, int requested)
{
    CudaChoice result;
    if (choice == postfx::BackendChoice::Host) {
        result.error = "host backend asked for";
        return result;
    }
    auto device = cuda::selectDevice(requested);
    if (device)
        result.device = device.value().index;
    else
        result.error = device.error();
    return result;
}

Result<PostfxSetup> setUpPostfx(postfx::BackendChoice choice, const CudaChoice& cuda,
                                const platform::Context& context)
{
    PostfxSetup setup;
    setup.doctor = interop::diagnose(cuda.device, cuda.error, context.cudaDevice());
    auto processor = postfx::PostProcessor::create(choice, setup.doctor);
    if (!processor)
        return fail(processor.error());
    setup.processor = std::move(processor.value());
    return setup;
}

interop::FrameTextures frameTextures(render::GBuffer& g)
{
    interop::FrameTextures t;
    t.color = &g.color();
    t.depth = &g.linearDepth();
    t.normal = &g.normal();
    t.id = &g.id();
    t.output = &g.output();
    t.width = g.width();
    t.height = g.height();
    t.generation = g.generation();
    t.colorIsHalf = g.colorFormat() == render::ColorFormat::Rgba16F;
    return t;
}

postfx::FrameInfo frameInfo(const render::OrbitCamera& camera, int width, int height)
{
    const glm::mat4 view = camera.view();
    // glm is column-major: view[c][r]. FrameInfo wants the rotation row-major.
    float rotation[9];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            rotation[r * 3 + c] = view[c][r];
    return postfx::makeFrameInfo(width, height, camera.nearPlane(), camera.farPlane(),
                                 std::tan(glm::radians(camera.fovY()) * 0.5f), rotation);
}

} // namespace tandem::ui
