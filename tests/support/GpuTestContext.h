// Test fixture for the gpu tier: CUDA device 0 selected, a headless EGL context on the same GPU
// (EGL_NV_device_cuda) with synchronous debug output, the interop doctor's verdict (which must
// be the CUDA path), and a check that no GL error was reported by the end of each test.
#pragma once

#include <memory>

#include <gtest/gtest.h>

#include "engine/cuda/Device.h"
#include "engine/gl/Debug.h"
#include "engine/interop/Doctor.h"
#include "engine/platform/Context.h"

namespace tandem::test {

class GpuTest : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        auto device = cuda::selectDevice(-1);
        ASSERT_TRUE(device) << device.error();
        platform::ContextOptions options;
        options.width = 64;
        options.height = 64;
        options.debug = true;
        options.cudaDevice = device.value().index;
        auto context = platform::tryCreateHeadless(options);
        ASSERT_TRUE(context) << context.error();
        s_context = std::move(context.value());
        s_doctor = interop::diagnose(device.value().index, "", s_context->cudaDevice());
        ASSERT_EQ(s_doctor.path, interop::Path::Cuda) << s_doctor.reason;
    }
    static void TearDownTestSuite() { s_context.reset(); }
    void SetUp() override
    {
        ASSERT_TRUE(s_context);
        s_context->makeCurrent();
        s_context->resetGlErrorCount();
    }
    void TearDown() override
    {
        EXPECT_EQ(s_context->glErrorCount(), 0u) << "GL errors were reported";
    }

    static inline std::unique_ptr<platform::Context> s_context;
    static inline interop::InteropStatus s_doctor;
};

} // namespace tandem::test
