// Walks an enabled chain for a backend: picks ping-pong buffers and calls the backend's
// executor once per pass, then the final encode. Shared by the host and CUDA backends so both
// run the same passes in the same order. Private to postfx/.
#pragma once

#include "engine/postfx/Chain.h"
#include "engine/postfx/Prepare.h"

namespace tandem::postfx::detail {

/// Source/destination names: the G-buffer colour or one of three intermediate buffers.
inline constexpr int GBufferColor = -1;
inline constexpr int Temporary = 2;

/// `Exec` provides: tonemapTables() (a TonemapCache that outlives the run), beginStage(kind),
/// endStage(kind), beginEncode(), endEncode(), and
/// tonemap/blur/bilateral/outline/ssao/ fxaa/viewDepth/viewNormal/viewId(src, dst, k), encode(src).
/// blur is separable: horizontal then vertical, through Temporary or fused, as long as the sums
/// come out the same.
template <class Exec> void walkChain(Exec& exec, const Chain& chain, const FrameInfo& frame)
{
    int src = GBufferColor;
    for (const Stage& stage : chain.stages) {
        if (!stage.enabled)
            continue;
        const int dst = src == 0 ? 1 : 0;
        exec.beginStage(stage.kind);
        switch (stage.kind) {
        case StageKind::Tonemap:
            exec.tonemap(src, dst, exec.tonemapTables().get(stage.tonemap));
            break;
        case StageKind::Blur:
            exec.blur(src, dst, prepare(stage.blur));
            break;
        case StageKind::Bilateral:
            exec.bilateral(src, dst, prepare(stage.bilateral));
            break;
        case StageKind::Outline:
            exec.outline(src, dst, prepare(stage.outline));
            break;
        case StageKind::Ssao:
            exec.ssao(src, dst, prepare(stage.ssao, frame));
            break;
        case StageKind::Fxaa:
            exec.fxaa(src, dst, prepare(stage.fxaa));
            break;
        case StageKind::ViewDepth:
            exec.viewDepth(dst, prepareView(frame));
            break;
        case StageKind::ViewNormal:
            exec.viewNormal(dst);
            break;
        case StageKind::ViewId:
            exec.viewId(dst);
            break;
        }
        exec.endStage(stage.kind);
        src = dst;
    }
    exec.beginEncode();
    exec.encode(src);
    exec.endEncode();
}

} // namespace tandem::postfx::detail
