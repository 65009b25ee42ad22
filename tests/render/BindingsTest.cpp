// The binding numbers in shaders/common/bindings.glsl and engine/render/Bindings.h agree, and
// each GLSL name is defined once.
#include "engine/render/Bindings.h"

#include <fstream>
#include <map>
#include <regex>
#include <string>

#include <gtest/gtest.h>

namespace tandem::render {
namespace {

TEST(Bindings, GlslAndCppAgree)
{
    std::ifstream file(std::string(TANDEM_SOURCE_DIR) + "/shaders/common/bindings.glsl");
    ASSERT_TRUE(file) << "cannot open bindings.glsl";
    std::map<std::string, int> glsl;
    const std::regex define(R"(^\s*#define\s+(TANDEM_\w+)\s+(\d+)\s*$)");
    std::string line;
    while (std::getline(file, line)) {
        std::smatch m;
        if (std::regex_match(line, m, define)) {
            EXPECT_EQ(glsl.count(m[1]), 0u) << m[1] << " defined twice";
            glsl[m[1]] = std::stoi(m[2]);
        }
    }
    const std::map<std::string, std::uint32_t> cpp = {
        {"TANDEM_UBO_CAMERA", binding::UboCamera},
        {"TANDEM_UBO_PRESENT", binding::UboPresent},
        {"TANDEM_UBO_COMPARE", binding::UboCompare},
        {"TANDEM_TEX_COMPARE_A", binding::TexCompareA},
        {"TANDEM_TEX_COMPARE_B", binding::TexCompareB},
        {"TANDEM_TEX_SCENE_TEXTURE", binding::TexSceneTexture},
        {"TANDEM_TEX_GBUFFER_COLOR", binding::TexGBufferColor},
        {"TANDEM_TEX_GBUFFER_DEPTH", binding::TexGBufferDepth},
        {"TANDEM_TEX_GBUFFER_NORMAL", binding::TexGBufferNormal},
        {"TANDEM_TEX_GBUFFER_ID", binding::TexGBufferId},
        {"TANDEM_TEX_OUTPUT", binding::TexOutput},
        {"TANDEM_ATTR_POSITION", binding::AttrPosition},
        {"TANDEM_ATTR_NORMAL", binding::AttrNormal},
        {"TANDEM_ATTR_COLOR", binding::AttrColor},
        {"TANDEM_ATTR_TEXCOORD", binding::AttrTexcoord},
        {"TANDEM_IMAGE_COLOR", binding::ImageColor},
        {"TANDEM_IMAGE_NORMAL", binding::ImageNormal},
        {"TANDEM_IMAGE_DEPTH", binding::ImageDepth},
        {"TANDEM_IMAGE_ID", binding::ImageId},
        {"TANDEM_SSBO_VERTICES", binding::SsboVertices},
        {"TANDEM_SSBO_INDICES", binding::SsboIndices},
        {"TANDEM_SSBO_PROVOKING_OFFSETS", binding::SsboProvokingOffsets},
        {"TANDEM_SSBO_PROVOKING_TRIANGLES", binding::SsboProvokingTriangles},
        {"TANDEM_SSBO_OBJECTS", binding::SsboObjects},
        {"TANDEM_SSBO_CLIP_POSITIONS", binding::SsboClipPositions},
        {"TANDEM_SSBO_CLIP_TRIANGLES", binding::SsboClipTriangles},
        {"TANDEM_SSBO_CLIP_OUTPUT", binding::SsboClipOutput},
        {"TANDEM_OUT_ID", binding::OutId},
    };
    EXPECT_EQ(glsl.size(), cpp.size()) << "every GLSL binding has a C++ mirror and back";
    for (const auto& [name, value] : cpp) {
        ASSERT_EQ(glsl.count(name), 1u) << name << " missing from bindings.glsl";
        EXPECT_EQ(glsl[name], static_cast<int>(value)) << name;
    }
}

} // namespace
} // namespace tandem::render
