// The G-buffer textures of one frame that post-processing reads and writes, as interop sees
// them: the targets and the output, the registrations their owner keeps of them, and the drawn
// region. Plain pointers; the owner (render::GBuffer) outlives each use. No GL include, so CUDA
// sources can take it.
#pragma once

namespace tandem::gl {
class Texture;
}

namespace tandem::interop {

class Registrations;

struct FrameTextures {
    gl::Texture* color = nullptr;           ///< RGBA8 or RGBA16F (colorIsHalf), read
    gl::Texture* depth = nullptr;           ///< R32F linear depth (0 = background), read
    gl::Texture* normal = nullptr;          ///< RGBA16F world normal, read
    gl::Texture* id = nullptr;              ///< R32UI primitive id + 1, read
    gl::Texture* output = nullptr;          ///< RGBA8, fully overwritten
    Registrations* registrations = nullptr; ///< the owner's registrations of these textures
    int width = 0;                          ///< drawn region, pixels (≤ texture size)
    int height = 0;
    bool colorIsHalf = false; ///< colour is RGBA16F rather than RGBA8
};

} // namespace tandem::interop
