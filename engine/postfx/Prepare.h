// Turns a stage's settings into the parameter block its per-pixel function reads (Gaussian
// weights, sample patterns, 2^exposure), once on the host, so both backends read the same
// numbers. Any thread.
#pragma once

#include <vector>

#include "engine/postfx/Chain.h"
#include "engine/postfx/PixelStages.h"

namespace tandem::postfx {

/// The tonemap stage's exposure and curve table (host memory; the CUDA backend uploads it).
struct TonemapTable {
    float exposureScale = 1.0f;
    std::vector<float> curve; ///< TonemapCurveSize + 1 entries
    TonemapK view(const float* curveMemory) const { return {exposureScale, curveMemory}; }
};
TonemapTable prepare(const TonemapParams& p);

/// The last tonemap table, rebuilt only when the parameters change (4097 pow() calls are worth
/// skipping every frame).
class TonemapCache {
public:
    const TonemapTable& get(const TonemapParams& p)
    {
        if (m_table.curve.empty() || p.exposure != m_params.exposure || p.gamma != m_params.gamma) {
            m_table = prepare(p);
            m_params = p;
        }
        return m_table;
    }

private:
    TonemapParams m_params;
    TonemapTable m_table;
};
BlurK prepare(const BlurParams& p);
BilateralK prepare(const BilateralParams& p);
OutlineK prepare(const OutlineParams& p);
SsaoK prepare(const SsaoParams& p, const FrameInfo& frame);
FxaaK prepare(const FxaaParams& p);
ViewK prepareView(const FrameInfo& frame);

} // namespace tandem::postfx
