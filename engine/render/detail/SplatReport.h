// What the CUDA splat rasterizer logs, formatted in a host source (nvcc cannot check fmt's
// compile-time format strings). Private to render/.
#pragma once

#include <cstddef>

namespace tandem::render::detail {

/// A frame's tile entries did not fit the plan: drawn the slow way.
void logSlowSplatFrame(std::size_t entries, std::size_t planned);
/// The entry buffers grew to `entries`.
void logSplatEntryRoom(std::size_t entries);

} // namespace tandem::render::detail
