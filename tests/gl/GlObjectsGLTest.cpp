// GL wrappers on a real (headless EGL) context: creation gives names and labels, moves leave
// id 0 behind, wrap/release round-trip, errors are reported clearly, and no GL error remains.
#include <gtest/gtest.h>

#include "engine/gl/Buffer.h"
#include "engine/gl/Debug.h"
#include "engine/gl/Fence.h"
#include "engine/gl/Framebuffer.h"
#include "engine/gl/Program.h"
#include "engine/gl/Query.h"
#include "engine/gl/Texture.h"
#include "engine/gl/VertexArray.h"
#include "tests/support/GlTestContext.h"
#include "tests/support/TempDir.h"

namespace tandem::gl {
namespace {

class GlObjects : public test::GlTest {};

std::string labelOf(GLenum identifier, GLuint id)
{
    char label[128] = {};
    GLsizei length = 0;
    glGetObjectLabel(identifier, id, sizeof label, &length, label);
    return std::string(label, static_cast<std::size_t>(length));
}

TEST_F(GlObjects, BufferCreateWriteMoveWrapRelease)
{
    Buffer buffer(16, nullptr, GL_DYNAMIC_STORAGE_BIT, "test.buffer");
    ASSERT_NE(buffer.id(), 0u);
    EXPECT_EQ(buffer.size(), 16u);
    EXPECT_EQ(labelOf(GL_BUFFER, buffer.id()), "test.buffer");
    const std::uint32_t data[4] = {1, 2, 3, 4};
    buffer.write(0, data, sizeof data);
    std::uint32_t back[4] = {};
    glGetNamedBufferSubData(buffer.id(), 0, sizeof back, back);
    EXPECT_EQ(back[3], 4u);

    const GLuint id = buffer.id();
    Buffer moved(std::move(buffer));
    EXPECT_EQ(buffer.id(), 0u);
    EXPECT_EQ(moved.id(), id);
    const GLuint released = moved.release();
    EXPECT_EQ(moved.id(), 0u);
    EXPECT_TRUE(glIsBuffer(released));
    {
        Buffer wrapped = Buffer::wrap(released, 16);
        EXPECT_EQ(wrapped.id(), released);
    }
    EXPECT_FALSE(glIsBuffer(released)) << "the wrapper deleted the adopted name";
}

TEST_F(GlObjects, MovedFromBufferAndTextureAreEmpty)
{
    Buffer buffer(64, nullptr, GL_MAP_READ_BIT | GL_MAP_PERSISTENT_BIT, "moved.buffer");
    buffer.map(0, 64, GL_MAP_READ_BIT | GL_MAP_PERSISTENT_BIT);
    Buffer to(std::move(buffer));
    EXPECT_EQ(buffer.id(), 0u);
    EXPECT_EQ(buffer.size(), 0u) << "a moved-from buffer reports no size";
    EXPECT_EQ(buffer.storageFlags(), 0u);
    EXPECT_FALSE(buffer.isMapped());
    EXPECT_EQ(to.size(), 64u);
    EXPECT_TRUE(to.isMapped()) << "the mapping moves with the buffer";
    Buffer assigned{NoCreate};
    assigned = std::move(to);
    EXPECT_EQ(to.size(), 0u);
    EXPECT_FALSE(to.isMapped());
    EXPECT_TRUE(assigned.isMapped());

    Texture texture(GL_RGBA16F, 8, 4, "moved.texture");
    Texture other(std::move(texture));
    EXPECT_EQ(texture.id(), 0u);
    EXPECT_EQ(texture.width(), 0);
    EXPECT_EQ(texture.height(), 0);
    EXPECT_EQ(texture.internalFormat(), 0u) << "a moved-from texture reports no format";
    Texture target{NoCreate};
    target = std::move(other);
    EXPECT_EQ(other.width(), 0);
    EXPECT_EQ(other.internalFormat(), 0u);
    EXPECT_EQ(target.width(), 8);
    EXPECT_EQ(target.internalFormat(), static_cast<GLenum>(GL_RGBA16F));
}

TEST_F(GlObjects, PersistentMappingReadsWhatTheGpuWroteOnceTheFenceSignals)
{
    // A pixel-pack read into a persistent, coherent mapping, ordered by a fence: the output
    // ring's way of reading frames back without waiting.
    Texture texture(GL_RGBA8, 4, 2, "fence.source");
    const std::uint8_t pixels[4 * 2 * 4] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11,
                                            12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
                                            23, 24, 25, 26, 27, 28, 29, 30, 31, 32};
    texture.upload(GL_RGBA, GL_UNSIGNED_BYTE, pixels);
    const GLbitfield flags =
        GL_MAP_READ_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT | GL_CLIENT_STORAGE_BIT;
    Buffer pack(sizeof pixels, nullptr, flags, "fence.pack");
    const std::uint8_t* mapped =
        pack.map(0, sizeof pixels, GL_MAP_READ_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT);
    ASSERT_NE(mapped, nullptr);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, pack.id());
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glGetTextureImage(texture.id(), 0, GL_RGBA, GL_UNSIGNED_BYTE, sizeof pixels, nullptr);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    Fence fence = Fence::insert();
    EXPECT_TRUE(fence.isPending());
    fence.wait(StallCause::Finish);
    EXPECT_TRUE(fence.isSignaled());
    for (std::size_t i = 0; i < sizeof pixels; ++i)
        ASSERT_EQ(mapped[i], pixels[i]) << "byte " << i;
    Fence moved(std::move(fence));
    EXPECT_FALSE(fence.isPending());
    EXPECT_TRUE(fence.isSignaled()) << "no fence: nothing to wait for";
    EXPECT_TRUE(moved.isSignaled());
    pack.unmap();
    EXPECT_FALSE(pack.isMapped());
}

