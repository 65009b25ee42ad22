#include "engine/stream/SampleSource.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include <fmt/format.h>

#include "engine/core/Plural.h"
#include "engine/stream/Block.h"

namespace tandem::stream {

bool isSampleSpec(const std::string& spec)
{
    return spec == "sample" || spec.rfind("sample:", 0) == 0;
}

Result<SampleSettings> parseSample(const std::string& spec)
{
    SampleSettings s;
    if (!isSampleSpec(spec))
        return fail(fmt::format("'{}' is not the sample (sample[:key=value,...])", spec));
    if (spec == "sample")
        return s;
    std::stringstream parts(spec.substr(7));
    std::string part;
    while (std::getline(parts, part, ',')) {
        const auto eq = part.find('=');
        const std::string key = part.substr(0, eq);
        const std::string value = eq == std::string::npos ? "" : part.substr(eq + 1);
        try {
            std::size_t used = 0;
            if (key == "mesh" && value.empty()) {
                s.mesh = true;
                continue;
            }
            if (key == "points") {
                const long long n = std::stoll(value, &used);
                if (used != value.size() || n < 16 || n > 200'000'000)
                    throw std::out_of_range(key);
                s.points = static_cast<std::uint32_t>(n);
            } else if (key == "frames") {
                const long long n = std::stoll(value, &used);
                if (used != value.size() || n < 1 || n > 10'000'000)
                    throw std::out_of_range(key);
                s.frames = static_cast<int>(n);
            } else if (key == "fps") {
                const double f = std::stod(value, &used);
                if (used != value.size() || !isFrameRate(f))
                    throw std::out_of_range(key);
                s.fps = f;
            } else {
                return fail(fmt::format("sample: unknown setting '{}' (mesh, points=N, frames=N, "
                                        "fps=F)",
                                        part));
            }
        } catch (const std::logic_error&) {
            return fail(fmt::format("sample: bad value in '{}' (points 16 to 2e8, frames 1 to 1e7, "
                                    "fps {:g} to {:g})",
                                    part, MinFps, MaxFps));
        }
    }
    return s;
}

namespace {

constexpr float Pi = 3.14159265358979f;

/// The surface at latitude `theta` (0..π), longitude `phi` (0..2π), time `t` (seconds): a
/// sphere rippled by travelling waves, twisted about its axis and bobbing.
glm::vec3 surface(float theta, float phi, float t)
{
    const float ripple =
        0.12f * std::sin(5.0f * theta + 2.0f * t) * std::cos(3.0f * phi - 1.3f * t) +
        0.06f * std::sin(9.0f * phi + 4.0f * theta - 3.0f * t);
    const float r = 1.0f + ripple;
    const float twist = 0.6f * std::sin(0.7f * t) * std::cos(theta);
    const float p = phi + twist;
    const float squash = 1.0f + 0.15f * std::sin(1.9f * t);
    return {r * std::sin(theta) * std::cos(p),
            r * std::cos(theta) * squash + 0.1f * std::sin(2.3f * t),
            r * std::sin(theta) * std::sin(p)};
}

glm::u8vec4 colorAt(float theta, float phi, float t)
{
    const float a = 0.5f + 0.5f * std::sin(3.0f * theta + t);
    const float b = 0.5f + 0.5f * std::sin(2.0f * phi - 0.5f * t);
    const auto byte = [](float v) {
        return static_cast<std::uint8_t>(std::clamp(v, 0.0f, 1.0f) * 255.0f + 0.5f);
    };
    return {byte(0.25f + 0.75f * a), byte(0.2f + 0.6f * b * a), byte(0.9f - 0.7f * a), 255};
}

/// The surface normal by central differences.
glm::vec3 normalAt(float theta, float phi, float t)
{
    constexpr float h = 1e-3f;
    const glm::vec3 dTheta = surface(theta + h, phi, t) - surface(theta - h, phi, t);
    const glm::vec3 dPhi = surface(theta, phi + h, t) - surface(theta, phi - h, t);
    glm::vec3 n = glm::cross(dPhi, dTheta);
    const float length = glm::length(n);
    if (!(length > 0.0f))
        return glm::normalize(surface(theta, phi, t));
    n /= length;
    // Outward.
    return glm::dot(n, surface(theta, phi, t)) < 0.0f ? -n : n;
}

} // namespace

render::Scene sampleFrame(const SampleSettings& settings, int index)
{
    const float t = static_cast<float>(index / settings.fps);
    io::MeshData mesh;
    if (!settings.mesh) {
        // A Fibonacci lattice: evenly spread points, the same lattice every frame.
        const std::uint32_t n = settings.points;
        mesh.positions.resize(n);
        mesh.normals.resize(n);
        mesh.colors.resize(n);
        constexpr float Golden = 2.39996322972865f; // π (3 - √5)
        for (std::uint32_t i = 0; i < n; ++i) {
            const float z = 1.0f - 2.0f * (static_cast<float>(i) + 0.5f) / static_cast<float>(n);
            const float theta = std::acos(z);
            const float phi = std::fmod(Golden * static_cast<float>(i), 2.0f * Pi);
            mesh.positions[i] = surface(theta, phi, t);
            mesh.normals[i] = normalAt(theta, phi, t);
            mesh.colors[i] = colorAt(theta, phi, t);
        }
    } else {
        // A latitude-longitude grid with about settings.points vertices (seam duplicated).
        const int rows = std::max(4, static_cast<int>(std::sqrt(settings.points / 2.0)));
        const int columns = 2 * rows;
        for (int r = 0; r <= rows; ++r) {
            const float theta = Pi * static_cast<float>(r) / static_cast<float>(rows);
            for (int c = 0; c <= columns; ++c) {
                const float phi = 2.0f * Pi * static_cast<float>(c) / static_cast<float>(columns);
                mesh.positions.push_back(surface(theta, phi, t));
                mesh.colors.push_back(colorAt(theta, phi, t));
            }
        }
        const auto at = [&](int r, int c) {
            return static_cast<std::uint32_t>(r * (columns + 1) + c);
        };
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < columns; ++c) {
                mesh.indices.insert(mesh.indices.end(), {at(r, c), at(r + 1, c), at(r + 1, c + 1)});
                mesh.indices.insert(mesh.indices.end(), {at(r, c), at(r + 1, c + 1), at(r, c + 1)});
            }
        io::computeVertexNormals(mesh);
    }
    render::Scene scene;
    scene.objects.push_back({fmt::format("sample frame {}", index), std::move(mesh)});
    return scene;
}

