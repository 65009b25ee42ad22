// The GPU layouts the shaders read, checked field by field against their C++ twins through the
// compiled program's own reflection (std430 offsets as the driver lays them out): the scene's
// vertices (render::Vertex as PackedVertex) and object records (render::GpuObject as uvec4).
#include <cstddef>
#include <string>

#include <gtest/gtest.h>

#include "engine/gl/Program.h"
#include "engine/render/GpuScene.h"
#include "tests/support/GlTestContext.h"

namespace tandem::render {
namespace {

class VertexLayout : public test::GlTest {
protected:
    /// GL_OFFSET (or another property) of buffer variable `name` in `program`.
    static GLint property(const gl::Program& program, const std::string& name, GLenum what)
    {
        const GLuint index =
            glGetProgramResourceIndex(program.id(), GL_BUFFER_VARIABLE, name.c_str());
        EXPECT_NE(index, GL_INVALID_INDEX) << name << " is not a buffer variable of the program";
        if (index == GL_INVALID_INDEX)
            return -1;
        GLint value = -1;
        glGetProgramResourceiv(program.id(), GL_BUFFER_VARIABLE, index, 1, &what, 1, nullptr,
                               &value);
        return value;
    }
};

TEST_F(VertexLayout, PackedVertexMatchesVertexFieldByField)
{
    const gl::Program resolve({{GL_COMPUTE_SHADER, "render/Resolve.comp.glsl"}}, "resolve");
    struct Field {
        const char* glsl;
        std::size_t offset;
    };
    const Field fields[] = {
        {"px", offsetof(Vertex, position) + 0}, {"py", offsetof(Vertex, position) + 4},
        {"pz", offsetof(Vertex, position) + 8}, {"nx", offsetof(Vertex, normal) + 0},
        {"ny", offsetof(Vertex, normal) + 4},   {"nz", offsetof(Vertex, normal) + 8},
        {"color", offsetof(Vertex, color)},     {"u", offsetof(Vertex, texcoord) + 0},
        {"v", offsetof(Vertex, texcoord) + 4},
    };
    for (const Field& field : fields)
        EXPECT_EQ(property(resolve, std::string("vertices[0].") + field.glsl, GL_OFFSET),
                  static_cast<GLint>(field.offset))
            << "PackedVertex." << field.glsl;
    EXPECT_EQ(property(resolve, "vertices[0].px", GL_TOP_LEVEL_ARRAY_STRIDE),
              static_cast<GLint>(sizeof(Vertex)))
        << "the array stride is sizeof(Vertex)";
}

TEST_F(VertexLayout, ObjectRecordsMatchGpuObject)
{
    const gl::Program resolve({{GL_COMPUTE_SHADER, "render/Resolve.comp.glsl"}}, "resolve");
    EXPECT_EQ(property(resolve, "objects[0]", GL_OFFSET), 0);
    EXPECT_EQ(property(resolve, "objects[0]", GL_ARRAY_STRIDE),
              static_cast<GLint>(sizeof(GpuObject)));
    // uvec4 x, y, z, w: first vertex, vertex count, first primitive, flags.
    static_assert(offsetof(GpuObject, firstVertex) == 0);
    static_assert(offsetof(GpuObject, vertexCount) == 4);
    static_assert(offsetof(GpuObject, firstPrimitive) == 8);
    static_assert(offsetof(GpuObject, flags) == 12);
}

} // namespace
} // namespace tandem::render
