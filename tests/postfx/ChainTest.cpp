// The post-process chain's command-line form: parsing, errors that name the problem, and
// printing back to the same text.
#include "engine/postfx/Chain.h"
#include "engine/postfx/Prepared.h"
#include "engine/postfx/Stages.h"

#include <cmath>
#include <set>

#include <fmt/format.h>
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
    EXPECT_STREQ(chain.value().stages[0].name(), "tonemap");
    EXPECT_FLOAT_EQ(chain.value().stages[0].param("exposure"), 1.5f);
    EXPECT_STREQ(chain.value().stages[1].name(), "blur");
    EXPECT_EQ(chain.value().stages[1].param("radius"), 4.0f);
    EXPECT_FLOAT_EQ(chain.value().stages[1].param("sigma"), 2.0f);
    EXPECT_STREQ(chain.value().stages[2].name(), "fxaa");
    EXPECT_EQ(chain.value().enabledCount(), 3u);
}

TEST(Chain, EveryStageParsesAndRoundTrips)
{
    for (const StageDescriptor& d : stageDescriptors()) {
        auto chain = parseChain(d.name);
        ASSERT_TRUE(chain) << d.name << ": " << chain.error();
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

TEST(StageDescriptors, AreConsistentAndDriveTheParser)
{
    // One descriptor per stage: names unique, defaults inside their ranges, and the parser
    // accepts exactly each range (the overlay's sliders read the same ranges).
    std::set<std::string> names;
    for (const StageDescriptor& d : stageDescriptors()) {
        EXPECT_TRUE(names.insert(d.name).second) << d.name << " twice";
        EXPECT_EQ(findStage(d.name), static_cast<int>(names.size()) - 1);
        EXPECT_GT(std::string(d.help).size(), 5u) << d.name << " has no help";
        EXPECT_NE(d.reads, 0u) << d.name << " reads nothing";
        std::set<std::string> params;
        for (int p = 0; p < d.paramCount; ++p) {
            const ParamDescriptor& param = d.params[static_cast<std::size_t>(p)];
            EXPECT_TRUE(params.insert(param.name).second) << d.name << ":" << param.name;
            EXPECT_LE(param.min, param.defaultValue) << d.name << ":" << param.name;
            EXPECT_GE(param.max, param.defaultValue) << d.name << ":" << param.name;
            for (float value : {param.min, param.max, param.defaultValue}) {
                const std::string text = fmt::format("{}:{}={}", d.name, param.name, value);
                auto chain = parseChain(text);
                ASSERT_TRUE(chain) << text << ": " << chain.error();
                EXPECT_EQ(chain.value().stages[0].param(param.name), value) << text;
            }
            const float below =
                param.min - (param.integer ? 1.0f : std::abs(param.min) * 0.01f + 1e-3f);
            const float above =
                param.max + (param.integer ? 1.0f : std::abs(param.max) * 0.01f + 1e-3f);
            for (float value : {below, above}) {
                const std::string text = fmt::format("{}:{}={}", d.name, param.name, value);
                auto chain = parseChain(text);
                EXPECT_FALSE(chain) << text << " was accepted outside its range";
            }
        }
        // Stage::make starts at the defaults.
        const Stage stage = Stage::make(findStage(d.name));
        for (int p = 0; p < d.paramCount; ++p)
            EXPECT_EQ(stage.params[static_cast<std::size_t>(p)],
                      d.params[static_cast<std::size_t>(p)].defaultValue);
    }
    EXPECT_EQ(findStage("sharpen"), -1);
    // The parameter the old overlay lacked is a descriptor entry like any other.
    auto fxaa = parseChain("fxaa:threshold-min=0.05");
    ASSERT_TRUE(fxaa) << fxaa.error();
    EXPECT_FLOAT_EQ(fxaa.value().stages[0].param("threshold-min"), 0.05f);
}

TEST(PreparedChain, EnabledStagesOnly)
{
    auto chain = parseChain("tonemap:exposure=1,outline,fxaa");
    ASSERT_TRUE(chain);
    chain.value().stages[1].enabled = false;
    PreparedChain prepared;
    prepared.prepare(chain.value(), FrameInfo{});
    ASSERT_EQ(prepared.entries().size(), 2u) << "the disabled stage is left out";
    EXPECT_EQ(prepared.entries()[0].kind, findStage("tonemap"));
    EXPECT_EQ(prepared.entries()[1].kind, findStage("fxaa"));
    // The parameter block is what the stage's prepare makes of the settings.
    EXPECT_FLOAT_EQ(prepared.entries()[0].k<Tonemap>().exposureScale, 2.0f);
    EXPECT_FLOAT_EQ(prepared.entries()[1].k<Fxaa>().edgeThreshold, 0.125f);
}

TEST(Chain, TonemapHasNoGammaOutputIsEncodedOnce)
{
    // The display encoding is the chain's final store (sRGB), not a tonemap setting: the old
    // gamma (which encoded a second time) is refused by name, saying what there is.
    auto chain = parseChain("tonemap:gamma=2.2");
    ASSERT_FALSE(chain);
    EXPECT_NE(chain.error().find("stage 'tonemap' has no parameter 'gamma' (parameters: exposure)"),
              std::string::npos)
        << chain.error();
    EXPECT_EQ(formatChain(parseChain("tonemap").value()), "tonemap:exposure=0");
}

TEST(StageDescriptors, HelpListsEveryStageAndParameter)
{
    const std::string help = describeStages();
    for (const StageDescriptor& d : stageDescriptors()) {
        EXPECT_NE(help.find(d.name), std::string::npos) << d.name;
        for (int p = 0; p < d.paramCount; ++p)
            EXPECT_NE(help.find(std::string(d.params[static_cast<std::size_t>(p)].name) + "="),
                      std::string::npos)
                << d.name << ":" << d.params[static_cast<std::size_t>(p)].name;
    }
}

} // namespace
} // namespace tandem::postfx
