// Shader #include expansion and the mapping of compiler messages back to file:line.
#include <gtest/gtest.h>

#include "engine/gl/Program.h"
#include "tests/support/TempDir.h"

namespace tandem::gl {
namespace {

TEST(ShaderSource, ExpandsIncludesOnceWithLineDirectives)
{
    test::TempDir dir;
    dir.write("common/a.glsl", "#include \"common/b.glsl\"\nfloat a() { return b(); }\n");
    dir.write("common/b.glsl", "float b() { return 1.0; }\n");
    dir.write("main.frag.glsl", "#version 450 core\n#include \"common/a.glsl\"\n"
                                "#include \"common/b.glsl\"\nvoid main() {}\n");
    const ExpandedSource source = expandShaderSource(dir.path(), "main.frag.glsl");
    EXPECT_TRUE(source.text.starts_with("#version 450 core\n")) << source.text;
    ASSERT_EQ(source.files.size(), 3u);
    EXPECT_EQ(source.files[0], "main.frag.glsl");
    EXPECT_EQ(source.files[1], "common/a.glsl");
    EXPECT_EQ(source.files[2], "common/b.glsl");
    // b.glsl appears once although included twice.
    const auto first = source.text.find("float b()");
    ASSERT_NE(first, std::string::npos);
    EXPECT_EQ(source.text.find("float b()", first + 1), std::string::npos);
    EXPECT_NE(source.text.find("#line 1 2\nfloat b()"), std::string::npos) << source.text;
    EXPECT_NE(source.text.find("#line 4 0\nvoid main()"), std::string::npos) << source.text;
}

TEST(ShaderSource, MissingIncludeNamesTheIncludingLine)
{
    test::TempDir dir;
    dir.write("x.vert.glsl", "#version 450 core\n\n#include \"nowhere.glsl\"\n");
    try {
        expandShaderSource(dir.path(), "x.vert.glsl");
        FAIL() << "expected GlError";
    } catch (const GlError& e) {
        EXPECT_NE(std::string(e.what()).find("x.vert.glsl:3: cannot include \"nowhere.glsl\""),
                  std::string::npos)
            << e.what();
    }
}

TEST(ShaderSource, MissingFile)
{
    test::TempDir dir;
    EXPECT_THROW(expandShaderSource(dir.path(), "absent.glsl"), GlError);
}

TEST(ShaderSource, MapsMesaAndNvidiaLogLines)
{
    const std::vector<std::string> files = {"render/Main.frag.glsl", "common/camera.glsl"};
    EXPECT_EQ(mapShaderLog("1:12(5): error: syntax error\n", files),
              "common/camera.glsl:12:5: error: syntax error\n");
    EXPECT_EQ(mapShaderLog("0(7) : error C1008: undefined variable\n", files),
              "render/Main.frag.glsl:7: error C1008: undefined variable\n");
    EXPECT_EQ(mapShaderLog("other text\n", files), "other text\n");
}

} // namespace
} // namespace tandem::gl
