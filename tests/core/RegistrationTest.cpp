// core: what registering returns (core/Registration.h): a handle that unregisters once when it
// dies or is reset, moves without unregistering, and does nothing when the registry died first;
// a registry visits in order and survives callbacks that unregister themselves or others.
#include <functional>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "engine/core/Registration.h"

namespace tandem {
namespace {

static_assert(!std::is_copy_constructible_v<Registration>);
static_assert(std::is_nothrow_move_constructible_v<Registration>);
static_assert(std::is_nothrow_move_assignable_v<Registration>);

TEST(Registration, AHandleUnregistersOnceWhenItDies)
{
    Registry<int> registry;
    {
        const Registration a = registry.add(1);
        Registration b = registry.add(2);
        EXPECT_EQ(registry.size(), 2u);
        b.reset();
        EXPECT_EQ(registry.size(), 1u);
        b.reset(); // twice: nothing more
        EXPECT_EQ(registry.size(), 1u);
        EXPECT_FALSE(b.isActive());
        EXPECT_TRUE(a.isActive());
    }
    EXPECT_TRUE(registry.isEmpty());
}

TEST(Registration, MovingKeepsTheRegistration)
{
    Registry<int> registry;
    Registration moved;
    {
        Registration a = registry.add(1);
        moved = std::move(a);
        EXPECT_FALSE(a.isActive()); // NOLINT: a moved-from handle holds nothing
    }
    EXPECT_EQ(registry.size(), 1u) << "the moved-from handle's death unregistered nothing";
    Registration other = registry.add(2);
    moved = std::move(other); // assigning unregisters what it held
    std::vector<int> seen;
    registry.forEach([&](int v) { seen.push_back(v); });
    EXPECT_EQ(seen, std::vector<int>{2});
}

TEST(Registration, AHandleOutlivingItsRegistryDoesNothing)
{
    Registration handle;
    {
        Registry<int> registry;
        handle = registry.add(1);
        EXPECT_TRUE(handle.isActive());
    }
    EXPECT_FALSE(handle.isActive());
    handle.reset(); // would touch a dead registry without the lifetime token
    RegistrationOwner* owner = new RegistrationOwner;
    bool undone = false;
    Registration own = owner->make([&] { undone = true; });
    delete owner;
    own.reset();
    EXPECT_FALSE(undone);
}

TEST(Registration, CallbacksMayUnregisterWhileTheRegistryWalks)
{
    Registry<std::function<void()>> registry;
    std::vector<int> calls;
    Registration first, second, third;
    first = registry.add([&] {
        calls.push_back(1);
        first.reset();  // itself
        second.reset(); // the next one: not visited
    });
    second = registry.add([&] { calls.push_back(2); });
    third = registry.add([&] { calls.push_back(3); });
    registry.forEach([](const auto& f) { f(); });
    EXPECT_EQ(calls, (std::vector<int>{1, 3}));
    registry.forEach([](const auto& f) { f(); });
    EXPECT_EQ(calls, (std::vector<int>{1, 3, 3}));
}

} // namespace
} // namespace tandem
