// frame: where a frame runs is the frame's decision (frame/Residence.h), from the doctor, the
// user's --backend and what its passes can do in this build; post-processing only offers them.
#include "engine/frame/Residence.h"

#include <gtest/gtest.h>

#include "engine/cuda/Device.h"

namespace tandem::frame {
namespace {

interop::InteropStatus doctorSaying(interop::Path path, std::string reason)
{
    interop::InteropStatus doctor;
    doctor.path = path;
    doctor.reason = std::move(reason);
    doctor.handoffMicroseconds = 325.0;
    return doctor;
}

TEST(Residence, HostWhenAskedWhateverTheDoctorSays)
{
    const auto doctor = doctorSaying(interop::Path::Cuda, "interop works on GPU 0");
    auto residence = chooseResidence(postfx::BackendChoice::Host, doctor);
    ASSERT_TRUE(residence) << residence.error();
    EXPECT_EQ(residence.value().path, interop::Path::Host);
    EXPECT_EQ(residence.value().reason, "host backend (asked for with --backend host)");
}

TEST(Residence, AutoFollowsADoctorWhoFoundNoInterop)
{
    const auto doctor = doctorSaying(interop::Path::Host, "GL runs on llvmpipe");
    auto residence = chooseResidence(postfx::BackendChoice::Auto, doctor);
    ASSERT_TRUE(residence) << residence.error();
    EXPECT_EQ(residence.value().path, interop::Path::Host);
    EXPECT_EQ(residence.value().reason, "host backend: GL runs on llvmpipe");
}

TEST(Residence, AnExplicitCudaThatCannotBeHadFailsWithTheReason)
{
    const auto doctor = doctorSaying(interop::Path::Host, "GL runs on llvmpipe");
    auto residence = chooseResidence(postfx::BackendChoice::Cuda, doctor);
    ASSERT_FALSE(residence);
    EXPECT_EQ(residence.error(), "--backend cuda cannot be used: GL runs on llvmpipe");
}

TEST(Residence, CudaWhereTheDoctorAndThePassesAllowIt)
{
    const auto doctor = doctorSaying(interop::Path::Cuda, "interop works on GPU 0");
    auto chosen = chooseResidence(postfx::BackendChoice::Auto, doctor);
    ASSERT_TRUE(chosen) << chosen.error();
    auto explicitly = chooseResidence(postfx::BackendChoice::Cuda, doctor);
    if (cuda::isBuiltWithCuda()) {
        EXPECT_EQ(chosen.value().path, interop::Path::Cuda);
        EXPECT_EQ(chosen.value().reason, "CUDA backend: interop works on GPU 0; one handoff "
                                         "(map+unmap) measured 325 us at start-up");
        ASSERT_TRUE(explicitly);
        EXPECT_EQ(explicitly.value().path, interop::Path::Cuda);
    } else {
        // A build without CUDA has no CUDA passes, whatever a doctor says.
        EXPECT_EQ(chosen.value().path, interop::Path::Host);
        EXPECT_EQ(chosen.value().reason,
                  "host backend: post-processing has no CUDA passes in this build");
        ASSERT_FALSE(explicitly);
        EXPECT_EQ(explicitly.error(), "--backend cuda cannot be used: post-processing has no "
                                      "CUDA passes in this build");
    }
    EXPECT_EQ(postfx::PostProcessor::supports(interop::Path::Cuda), cuda::isBuiltWithCuda());
    EXPECT_TRUE(postfx::PostProcessor::supports(interop::Path::Host));
}

} // namespace
} // namespace tandem::frame
