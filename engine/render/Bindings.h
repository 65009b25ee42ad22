// Binding points shared with the shaders: the C++ mirror of shaders/common/bindings.glsl.
// BindingsTest checks that both files agree; change them together.
#pragma once

#include <cstdint>

namespace tandem::render::binding {

// Uniform buffers
inline constexpr std::uint32_t UboCamera = 0;
inline constexpr std::uint32_t UboPresent = 1;

// Texture units
inline constexpr std::uint32_t TexGBufferColor = 0;
inline constexpr std::uint32_t TexGBufferDepth = 1;
inline constexpr std::uint32_t TexGBufferNormal = 2;
inline constexpr std::uint32_t TexGBufferId = 3;
inline constexpr std::uint32_t TexOutput = 4;

// Vertex attributes
inline constexpr std::uint32_t AttrPosition = 0;
inline constexpr std::uint32_t AttrNormal = 1;
inline constexpr std::uint32_t AttrColor = 2;
inline constexpr std::uint32_t AttrTexcoord = 3;

// Geometry pass outputs (G-buffer colour attachments)
inline constexpr std::uint32_t OutColor = 0;
inline constexpr std::uint32_t OutNormal = 1;
inline constexpr std::uint32_t OutId = 2;
inline constexpr std::uint32_t OutDepth = 3;

} // namespace tandem::render::binding