namespace {

class SampleSource final : public Source {
public:
    explicit SampleSource(const SampleSettings& s) : m_settings(s)
    {
        // Counts do not depend on the frame.
        m_largest = countsFor(s);
    }

    std::string description() const override
    {
        return fmt::format(
            "built-in sample ({}, {} at {:g} fps)",
            m_settings.mesh ? counted(m_largest.vertices, "vertex", "vertices")
                            : counted(m_largest.vertices, "point", "points"),
            counted(static_cast<std::uint64_t>(m_settings.frames), "frame", "frames"),
            m_settings.fps);
    }
    int frameCount() const override { return m_settings.frames; }
    double fps() const override { return m_settings.fps; }
    std::string frameName(int index) const override
    {
        return fmt::format("sample frame {}", index);
    }
    std::optional<render::SceneCounts> largestFrame() const override { return m_largest; }
    std::optional<io::Bounds> bounds() const override
    {
        // The surface stays within radius 1.2 (ripples), squashed up to 1.15 and bobbing 0.1.
        io::Bounds b;
        b.extend({-1.2f, -1.5f, -1.2f});
        b.extend({1.2f, 1.5f, 1.2f});
        return b;
    }
    Result<std::span<const std::uint8_t>> load(int index, const BlockSink& sink) const override
    {
        return blockFromScene(sampleFrame(m_settings, index), sink, frameName(index));
    }

private:
    static render::SceneCounts countsFor(const SampleSettings& s)
    {
        render::SceneCounts c;
        c.objects = 1;
        if (!s.mesh) {
            c.vertices = s.points;
            c.compact = true;
            return c;
        }
        const int rows = std::max(4, static_cast<int>(std::sqrt(s.points / 2.0)));
        const int columns = 2 * rows;
        c.vertices = static_cast<std::uint32_t>((rows + 1) * (columns + 1));
        c.indices = static_cast<std::uint32_t>(rows * columns * 6);
        c.provokingOffsets = c.vertices + 1;
        c.provokingTriangles = c.indices / 3;
        return c;
    }

    SampleSettings m_settings;
    render::SceneCounts m_largest;
};

} // namespace

std::unique_ptr<Source> makeSampleSource(const SampleSettings& settings)
{
    return std::make_unique<SampleSource>(settings);
}

} // namespace tandem::stream
