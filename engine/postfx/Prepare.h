// Turns a stage's settings into the parameter block its per-pixel function reads (Gaussian
// weights, sample patterns, 2^exposure), once on the host, so both backends read the same
// numbers. Any thread.
#pragma once

#include "engine/postfx/Chain.h"
#include "engine/postfx/PixelStages.h"

namespace tandem::postfx {

TonemapK prepare(const TonemapParams& p);
BlurK prepare(const BlurParams& p);
BilateralK prepare(const BilateralParams& p);
OutlineK prepare(const OutlineParams& p);
SsaoK prepare(const SsaoParams& p, const FrameInfo& frame);
FxaaK prepare(const FxaaParams& p);
ViewK prepareView(const FrameInfo& frame);

} // namespace tandem::postfx
