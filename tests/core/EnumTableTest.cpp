// core: one table per enumerated choice (engine/core/EnumTable.h).
#include "engine/core/EnumTable.h"

#include <gtest/gtest.h>

namespace tandem {
namespace {

enum class Fruit { Apple, Pear, Plum };

constexpr EnumTable<Fruit, 3> Fruits{
    "fruit",
    {{{Fruit::Apple, "apple", "red"}, {Fruit::Pear, "pear", ""}, {Fruit::Plum, "plum", "purple"}}}};

TEST(EnumTable, NamesAndParsesEveryValueTheSameWay)
{
    for (const auto& entry : Fruits.entries()) {
        EXPECT_EQ(Fruits.name(entry.value), entry.name);
        auto parsed = Fruits.parse(entry.name);
        ASSERT_TRUE(parsed);
        EXPECT_EQ(parsed.value(), entry.value);
    }
    static_assert(Fruits.find("pear") == Fruit::Pear, "usable at compile time");
}

TEST(EnumTable, AFailureListsTheNames)
{
    auto bad = Fruits.parse("Apple");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error(), "'Apple' is not apple, pear or plum");
    EXPECT_EQ(Fruits.list(), "apple, pear or plum");
    EXPECT_EQ(Fruits.describe(), "apple: red; pear; plum: purple");
}

TEST(EnumTable, NextCyclesInTableOrder)
{
    EXPECT_EQ(Fruits.next(Fruit::Apple), Fruit::Pear);
    EXPECT_EQ(Fruits.next(Fruit::Plum), Fruit::Apple);
    EXPECT_EQ(Fruits.index(Fruit::Plum), 2u);
}

} // namespace
} // namespace tandem
