#include "engine/postfx/Chain.h"

#include <charconv>
#include <functional>
#include <map>
#include <type_traits>

#include <fmt/format.h>

namespace tandem::postfx {

namespace {

struct Parameter {
    std::function<bool(Stage&, float)> set; ///< false when out of range
    std::function<float(const Stage&)> get;
    std::string range;
};

std::map<std::string, Parameter, std::less<>> parametersOf(StageKind kind)
{
    std::map<std::string, Parameter, std::less<>> p;
    auto add = [&](const char* name, auto getRef, float lo, float hi, bool integer) {
        p[name] = Parameter{
            [=](Stage& s, float v) {
                if (!(v >= lo && v <= hi) ||
                    (integer && v != static_cast<float>(static_cast<int>(v))))
                    return false;
                getRef(s) = static_cast<std::remove_reference_t<decltype(getRef(s))>>(v);
                return true;
            },
            [=](const Stage& s) { return static_cast<float>(getRef(const_cast<Stage&>(s))); },
            integer ? fmt::format("integer {}..{}", lo, hi) : fmt::format("{}..{}", lo, hi)};
    };
    switch (kind) {
    case StageKind::Tonemap:
        add(
            "exposure", [](Stage& s) -> float& { return s.tonemap.exposure; }, -16, 16, false);
        add(
            "gamma", [](Stage& s) -> float& { return s.tonemap.gamma; }, 0.5f, 4, false);
        break;
    case StageKind::Blur:
        add(
            "radius", [](Stage& s) -> int& { return s.blur.radius; }, 1, 16, true);
        add(
            "sigma", [](Stage& s) -> float& { return s.blur.sigma; }, 0.1f, 16, false);
        break;
    case StageKind::Bilateral:
        add(
            "radius", [](Stage& s) -> int& { return s.bilateral.radius; }, 1, 8, true);
        add(
            "sigma", [](Stage& s) -> float& { return s.bilateral.sigmaSpatial; }, 0.1f, 16, false);
        add(
            "depth", [](Stage& s) -> float& { return s.bilateral.sigmaDepth; }, 1e-4f, 1, false);
        break;
    case StageKind::Outline:
        add(
            "depth", [](Stage& s) -> float& { return s.outline.depthThreshold; }, 1e-4f, 10, false);
        add(
            "normal", [](Stage& s) -> float& { return s.outline.normalThreshold; }, 1e-3f, 4,
            false);
        add(
            "strength", [](Stage& s) -> float& { return s.outline.strength; }, 0, 1, false);
        break;
    case StageKind::Ssao:
        add(
            "samples", [](Stage& s) -> int& { return s.ssao.samples; }, 4, 16, true);
        add(
            "radius", [](Stage& s) -> float& { return s.ssao.radius; }, 1e-4f, 1e4f, false);
        add(
            "bias", [](Stage& s) -> float& { return s.ssao.bias; }, 0, 1, false);
        add(
            "strength", [](Stage& s) -> float& { return s.ssao.strength; }, 0, 2, false);
        break;
    case StageKind::Fxaa:
        add(
            "threshold", [](Stage& s) -> float& { return s.fxaa.edgeThreshold; }, 0.01f, 1, false);
        add(
            "threshold-min", [](Stage& s) -> float& { return s.fxaa.edgeThresholdMin; }, 0, 1,
            false);
        add(
            "span", [](Stage& s) -> float& { return s.fxaa.span; }, 1, 16, false);
        break;
    case StageKind::ViewDepth:
    case StageKind::ViewNormal:
    case StageKind::ViewId:
        break;
    }
    return p;
}

std::vector<std::string_view> split(std::string_view text, char separator)
{
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    for (;;) {
        const std::size_t end = text.find(separator, start);
        parts.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
        if (end == std::string_view::npos)
            return parts;
        start = end + 1;
    }
}

std::string_view trim(std::string_view s)
{
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

std::string stageList()
{
    std::string names;
    for (StageKind kind : allStageKinds())
        names += (names.empty() ? "" : ", ") + std::string(stageName(kind));
    return names;
}

} // namespace

std::size_t Chain::enabledCount() const
{
    std::size_t count = 0;
    for (const auto& stage : stages)
        count += stage.enabled ? 1 : 0;
    return count;
}

std::string_view stageName(StageKind kind)
{
    switch (kind) {
    case StageKind::Tonemap:
        return "tonemap";
    case StageKind::Blur:
        return "blur";
    case StageKind::Bilateral:
        return "bilateral";
    case StageKind::Outline:
        return "outline";
    case StageKind::Ssao:
        return "ssao";
    case StageKind::Fxaa:
        return "fxaa";
    case StageKind::ViewDepth:
        return "view-depth";
    case StageKind::ViewNormal:
        return "view-normal";
    case StageKind::ViewId:
        return "view-id";
    }
    return "?";
}

const std::vector<StageKind>& allStageKinds()
{
    static const std::vector<StageKind> kinds = {
        StageKind::Tonemap,   StageKind::Blur,       StageKind::Bilateral,
        StageKind::Outline,   StageKind::Ssao,       StageKind::Fxaa,
        StageKind::ViewDepth, StageKind::ViewNormal, StageKind::ViewId};
    return kinds;
}

Result<Chain> parseChain(std::string_view text)
{
    Chain chain;
    text = trim(text);
    if (text == "none" || text.empty())
        return chain;
    for (std::string_view item : split(text, ',')) {
        const auto pieces = split(trim(item), ':');
        const std::string_view name = trim(pieces[0]);
        const StageKind* kind = nullptr;
        for (const StageKind& k : allStageKinds())
            if (stageName(k) == name)
                kind = &k;
        if (!kind)
            return fail(fmt::format("--postfx: unknown stage '{}' (stages: {}, or none)", name,
                                    stageList()));
        Stage stage;
        stage.kind = *kind;
        const auto parameters = parametersOf(*kind);
        for (std::size_t i = 1; i < pieces.size(); ++i) {
            const std::string_view assignment = trim(pieces[i]);
            const auto equals = assignment.find('=');
            const std::string_view key = trim(assignment.substr(0, equals));
            const auto parameter = parameters.find(key);
            if (parameter == parameters.end()) {
                std::string keys;
                for (const auto& [k, unused] : parameters)
                    keys += (keys.empty() ? "" : ", ") + k;
                return fail(fmt::format("--postfx: stage '{}' has no parameter '{}' ({})", name,
                                        key,
                                        keys.empty() ? "it takes none" : "parameters: " + keys));
            }
            if (equals == std::string_view::npos)
                return fail(
                    fmt::format("--postfx: {}:{} needs a value ({}:{}=...)", name, key, name, key));
            const std::string_view valueText = trim(assignment.substr(equals + 1));
            float value = 0;
            const auto [end, ec] =
                std::from_chars(valueText.data(), valueText.data() + valueText.size(), value);
            if (ec != std::errc() || end != valueText.data() + valueText.size())
                return fail(
                    fmt::format("--postfx: {}:{}: '{}' is not a number", name, key, valueText));
            if (!parameter->second.set(stage, value))
                return fail(fmt::format("--postfx: {}:{}={} is out of range ({})", name, key,
                                        valueText, parameter->second.range));
        }
        chain.stages.push_back(stage);
    }
    return chain;
}

std::string formatChain(const Chain& chain)
{
    if (chain.stages.empty())
        return "none";
    std::string text;
    for (const auto& stage : chain.stages) {
        if (!text.empty())
            text += ',';
        text += stageName(stage.kind);
        for (const auto& [key, parameter] : parametersOf(stage.kind))
            text += fmt::format(":{}={}", key, parameter.get(stage));
    }
    return text;
}

} // namespace tandem::postfx
