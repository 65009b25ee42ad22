#include "engine/postfx/PostProcessor.h"

#include <fmt/format.h>

#include "engine/gl/Debug.h"
#include "engine/interop/HostTransfer.h"

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

namespace {

/// Forwards a backend's events and names each stage as a KHR_debug group in the GL stream
/// (empty for CUDA and host stages, but RenderDoc and Nsight show the structure with the
/// profiler's names).
class DebugGroupHooks final : public StageHooks {
public:
    explicit DebugGroupHooks(StageHooks* inner) : m_inner(inner) {}
    void beginHandoff() override
    {
        if (m_inner)
            m_inner->beginHandoff();
    }
    void anchorHandoff(void* stream) override
    {
        if (m_inner)
            m_inner->anchorHandoff(stream);
    }
    void endHandoff() override
    {
        if (m_inner)
            m_inner->endHandoff();
    }
    void beginStage(const char* name, void* stream) override
    {
        glPushDebugGroup(GL_DEBUG_SOURCE_APPLICATION, 0, -1, name);
        if (m_inner)
            m_inner->beginStage(name, stream);
    }
    void endStage(const char* name, void* stream) override
    {
        if (m_inner)
            m_inner->endStage(name, stream);
        glPopDebugGroup();
    }

private:
    StageHooks* m_inner;
};

} // namespace

void PostProcessor::run(const Chain& chain, const FrameInfo& frame,
                        const interop::FrameTextures& textures, StageHooks* hooks)
{
    // Named like the profiler's span, for RenderDoc and Nsight.
    gl::DebugGroup group("handoff");
    DebugGroupHooks named(hooks);
#ifdef TANDEM_HAS_CUDA
    if (m_cuda) {
        if (!m_captureFaithful) {
            m_cuda->run(chain, frame, textures, &named);
            return;
        }
        m_cuda->run(chain, frame, textures, &named, &m_captureCopy);
        gl::DebugGroup upload("handoff.capture-upload");
        m_captureUpload.upload(textures, m_captureCopy.data());
        return;
    }
#endif
    m_host.run(chain, frame, textures, &named);
}

} // namespace tandem::postfx
