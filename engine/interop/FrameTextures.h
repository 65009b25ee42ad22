// The GL textures of one frame that post-processing reads and writes, as interop sees them:
// the G-buffer targets and the output, the drawn region, and a generation that changes when
// they are reallocated. Plain pointers; the owner (render::GBuffer) outlives each use. No GL
// include, so CUDA sources can take it.
#pragma once

#include <cstdint>

namespace tandem::gl {
class Texture;
}

namespace tandem::interop {

struct FrameTextures {
    gl::Texture* color = nullptr;  ///< RGBA8 or RGBA16F (colorIsHalf), read
    gl::Texture* depth = nullptr;  ///< R32F linear depth (0 = background), read
    gl::Texture* normal = nullptr; ///< RGBA16F world normal, read
    gl::Texture* id = nullptr;     ///< R32UI primitive id + 1, read
    gl::Texture* output = nullptr; ///< RGBA8, fully overwritten
    int width = 0;                 ///< drawn region, pixels (≤ texture size)
    int height = 0;
    std::uint64_t generation = 0; ///< changes when the textures are reallocated
    bool colorIsHalf = false;     ///< colour is RGBA16F rather than RGBA8
};

} // namespace tandem::interop