TEST_F(GlObjects, MoveAssignmentDeletesTheOldObject)
{
    Texture a(GL_RGBA8, 4, 4, "a");
    Texture b(GL_RGBA8, 8, 8, "b");
    const GLuint oldA = a.id();
    a = std::move(b);
    EXPECT_FALSE(glIsTexture(oldA));
    EXPECT_EQ(a.width(), 8);
    EXPECT_EQ(b.id(), 0u);
}

TEST_F(GlObjects, EveryKindCreatesAndLabels)
{
    Texture texture(GL_R32UI, 3, 2, "test.texture");
    EXPECT_EQ(labelOf(GL_TEXTURE, texture.id()), "test.texture");
    VertexArray vertexArray("test.vao");
    EXPECT_EQ(labelOf(GL_VERTEX_ARRAY, vertexArray.id()), "test.vao");
    Query query(GL_TIMESTAMP, "test.query");
    EXPECT_NE(query.id(), 0u);
    query.timestamp();
    glFinish();
    const auto result = query.tryResult();
    ASSERT_TRUE(result.has_value()) << "after glFinish the timestamp is available";
    EXPECT_GT(*result, 0u);
    Framebuffer framebuffer("test.fb");
    framebuffer.attach(GL_COLOR_ATTACHMENT0, texture);
    framebuffer.setDrawBuffers({GL_COLOR_ATTACHMENT0});
    EXPECT_NO_THROW(framebuffer.checkComplete());
    EXPECT_EQ(labelOf(GL_FRAMEBUFFER, framebuffer.id()), "test.fb");
}

TEST_F(GlObjects, IncompleteFramebufferNamesTheStatus)
{
    Framebuffer framebuffer("empty.fb");
    try {
        framebuffer.checkComplete();
        FAIL() << "expected GlError";
    } catch (const GlError& e) {
        EXPECT_NE(std::string(e.what()).find("GL_FRAMEBUFFER_INCOMPLETE_MISSING_ATTACHMENT"),
                  std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("empty.fb"), std::string::npos);
    }
}

