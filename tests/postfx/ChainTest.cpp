// The post-process chain's command-line form: parsing, errors that name the problem, and
// printing back to the same text.
#include "engine/postfx/Chain.h"

#include <gtest/gtest.h>

namespace tandem::postfx {
namespace {

TEST(Chain, NoneAndEmpty)
{
    auto none = parseChain("none");
    ASSERT_TRUE(none) << none.error();
    EXPECT_TRUE(none.value().stages.empty());
    EXPECT_EQ(formatChain(none.value()), "none");
}

TEST(Chain, StagesInOrderWithParameters)
{
    auto chain = parseChain("tonemap:exposure=1.5, blur:radius=4:sigma=2,fxaa");
    ASSERT_TRUE(chain) << chain.error();
    ASSERT_EQ(chain.value().stages.size(), 3u);
    EXPECT_EQ(chain.value().stages[0].kind, StageKind::Tonemap);
    EXPECT_FLOAT_EQ(chain.value().stages[0].tonemap.exposure, 1.5f);
    EXPECT_EQ(chain.value().stages[1].kind, StageKind::Blur);
    EXPECT_EQ(chain.value().stages[1].blur.radius, 4);
    EXPECT_FLOAT_EQ(chain.value().stages[1].blur.sigma, 2.0f);
    EXPECT_EQ(chain.value().stages[2].kind, StageKind::Fxaa);
    EXPECT_EQ(chain.value().enabledCount(), 3u);
}

TEST(Chain, EveryStageParsesAndRoundTrips)
{
    for (StageKind kind : allStageKinds()) {
        auto chain = parseChain(std::string(stageName(kind)));
        ASSERT_TRUE(chain) << stageName(kind) << ": " << chain.error();
        const std::string text = formatChain(chain.value());
        auto again = parseChain(text);
        ASSERT_TRUE(again) << text << ": " << again.error();
        EXPECT_EQ(formatChain(again.value()), text);
    }
}

TEST(Chain, ErrorsNameTheProblem)
{
    auto unknown = parseChain("tonemap,sharpen");
    ASSERT_FALSE(unknown);
    EXPECT_NE(unknown.error().find("unknown stage 'sharpen'"), std::string::npos)
        << unknown.error();
    EXPECT_NE(unknown.error().find("bilateral"), std::string::npos) << "lists the stages";

    auto key = parseChain("blur:size=3");
    ASSERT_FALSE(key);
    EXPECT_NE(key.error().find("no parameter 'size'"), std::string::npos) << key.error();
    EXPECT_NE(key.error().find("radius"), std::string::npos) << "lists the parameters";

    auto value = parseChain("blur:radius=big");
    ASSERT_FALSE(value);
    EXPECT_NE(value.error().find("not a number"), std::string::npos) << value.error();

    auto range = parseChain("blur:radius=40");
    ASSERT_FALSE(range);
    EXPECT_NE(range.error().find("out of range"), std::string::npos) << range.error();

    auto fractional = parseChain("ssao:samples=4.5");
    ASSERT_FALSE(fractional);
    EXPECT_NE(fractional.error().find("out of range (integer"), std::string::npos)
        << fractional.error();

    auto missing = parseChain("tonemap:exposure");
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().find("needs a value"), std::string::npos) << missing.error();

    auto none = parseChain("view-depth:x=1");
    ASSERT_FALSE(none);
    EXPECT_NE(none.error().find("takes none"), std::string::npos) << none.error();
}

} // namespace
} // namespace tandem::postfx
