// Ownership rules of the GL wrappers that need no context: not copyable, nothrow movable,
// NoCreate builds an empty (id 0) object, and moving from an empty object keeps both empty.
#include <type_traits>

#include <gtest/gtest.h>

#include "engine/gl/Buffer.h"
#include "engine/gl/Framebuffer.h"
#include "engine/gl/Program.h"
#include "engine/gl/Query.h"
#include "engine/gl/Texture.h"
#include "engine/gl/VertexArray.h"

namespace tandem::gl {
namespace {

template <class T> class ObjectRules : public ::testing::Test {};
using Wrappers = ::testing::Types<Buffer, Texture, Framebuffer, Program, VertexArray, Query>;
TYPED_TEST_SUITE(ObjectRules, Wrappers);

TYPED_TEST(ObjectRules, MoveOnly)
{
    EXPECT_FALSE(std::is_copy_constructible_v<TypeParam>);
    EXPECT_FALSE(std::is_copy_assignable_v<TypeParam>);
    EXPECT_TRUE(std::is_nothrow_move_constructible_v<TypeParam>);
    EXPECT_TRUE(std::is_nothrow_move_assignable_v<TypeParam>);
    EXPECT_FALSE((std::is_convertible_v<NoCreateT, TypeParam>)) << "NoCreate is explicit";
}

TYPED_TEST(ObjectRules, NoCreateIsEmptyAndMovesStayEmpty)
{
    // Destroying id 0 makes no GL call, so this runs without a context.
    TypeParam a{NoCreate};
    EXPECT_EQ(a.id(), 0u);
    TypeParam b{std::move(a)};
    EXPECT_EQ(b.id(), 0u);
    TypeParam c{NoCreate};
    c = std::move(b);
    EXPECT_EQ(c.id(), 0u);
    EXPECT_EQ(c.release(), 0u);
}

} // namespace
} // namespace tandem::gl
