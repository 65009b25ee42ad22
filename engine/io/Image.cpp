#include "engine/io/Image.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>
#include <stb_image.h>
#include <stb_image_write.h>

namespace tandem::io {

void Image::flipVertically()
{
    const std::size_t stride = static_cast<std::size_t>(width) * 4;
    for (int y = 0; y < height / 2; ++y)
        std::swap_ranges(row(y), row(y) + stride, row(height - 1 - y));
}

Result<bool> writePng(const std::filesystem::path& path, const Image& image, bool overwrite)
{
    std::error_code ec;
    if (!overwrite && std::filesystem::exists(path, ec))
        return fail(
            fmt::format("{}: already exists (pass --overwrite to replace it)", path.string()));
    if (image.width <= 0 || image.height <= 0 ||
        image.pixels.size() != static_cast<std::size_t>(image.width) * image.height * 4)
        return fail(fmt::format("{}: image to write has an invalid size {}x{}", path.string(),
                                image.width, image.height));
    // Write beside the target and rename, so a failure never leaves half a PNG behind.
    const std::filesystem::path temporary = path.string() + ".partial";
    if (!stbi_write_png(temporary.c_str(), image.width, image.height, 4, image.pixels.data(),
                        image.width * 4)) {
        std::filesystem::remove(temporary, ec);
        return fail(fmt::format("{}: cannot write PNG (folder missing or not writable, or disk "
                                "full)",
                                path.string()));
    }
    std::filesystem::rename(temporary, path, ec);
    if (ec) {
        std::filesystem::remove(temporary, ec);
        return fail(fmt::format("{}: cannot write PNG: {}", path.string(), ec.message()));
    }
    return true;
}

Result<Image> readPng(const std::filesystem::path& path)
{
    int width = 0, height = 0, channels = 0;
    stbi_uc* data = stbi_load(path.c_str(), &width, &height, &channels, 4);
    if (!data)
        return fail(fmt::format("{}: cannot read image: {}", path.string(),
                                stbi_failure_reason() ? stbi_failure_reason() : "unknown"));
    Image image;
    image.width = width;
    image.height = height;
    image.pixels.assign(data, data + static_cast<std::size_t>(width) * height * 4);
    stbi_image_free(data);
    return image;
}

} // namespace tandem::io
