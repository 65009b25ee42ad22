// Walks a prepared chain for a backend: picks ping-pong buffers and calls the backend's
// executor once per stage, then the final encode. Shared by the host and CUDA backends so both
// run the same passes in the same order. Private to postfx/.
#pragma once

#include "engine/postfx/Prepared.h"
#include "engine/postfx/Stages.h"

namespace tandem::postfx::detail {

/// Source/destination names: the G-buffer colour or one of three intermediate buffers.
inline constexpr int GBufferColor = -1;
inline constexpr int Temporary = 2;

/// `Exec` provides: beginStage(name), endStage(name), template <class S> stage(src, dst, entry)
/// (all of S's passes: pass 0 reads `src`, the last writes `dst`, a two-pass stage goes through
/// Temporary), and encode(src, srgb) (the final RGBA8 store, a stage called "encode": linear
/// colour to sRGB when `srgb`, else the values as they are: after a debug view, which writes
/// data, whatever follows it).
template <class Exec> void walkChain(Exec& exec, const PreparedChain& chain)
{
    int src = GBufferColor;
    bool colour = true;
    for (const PreparedChain::Entry& entry : chain.entries()) {
        const int dst = src == 0 ? 1 : 0;
        const StageDescriptor& descriptor =
            stageDescriptors()[static_cast<std::size_t>(entry.kind)];
        const char* name = descriptor.name;
        colour = colour && !descriptor.writesData;
        exec.beginStage(name);
        visitStage(entry.kind, [&]<class S>() {
            static_assert(passesOf<S> <= 2, "a stage has at most two passes (one temporary)");
            exec.template stage<S>(src, dst, entry);
        });
        exec.endStage(name);
        src = dst;
    }
    exec.beginStage("encode");
    exec.encode(src, colour);
    exec.endStage("encode");
}

} // namespace tandem::postfx::detail
