#include "engine/web/JpegBands.h"

#include <algorithm>
#include <cstdint>
#include <string_view>

#include <fmt/format.h>

namespace tandem::web {

namespace {

constexpr int McuSide = 16;
constexpr int MinBandRows = 64;
constexpr int MaxRestartInterval = 65535;

/// A band's JPEG split where the join needs it: the header (SOI up to the scan), where its
/// frame header's height lies, and the entropy-coded data (up to the EOI).
struct Band {
    std::string_view header;  ///< SOI .. the byte before SOS
    std::string_view scan;    ///< the SOS segment
    std::string_view data;    ///< entropy-coded segment (without the EOI)
    std::size_t heightAt = 0; ///< offset of the frame header's height in `header`
    int width = 0;
    int height = 0;
};

int be16(std::string_view bytes, std::size_t at)
{
    return (static_cast<std::uint8_t>(bytes[at]) << 8) | static_cast<std::uint8_t>(bytes[at + 1]);
}

Result<Band> split(std::string_view jpeg, std::size_t number)
{
    const auto bad = [number](const std::string& why) {
        return fail(fmt::format("JPEG band {}: {}", number, why));
    };
    if (jpeg.size() < 4 || be16(jpeg, 0) != 0xffd8 || be16(jpeg, jpeg.size() - 2) != 0xffd9)
        return bad("no SOI or no EOI");
    Band band;
    bool frameHeader = false;
    std::size_t at = 2;
    while (at + 4 <= jpeg.size()) {
        if (static_cast<std::uint8_t>(jpeg[at]) != 0xff)
            return bad(fmt::format("no marker at byte {}", at));
        const int marker = static_cast<std::uint8_t>(jpeg[at + 1]);
        const std::size_t length = static_cast<std::size_t>(be16(jpeg, at + 2));
        if (length < 2 || at + 2 + length > jpeg.size())
            return bad(fmt::format("a segment runs past the end at byte {}", at));
        const std::string_view segment = jpeg.substr(at, 2 + length);
        if (marker == 0xc0 || marker == 0xc1) { // baseline or extended sequential, Huffman
            if (length < 8)
                return bad("a short frame header");
            band.heightAt = at + 5;
            band.height = be16(jpeg, at + 5);
            band.width = be16(jpeg, at + 7);
            frameHeader = true;
        } else if (marker >= 0xc2 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 &&
                   marker != 0xcc) {
            return bad(fmt::format("not a sequential Huffman JPEG (SOF marker {:#x})", marker));
        } else if (marker == 0xdd) {
            return bad("it has restart markers of its own");
        } else if (marker == 0xda) {
            if (!frameHeader)
                return bad("a scan before the frame header");
            band.header = jpeg.substr(0, at);
            band.scan = segment;
            band.data = jpeg.substr(at + 2 + length, jpeg.size() - 2 - (at + 2 + length));
            return band;
        }
        at += 2 + length;
    }
    return bad("no scan");
}

} // namespace

int bandRows(int width, int height, int parts)
{
    const int mcuRows = (height + McuSide - 1) / McuSide;
    const int mcuColumns = std::max(1, (width + McuSide - 1) / McuSide);
    const int byParts = (mcuRows + std::max(1, parts) - 1) / std::max(1, parts);
    const int byInterval = std::max(1, MaxRestartInterval / mcuColumns);
    return std::max(MinBandRows / McuSide, std::min(byParts, byInterval)) * McuSide;
}

Result<std::string> joinBands(const std::vector<std::string>& bands, int width, int height,
                              int rows)
{
    if (bands.empty() || rows < 1 || rows % McuSide != 0 || height < 1 ||
        static_cast<long>(bands.size()) != (height + rows - 1) / rows)
        return fail(fmt::format("JPEG bands: {} bands of {} rows cannot make {} rows", bands.size(),
                                rows, height));
    const long interval = static_cast<long>((width + McuSide - 1) / McuSide) * (rows / McuSide);
    if (interval > MaxRestartInterval)
        return fail(fmt::format("JPEG bands: {} MCUs a band, more than a restart interval holds",
                                interval));
    std::vector<Band> parts;
    std::size_t size = 0;
    for (std::size_t i = 0; i < bands.size(); ++i) {
        auto band = split(bands[i], i);
        if (!band)
            return fail(band.error());
        const int expected =
            i + 1 < bands.size() ? rows : height - rows * static_cast<int>(bands.size() - 1);
        if (band.value().width != width || band.value().height != expected)
            return fail(fmt::format("JPEG band {}: {}x{}, not {}x{}", i, band.value().width,
                                    band.value().height, width, expected));
        parts.push_back(band.value());
        size += band.value().data.size() + 2;
    }
    // Every band's tables and scan header must be the first's: only the height may differ.
    const Band& first = parts.front();
    for (std::size_t i = 1; i < parts.size(); ++i) {
        const Band& b = parts[i];
        const bool same =
            b.header.size() == first.header.size() && b.scan == first.scan &&
            b.heightAt == first.heightAt &&
            b.header.substr(0, b.heightAt) == first.header.substr(0, first.heightAt) &&
            b.header.substr(b.heightAt + 2) == first.header.substr(first.heightAt + 2);
        if (!same)
            return fail(fmt::format("JPEG band {}: its tables or scan differ from band 0's", i));
    }
    std::string out;
    out.reserve(first.header.size() + 6 + first.scan.size() + size);
    out.append(first.header);
    out[first.heightAt] = static_cast<char>(height >> 8);
    out[first.heightAt + 1] = static_cast<char>(height & 0xff);
    // DRI: a restart marker after every band's MCUs.
    out += {'\xff',
            '\xdd',
            '\x00',
            '\x04',
            static_cast<char>(interval >> 8),
            static_cast<char>(interval & 0xff)};
    out.append(first.scan);
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (i > 0)
            out += {'\xff', static_cast<char>(0xd0 + (i - 1) % 8)};
        out.append(parts[i].data);
    }
    out += {'\xff', '\xd9'};
    return out;
}

} // namespace tandem::web
