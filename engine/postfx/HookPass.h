// A post-process stage written outside the engine (in PyTorch, through the Python package):
// each frame, after the chain, the G-buffer is handed to a function as images — on the CUDA
// path copied out of the frame's mapped textures inside its one handoff, on the frame's stream;
// on the host path read back — and the output image, which the function may overwrite, goes
// back into the frame's output. Colour as the targets hold it: "color" is linear colour, stored
// sRGB-encoded in RGBA8 (the file's bytes for an unlit point; decode to compute with it) or as
// half floats in RGBA16F; "output" is the chain's result, sRGB-encoded, and what the function
// leaves there is presented as it is. Rows bottom first, as GL stores them. Its own stage
// ("hook") in the overlay, the trace and captures. Render thread.
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "engine/interop/FrameTextures.h"
#include "engine/interop/Pass.h"

namespace tandem::postfx {

/// An element type of a hook image.
enum class HookType {
    UInt8,   ///< colour (RGBA8: linear colour, sRGB-encoded), output (sRGB)
    Float16, ///< colour (RGBA16F: linear colour), normal
    Float32, ///< depth
    Int32,   ///< id (the R32UI bits; points have bit 31 set)
};

/// One G-buffer image as the hook sees it: `height` rows of `width` × `channels` elements,
/// packed, row 0 at the bottom. Valid only during the call.
struct HookImage {
    const char* name = ""; ///< "color", "depth", "normal", "id", "output"
    void* data = nullptr;  ///< device memory on the CUDA path, host memory on the host path
    int width = 0;
    int height = 0;
    int channels = 1;
    HookType type = HookType::UInt8;
    bool onDevice = false;
    bool writable = false; ///< only "output": written back after the call
};

class HookPass final : public interop::Pass {
public:
    /// The function gets the images and the stream its work must go on (a cudaStream_t on the
    /// CUDA path, null on the host path). It may throw; the frame unmaps and rethrows.
    using Function = std::function<void(const std::vector<HookImage>& images, void* stream)>;

    /// A hook on `path` (the frame's: CUDA passes need the CUDA path).
    HookPass(Function function, interop::Path path);
    ~HookPass() override;
    HookPass(const HookPass&) = delete;
    HookPass& operator=(const HookPass&) = delete;

    /// This frame's textures (the frame's G-buffer). Call before the frame renders.
    void setFrame(const interop::FrameTextures& textures) { m_textures = textures; }

    const char* name() const override { return "hook"; }
    bool isEnabled() const override { return static_cast<bool>(m_function); }
    interop::Path path() const override { return m_path; }
    void declare(interop::Uses& uses) override;
    void run(const interop::MappedView* view, interop::PassHooks& hooks) override;

private:
    struct Staging;
    void runHost(interop::PassHooks& hooks);
    void runCuda(const interop::MappedView& view, interop::PassHooks& hooks);

    Function m_function;
    interop::Path m_path;
    interop::FrameTextures m_textures;
    std::vector<interop::ImageRef> m_refs;
    std::unique_ptr<Staging> m_staging;
};

} // namespace tandem::postfx
