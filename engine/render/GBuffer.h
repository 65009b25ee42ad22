// The geometry pass's targets, all owned by GL: the visibility target (R32UI provoking vertex
// + 1, 0 = background) and depth 32F, rasterized by the visibility pass; colour (RGBA8 or
// RGBA16F), linear depth (R32F view distance, 0 = background; the copy of depth CUDA can read,
// since depth formats cannot be registered), world normal (RGBA16F, w = 1 where covered) and
// primitive id (R32UI, 0 = background), written by the resolve pass; and the post-process
// output (RGBA8). Textures are allocated with headroom and drawn in the top-left width×height
// region, so a window resize within the capacity reallocates (and re-registers) nothing. It owns
// the CUDA registrations of its textures and drops them in the function that reallocates them.
// Render thread only.
//
// The colour target holds linear colour. RGBA16F holds it as halves. RGBA8 holds it
// sRGB-encoded, as GL_SRGB8_ALPHA8 would, but in a plain RGBA8 texture encoded and decoded by
// hand (core/Srgb.h, shaders/common/srgb.glsl): the resolve's image stores and CUDA surfaces
// see raw bytes of either format, and sRGB formats are not among those CUDA documents for
// registering GL images. Why not linear bytes: 8 bits of linear colour band the darks. Of the
// 256 codes of an 8-bit sRGB file, a linear RGBA8 round trip keeps 183: codes 0-17 land on
// linear codes 0 and 1, 18-25 all on 2, so the background #17171C comes back #16161C. Encoded,
// every code comes back exactly (so a frame without a chain shows a file's colours unchanged),
// and RGBA16F's 11 significant bits keep each within 0.04 of a code.
#pragma once

#include <cstdint>

#include "engine/core/EnumTable.h"
#include "engine/gl/Framebuffer.h"
#include "engine/gl/Texture.h"
#include "engine/interop/FrameTextures.h"
#include "engine/interop/Registrations.h"

namespace tandem::render {

/// Storage format of the colour target (linear colour either way).
enum class ColorFormat {
    Rgba8,   ///< sRGB-encoded bytes
    Rgba16F, ///< linear halves
};
/// --color-format's values.
inline constexpr EnumTable<ColorFormat, 2> ColorFormats{
    "colour format",
    {{{ColorFormat::Rgba8, "rgba8", "8 bits a channel, sRGB-encoded"},
      {ColorFormat::Rgba16F, "rgba16f", "16-bit floats a channel, linear"}}}};

/// How a resize grows the textures.
enum class Headroom {
    Exact, ///< allocate exactly the size asked for (headless, fixed size)
    Grow,  ///< allocate 25 % more, rounded up to 64 pixels (windows being resized)
};

/// The G-buffer textures and the framebuffer that binds them.
class GBuffer {
public:
    /// Creates targets for `width`×`height`. Throws GlError if the framebuffer is incomplete.
    GBuffer(int width, int height, ColorFormat colorFormat, Headroom headroom = Headroom::Exact);

    /// Sets the drawn region; reallocates only when it exceeds the capacity or falls below a
    /// quarter of it (dropping the textures' CUDA registrations first). Returns whether the
    /// textures were reallocated.
    bool resize(int width, int height);
    /// Clears the region of the visibility pass's targets: visibility to 0, depth to 1.
    void clearVisibility();

    /// The drawn region.
    int width() const { return m_width; }
    int height() const { return m_height; }
    /// The allocated texture size.
    int capacityWidth() const { return m_color.width(); }
    int capacityHeight() const { return m_color.height(); }

    ColorFormat colorFormat() const { return m_colorFormat; }
    const gl::Texture& color() const { return m_color; }
    const gl::Texture& depth() const { return m_depth; }
    const gl::Texture& linearDepth() const { return m_linearDepth; }
    const gl::Texture& normal() const { return m_normal; }
    const gl::Texture& id() const { return m_id; }
    const gl::Texture& visibility() const { return m_visibility; }
    const gl::Texture& output() const { return m_output; }
    gl::Texture& color() { return m_color; }
    gl::Texture& linearDepth() { return m_linearDepth; }
    gl::Texture& normal() { return m_normal; }
    gl::Texture& id() { return m_id; }
    gl::Texture& output() { return m_output; }
    const gl::Framebuffer& framebuffer() const { return m_framebuffer; }

    /// The targets post-processing reads and writes, with their registrations.
    interop::FrameTextures frameTextures();
    /// The CUDA registrations of these textures (made by the frame's handoff).
    interop::Registrations& registrations() { return m_registrations; }
    /// Whether any texture is currently mapped into CUDA (GL must not touch them then).
    bool isMappedByCuda() const { return m_registrations.isMapped(); }

private:
    void create(int width, int height);

    ColorFormat m_colorFormat;
    Headroom m_headroom;
    int m_width = 0;
    int m_height = 0;
    gl::Texture m_color{gl::NoCreate};
    gl::Texture m_depth{gl::NoCreate};
    gl::Texture m_linearDepth{gl::NoCreate};
    gl::Texture m_normal{gl::NoCreate};
    gl::Texture m_id{gl::NoCreate};
    gl::Texture m_visibility{gl::NoCreate};
    gl::Texture m_output{gl::NoCreate};
    gl::Framebuffer m_framebuffer{gl::NoCreate};
    /// After the textures: unregistered before they are deleted.
    interop::Registrations m_registrations;
};

} // namespace tandem::render
