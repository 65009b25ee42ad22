#include "engine/io/GaussianReader.h"

#include <array>
#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "engine/core/File.h"
#include "engine/io/detail/GaussianBuild.h"
#include "engine/io/detail/PlyFormat.h"

namespace tandem::io {

Bounds GaussianData::bounds() const
{
    Bounds bounds;
    for (const auto& p : positions)
        bounds.extend(p);
    return bounds;
}

namespace {

using namespace detail;

/// The properties every 3DGS Gaussian has, besides its f_rest_* (in this order in `Layout`).
constexpr std::array<std::string_view, 14> Required = {
    "x",       "y",       "z",       "f_dc_0", "f_dc_1", "f_dc_2", "opacity",
    "scale_0", "scale_1", "scale_2", "rot_0",  "rot_1",  "rot_2",  "rot_3"};

/// Where a Gaussian's values lie among its element's properties.
struct Layout {
    std::array<int, Required.size()> required{};
    std::vector<int> rest; ///< f_rest_0.. in order
    int shDegree = 0;
};

/// The first required property `element` lacks, or empty.
std::string_view missingProperty(const Element& element)
{
    for (std::string_view name : Required)
        if (indexOf(element, {name}) < 0)
            return name;
    return {};
}

Result<Layout> layoutOf(const Element& element, const std::string& name)
{
    Layout layout;
    for (std::size_t i = 0; i < Required.size(); ++i)
        layout.required[i] = indexOf(element, {Required[i]});
    // The f_rest_k in one pass (a header may hold tens of thousands of properties): each k
    // spelled plainly, at most once, below the degree-3 count.
    constexpr int MostRest = 3 * (shCoefficients(MaxShDegree) - 1);
    std::array<int, MostRest> rest;
    rest.fill(-1);
    int count = 0;
    for (std::size_t p = 0; p < element.properties.size(); ++p) {
        const Property& property = element.properties[p];
        if (property.isList)
            return fail(fmt::format("{}: the 'vertex' element has a list property '{}', which a "
                                    "3DGS PLY does not",
                                    name, property.name));
        if (!property.name.starts_with("f_rest_"))
            continue;
        const std::string_view digits = std::string_view(property.name).substr(7);
        int k = -1;
        const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), k);
        if (ec != std::errc() || end != digits.data() + digits.size() || k < 0 || k >= MostRest ||
            digits != std::to_string(k))
            return fail(fmt::format("{}: property '{}' is not one of f_rest_0..f_rest_{} (SH "
                                    "degree {} at most)",
                                    name, property.name, MostRest - 1, MaxShDegree));
        if (rest[static_cast<std::size_t>(k)] >= 0)
            return fail(fmt::format("{}: property '{}' appears twice", name, property.name));
        rest[static_cast<std::size_t>(k)] = static_cast<int>(p);
        ++count;
    }
    for (int k = 0; k < count; ++k) {
        if (rest[static_cast<std::size_t>(k)] < 0)
            return fail(fmt::format("{}: {} f_rest_* properties but no 'f_rest_{}' (a gap in the "
                                    "SH coefficients?)",
                                    name, count, k));
        layout.rest.push_back(rest[static_cast<std::size_t>(k)]);
    }
    layout.shDegree = -1;
    for (int d = 0; d <= MaxShDegree; ++d)
        if (count == 3 * (shCoefficients(d) - 1))
            layout.shDegree = d;
    if (layout.shDegree < 0)
        return fail(fmt::format("{}: {} f_rest_* properties: a 3DGS PLY has 0, 9, 24 or 45 "
                                "(SH degree 0 to {})",
                                name, count, MaxShDegree));
    return layout;
}

} // namespace

bool isGaussianPly(std::span<const std::uint8_t> bytes)
{
    auto header = parseHeader(bytes, "");
    if (!header)
        return false;
    const Element* vertex = findElement(header.value(), "vertex");
    return vertex && missingProperty(*vertex).empty();
}

