#include "engine/render/detail/HostTargets.h"

#include "engine/interop/HostTransfer.h"

#include "engine/gl/Debug.h"
#include "engine/gl/Texture.h"
#include "engine/interop/FrameTextures.h"

namespace tandem::render::detail {

void HostTargets::assign(const interop::HostFrame& in, std::size_t pixels)
{
    const std::size_t colorBytes = pixels * (in.colorIsHalf ? 8 : 4);
    color.assign(static_cast<const std::uint8_t*>(in.color),
                 static_cast<const std::uint8_t*>(in.color) + colorBytes);
    depth.assign(in.depth, in.depth + pixels);
    normal.assign(in.normal, in.normal + pixels * 4);
    id.assign(in.id, in.id + pixels);
}

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
