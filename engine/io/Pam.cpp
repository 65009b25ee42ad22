#include "engine/io/Pam.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "engine/core/AtomicFile.h"
#include "engine/core/Error.h"
#include "engine/core/File.h"

namespace tandem::io {

Result<bool> writePam(const std::filesystem::path& path, const ImageView& image, bool overwrite,
                      bool* existed)
{
    if (existed)
        *existed = false;
    const auto rowBytes = static_cast<std::size_t>(image.width) * 4;
    if (image.width <= 0 || image.height <= 0)
        return fail(fmt::format("{}: image to write has an invalid size {}x{}", path.string(),
                                image.width, image.height));
    TANDEM_ASSERT(image.top && static_cast<std::size_t>(std::abs(image.stride)) >= rowBytes,
                  "io::writePam(): a view without pixels, or rows that overlap");
    auto file = AtomicFile::create(path, overwrite ? Replace::Yes : Replace::No, existed);
    if (!file)
        return fail(file.error());
    const std::string header =
        fmt::format("P7\nWIDTH {}\nHEIGHT {}\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n",
                    image.width, image.height);
    std::vector<std::span<const std::uint8_t>> pieces;
    pieces.reserve(static_cast<std::size_t>(image.height) + 1);
    pieces.emplace_back(reinterpret_cast<const std::uint8_t*>(header.data()), header.size());
    for (int y = 0; y < image.height; ++y)
        pieces.emplace_back(image.row(y), rowBytes);
    if (auto written = file.value().writePieces(pieces); !written)
        return written;
    auto committed = file.value().commit();
    if (existed)
        *existed = file.value().existed();
    return committed;
}

Result<bool> writePam(const std::filesystem::path& path, const Image& image, bool overwrite,
                      bool* existed)
{
    if (existed)
        *existed = false;
    if (image.pixels.size() != static_cast<std::size_t>(std::max(image.width, 0)) *
                                   static_cast<std::size_t>(std::max(image.height, 0)) * 4)
        return fail(fmt::format("{}: image to write has an invalid size {}x{}", path.string(),
                                image.width, image.height));
    return writePam(path, ImageView(image), overwrite, existed);
}

Result<Image> readPam(const std::filesystem::path& path)
{
    auto bytes = readFile(path);
    if (!bytes)
        return fail(bytes.error());
    const std::string text(
        bytes.value().begin(),
        bytes.value().begin() +
            static_cast<std::ptrdiff_t>(std::min<std::size_t>(bytes.value().size(), 256)));
    const std::size_t end = text.find("ENDHDR\n");
    int width = 0, height = 0;
    if (text.rfind("P7\n", 0) != 0 || end == std::string::npos ||
        std::sscanf(text.c_str(), "P7\nWIDTH %d\nHEIGHT %d\nDEPTH 4\nMAXVAL 255\n", &width,
                    &height) != 2 ||
        text.find("TUPLTYPE RGB_ALPHA\n") == std::string::npos || width <= 0 || height <= 0)
        return fail(fmt::format("{}: not a PAM file of RGB_ALPHA 8-bit pixels", path.string()));
    const std::size_t offset = end + 7;
    const std::size_t size = static_cast<std::size_t>(width) * height * 4;
    if (bytes.value().size() != offset + size)
        return fail(fmt::format("{}: {} bytes of pixels, expected {}", path.string(),
                                bytes.value().size() - offset, size));
    Image image;
    image.width = width;
    image.height = height;
    image.pixels.assign(bytes.value().begin() + static_cast<std::ptrdiff_t>(offset),
                        bytes.value().end());
    return image;
}

} // namespace tandem::io
