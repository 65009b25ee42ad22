// The G-buffer's targets read back to the host as they are stored (blocking: tests only), rows
// bottom first, for tests that compare what passes wrote. Needs a current GL context.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/render/GBuffer.h"
#include "engine/render/PointSplat.h"

namespace tandem::test {

struct GBufferPixels {
    int width = 0, height = 0;
    bool colorIsHalf = false;
    std::vector<std::uint8_t> color;   ///< RGBA8, or RGBA16F halves as bytes
    std::vector<std::uint16_t> normal; ///< RGBA16F halves
    std::vector<float> depth;          ///< linear view depth
    std::vector<std::uint32_t> id;     ///< primitive id + 1, points marked with PointIdBit
    bool isPoint(std::size_t i) const { return (id[i] & render::PointIdBit) != 0; }
};

/// Elements of `a` and `b` that differ in any bit (all of `b`'s beyond a size mismatch).
template <class T> std::size_t differingElements(const std::vector<T>& a, const std::vector<T>& b)
{
    std::size_t n = a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
        n += std::memcmp(&a[i], &b[i], sizeof(T)) != 0 ? 1 : 0;
    return n;
}

/// Expects `a` and `b` to hold the same bits in every target (CUDA against its host twin).
inline void expectBitExact(const GBufferPixels& a, const GBufferPixels& b, const std::string& what)
{
    EXPECT_EQ(differingElements(a.color, b.color), 0u) << what << ": colour bytes differ";
    EXPECT_EQ(differingElements(a.normal, b.normal), 0u) << what << ": normal halves differ";
    EXPECT_EQ(differingElements(a.depth, b.depth), 0u) << what << ": depths differ";
    EXPECT_EQ(differingElements(a.id, b.id), 0u) << what << ": ids differ";
}

inline GBufferPixels readGBuffer(const render::GBuffer& g)
{
    GBufferPixels t;
    t.width = g.width();
    t.height = g.height();
    t.colorIsHalf = g.colorFormat() == render::ColorFormat::Rgba16F;
    const std::size_t n = static_cast<std::size_t>(t.width) * t.height;
    t.color.resize(n * (t.colorIsHalf ? 8 : 4));
    t.normal.resize(n * 4);
    t.depth.resize(n);
    t.id.resize(n);
    glGetTextureSubImage(g.color().id(), 0, 0, 0, 0, t.width, t.height, 1, GL_RGBA,
                         t.colorIsHalf ? GL_HALF_FLOAT : GL_UNSIGNED_BYTE,
                         static_cast<GLsizei>(t.color.size()), t.color.data());
    glGetTextureSubImage(g.normal().id(), 0, 0, 0, 0, t.width, t.height, 1, GL_RGBA, GL_HALF_FLOAT,
                         static_cast<GLsizei>(n * 8), t.normal.data());
    glGetTextureSubImage(g.linearDepth().id(), 0, 0, 0, 0, t.width, t.height, 1, GL_RED, GL_FLOAT,
                         static_cast<GLsizei>(n * 4), t.depth.data());
    glGetTextureSubImage(g.id().id(), 0, 0, 0, 0, t.width, t.height, 1, GL_RED_INTEGER,
                         GL_UNSIGNED_INT, static_cast<GLsizei>(n * 4), t.id.data());
    return t;
}

} // namespace tandem::test
