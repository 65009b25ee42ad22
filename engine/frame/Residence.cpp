#include "engine/frame/Residence.h"

#include <fmt/format.h>

namespace tandem::frame {

Result<Residence> chooseResidence(postfx::BackendChoice choice,
                                  const interop::InteropStatus& doctor)
{
    if (choice == postfx::BackendChoice::Host)
        return Residence{interop::Path::Host, "host backend (asked for with --backend host)"};
    std::string why = doctor.reason;
    if (doctor.path == interop::Path::Cuda && !postfx::PostProcessor::supports(interop::Path::Cuda))
        why = "post-processing has no CUDA passes in this build";
    else if (doctor.path == interop::Path::Cuda)
        return Residence{interop::Path::Cuda,
                         fmt::format("CUDA backend: {}; one handoff (map+unmap) measured {:.0f} us "
                                     "at start-up",
                                     doctor.reason, doctor.handoffMicroseconds)};
    if (choice == postfx::BackendChoice::Cuda)
        return fail("--backend cuda cannot be used: " + why);
    return Residence{interop::Path::Host, "host backend: " + why};
}

Memory chooseMemory(const MemoryNeeds& needs, std::string* why)
{
    const char* gl = nullptr;
    if (needs.choice == MemoryChoice::Gl)
        gl = "asked for with --frame-memory gl";
    else if (!needs.cudaPath)
        gl = "the host path";
    else if (needs.glDraws)
        gl = "GL draws into the G-buffer";
    else if (needs.hostPasses)
        gl = "a pass runs on the host";
    else if (!needs.cudaPasses)
        gl = "no pass runs on CUDA";
    else if (needs.captured)
        gl = "a capture tool records the frame";
    else if (needs.readsTargets)
        gl = "GL reads the G-buffer's targets after the frame";
    else if (!needs.showsOutput)
        gl = "the G-buffer colour is shown through GL";
    else if (needs.presents && !needs.presentCopy)
        gl = "presented with the passes inside the handoff";
    if (why)
        *why = gl ? fmt::format("GL-resident: {}", gl)
               : needs.presents
                   ? std::string("CUDA-resident: the output copied into GL in one map to "
                                 "be presented")
                   : std::string("CUDA-resident: no handoff; the output read back by CUDA");
    return gl ? Memory::Gl : Memory::Cuda;
}

} // namespace tandem::frame
