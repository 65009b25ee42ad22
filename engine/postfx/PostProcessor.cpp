#include "engine/postfx/PostProcessor.h"

#include <fmt/format.h>

#include "engine/cuda/Device.h"
#include "engine/postfx/HostBackend.h"

#ifdef TANDEM_HAS_CUDA
#include "engine/postfx/CudaBackend.h"
#endif

namespace tandem::postfx {

/// The chain on CPU threads: read back, process, upload (blocks; the read-back is a counted
/// stall by design of this path).
class PostProcessor::HostPass final : public interop::Pass {
public:
    explicit HostPass(const PostProcessor& owner) : m_owner(owner) {}
    const char* name() const override { return "postfx"; }
    bool isEnabled() const override { return m_owner.m_enabled; }
    interop::Path path() const override { return interop::Path::Host; }
    void run(const interop::MappedView*, interop::PassHooks& hooks) override
    {
        m_backend.run(m_owner.m_prepared, m_owner.m_textures, &hooks);
    }

private:
    const PostProcessor& m_owner;
    HostBackend m_backend;
};

#ifdef TANDEM_HAS_CUDA
/// The chain as kernels inside the frame's handoff.
class PostProcessor::CudaPass final : public interop::Pass {
public:
    explicit CudaPass(const PostProcessor& owner) : m_owner(owner) {}
    const char* name() const override { return "postfx"; }
    bool isEnabled() const override { return m_owner.m_enabled; }
    interop::Path path() const override { return interop::Path::Cuda; }
    void declare(interop::Uses& uses) override
    {
        m_refs = CudaBackend::declare(uses, m_owner.m_textures);
    }
    void run(const interop::MappedView* view, interop::PassHooks& hooks) override
    {
        m_backend.run(m_owner.m_prepared, m_owner.m_textures, m_refs, *view, &hooks);
    }

private:
    const PostProcessor& m_owner;
    CudaBackend m_backend;
    CudaBackend::Refs m_refs;
};
#endif

PostProcessor::PostProcessor(interop::Path path) : m_path(path)
{
    TANDEM_ASSERT(supports(path), "postfx::PostProcessor: CUDA passes in a build without CUDA");
#ifdef TANDEM_HAS_CUDA
    if (path == interop::Path::Cuda) {
        m_pass = std::make_unique<CudaPass>(*this);
        return;
    }
#endif
    m_pass = std::make_unique<HostPass>(*this);
}

bool PostProcessor::supports(interop::Path path)
{
    return path == interop::Path::Host || cuda::isBuiltWithCuda();
}

PostProcessor::~PostProcessor() = default;

void PostProcessor::setFrame(const Chain& chain, const FrameInfo& frame,
                             const interop::FrameTextures& textures, bool writeOutput)
{
    m_prepared.prepare(chain, frame);
    m_textures = textures;
    m_enabled = writeOutput || !m_prepared.entries().empty();
}

interop::Pass& PostProcessor::pass()
{
    return *m_pass;
}

} // namespace tandem::postfx
