#include "engine/web/FrameEncoder.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>
#include <turbojpeg.h>

#include "engine/core/Error.h"

namespace tandem::web {

FrameEncoder::FrameEncoder() : m_handle(tjInitCompress())
{
    if (!m_handle)
        throw Error(
            fmt::format("web::FrameEncoder: tjInitCompress() failed: {}", tjGetErrorStr2(nullptr)));
}

FrameEncoder::~FrameEncoder()
{
    tjDestroy(m_handle);
}

Result<std::string> FrameEncoder::jpeg(const io::ImageView& image, int quality)
{
    if (image.width < 1 || image.height < 1 || !image.top)
        return fail("web::FrameEncoder::jpeg(): an empty image");
    // libjpeg-turbo takes the first row in memory and a positive pitch; rows stored bottom
    // first (a negative stride) are its TJFLAG_BOTTOMUP.
    const bool bottomUp = image.stride < 0;
    const unsigned char* first = bottomUp ? image.row(image.height - 1) : image.top;
    const int pitch = static_cast<int>(bottomUp ? -image.stride : image.stride);
    unsigned char* out = nullptr;
    unsigned long size = 0;
    const int flags = TJFLAG_FASTDCT | (bottomUp ? TJFLAG_BOTTOMUP : 0);
    if (tjCompress2(m_handle, first, image.width, pitch, image.height, TJPF_RGBA, &out, &size,
                    TJSAMP_420, std::clamp(quality, 1, 100), flags) != 0) {
        const std::string why = tjGetErrorStr2(m_handle);
        tjFree(out);
        return fail(
            fmt::format("JPEG encoding of a {}x{} frame: {}", image.width, image.height, why));
    }
    std::string bytes(reinterpret_cast<const char*>(out), size);
    tjFree(out);
    return bytes;
}

Result<std::string> FrameEncoder::jpeg(const std::uint8_t* planes, const Yuv420Layout& layout,
                                       int firstRow, int rows, int quality)
{
    if (!planes || layout.width < 1 || rows < 1 || firstRow < 0 || firstRow % 2 != 0 ||
        firstRow + rows > layout.height)
        return fail(fmt::format("web::FrameEncoder::jpeg(): rows {}..{} of {}x{} planes", firstRow,
                                firstRow + rows, layout.width, layout.height));
    const std::size_t chromaAt =
        static_cast<std::size_t>(firstRow / 2) * static_cast<std::size_t>(layout.chromaWidth());
    const unsigned char* band[3] = {
        planes + static_cast<std::size_t>(firstRow) * static_cast<std::size_t>(layout.lumaStride()),
        planes + layout.cbOffset() + chromaAt, planes + layout.crOffset() + chromaAt};
    int strides[3] = {layout.lumaStride(), layout.chromaWidth(), layout.chromaWidth()};
    unsigned char* out = nullptr;
    unsigned long size = 0;
    if (tjCompressFromYUVPlanes(m_handle, band, layout.width, strides, rows, TJSAMP_420, &out,
                                &size, std::clamp(quality, 1, 100), TJFLAG_FASTDCT) != 0) {
        const std::string why = tjGetErrorStr2(m_handle);
        tjFree(out);
        return fail(
            fmt::format("JPEG encoding of {}x{} YCbCr planes: {}", layout.width, rows, why));
    }
    std::string bytes(reinterpret_cast<const char*>(out), size);
    tjFree(out);
    return bytes;
}

Result<std::string> FrameEncoder::png(const io::ImageView& image)
{
    io::Image copy;
    copy.width = image.width;
    copy.height = image.height;
    copy.pixels.resize(static_cast<std::size_t>(image.width) * image.height * 4);
    for (int y = 0; y < image.height; ++y)
        std::memcpy(copy.row(y), image.row(y), static_cast<std::size_t>(image.width) * 4);
    auto encoded = io::encodePng(copy);
    if (!encoded)
        return fail(encoded.error());
    return std::string(encoded.value().begin(), encoded.value().end());
}

} // namespace tandem::web
