// The compare pass: two sequences on one timeline and one camera shown as one image. The frame
// is rendered twice (A, then B) and each presented image is copied aside (capture); compose()
// draws them into the present target side by side, split at a divider, or as their difference.
// The images are presented ones, sRGB-encoded, and are copied as they are (nothing decodes or
// encodes again); the difference is of those displayed values. Render thread, GL context current.
#pragma once

#include <string>

#include "engine/core/EnumTable.h"
#include "engine/core/Result.h"
#include "engine/gl/Buffer.h"
#include "engine/gl/Framebuffer.h"
#include "engine/gl/Program.h"
#include "engine/gl/Texture.h"
#include "engine/gl/VertexArray.h"

namespace tandem::render {

enum class CompareMode {
    SideBySide, ///< A left, B right: the middle half of each
    Split,      ///< A left of the divider, B right of it, same pixels
    Difference, ///< |A - B| per channel of the displayed (sRGB) values, scaled by 4
};
/// --compare-mode's values (and the overlay's combo).
inline constexpr EnumTable<CompareMode, 3> CompareModes{
    "compare mode",
    {{{CompareMode::SideBySide, "side", "the middle half of each, side by side"},
      {CompareMode::Split, "split", "split at the divider, draggable in the overlay"},
      {CompareMode::Difference, "difference", "|A - B| x 4"}}}};

class ComparePass {
public:
    /// Compiles the program. Throws GlError on shader errors.
    ComparePass();

    /// Copies the colour of framebuffer `source` (0: the window's back buffer), `width`×`height`,
    /// as image A (`second` false) or B.
    void capture(GLuint source, int width, int height, bool second);
    /// Draws A and B into framebuffer `target` as `mode` says; `divider` in 0..1 of the width.
    void compose(GLuint target, int width, int height, CompareMode mode, float divider);

private:
    struct Image {
        gl::Texture color{gl::NoCreate};
        gl::Framebuffer framebuffer{gl::NoCreate};
    };
    void resize(Image& image, int width, int height, const char* label);

    gl::Program m_program;
    gl::Buffer m_block;
    gl::VertexArray m_emptyVertexArray;
    Image m_a, m_b;
};

} // namespace tandem::render
