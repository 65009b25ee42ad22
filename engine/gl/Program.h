// Move-only owner of a linked GL program, built from shader files under shaders/ with #include
// support; compile and link errors name the file and line. Needs the owning context current.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/gl/Object.h"

namespace tandem::gl {

/// One stage of a program: the GL stage and a path relative to the shader root
/// ("render/Geometry.vert.glsl").
struct ShaderStage {
    GLenum stage;
    std::string path;
    std::string defines = {}; ///< lines inserted after #version ("#define COLOR_RGBA16F\n")
};

/// The folder shaders are loaded from: $TANDEM_SHADER_DIR if set, else dataRoot()/shaders.
std::filesystem::path shaderRoot();
/// One line for the start-up log: the shader folder in use and why ("shaders: /x/shaders
/// (beside the executable)"), so a moved binary cannot silently use an old checkout's shaders.
std::string describeShaderRoot();

/// A linked program object.
class Program {
public:
    explicit Program(NoCreateT) noexcept {}
    /// Compiles and links `stages`, loading files and resolving #include "file" against `root`
    /// (default shaderRoot()). Throws GlError with every compiler message mapped back to
    /// "file:line" on failure.
    Program(const std::vector<ShaderStage>& stages, std::string_view label,
            const std::filesystem::path& root = shaderRoot());

    static Program wrap(GLuint id) noexcept;
    GLuint release() noexcept;

    Program(Program&&) noexcept = default;
    Program& operator=(Program&&) noexcept = default;

    GLuint id() const noexcept { return m_id.get(); }

    /// Makes this the current program (glUseProgram).
    void use() const;

private:
    struct Deleter {
        void operator()(GLuint id) const noexcept { glDeleteProgram(id); }
    };
    detail::OwnedId<Deleter> m_id;
};

/// A shader source with its #includes expanded and #line directives inserted; `files` maps the
/// source-string numbers used in #line to file paths, for error messages.
struct ExpandedSource {
    std::string text;
    std::vector<std::string> files;
};

/// Expands `path` (relative to `root`): keeps #version first, splices each #include "file"
/// once (later includes of the same file are skipped). Throws GlError naming the including file
/// and line when an include is missing or the nesting is deeper than 32.
ExpandedSource expandShaderSource(const std::filesystem::path& root, const std::string& path,
                                  const std::string& defines = {});

/// Rewrites compiler log lines that start with a source-string number and line ("0:12(5):" from
/// Mesa, "0(12) :" from NVIDIA) to start with "file:line:" instead.
std::string mapShaderLog(const std::string& log, const std::vector<std::string>& files);

} // namespace tandem::gl
