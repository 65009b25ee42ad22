// Post-processing as the apps use it: picks the CUDA or host backend (--backend auto|cuda|host)
// from the interop doctor's verdict, says why once, and runs the chain each frame into the
// output texture. Render thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/Result.h"
#include "engine/interop/Doctor.h"
#include "engine/interop/FrameTextures.h"
#include "engine/interop/HostTransfer.h"
#include "engine/postfx/Chain.h"
#include "engine/postfx/HostBackend.h"
#include "engine/postfx/PixelStages.h"

namespace tandem::postfx {

class CudaBackend;

/// What the user asked for.
enum class BackendChoice { Auto, Cuda, Host };

/// Parses "auto", "cuda", "host".
Result<BackendChoice> parseBackendChoice(const std::string& text);

class PostProcessor {
public:
    /// Chooses the backend: Host when asked or when the doctor found interop unusable (Auto);
    /// an explicit Cuda that cannot be honoured fails with the doctor's reason.
    static Result<std::unique_ptr<PostProcessor>> create(BackendChoice choice,
                                                         const interop::InteropStatus& doctor);
    ~PostProcessor();

    /// Runs `chain` on `textures` into the output texture. CUDA: does not block; host: blocks.
    /// `hooks`, if given, hear about the handoff and every stage (for timing).
    void run(const Chain& chain, const FrameInfo& frame, const interop::FrameTextures& textures,
             StageHooks* hooks = nullptr);

    /// Drops GPU registrations of the textures it was given; call before they are destroyed
    /// (a new G-buffer), so registrations never outlive their GL objects.
    void releaseTextures();

    /// For frames being captured by a tool that does not see CUDA's writes (RenderDoc): the
    /// next run also copies the CUDA output to host memory and uploads it into the output
    /// texture through GL, so the capture replays the image the user saw. A blocking copy:
    /// only on captured frames. The host backend uploads through GL anyway.
    void setCaptureFaithful(bool enabled) { m_captureFaithful = enabled; }

    interop::Path path() const { return m_path; }
    /// One sentence: which backend and why.
    const std::string& description() const { return m_description; }

    HostBackend& host() { return m_host; }
    /// The CUDA backend, or null on the host path.
    CudaBackend* cuda() { return m_cuda.get(); }

private:
    PostProcessor() = default;

    interop::Path m_path = interop::Path::Host;
    std::string m_description;
    HostBackend m_host;
    std::unique_ptr<CudaBackend> m_cuda;
    bool m_captureFaithful = false;
    interop::HostTransfer m_captureUpload;
    std::vector<std::uint8_t> m_captureCopy;
};

} // namespace tandem::postfx
