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

} // namespace tandem::frame
