// app: the command line parsed once into typed settings (app/Options.h, app/Settings.h): every
// enumerated option takes exactly its table's names and refuses others with a message listing
// them; --size takes WxH within bounds and nothing else; the defaults; the chain parsed; and
// validate() giving the usage errors the command-line tests expect, whoever filled the settings.
#include <algorithm>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>

#include "engine/app/Options.h"
#include "engine/app/Settings.h"

namespace tandem::app {
namespace {

/// Parses `args` (after the program name) with the common and the sequence options.
struct Parsed {
    SessionSettings session;
    SequenceSettings sequence;
    std::string error; ///< CLI11's message, empty when it parsed
};

Parsed parse(std::vector<std::string> args)
{
    Parsed parsed;
    CLI::App cli{"test"};
    addSequenceOptions(cli, parsed.sequence);
    addCommonOptions(cli, parsed.session);
    std::reverse(args.begin(), args.end()); // CLI11 takes a vector in reverse order
    try {
        cli.parse(args);
    } catch (const CLI::ParseError& e) {
        parsed.error = e.what();
    }
    return parsed;
}

TEST(Settings, DefaultsAreTheDocumentedOnes)
{
    const Parsed p = parse({});
    ASSERT_EQ(p.error, "");
    const SessionSettings& s = p.session;
    EXPECT_EQ(s.size, (Size{1280, 720}));
    EXPECT_FALSE(s.headless);
    EXPECT_FALSE(s.frames);
    EXPECT_EQ(s.frameLimit(), -1) << "a window renders until it is closed";
    EXPECT_EQ(s.outDir, "out");
    EXPECT_EQ(s.format, frame::OutputFormat::Png);
    EXPECT_FALSE(s.video);
    EXPECT_EQ(s.fps, 30.0);
    EXPECT_FALSE(s.channel);
    EXPECT_EQ(s.shownChannel(), frame::Channel::Color);
    EXPECT_EQ(s.colorFormat, render::ColorFormat::Rgba8);
    EXPECT_TRUE(s.chain.stages.empty());
    EXPECT_EQ(s.backend, postfx::BackendChoice::Auto);
    EXPECT_EQ(s.points, render::PointChoice::Auto);
    EXPECT_EQ(s.raster, render::RasterChoice::Auto);
    EXPECT_EQ(s.frameMemory, frame::MemoryChoice::Auto);
    EXPECT_EQ(s.pointSize, 2.0f);
    EXPECT_FALSE(s.pointWorldSize);
    EXPECT_FALSE(s.report);
    EXPECT_FALSE(s.trace);
    EXPECT_FALSE(s.cameraPath);
    EXPECT_TRUE(s.vsync);
    EXPECT_TRUE(s.profile);
    EXPECT_FALSE(s.cudaDevice);
    EXPECT_EQ(s.capture.frame, -1);
    EXPECT_TRUE(validate(s));

    const SequenceSettings& q = p.sequence;
    EXPECT_EQ(q.spec, "sample");
    EXPECT_FALSE(q.compare);
    EXPECT_EQ(q.upload, UploadChoice::Auto);
    EXPECT_FALSE(q.loop) << "none: once headless, loop in a window";
    EXPECT_EQ(q.compareMode, render::CompareMode::Split);
    EXPECT_EQ(q.speed, 1.0);
    EXPECT_EQ(q.stream.budgetBytes, std::size_t{1024} << 20);
    EXPECT_FALSE(q.sequence.fpsGiven);
    EXPECT_TRUE(validate(q));

    EXPECT_EQ(parse({"--headless"}).session.frameLimit(), 1);
}

/// Every name of `table` given to `option` parses into its value (read back by `get`); a name
/// not in the table is refused with "OPTION: 'bogus' is not <the table's list>".
/// `with`: the options it needs beside it.
template <class E, std::size_t N, class Get>
void expectEveryName(const std::string& option, const EnumTable<E, N>& table, Get get,
                     const std::vector<std::string>& with = {})
{
    const auto args = [&](const std::string& value) {
        std::vector<std::string> all{option, value};
        all.insert(all.end(), with.begin(), with.end());
        return all;
    };
    for (const auto& entry : table.entries()) {
        const Parsed p = parse(args(std::string(entry.name)));
        ASSERT_EQ(p.error, "") << option << " " << entry.name;
        EXPECT_EQ(get(p), entry.value) << option << " " << entry.name;
    }
    const Parsed bad = parse(args("bogus"));
    EXPECT_EQ(bad.error, option + ": 'bogus' is not " + table.list());
}

TEST(Settings, EveryEnumeratedOptionTakesItsTablesNamesAndNothingElse)
{
    expectEveryName("--format", frame::OutputFormats,
                    [](const Parsed& p) { return p.session.format; });
    expectEveryName("--channel", frame::Channels,
                    [](const Parsed& p) { return *p.session.channel; });
    expectEveryName("--color-format", render::ColorFormats,
                    [](const Parsed& p) { return p.session.colorFormat; });
    expectEveryName("--backend", postfx::BackendChoices,
                    [](const Parsed& p) { return p.session.backend; });
    expectEveryName("--points", render::PointChoices,
                    [](const Parsed& p) { return p.session.points; });
    expectEveryName("--raster", render::RasterChoices,
                    [](const Parsed& p) { return p.session.raster; });
    expectEveryName("--frame-memory", frame::MemoryChoices,
                    [](const Parsed& p) { return p.session.frameMemory; });
    expectEveryName("--loop", stream::LoopModes, [](const Parsed& p) { return *p.sequence.loop; });
    expectEveryName("--upload", UploadChoices, [](const Parsed& p) { return p.sequence.upload; });
    expectEveryName("--compare-mode", render::CompareModes,
                    [](const Parsed& p) { return p.sequence.compareMode; },
                    {"--compare", "sample"});
    // The messages the command-line tests check (tests/CMakeLists.txt cli.viewer.*).
    EXPECT_EQ(parse({"--loop", "sideways"}).error,
              "--loop: 'sideways' is not loop, ping-pong or once");
    EXPECT_EQ(parse({"--upload", "warp"}).error, "--upload: 'warp' is not auto, cuda or gl");
    EXPECT_EQ(parse({"--compare-mode", "blend"}).error,
              "--compare-mode: 'blend' is not side, split or difference");
}

TEST(Settings, HelpListsEachChoiceFromItsTable)
{
    SessionSettings session;
    SequenceSettings sequence;
    CLI::App cli{"test"};
    addSequenceOptions(cli, sequence);
    addCommonOptions(cli, session);
    const std::string help = cli.help();
    EXPECT_NE(help.find("{png|png16|pam|none}"), std::string::npos) << help;
    EXPECT_NE(help.find(std::string(stream::LoopModes.describe())), std::string::npos);
    EXPECT_NE(help.find(std::string(frame::Channels.describe())), std::string::npos);
}

TEST(Settings, CompareModeAndDividerNeedASecondSequence)
{
    // Without --compare they change nothing: a usage error, not ignored.
    EXPECT_EQ(parse({"--compare-mode", "side"}).error, "--compare-mode requires --compare");
    EXPECT_EQ(parse({"--divider", "0.3"}).error, "--divider requires --compare");
    const Parsed p = parse({"--compare", "sample", "--compare-mode", "side", "--divider", "0.3"});
    ASSERT_EQ(p.error, "");
    EXPECT_EQ(p.sequence.compareMode, render::CompareMode::SideBySide);
    EXPECT_EQ(p.sequence.divider, 0.3f);
}

TEST(Settings, FramesHelpSaysWhatEachAppRendersHeadless)
{
    // tandem-raster renders 1 frame headless; tandem-viewer the sequence (its own truth).
    const auto help = [](const std::string& headlessFrames) {
        SessionSettings session;
        CLI::App cli{"test"};
        if (headlessFrames.empty())
            addCommonOptions(cli, session);
        else
            addCommonOptions(cli, session, headlessFrames);
        return cli.get_option("--frames")->get_description();
    };
    EXPECT_EQ(help(""), "frames to render, then exit (default: headless 1; in a window until it "
                        "is closed)");
    EXPECT_EQ(help("the sequence once"), "frames to render, then exit (default: headless the "
                                         "sequence once; in a window until it is closed)");
}

TEST(Settings, ServeTakesAPortAndAnOptionalHost)
{
    auto port = parseServeAddress("8080");
    ASSERT_TRUE(port) << port.error();
    EXPECT_EQ(port.value().host, "127.0.0.1");
    EXPECT_EQ(port.value().port, 8080);
    auto any = parseServeAddress("0");
    ASSERT_TRUE(any);
    EXPECT_EQ(any.value().port, 0);
    auto host = parseServeAddress("0.0.0.0:9000");
    ASSERT_TRUE(host);
    EXPECT_EQ(host.value().host, "0.0.0.0");
    EXPECT_EQ(host.value().port, 9000);
    auto v6 = parseServeAddress("[::1]:80");
    ASSERT_TRUE(v6);
    EXPECT_EQ(v6.value().host, "::1");
    EXPECT_EQ(v6.value().port, 80);
    for (const char* junk : {"", ":", ":80", "host:", "65536", "-1", "80x", "a:b", "[]:80"}) {
        auto address = parseServeAddress(junk);
        ASSERT_FALSE(address) << "'" << junk << "'";
        EXPECT_EQ(address.error(),
                  std::string("expected [HOST:]PORT with PORT in 0..65535, got '") + junk + "'");
    }
    const auto parsed = parse({"--serve", "127.0.0.1:0"});
    ASSERT_TRUE(parsed.session.serve);
    EXPECT_EQ(parsed.session.serve->port, 0);
    EXPECT_EQ(parse({"--serve", "nope"}).error,
              "--serve: expected [HOST:]PORT with PORT in 0..65535, got 'nope'");
    // Headless and served without --frames: until stopped.
    SessionSettings s;
    s.headless = true;
    EXPECT_EQ(s.frameLimit(), 1);
    s.serve = ServeAddress{};
    EXPECT_EQ(s.frameLimit(), -1);
    s.frames = 5;
    EXPECT_EQ(s.frameLimit(), 5);
}

TEST(Settings, SizeIsWidthByHeightWithinBounds)
{
    EXPECT_EQ(parseSize("1280x720").value(), (Size{1280, 720}));
    EXPECT_EQ(parseSize("64X48").value(), (Size{64, 48}));
    EXPECT_EQ(parseSize("1x1").value(), (Size{1, 1}));
    EXPECT_EQ(parseSize("16384x16384").value(), (Size{MaxSide, MaxSide}));
    for (const char* junk :
         {"", "x", "12by4", "12x", "x12", "12x12x", "12x12x1", " 12x12", "12x12 ", "0x10", "10x0",
          "16385x1", "1x16385", "-1x5", "+5x5", "1e3x5", "5.5x5", "99999999999x1", "0x0"}) {
        auto size = parseSize(junk);
        ASSERT_FALSE(size) << "'" << junk << "'";
        EXPECT_EQ(size.error(),
                  std::string("expected WxH with each side in 1..16384, got '") + junk + "'");
    }
    EXPECT_EQ(formatSize({640, 360}), "640x360");

    EXPECT_EQ(parse({"--size", "320x200"}).session.size, (Size{320, 200}));
    EXPECT_EQ(parse({"--size", "12by4"}).error,
              "--size: expected WxH with each side in 1..16384, got '12by4'");
    // Filled by hand (Python, the benchmarks): validate() holds the same bounds.
    SessionSettings s;
    s.size = {0, 720};
    EXPECT_EQ(validate(s).error(), "--size: expected WxH with each side in 1..16384, got '0x720'");
    s.size = {MaxSide + 1, 1};
    EXPECT_FALSE(validate(s));
}

TEST(Settings, TheChainIsParsedWhileTheCommandLineIs)
{
    const Parsed p = parse({"--postfx", "tonemap:exposure=2,fxaa"});
    ASSERT_EQ(p.error, "");
    ASSERT_EQ(p.session.chain.stages.size(), 2u);
    EXPECT_EQ(postfx::formatChain(p.session.chain).rfind("tonemap:exposure=2", 0), 0u);
    EXPECT_EQ(p.session.shownChannel(), frame::Channel::Output) << "a chain's output is shown";
    EXPECT_EQ(parse({"--postfx", "tonemap", "--channel", "depth"}).session.shownChannel(),
              frame::Channel::Depth)
        << "unless a channel was asked for";
    EXPECT_TRUE(parse({"--postfx", "none"}).session.chain.stages.empty());
    EXPECT_EQ(
        parse({"--postfx", "tonemap,sharpen"}).error.rfind("--postfx: unknown stage 'sharpen'", 0),
        0u)
        << parse({"--postfx", "tonemap,sharpen"}).error;
}

TEST(Settings, PathsOptionalsAndFlagsAreTyped)
{
    const Parsed p = parse({"--video",
                            "v.mp4",
                            "--report",
                            "r.json",
                            "--trace",
                            "t.json",
                            "--camera-path",
                            "orbit",
                            "--frames",
                            "7",
                            "--device",
                            "1",
                            "--egl-device",
                            "2",
                            "--no-vsync",
                            "--no-profile",
                            "--point-world-size",
                            "0.5",
                            "--output-threads",
                            "3",
                            "--out",
                            "frames",
                            "--sequence-fps",
                            "12",
                            "--compare",
                            "b"});
    ASSERT_EQ(p.error, "");
    const SessionSettings& s = p.session;
    EXPECT_EQ(*s.video, "v.mp4");
    EXPECT_EQ(*s.report, "r.json");
    EXPECT_EQ(*s.trace, "t.json");
    ASSERT_TRUE(s.cameraPath);
    EXPECT_TRUE(s.cameraPath->orbit);
    EXPECT_EQ(*s.frames, 7);
    EXPECT_EQ(*s.cudaDevice, 1);
    EXPECT_EQ(*s.eglDevice, 2);
    EXPECT_FALSE(s.vsync);
    EXPECT_FALSE(s.profile);
    EXPECT_EQ(*s.pointWorldSize, 0.5f);
    EXPECT_EQ(*s.outputThreads, 3u);
    EXPECT_EQ(s.outDir, "frames");
    EXPECT_EQ(p.sequence.sequence.fps, 12.0);
    EXPECT_TRUE(p.sequence.sequence.fpsGiven);
    EXPECT_EQ(*p.sequence.compare, "b");
    const Parsed file = parse({"--camera-path", "keys.json"});
    EXPECT_FALSE(file.session.cameraPath->orbit);
    EXPECT_EQ(file.session.cameraPath->file, "keys.json");
    EXPECT_EQ(file.session.cameraPath->text(), "keys.json");
    EXPECT_NE(parse({"--frames", "many"}).error, "");
    EXPECT_NE(parse({"--output-threads", "-1"}).error, "");
}

TEST(Settings, ValidateGivesTheUsageErrorsTheCommandLineTestsExpect)
{
    auto message = [](SessionSettings s) {
        return validate(s).error();
    };
    SessionSettings s;
    s.frames = 0;
    EXPECT_EQ(message(s), "--frames: expected a positive number of frames");
    s = {};
    s.headless = true;
    s.frames = 5;
    s.capture.frame = 7;
    EXPECT_EQ(message(s), "--capture-frame 7: the run ends at frame 4 (5 frames)");
    s.capture.frame = 4;
    EXPECT_TRUE(validate(s));
    s = {};
    s.headless = true;
    s.capture.frame = 1;
    EXPECT_EQ(message(s), "--capture-frame 1: the run ends at frame 0 (1 frames)");
    s = {};
    s.format = frame::OutputFormat::Png16;
    EXPECT_EQ(message(s), "--format png16 writes the RGBA16F colour target: add --color-format "
                          "rgba16f");
    s.colorFormat = render::ColorFormat::Rgba16F;
    EXPECT_TRUE(validate(s));
    s = {};
    s.video = "x.mp4";
    s.format = frame::OutputFormat::Pam;
    EXPECT_EQ(message(s), "--video writes a video instead of frame files: leave --format out");
    s = {};
    s.traceFrames = 0;
    EXPECT_EQ(message(s), "--trace-frames: expected a positive number of frames");
    s = {};
    s.warmup = -1;
    EXPECT_EQ(message(s), "--warmup: expected zero or more frames");
    s = {};
    s.pointSize = 65.0f;
    EXPECT_EQ(message(s), "--point-size 65 is out of range (1 to 64 pixels)");
    s = {};
    s.pointWorldSize = -1.0f;
    EXPECT_EQ(message(s), "--point-world-size -1: expected a positive size in world units");
    s = {};
    s.fps = 0.0;
    EXPECT_EQ(message(s), "--fps 0 is out of range (0.1 to 1000)");
}

TEST(Settings, SequenceSettingsAreValidatedInOnePlace)
{
    auto message = [](SequenceSettings s) {
        return validate(s).error();
    };
    SequenceSettings s;
    s.speed = 20.0;
    EXPECT_EQ(message(s), "--speed 20 is out of range (0.1 to 8)");
    s = {};
    s.divider = 2.0f;
    EXPECT_EQ(message(s), "--divider 2 is not between 0 and 1");
    s = {};
    s.stream.loaderThreads = stream::MaxLoaderThreads + 1;
    EXPECT_EQ(message(s), "--loader-threads 65 is out of range (0 to 64; 0: the default)");
    s = {};
    s.sequence.fps = 0.0;
    EXPECT_EQ(message(s), "--sequence-fps 0 is out of range (0.1 to 1000)");

    // Memory in MiB on the command line, bytes in the settings.
    const Parsed small = parse({"--cache-mb", "1"});
    ASSERT_EQ(small.error, "");
    EXPECT_EQ(small.sequence.stream.budgetBytes, std::size_t{1} << 20);
    EXPECT_EQ(message(small.sequence), "--cache-mb 1 is out of range (16 to 1048576 MiB)");
    EXPECT_TRUE(validate(parse({"--cache-mb", "16"}).sequence));
    EXPECT_EQ(parse({"--cache-mb", "-5"}).error, "--cache-mb: -5 is not a size in MiB");
    const Parsed gpu = parse({"--gpu-memory-mb", "0.5"});
    EXPECT_EQ(message(gpu.sequence), "--gpu-memory-mb 0.5 is out of range (1 to 1048576 MiB)");
    EXPECT_EQ(parse({"--gpu-memory-mb", "64"}).sequence.stream.gpuBudgetBytes,
              std::size_t{64} << 20);
}

} // namespace
} // namespace tandem::app
