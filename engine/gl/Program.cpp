#include "engine/gl/Program.h"

#include <cstdlib>
#include <regex>
#include <sstream>

#include "engine/core/File.h"

namespace tandem::gl {

namespace fs = std::filesystem;

namespace {

const char* stageName(GLenum stage)
{
    switch (stage) {
    case GL_VERTEX_SHADER:
        return "vertex";
    case GL_FRAGMENT_SHADER:
        return "fragment";
    case GL_GEOMETRY_SHADER:
        return "geometry";
    case GL_COMPUTE_SHADER:
        return "compute";
    case GL_TESS_CONTROL_SHADER:
        return "tessellation control";
    case GL_TESS_EVALUATION_SHADER:
        return "tessellation evaluation";
    default:
        return "unknown";
    }
}

struct Expander {
    const fs::path& root;
    ExpandedSource out;
    bool versionSeen = false;
    std::string defines;

    void expand(const std::string& path, int depth, const std::string& includedFrom, int fromLine)
    {
        if (depth > 32)
            throw GlError("shader includes nest deeper than 32 at " + includedFrom + ":" +
                          std::to_string(fromLine));
        for (const auto& seen : out.files)
            if (seen == path)
                return;
        auto text = readTextFile(root / path);
        if (!text) {
            if (includedFrom.empty())
                throw GlError("cannot load shader: " + text.error());
            throw GlError(includedFrom + ":" + std::to_string(fromLine) + ": cannot include \"" +
                          path + "\": " + text.error());
        }
        const int fileIndex = static_cast<int>(out.files.size());
        out.files.push_back(path);
        std::istringstream lines(text.value());
        std::string line;
        int number = 0;
        bool needLine = depth > 0;
        while (std::getline(lines, line)) {
            ++number;
            if (!line.empty() && line.back() == '\r')
                line.pop_back();
            const auto first = line.find_first_not_of(" \t");
            const std::string_view trimmed = first == std::string::npos
                                                 ? std::string_view{}
                                                 : std::string_view(line).substr(first);
            if (trimmed.starts_with("#version")) {
                if (!versionSeen)
                    out.text = line + "\n" + defines + out.text;
                versionSeen = true;
                needLine = true;
                continue;
            }
            if (trimmed.starts_with("#include")) {
                const auto open = trimmed.find('"');
                const auto close = trimmed.find('"', open + 1);
                if (open == std::string::npos || close == std::string::npos)
                    throw GlError(path + ":" + std::to_string(number) +
                                  ": malformed #include, expected #include \"file\"");
                expand(std::string(trimmed.substr(open + 1, close - open - 1)), depth + 1, path,
                       number);
                needLine = true;
                continue;
            }
            if (needLine) {
                out.text +=
                    "#line " + std::to_string(number) + " " + std::to_string(fileIndex) + "\n";
                needLine = false;
            }
            out.text += line;
            out.text += '\n';
        }
    }
};

} // namespace

fs::path shaderRoot()
{
    if (const char* env = std::getenv("TANDEM_SHADER_DIR"); env && *env)
        return env;
    return dataRoot() / "shaders";
}

std::string describeShaderRoot()
{
    const char* env = std::getenv("TANDEM_SHADER_DIR");
    const std::string origin = env && *env ? "$TANDEM_SHADER_DIR" : dataRootOrigin();
    return "shaders: " + shaderRoot().string() + " (" + origin + ")";
}

ExpandedSource expandShaderSource(const fs::path& root, const std::string& path,
                                  const std::string& defines)
{
    Expander expander{root, {}, false, defines};
    expander.expand(path, 0, {}, 0);
    return std::move(expander.out);
}

std::string mapShaderLog(const std::string& log, const std::vector<std::string>& files)
{
    // Mesa: "0:12(5): error: ..."; NVIDIA: "0(12) : error C1008: ...".
    static const std::regex mesa(R"(^(\d+):(\d+)\((\d+)\): )");
    static const std::regex nvidia(R"(^(\d+)\((\d+)\) : )");
    std::istringstream lines(log);
    std::string line;
    std::string out;
    while (std::getline(lines, line)) {
        std::smatch m;
        auto fileName = [&](const std::string& index) {
            const auto i = static_cast<std::size_t>(std::stoul(index));
            return i < files.size() ? files[i] : "source " + index;
        };
        if (std::regex_search(line, m, mesa))
            line = fileName(m[1]) + ":" + m[2].str() + ":" + m[3].str() + ": " + m.suffix().str();
        else if (std::regex_search(line, m, nvidia))
            line = fileName(m[1]) + ":" + m[2].str() + ": " + m.suffix().str();
        out += line;
        out += '\n';
    }
    return out;
}

Program::Program(const std::vector<ShaderStage>& stages, std::string_view label,
                 const fs::path& root)
{
    m_id.reset(glCreateProgram());
    check("glCreateProgram");
    std::vector<GLuint> shaders;
    auto deleteShaders = [&] {
        for (GLuint shader : shaders)
            glDeleteShader(shader);
    };
    try {
        for (const auto& stage : stages) {
            const ExpandedSource source = expandShaderSource(root, stage.path, stage.defines);
            const GLuint shader = glCreateShader(stage.stage);
            shaders.push_back(shader);
            const char* text = source.text.c_str();
            glShaderSource(shader, 1, &text, nullptr);
            glCompileShader(shader);
            GLint ok = GL_FALSE;
            glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
            if (ok != GL_TRUE) {
                GLint length = 0;
                glGetShaderiv(shader, GL_INFO_LOG_LENGTH, &length);
                std::string log(static_cast<std::size_t>(length > 0 ? length : 1), '\0');
                glGetShaderInfoLog(shader, length, nullptr, log.data());
                throw GlError(std::string(stageName(stage.stage)) + " shader " + stage.path +
                                  " failed to compile:\n" + mapShaderLog(log.c_str(), source.files),
                              "glCompileShader");
            }
            glAttachShader(id(), shader);
        }
        glLinkProgram(id());
        GLint ok = GL_FALSE;
        glGetProgramiv(id(), GL_LINK_STATUS, &ok);
        if (ok != GL_TRUE) {
            GLint length = 0;
            glGetProgramiv(id(), GL_INFO_LOG_LENGTH, &length);
            std::string log(static_cast<std::size_t>(length > 0 ? length : 1), '\0');
            glGetProgramInfoLog(id(), length, nullptr, log.data());
            throw GlError("program '" + std::string(label) + "' failed to link:\n" + log.c_str(),
                          "glLinkProgram");
        }
    } catch (...) {
        deleteShaders();
        throw;
    }
    for (GLuint shader : shaders)
        glDetachShader(id(), shader);
    deleteShaders();
    setLabel(GL_PROGRAM, id(), label);
    check("glLinkProgram");
}

Program Program::wrap(GLuint id) noexcept
{
    Program program{NoCreate};
    program.m_id.reset(id);
    return program;
}

GLuint Program::release() noexcept
{
    return m_id.release();
}

void Program::use() const
{
    glUseProgram(id());
}

} // namespace tandem::gl
