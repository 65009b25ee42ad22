// cuda: the one owner of device memory (engine/cuda/DeviceMemory.h, DeviceBuffer.h) follows the
// handle rules (move-only, destructive moves, nothing owned when empty) and fails clearly where
// there is no device; pinned memory falls back to none. Runs with or without a GPU and CUDA.
#include "engine/cuda/DeviceBuffer.h"

#include <type_traits>

#include <gtest/gtest.h>

#include "engine/core/Error.h"
#include "engine/cuda/Device.h"
#include "engine/cuda/PinnedMemory.h"

namespace tandem::cuda {
namespace {

static_assert(!std::is_copy_constructible_v<DeviceMemory>);
static_assert(!std::is_copy_assignable_v<DeviceMemory>);
static_assert(std::is_nothrow_move_constructible_v<DeviceMemory>);
static_assert(std::is_nothrow_move_assignable_v<DeviceMemory>);
static_assert(!std::is_copy_constructible_v<DeviceBuffer<float>>);
static_assert(std::is_nothrow_move_constructible_v<DeviceBuffer<float>>);

TEST(DeviceMemory, EmptyOwnsNothing)
{
    DeviceMemory none;
    EXPECT_EQ(none.data(), nullptr);
    EXPECT_EQ(none.bytes(), 0u);
    DeviceBuffer<float> zero(0);
    EXPECT_EQ(zero.data(), nullptr);
    EXPECT_EQ(zero.size(), 0u);
    zero.reset(); // nothing to free
}

TEST(DeviceMemory, AllocatesWhereADeviceIsElseFailsNamingWhat)
{
    const bool device = listDevices().isOk();
    if (device) {
        DeviceBuffer<float> buffer(16, "test floats");
        EXPECT_NE(buffer.data(), nullptr);
        EXPECT_EQ(buffer.bytes(), 64u);
        DeviceBuffer<float> moved(std::move(buffer));
        EXPECT_EQ(buffer.data(), nullptr) << "a moved-from buffer owns nothing";
        EXPECT_EQ(buffer.size(), 0u);
        EXPECT_NE(moved.data(), nullptr);
        moved.reserve(32, "more test floats");
        EXPECT_EQ(moved.size(), 32u);
        return;
    }
    try {
        DeviceBuffer<float> buffer(16, "test floats");
        FAIL() << "allocated device memory without a device";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("test floats"), std::string::npos) << e.what();
    }
}

TEST(PinnedMemory, NoneWithoutADevice)
{
    if (canPinMemory()) {
        void* memory = allocatePinned(4096);
        EXPECT_NE(memory, nullptr);
        freePinned(memory);
    } else {
        EXPECT_FALSE(isBuiltWithCuda() && listDevices().isOk());
    }
    freePinned(nullptr);
}

} // namespace
} // namespace tandem::cuda
