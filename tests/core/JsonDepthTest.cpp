#include "engine/core/JsonDepth.h"

#include <string>

#include <gtest/gtest.h>

namespace tandem {
namespace {

TEST(JsonDepth, CountsArraysAndObjectsButNotBracketsInStrings)
{
    EXPECT_EQ(jsonNestingDepth("", 10), 0u);
    EXPECT_EQ(jsonNestingDepth("42", 10), 0u);
    EXPECT_EQ(jsonNestingDepth(R"({"frames": [{"file": "a.ply"}]})", 10), 3u);
    EXPECT_EQ(jsonNestingDepth(R"([[1], [[2]], 3])", 10), 3u);
    // Brackets in strings, after escaped quotes and escaped backslashes, are text.
    EXPECT_EQ(jsonNestingDepth(R"(["[[[", "\"[[", "\\", [1]])", 10), 2u);
    EXPECT_EQ(jsonNestingDepth(R"(["\\"], [[]])", 10), 2u);
}

TEST(JsonDepth, StopsPastTheLimitAndTakesBrokenText)
{
    const std::string deep(100000, '[');
    EXPECT_EQ(jsonNestingDepth(deep, 64), 65u);
    EXPECT_EQ(jsonNestingDepth(deep, 1000000), 100000u);
    // Closing brackets before any opening one do not go below the top level.
    EXPECT_EQ(jsonNestingDepth("]]]}[[", 10), 2u);
    EXPECT_EQ(jsonNestingDepth(R"(["unterminated [[[)", 10), 1u);
}

} // namespace
} // namespace tandem
