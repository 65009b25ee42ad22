// Natural order of file names: numbers by value, letters without case, and a strict total order
// (deterministic ties) so sorting never depends on the listing order.
#include "engine/stream/NaturalOrder.h"

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

using tandem::stream::naturalLess;

namespace {

std::vector<std::string> sorted(std::vector<std::string> names)
{
    std::sort(names.begin(), names.end(),
              [](const std::string& a, const std::string& b) { return naturalLess(a, b); });
    return names;
}

} // namespace

TEST(NaturalOrder, NumbersByValue)
{
    EXPECT_TRUE(naturalLess("frame_2.ply", "frame_10.ply"));
    EXPECT_FALSE(naturalLess("frame_10.ply", "frame_2.ply"));
    EXPECT_EQ(
        sorted({"frame_10.ply", "frame_1.ply", "frame_2.ply", "frame_100.ply", "frame_9.ply"}),
        (std::vector<std::string>{"frame_1.ply", "frame_2.ply", "frame_9.ply", "frame_10.ply",
                                  "frame_100.ply"}));
    // Several numbers in one name, each by value.
    EXPECT_TRUE(naturalLess("take2_frame10", "take10_frame2"));
    EXPECT_TRUE(naturalLess("take2_frame9", "take2_frame10"));
    // Runs longer than any integer type.
    EXPECT_TRUE(naturalLess("f99999999999999999999999", "f100000000000000000000000"));
    EXPECT_FALSE(naturalLess("f100000000000000000000000", "f99999999999999999999999"));
}

TEST(NaturalOrder, LeadingZerosIgnoredThenFewerFirst)
{
    EXPECT_TRUE(naturalLess("frame_0009", "frame_10"));
    EXPECT_TRUE(naturalLess("frame_009", "frame_0010"));
    // Equal values: the value decides later parts first, leading zeros only break the tie.
    EXPECT_TRUE(naturalLess("f7", "f007"));
    EXPECT_FALSE(naturalLess("f007", "f7"));
    EXPECT_TRUE(naturalLess("f007_a", "f7_b"));
    EXPECT_TRUE(naturalLess("f0", "f00"));
    EXPECT_TRUE(naturalLess("f00", "f1"));
}

TEST(NaturalOrder, LettersWithoutCaseThenExact)
{
    EXPECT_TRUE(naturalLess("Frame_2", "frame_10"));
    EXPECT_TRUE(naturalLess("frame_2", "FRAME_10"));
    EXPECT_TRUE(naturalLess("apple", "Banana"));
    EXPECT_TRUE(naturalLess("Banana", "cherry"));
    // Same but for case: the byte order decides ('F' < 'f'), so the order is total.
    EXPECT_TRUE(naturalLess("Frame", "frame"));
    EXPECT_FALSE(naturalLess("frame", "Frame"));
}

TEST(NaturalOrder, PrefixesAndDigitsAgainstOtherBytes)
{
    EXPECT_TRUE(naturalLess("", "a"));
    EXPECT_FALSE(naturalLess("a", ""));
    EXPECT_TRUE(naturalLess("frame", "frame_1"));
    EXPECT_TRUE(naturalLess("frame_1", "frame_1.ply"));
    // A digit run sits where digits sit in ASCII: after '.', before '_' and letters.
    EXPECT_TRUE(naturalLess("a.ply", "a1.ply"));
    EXPECT_TRUE(naturalLess("a1", "a_"));
    EXPECT_TRUE(naturalLess("a9", "ab"));
}

TEST(NaturalOrder, IsAStrictTotalOrder)
{
    const std::vector<std::string> names = {
        "",        "0",        "00",       "000",       "1",         "01",   "10",    "a",
        "A",       "a0",       "a00",      "a1",        "a01",       "A1",   "a10",   "a_1",
        "a-1",     "a.1",      "ab",       "aB",        "Ab",        "b",    "frame", "frame_2",
        "Frame_2", "frame_02", "frame_10", "frame_10a", "frame_10A", "x1y2", "x01y2", "x1y02",
        "x1y10",   "x10y1",    "\u00e9",   "\u00e91",   "~",         "z"};
    for (const auto& a : names) {
        EXPECT_FALSE(naturalLess(a, a)) << "irreflexive: " << a;
        for (const auto& b : names) {
            if (a == b)
                continue;
            EXPECT_NE(naturalLess(a, b), naturalLess(b, a))
                << "exactly one of '" << a << "' < '" << b << "' and the reverse";
            for (const auto& c : names) {
                if (naturalLess(a, b) && naturalLess(b, c)) {
                    EXPECT_TRUE(naturalLess(a, c))
                        << "transitive: '" << a << "' < '" << b << "' < '" << c << "'";
                }
            }
        }
    }
}
