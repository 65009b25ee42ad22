// The browser view's colour conversion on the GPU: a frame's RGBA8 output turned into the
// YCbCr 4:2:0 planes libjpeg-turbo encodes from (core/Yuv.h, the same arithmetic as its own
// conversion), so the CPU neither converts nor subsamples and the read-back carries 1.5 bytes a
// pixel instead of 4. Plain types, no CUDA include; CUDA builds only. Render thread.
#pragma once

#include <cstdint>

namespace tandem::interop {

/// Converts the `width`×`height` RGBA8 image at `rgba` (device memory, rows bottom to top as
/// GL's, `width * 4` bytes each) into the planes at `planes` (device memory, a
/// tandem::Yuv420Layout: rows top to bottom) on `stream` (a cudaStream_t). Throws CudaError.
void convertToYuv420(const void* rgba, int width, int height, void* planes, void* stream);
/// The same from the image's CUDA array itself (`surface`: a cudaSurfaceObject_t of it, RGBA8,
/// rows bottom to top), so the image needs no copy out first.
void convertToYuv420(std::uint64_t surface, int width, int height, void* planes, void* stream);

} // namespace tandem::interop
