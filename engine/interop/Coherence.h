// Which of a resource's two copies holds its latest contents: GL's (the texture or buffer a
// handoff maps) or the CUDA-resident one a frame without a handoff uses instead (a CUDA array or
// device buffer of the same format and size, owned beside the registration). The handoff asks
// these rules before each use and copies only when a use would otherwise see stale contents;
// they are plain functions so tests can walk every case. No CUDA or GL types here. Any thread.
#pragma once

#include "engine/interop/Pass.h"

namespace tandem::interop {

/// Which copy is newer.
enum class Newer {
    Neither, ///< both hold the same contents
    Gl,      ///< GL wrote last (a draw, a host upload, a pass inside a handoff)
    Cuda,    ///< a frame resident on CUDA wrote last
};

/// What one use needs first, and which copy is newer after it.
struct Step {
    bool copyToCuda = false; ///< bring the CUDA copy up to date from GL's before the use
    bool copyToGl = false;   ///< bring GL's copy up to date from the CUDA copy before the use
    Newer after = Newer::Neither;
};

/// A use by a frame resident on CUDA (the pass sees the CUDA copy) with `intent`.
constexpr Step residentUse(Newer newer, Intent intent)
{
    Step step;
    step.copyToCuda = newer == Newer::Gl && intent != Intent::Write;
    if (intent != Intent::Read)
        step.after = Newer::Cuda;
    else
        step.after = newer == Newer::Cuda ? Newer::Cuda : Newer::Neither;
    return step;
}

/// A use inside a handoff (the pass sees GL's copy, mapped) with `intent`.
constexpr Step mappedUse(Newer newer, Intent intent)
{
    Step step;
    step.copyToGl = newer == Newer::Cuda && intent != Intent::Write;
    if (intent != Intent::Read)
        step.after = Newer::Gl;
    else
        step.after = newer == Newer::Gl ? Newer::Gl : Newer::Neither;
    return step;
}

} // namespace tandem::interop