Result<GaussianData> readGaussianPly(std::span<const std::uint8_t> bytes, const std::string& name)
{
    auto parsed = parseCheckedHeader(bytes, name);
    if (!parsed)
        return fail(parsed.error());
    const Header& header = parsed.value();
    BodyReader reader(bytes.subspan(header.bodyOffset), header.format);
    const Element* vertex = findElement(header, "vertex");
    if (!vertex)
        return fail(fmt::format("{}: no 'vertex' element", name));
    if (const std::string_view missing = missingProperty(*vertex); !missing.empty())
        return fail(fmt::format("{}: not a 3DGS splat PLY: the 'vertex' element has no '{}' "
                                "(a point cloud or mesh PLY?)",
                                name, missing));
    auto layoutResult = layoutOf(*vertex, name);
    if (!layoutResult)
        return fail(layoutResult.error());
    const Layout& layout = layoutResult.value();

    GaussianData out;
    out.shDegree = layout.shDegree;
    const int coefficients = shCoefficients(layout.shDegree);
    const auto count = static_cast<std::size_t>(vertex->count);
    out.positions.reserve(count);
    out.scales.reserve(count);
    out.rotations.reserve(count);
    out.opacities.reserve(count);
    out.sh.reserve(count * static_cast<std::size_t>(coefficients) * 3);
    Dropped dropped;
    dropped.before = count;
    std::vector<double> values;
    std::vector<double> sh(static_cast<std::size_t>(coefficients) * 3);
    const double s = header.scale;
    const glm::dvec3 t = header.translation;
    for (const auto& element : header.elements) {
        const bool isVertex = &element == vertex;
        values.resize(element.properties.size());
        for (std::uint64_t e = 0; e < element.count && !element.properties.empty(); ++e) {
            for (std::size_t p = 0; p < element.properties.size(); ++p) {
                const Property& property = element.properties[p];
                const auto truncated = [&] {
                    return endedEarly(reader, name, element, e, property);
                };
                if (!property.isList) {
                    if (!reader.read(property.type, values[p]))
                        return truncated();
                    continue;
                }
                // Another element's list (a face's, say): read past it.
                const auto items = readListCount(reader, header.format, name, element, e, property);
                if (!items)
                    return fail(items.error());
                for (std::uint64_t i = 0; i < items.value(); ++i) {
                    double item = 0;
                    if (!reader.read(property.type, item))
                        return truncated();
                }
            }
            if (!isVertex)
                continue;
            const auto at = [&](std::size_t i) {
                return values[static_cast<std::size_t>(layout.required[i])];
            };
            // f_dc_c is coefficient 0 of channel c; f_rest holds channel by channel the rest.
            for (int c = 0; c < 3; ++c) {
                sh[static_cast<std::size_t>(c)] = at(3 + static_cast<std::size_t>(c));
                for (int k = 1; k < coefficients; ++k)
                    sh[static_cast<std::size_t>(k * 3 + c)] = values[static_cast<std::size_t>(
                        layout.rest[static_cast<std::size_t>(c * (coefficients - 1) + k - 1)])];
            }
            const glm::dvec3 position = s * glm::dvec3(at(0), at(1), at(2)) + t;
            // log(s) added to log scales: the same as scaling them by s.
            const glm::dvec3 logScale = glm::dvec3(at(7), at(8), at(9)) + std::log(s);
            append(out, dropped, position, logScale, at(6),
                   glm::dvec4(at(10), at(11), at(12), at(13)), sh.data(), true, true);
        }
    }
    Result<GaussianData> result(std::move(out));
    for (const std::string& warning : header.warnings)
        result.addWarning(warning);
    if (dropped.total() > 0)
        result.addWarning(droppedGaussians(name, dropped));
    if (reader.remaining() > 0 && header.format != Format::Ascii)
        result.addWarning(trailingBytesWarning(name, reader.remaining()));
    return result;
}

Result<GaussianData> readSplat(std::span<const std::uint8_t> bytes, const std::string& name)
{
    constexpr std::size_t Bytes = 32;
    if (bytes.empty())
        return fail(fmt::format("{}: empty file", name));
    if (bytes.size() % Bytes != 0)
        return fail(fmt::format("{}: not a .splat file: {} bytes is not a whole number of 32-byte "
                                "splats (truncated?)",
                                name, bytes.size()));
    const std::size_t count = bytes.size() / Bytes;
    GaussianData out;
    out.positions.reserve(count);
    out.scales.reserve(count);
    out.rotations.reserve(count);
    out.opacities.reserve(count);
    out.sh.reserve(count * 3);
    Dropped dropped;
    dropped.before = count;
    const auto floatAt = [&](std::size_t offset) {
        std::uint32_t bits;
        std::memcpy(&bits, bytes.data() + offset, sizeof bits);
        if constexpr (std::endian::native == std::endian::big)
            bits = __builtin_bswap32(bits);
        return static_cast<double>(std::bit_cast<float>(bits));
    };
    for (std::size_t i = 0; i < count; ++i) {
        const std::size_t at = i * Bytes;
        const glm::dvec3 position(floatAt(at), floatAt(at + 4), floatAt(at + 8));
        const glm::dvec3 scale(floatAt(at + 12), floatAt(at + 16), floatAt(at + 20));
        const std::uint8_t* rgba = bytes.data() + at + 24;
        const std::uint8_t* rot = bytes.data() + at + 28;
        double sh[3];
        for (int c = 0; c < 3; ++c)
            sh[c] = (rgba[c] / 255.0 - 0.5) / ShC0;
        const glm::dvec4 wxyz((rot[0] - 128.0) / 128.0, (rot[1] - 128.0) / 128.0,
                              (rot[2] - 128.0) / 128.0, (rot[3] - 128.0) / 128.0);
        append(out, dropped, position, scale, rgba[3] / 255.0, wxyz, sh, false, false);
    }
    Result<GaussianData> result(std::move(out));
    if (dropped.total() > 0)
        result.addWarning(droppedGaussians(name, dropped));
    return result;
}

namespace {

std::string lowerExtension(const std::filesystem::path& path)
{
    std::string extension = path.extension().string();
    for (char& c : extension)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return extension;
}

} // namespace

bool isSplatFile(const std::filesystem::path& path)
{
    const std::string extension = lowerExtension(path);
    if (extension == ".splat" || extension == ".spz")
        return true;
    auto start = readFileStart(path, SplatSniffBytes);
    return start && isSplatStart(start.value());
}

bool isSplatStart(std::span<const std::uint8_t> start)
{
    return isGaussianPly(start) || isCompressedPly(start) || isSpz(start);
}

Result<GaussianData> readGaussians(const std::filesystem::path& path)
{
    auto bytes = readFile(path);
    if (!bytes)
        return fail(bytes.error());
    const std::string name = path.string();
    const std::string extension = lowerExtension(path);
    const std::span<const std::uint8_t> data = bytes.value();
    if (isGaussianPly(data))
        return readGaussianPly(data, name);
    if (isCompressedPly(data))
        return readCompressedPly(data, name);
    if (isSpz(data) || extension == ".spz")
        return readSpz(data, name);
    if (extension == ".splat")
        return readSplat(data, name);
    if (extension == ".ply")
        return readGaussianPly(data, name); // says what the PLY lacks
    return fail(
        fmt::format("{}: not a splat file (a 3DGS or compressed PLY, an SPZ or a .splat)", name));
}

} // namespace tandem::io
