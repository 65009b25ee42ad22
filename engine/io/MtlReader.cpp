#include "engine/io/MtlReader.h"

#include <algorithm>
#include <charconv>
#include <system_error>
#include <unordered_set>

#include <fmt/format.h>

#include "engine/core/File.h"

namespace tandem::io {

namespace {

namespace fs = std::filesystem;

bool isBlank(char c)
{
    return c == ' ' || c == '\t';
}

std::string_view trimmed(std::string_view text)
{
    while (!text.empty() && (isBlank(text.front()) || text.front() == '\r'))
        text.remove_prefix(1);
    while (!text.empty() && (isBlank(text.back()) || text.back() == '\r'))
        text.remove_suffix(1);
    return text;
}

/// Splits the first word off `text` (which then starts after it, blanks skipped).
std::string_view nextWord(std::string_view& text)
{
    std::size_t end = 0;
    while (end < text.size() && !isBlank(text[end]))
        ++end;
    const std::string_view word = text.substr(0, end);
    text = trimmed(text.substr(end));
    return word;
}

bool isNumber(std::string_view word)
{
    if (word.starts_with('+'))
        word.remove_prefix(1);
    double value = 0;
    const auto [p, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
    return !word.empty() && ec == std::errc() && p == word.data() + word.size();
}

/// How many arguments a texture option takes; -1 for 1 to 3 numbers (-o, -s, -t); 0 when
/// `word` is no option (the file name starts there).
int optionArguments(std::string_view word)
{
    if (word == "-o" || word == "-s" || word == "-t")
        return -1;
    if (word == "-mm")
        return 2;
    for (std::string_view one : {"-blendu", "-blendv", "-clamp", "-cc", "-boost", "-bm", "-texres",
                                 "-imfchan", "-type", "-colorspace"})
        if (word == one)
            return 1;
    return 0;
}

/// The file name of a map_Kd statement's arguments, its options skipped; empty when none.
std::string textureName(std::string_view arguments)
{
    for (;;) {
        std::string_view rest = arguments;
        const std::string_view word = nextWord(rest);
        const int count = optionArguments(word);
        if (count == 0)
            break;
        arguments = rest;
        if (count > 0) {
            for (int i = 0; i < count && !arguments.empty(); ++i)
                nextWord(arguments);
            continue;
        }
        for (int i = 0; i < 3 && !arguments.empty(); ++i) {
            std::string_view after = arguments;
            if (!isNumber(nextWord(after)))
                break;
            arguments = after;
        }
    }
    std::string name(arguments);
    // Written on Windows: "textures\wood.png".
    std::replace(name.begin(), name.end(), '\\', '/');
    return name;
}

} // namespace

Result<std::vector<Material>> parseMtl(std::string_view text, const std::string& name)
{
    std::vector<Material> materials;
    std::vector<std::string> warnings;
    auto warn = [&](std::size_t line, const std::string& what) {
        // A few are enough to see what is wrong with a file.
        if (warnings.size() < 5)
            warnings.push_back(fmt::format("{}:{}: {}", name, line, what));
    };
    bool skipping = false;                 // inside a material defined before
    std::unordered_set<std::string> names; // of the materials defined
    std::size_t number = 0;
    while (!text.empty()) {
        const std::size_t end = std::min(text.find('\n'), text.size());
        std::string_view line = trimmed(text.substr(0, end));
        text.remove_prefix(std::min(end + 1, text.size()));
        ++number;
        if (line.empty() || line.front() == '#')
            continue;
        const std::string_view keyword = nextWord(line);
        if (keyword == "newmtl") {
            const std::string material(nextWord(line));
            if (material.empty()) {
                warn(number, "newmtl without a name");
                skipping = true;
                continue;
            }
            skipping = !names.insert(material).second;
            if (skipping)
                warn(number, fmt::format("material '{}' defined again: the first one counts",
                                         material.substr(0, 80)));
            else
                materials.push_back({material, {}});
        } else if (keyword == "map_Kd") {
            const std::string texture = textureName(line);
            if (materials.empty())
                warn(number, "map_Kd before any newmtl: ignored");
            else if (texture.empty())
                warn(number, "map_Kd without a file name: ignored");
            else if (!skipping)
                materials.back().diffuseTexture = texture;
        }
    }
    Result<std::vector<Material>> result(std::move(materials));
    for (std::string& warning : warnings)
        result.addWarning(std::move(warning));
    return result;
}

Result<std::vector<Material>> readMtl(const fs::path& path)
{
    // Material libraries are small; 64 MiB bounds a mistaken one.
    auto bytes = readFile(path, std::uint64_t{64} << 20);
    if (!bytes)
        return fail(bytes.error());
    const std::string_view text(reinterpret_cast<const char*>(bytes.value().data()),
                                bytes.value().size());
    auto parsed = parseMtl(text, path.string());
    const fs::path folder = path.parent_path();
    for (Material& material : parsed.value()) {
        if (material.diffuseTexture.empty())
            continue;
        const fs::path written = material.diffuseTexture;
        material.diffuseTexture = folder / written; // an absolute path stays as it is
        std::error_code ec;
        if (written.has_parent_path() && !fs::exists(material.diffuseTexture, ec) &&
            fs::exists(folder / written.filename(), ec))
            material.diffuseTexture = folder / written.filename();
    }
    return parsed;
}

} // namespace tandem::io
