// Binding points shared with the shaders: the C++ mirror of shaders/common/bindings.glsl.
// BindingsTest checks that both files agree; change them together.
#pragma once

#include <cstdint>

namespace tandem::render::binding {

// Uniform buffers
inline constexpr std::uint32_t UboCamera = 0;
inline constexpr std::uint32_t UboPresent = 1;
inline constexpr std::uint32_t UboCompare = 2;

// Texture units
inline constexpr std::uint32_t TexGBufferColor = 0;
inline constexpr std::uint32_t TexGBufferDepth = 1;
inline constexpr std::uint32_t TexGBufferNormal = 2;
inline constexpr std::uint32_t TexGBufferId = 3;
inline constexpr std::uint32_t TexOutput = 4;
inline constexpr std::uint32_t TexCompareA = 5;
inline constexpr std::uint32_t TexCompareB = 6;
inline constexpr std::uint32_t TexSceneTexture = 7;

// Image units (the resolve pass writes the G-buffer's attribute targets)
inline constexpr std::uint32_t ImageColor = 0;
inline constexpr std::uint32_t ImageNormal = 1;
inline constexpr std::uint32_t ImageDepth = 2;
inline constexpr std::uint32_t ImageId = 3;

// Shader storage buffers (the resolve pass reads the scene)
inline constexpr std::uint32_t SsboVertices = 0;
inline constexpr std::uint32_t SsboIndices = 1;
inline constexpr std::uint32_t SsboProvokingOffsets = 2;
inline constexpr std::uint32_t SsboProvokingTriangles = 3;
inline constexpr std::uint32_t SsboObjects = 4;
// (render::ClipRaster: rasterizing clip-space positions given as tensors)
inline constexpr std::uint32_t SsboClipPositions = 5;
inline constexpr std::uint32_t SsboClipTriangles = 6;
inline constexpr std::uint32_t SsboClipOutput = 7;

// Vertex attributes
inline constexpr std::uint32_t AttrPosition = 0;
inline constexpr std::uint32_t AttrNormal = 1;
inline constexpr std::uint32_t AttrColor = 2;
inline constexpr std::uint32_t AttrTexcoord = 3;

// Visibility pass output: the provoking vertex + 1 (its only colour attachment)
inline constexpr std::uint32_t OutId = 0;

} // namespace tandem::render::binding
