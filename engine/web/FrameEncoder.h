// Frames as images for the browser: JPEG through libjpeg-turbo (RGBA rows read where they lie,
// GL's bottom-up order included, or the YCbCr 4:2:0 planes a CUDA pass made; 4:2:0 chroma, the
// fast DCT; a band of rows alone, for encoders that share a frame: web/JpegBands.h) and PNG for
// a lossless still. One encoder per thread: it holds a libjpeg-turbo handle. CPU only.
#pragma once

#include <string>

#include "engine/core/Result.h"
#include "engine/core/Yuv.h"
#include "engine/io/Image.h"

namespace tandem::web {

class FrameEncoder {
public:
    /// Throws tandem::Error when libjpeg-turbo cannot make a compressor (out of memory).
    FrameEncoder();
    ~FrameEncoder();
    FrameEncoder(const FrameEncoder&) = delete;
    FrameEncoder& operator=(const FrameEncoder&) = delete;

    /// `image` as a JPEG of quality 1..100 (alpha dropped). Fails with libjpeg-turbo's message.
    Result<std::string> jpeg(const io::ImageView& image, int quality);
    /// Rows [firstRow, firstRow + rows) of the YCbCr 4:2:0 planes at `planes` (laid out as
    /// `layout`) as a JPEG of quality 1..100; `firstRow` even. Fails with libjpeg-turbo's
    /// message.
    Result<std::string> jpeg(const std::uint8_t* planes, const Yuv420Layout& layout, int firstRow,
                             int rows, int quality);
    /// `image` as a PNG (io::encodePng: RGB when opaque).
    Result<std::string> png(const io::ImageView& image);

private:
    void* m_handle = nullptr; ///< tjhandle
};

} // namespace tandem::web
