// Test fixture for the gl tier: a headless EGL context with synchronous debug output, and a
// check that no GL error was reported by the end of each test.
#pragma once

#include <memory>

#include <gtest/gtest.h>

#include "engine/gl/Debug.h"
#include "engine/platform/Context.h"

namespace tandem::test {

/// A second small headless context with debug output, left current (tests of what is per
/// context). Expects a headless EGL device.
inline std::unique_ptr<platform::Context> otherContext()
{
    platform::ContextOptions options;
    options.width = 16;
    options.height = 16;
    options.debug = true;
    auto context = platform::tryCreateHeadless(options);
    EXPECT_TRUE(context) << context.error();
    return context ? std::move(context.value()) : nullptr;
}

/// Makes a GL error in the current context (an invalid enum) and clears glGetError.
inline void provokeGlError()
{
    glBindBuffer(0x1234, 0);
    glFinish();
    (void)glGetError();
}

class GlTest : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        platform::ContextOptions options;
        options.width = 64;
        options.height = 64;
        options.debug = true;
        auto context = platform::tryCreateHeadless(options);
        ASSERT_TRUE(context) << "headless EGL context: " << context.error();
        s_context = std::move(context.value());
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
        glFinish();
        EXPECT_EQ(s_context->glErrorCount(), 0u) << "GL errors were reported during the test";
    }

    static inline std::unique_ptr<platform::Context> s_context;
};

} // namespace tandem::test