TEST_F(GlObjects, ProgramCompileErrorNamesFileAndLine)
{
    test::TempDir dir;
    dir.write("common/ok.glsl", "float helper() { return 1.0; }\n");
    dir.write("bad.frag.glsl",
              "#version 450 core\n#include \"common/ok.glsl\"\n"
              "out vec4 color;\nvoid main() {\n  color = vec4(undefinedThing);\n}\n");
    dir.write("ok.vert.glsl", "#version 450 core\nvoid main() { gl_Position = vec4(0); }\n");
    try {
        Program program({{GL_VERTEX_SHADER, "ok.vert.glsl"}, {GL_FRAGMENT_SHADER, "bad.frag.glsl"}},
                        "bad", dir.path());
        FAIL() << "expected GlError";
    } catch (const GlError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("fragment shader bad.frag.glsl failed to compile"), std::string::npos)
            << what;
        EXPECT_NE(what.find("bad.frag.glsl:5"), std::string::npos) << what;
    }
}

TEST_F(GlObjects, ProgramLinkErrorIsReported)
{
    test::TempDir dir;
    dir.write("v.vert.glsl", "#version 450 core\nlayout(location=0) out vec3 a;\n"
                             "void main() { a = vec3(1); gl_Position = vec4(0); }\n");
    dir.write("f.frag.glsl", "#version 450 core\nlayout(location=0) in vec4 a;\n"
                             "out vec4 c;\nvoid main() { c = a; }\n");
    EXPECT_THROW(Program({{GL_VERTEX_SHADER, "v.vert.glsl"}, {GL_FRAGMENT_SHADER, "f.frag.glsl"}},
                         "mismatch", dir.path()),
                 GlError);
}

TEST_F(GlObjects, DebugOutputCountsErrors)
{
    glBindBuffer(0x1234, 0); // invalid enum on purpose
    glFinish();
    EXPECT_EQ(s_context->glErrorCount(), 1u);
    s_context->resetGlErrorCount();
    EXPECT_THROW(check("nothing"), GlError) << "glGetError still holds the error";
}

TEST_F(GlObjects, DebugOutputCountsErrorsPerContext)
{
    // Two sessions in one process each have their context: an error in one must not fail the
    // other's exit code (the count was process-wide).
    auto other = test::otherContext(); // current now
    ASSERT_TRUE(other);
    test::provokeGlError();
    EXPECT_EQ(other->glErrorCount(), 1u);
    s_context->makeCurrent();
    EXPECT_EQ(s_context->glErrorCount(), 0u) << "the other context's error counted here";
    test::provokeGlError(); // and one here
    EXPECT_EQ(s_context->glErrorCount(), 1u);
    EXPECT_EQ(other->glErrorCount(), 1u);
    s_context->resetGlErrorCount();
    other.reset(); // releases the current context
    s_context->makeCurrent();
}

TEST_F(GlObjects, EngineShadersCompile)
{
    EXPECT_NO_THROW(Program({{GL_VERTEX_SHADER, "render/Visibility.vert.glsl"},
                             {GL_FRAGMENT_SHADER, "render/Visibility.frag.glsl"}},
                            "visibility"));
    EXPECT_NO_THROW(Program({{GL_COMPUTE_SHADER, "render/Resolve.comp.glsl"}}, "resolve"));
    EXPECT_NO_THROW(
        Program({{GL_COMPUTE_SHADER, "render/Resolve.comp.glsl", "#define COLOR_RGBA16F\n"}},
                "resolve16f"));
    EXPECT_NO_THROW(Program({{GL_VERTEX_SHADER, "render/Present.vert.glsl"},
                             {GL_FRAGMENT_SHADER, "render/Present.frag.glsl"}},
                            "present"));
    EXPECT_NO_THROW(Program(
        {{GL_VERTEX_SHADER, "bench/Bare.vert.glsl"}, {GL_FRAGMENT_SHADER, "bench/Bare.frag.glsl"}},
        "bare"));
}

TEST_F(GlObjects, DefinesFollowTheVersionLine)
{
    test::TempDir dir;
    dir.write("d.comp.glsl", "#version 450 core\nlayout(local_size_x = 1) in;\n"
                             "#ifndef NEEDED\n#error NEEDED missing\n#endif\nvoid main() {}\n");
    EXPECT_THROW(Program({{GL_COMPUTE_SHADER, "d.comp.glsl"}}, "no define", dir.path()), GlError);
    EXPECT_NO_THROW(
        Program({{GL_COMPUTE_SHADER, "d.comp.glsl", "#define NEEDED 1\n"}}, "define", dir.path()));
}

} // namespace
} // namespace tandem::gl
