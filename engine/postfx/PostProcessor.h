// Post-processing as a frame runs it: the chain as one pass of the frame, on the path the frame
// resides on (frame/Residence.h decides; this only offers its CUDA and host passes). The CUDA
// pass declares the G-buffer (read) and the output (written) and runs inside the frame's
// handoff; the host pass reads back, processes on CPU threads and uploads. Render thread.
#pragma once

#include <memory>
#include <string>

#include "engine/core/EnumTable.h"
#include "engine/core/Result.h"
#include "engine/interop/Doctor.h"
#include "engine/interop/FrameTextures.h"
#include "engine/interop/Pass.h"
#include "engine/postfx/Chain.h"
#include "engine/postfx/PixelStages.h"
#include "engine/postfx/Prepared.h"

namespace tandem::postfx {

/// What the user asked for.
enum class BackendChoice { Auto, Cuda, Host };

/// --backend's values.
inline constexpr EnumTable<BackendChoice, 3> BackendChoices{
    "backend",
    {{{BackendChoice::Auto, "auto", "CUDA when GL-CUDA interop works, else host"},
      {BackendChoice::Cuda, "cuda", "CUDA, an error if it cannot"},
      {BackendChoice::Host, "host", "CPU threads"}}}};

class PostProcessor {
public:
    /// The chain's pass on `path`. Expects supports(path).
    explicit PostProcessor(interop::Path path);
    ~PostProcessor();
    PostProcessor(const PostProcessor&) = delete;
    PostProcessor& operator=(const PostProcessor&) = delete;

    /// Whether this build has the chain's pass on `path` (CUDA: a build with CUDA).
    static bool supports(interop::Path path);

    /// This frame's input: `chain` (read now: its stages are prepared for `frame`), and the
    /// G-buffer it reads and writes. The pass runs when the chain has enabled stages or
    /// `writeOutput` asks for the output anyway (an empty chain then copies the colour). Call
    /// before the frame's passes run.
    void setFrame(const Chain& chain, const FrameInfo& frame,
                  const interop::FrameTextures& textures, bool writeOutput);

    /// The pass that runs the chain: on CUDA inside the frame's handoff, or on the host.
    interop::Pass& pass();

    interop::Path path() const { return m_path; }

private:
    class CudaPass;
    class HostPass;

    interop::Path m_path = interop::Path::Host;
    PreparedChain m_prepared;
    interop::FrameTextures m_textures;
    bool m_enabled = false;
    std::unique_ptr<interop::Pass> m_pass;
};

} // namespace tandem::postfx
