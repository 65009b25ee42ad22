// Where a frame runs between its GL passes, its residence: inside ONE CUDA handoff (CUDA
// passes on the mapped view), or on the host (read back, CPU threads, upload). The frame
// decides, from the interop doctor's verdict, what the user asked for (--backend) and what its
// passes can do in this build; passes only say which paths they have. Any thread.
#pragma once

#include <string>

#include "engine/core/Result.h"
#include "engine/interop/Doctor.h"
#include "engine/interop/Pass.h"
#include "engine/postfx/PostProcessor.h"

namespace tandem::frame {

/// Where a frame runs, and why.
struct Residence {
    interop::Path path = interop::Path::Host;
    /// One sentence: where and why ("CUDA backend: ...; one handoff (map+unmap) measured
    /// 325 us at start-up", "host backend (asked for with --backend host)").
    std::string reason = "host backend";
};

/// The frame's residence: the host when `choice` is Host, when the doctor found GL-CUDA
/// interop unusable (Auto) or when the passes have no CUDA side in this build; CUDA otherwise.
/// Fails with the doctor's reason when `choice` is Cuda and CUDA cannot be had.
Result<Residence> chooseResidence(postfx::BackendChoice choice,
                                  const interop::InteropStatus& doctor);

} // namespace tandem::frame
