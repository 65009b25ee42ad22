// Where a frame runs between its GL passes, its residence: inside ONE CUDA handoff (CUDA
// passes on the mapped view), or on the host (read back, CPU threads, upload). The frame
// decides, from the interop doctor's verdict, what the user asked for (--backend) and what its
// passes can do in this build; passes only say which paths they have. Any thread.
#pragma once

#include <string>

#include "engine/core/EnumTable.h"
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

/// Where a frame's targets and scene data live for one frame, on the CUDA path: in GL's
/// textures and buffers, CUDA passes inside one handoff (map, passes, unmap), or in their
/// CUDA-resident copies, with no handoff when nothing in the frame needs GL.
enum class Memory { Gl, Cuda };
inline constexpr EnumTable<Memory, 2> Memories{
    "frame memory",
    {{{Memory::Gl, "gl", "GL's textures and buffers; CUDA passes inside one handoff"},
      {Memory::Cuda, "cuda", "CUDA arrays and buffers; no handoff (one map to present)"}}}};

/// --frame-memory: whether a frame may run resident on CUDA.
enum class MemoryChoice { Auto, Gl };
inline constexpr EnumTable<MemoryChoice, 2> MemoryChoices{
    "frame memory",
    {{{MemoryChoice::Auto, "auto",
       "CUDA-resident when nothing in the frame needs GL (no handoff headless, one map to "
       "present in a window), else GL's"},
      {MemoryChoice::Gl, "gl", "always GL's textures and buffers (comparisons)"}}}};

/// What a frame's memory depends on.
struct MemoryNeeds {
    MemoryChoice choice = MemoryChoice::Auto; ///< --frame-memory
    bool cudaPath = false;                    ///< the frame runs on the CUDA path (Residence)
    bool glDraws = false;                     ///< the geometry pass draws something this frame
    bool hostPasses = false;                  ///< a pass runs on the host this frame
    bool cudaPasses = false;                  ///< a pass runs on CUDA this frame
    bool captured = false;     ///< a capture tool records the frame (it sees GL only)
    bool readsTargets = false; ///< GL reads the G-buffer's targets after the frame
    bool showsOutput = false;  ///< what is shown is the chain's output (not the G-buffer colour)
    bool presents = true;      ///< GL shows or reads the frame after it (a window)
    bool presentCopy = true;   ///< presenting, a CUDA-resident frame copies its output into GL
};
/// The frame's memory this frame: Cuda when it runs on the CUDA path, GL draws nothing, every
/// pass runs on CUDA, no capture tool records it, GL reads none of its targets after it, and
/// what it shows is the chain's output,
/// either read back by CUDA (not presented) or copied into GL to be presented; Gl otherwise.
/// `why`, if given, gets one sentence.
Memory chooseMemory(const MemoryNeeds& needs, std::string* why = nullptr);

/// The frame's residence: the host when `choice` is Host, when the doctor found GL-CUDA
/// interop unusable (Auto) or when the passes have no CUDA side in this build; CUDA otherwise.
/// Fails with the doctor's reason when `choice` is Cuda and CUDA cannot be had.
Result<Residence> chooseResidence(postfx::BackendChoice choice,
                                  const interop::InteropStatus& doctor);

} // namespace tandem::frame
