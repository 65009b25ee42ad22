#include "engine/postfx/PostProcessor.h"

#include <fmt/format.h>

#include "engine/gl/Debug.h"

#ifdef TANDEM_HAS_CUDA
#include "engine/postfx/CudaBackend.h"
#else
namespace tandem::postfx {
/// Builds without CUDA never create one; the definition only completes the type.
class CudaBackend {};
} // namespace tandem::postfx
#endif

namespace tandem::postfx {

Result<BackendChoice> parseBackendChoice(const std::string& text)
{
    if (text == "auto")
        return BackendChoice::Auto;
    if (text == "cuda")
        return BackendChoice::Cuda;
    if (text == "host")
        return BackendChoice::Host;
    return fail("--backend: expected auto, cuda or host, got '" + text + "'");
}

Result<std::unique_ptr<PostProcessor>> PostProcessor::create(BackendChoice choice,
                                                             const interop::InteropStatus& doctor)
{
    std::unique_ptr<PostProcessor> processor(new PostProcessor());
    if (choice == BackendChoice::Host) {
        processor->m_description = "host backend (asked for with --backend host)";
        return processor;
    }
    if (doctor.path != interop::Path::Cuda) {
        if (choice == BackendChoice::Cuda)
            return fail("--backend cuda cannot be used: " + doctor.reason);
        processor->m_description = "host backend: " + doctor.reason;
        return processor;
    }
#ifdef TANDEM_HAS_CUDA
    processor->m_cuda = std::make_unique<CudaBackend>();
    processor->m_path = interop::Path::Cuda;
    processor->m_description =
        fmt::format("CUDA backend: {}; one handoff (map+unmap) measured {:.0f} us at start-up",
                    doctor.reason, doctor.handoffMicroseconds);
    return processor;
#else
    return fail("the interop doctor chose CUDA in a build without it");
#endif
}

PostProcessor::~PostProcessor() = default;

void PostProcessor::releaseTextures()
{
#ifdef TANDEM_HAS_CUDA
    if (m_cuda)
        m_cuda->releaseRegistrations();
#endif
}

void PostProcessor::run(const Chain& chain, const FrameInfo& frame,
                        const interop::FrameTextures& textures, StageHooks* hooks)
{
    // Named like the profiler's span, for RenderDoc and Nsight.
    gl::DebugGroup group("handoff");
#ifdef TANDEM_HAS_CUDA
    if (m_cuda) {
        m_cuda->run(chain, frame, textures, hooks);
        return;
    }
#endif
    m_host.run(chain, frame, textures, hooks);
}

} // namespace tandem::postfx
