#include "engine/postfx/Chain.h"

#include <charconv>

#include <fmt/format.h>

namespace tandem::postfx {

namespace {

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
    for (const StageDescriptor& d : stageDescriptors())
        names += (names.empty() ? "" : ", ") + std::string(d.name);
    return names;
}

std::string rangeOf(const ParamDescriptor& p)
{
    return p.integer ? fmt::format("integer {}..{}", p.min, p.max)
                     : fmt::format("{}..{}", p.min, p.max);
}

const ParamDescriptor* findParam(const StageDescriptor& d, std::string_view name)
{
    for (int i = 0; i < d.paramCount; ++i)
        if (name == d.params[static_cast<std::size_t>(i)].name)
            return &d.params[static_cast<std::size_t>(i)];
    return nullptr;
}

} // namespace

std::size_t Chain::enabledCount() const
{
    std::size_t count = 0;
    for (const auto& stage : stages)
        count += stage.enabled ? 1 : 0;
    return count;
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
        const int kind = findStage(name);
        if (kind < 0)
            return fail(fmt::format("--postfx: unknown stage '{}' (stages: {}, or none)", name,
                                    stageList()));
        Stage stage = Stage::make(kind);
        const StageDescriptor& d = stage.descriptor();
        for (std::size_t i = 1; i < pieces.size(); ++i) {
            const std::string_view assignment = trim(pieces[i]);
            const auto equals = assignment.find('=');
            const std::string_view key = trim(assignment.substr(0, equals));
            const ParamDescriptor* parameter = findParam(d, key);
            if (!parameter) {
                std::string keys;
                for (int p = 0; p < d.paramCount; ++p)
                    keys += (keys.empty() ? "" : ", ") +
                            std::string(d.params[static_cast<std::size_t>(p)].name);
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
            if (!stage.setParam(key, value))
                return fail(fmt::format("--postfx: {}:{}={} is out of range ({})", name, key,
                                        valueText, rangeOf(*parameter)));
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
        text += stage.name();
        const StageDescriptor& d = stage.descriptor();
        for (int p = 0; p < d.paramCount; ++p)
            text += fmt::format(":{}={}", d.params[static_cast<std::size_t>(p)].name,
                                stage.params[static_cast<std::size_t>(p)]);
    }
    return text;
}

std::string describeStages()
{
    std::string text;
    for (const StageDescriptor& d : stageDescriptors()) {
        text += fmt::format("  {:<12} {}", d.name, d.help);
        for (int p = 0; p < d.paramCount; ++p) {
            const ParamDescriptor& param = d.params[static_cast<std::size_t>(p)];
            text += fmt::format("\n  {:<12}   {}={} ({}; {})", "", param.name, param.defaultValue,
                                rangeOf(param), param.help);
        }
        text += '\n';
    }
    return text;
}

} // namespace tandem::postfx
