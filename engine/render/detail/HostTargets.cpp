#include "engine/render/detail/HostTargets.h"

#include "engine/gl/Debug.h"
#include "engine/gl/Texture.h"
#include "engine/interop/FrameTextures.h"

namespace tandem::render::detail {

void HostTargets::upload(const interop::FrameTextures& t, int width, int height,
                         const char* group) const
{
    gl::DebugGroup debug(group);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    const auto put = [&](const gl::Texture& texture, const void* data) {
        const gl::PixelTransfer transfer = gl::pixelTransferOf(texture.internalFormat());
        glTextureSubImage2D(texture.id(), 0, 0, 0, width, height, transfer.format, transfer.type,
                            data);
    };
    put(*t.color, color.data());
    put(*t.depth, depth.data());
    put(*t.normal, normal.data());
    put(*t.id, id.data());
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    gl::check(group);
}

} // namespace tandem::render::detail
