// The post-process chain as configured: an ordered list of stages, each enabled or not, with
// its parameters; parsed from and printed as "--postfx" text. Plain data, no GL or CUDA, any
// thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/core/Result.h"

namespace tandem::postfx {

/// Every stage the chain knows.
enum class StageKind {
    Tonemap,    ///< exposure, ACES fit, gamma
    Blur,       ///< separable Gaussian
    Bilateral,  ///< joint bilateral denoise guided by depth
    Outline,    ///< Sobel edges of depth and normals
    Ssao,       ///< screen-space ambient occlusion from depth and normals
    Fxaa,       ///< fast approximate anti-aliasing
    ViewDepth,  ///< debug: linear depth as grey
    ViewNormal, ///< debug: normals as colour
    ViewId,     ///< debug: primitive ids in false colour
};

struct TonemapParams {
    float exposure = 0.0f; ///< stops (multiplies by 2^exposure)
    float gamma = 2.2f;    ///< display gamma
};
struct BlurParams {
    int radius = 3;     ///< pixels each side, 1..16
    float sigma = 1.5f; ///< pixels
};
struct BilateralParams {
    int radius = 3;            ///< pixels each side, 1..8
    float sigmaSpatial = 2.0f; ///< pixels
    float sigmaDepth = 0.02f;  ///< relative depth difference (fraction of the centre depth)
};
struct OutlineParams {
    float depthThreshold = 0.02f; ///< relative inverse-depth Laplacian where an edge starts
    float normalThreshold = 0.3f; ///< normal change per pixel where an edge starts
    float strength = 1.0f;        ///< 0..1
    float color[3] = {0.02f, 0.02f, 0.02f};
};
struct SsaoParams {
    int samples = 12;      ///< 4..16
    float radius = 0.5f;   ///< world units around the shaded point
    float bias = 0.05f;    ///< cosine below which a sample does not occlude
    float strength = 1.0f; ///< 0..2
};
struct FxaaParams {
    float edgeThreshold = 0.125f;     ///< local contrast (relative) needed to treat as an edge
    float edgeThresholdMin = 0.0312f; ///< absolute contrast below which nothing is done
    float span = 8.0f;                ///< longest search, pixels
};

/// One configured stage. Only the parameters of `kind` matter.
struct Stage {
    StageKind kind = StageKind::Tonemap;
    bool enabled = true;
    TonemapParams tonemap;
    BlurParams blur;
    BilateralParams bilateral;
    OutlineParams outline;
    SsaoParams ssao;
    FxaaParams fxaa;
};

/// The chain: stages in order.
struct Chain {
    std::vector<Stage> stages;

    /// Stages that are enabled.
    std::size_t enabledCount() const;
};

/// The stage's name as used on the command line and in timings ("tonemap", "view-depth"). A
/// view of a string literal: data() is null-terminated and static.
std::string_view stageName(StageKind kind);
/// All stage kinds, in the order --help lists them.
const std::vector<StageKind>& allStageKinds();

/// Parses "none", or stages separated by commas, each "name" or "name:key=value:key=value"
/// ("tonemap:exposure=1,blur:radius=4"). Fails naming the bad stage, key or value and listing
/// what is valid; values out of range are errors, not clamped.
Result<Chain> parseChain(std::string_view text);

/// Prints a chain in the form parseChain() reads (all parameters spelled out).
std::string formatChain(const Chain& chain);

} // namespace tandem::postfx
