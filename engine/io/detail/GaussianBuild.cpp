#include "engine/io/detail/GaussianBuild.h"

#include <cmath>
#include <string_view>

#include <fmt/format.h>
#include <glm/gtc/quaternion.hpp>

namespace tandem::io::detail {

std::string droppedGaussians(const std::string& name, const Dropped& d)
{
    std::string why;
    const auto add = [&](std::size_t n, std::string_view what) {
        if (n > 0)
            why += fmt::format("{}{} {}", why.empty() ? "" : ", ", n, what);
    };
    add(d.nonFinite, "with NaN or infinite values");
    add(d.far, fmt::format("beyond ±{:g}", MaxCoordinate));
    add(d.degenerate, "with a zero or overflowing scale or a zero rotation");
    std::string text = fmt::format("{}: dropped {} of {} Gaussian{} ({})", name, d.total(),
                                   d.before, d.before == 1 ? "" : "s", why);
    if (d.total() == d.before)
        text += ": nothing is left to draw";
    return text;
}

void append(GaussianData& out, Dropped& dropped, const glm::dvec3& position,
            const glm::dvec3& scale, double opacity, const glm::dvec4& wxyz, const double* sh,
            bool logScale, bool logitOpacity)
{
    const int n = shCoefficients(out.shDegree) * 3;
    bool finite = std::isfinite(position.x) && std::isfinite(position.y) &&
                  std::isfinite(position.z) && std::isfinite(scale.x) && std::isfinite(scale.y) &&
                  std::isfinite(scale.z) && std::isfinite(opacity) && std::isfinite(wxyz.x) &&
                  std::isfinite(wxyz.y) && std::isfinite(wxyz.z) && std::isfinite(wxyz.w);
    for (int i = 0; i < n && finite; ++i)
        finite = std::isfinite(static_cast<float>(sh[i])); // as stored
    if (!finite) {
        ++dropped.nonFinite;
        return;
    }
    const glm::vec3 p(position);
    if (!isUsablePosition(p)) {
        ++dropped.far;
        return;
    }
    const glm::dvec3 s = logScale ? glm::exp(scale) : scale;
    const double length = glm::length(wxyz);
    const glm::vec3 sf(s);
    if (!(length > 0.0) || !std::isfinite(length) || !std::isfinite(sf.x) || !std::isfinite(sf.y) ||
        !std::isfinite(sf.z) || !(sf.x > 0.0f && sf.y > 0.0f && sf.z > 0.0f)) {
        ++dropped.degenerate;
        return;
    }
    const glm::dvec4 q = wxyz / length;
    out.positions.push_back(p);
    out.scales.push_back(sf);
    out.rotations.push_back(glm::quat(static_cast<float>(q.x), static_cast<float>(q.y),
                                      static_cast<float>(q.z), static_cast<float>(q.w)));
    out.opacities.push_back(
        static_cast<float>(logitOpacity ? 1.0 / (1.0 + std::exp(-opacity)) : opacity));
    for (int i = 0; i < n; ++i)
        out.sh.push_back(static_cast<float>(sh[i]));
}

void reserve(GaussianData& out, std::size_t count)
{
    out.positions.reserve(count);
    out.scales.reserve(count);
    out.rotations.reserve(count);
    out.opacities.reserve(count);
    out.sh.reserve(count * static_cast<std::size_t>(shCoefficients(out.shDegree)) * 3);
}

} // namespace tandem::io::detail
