// File sequences: every kind of spec (folder, glob, printf pattern, manifest, single file), their
// order and failures, names that are no regular file, and loads that decode a file into a block
// naming the file when it is bad; the frame-rate range of packs and the sample too.
#include "engine/stream/FolderSource.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "engine/core/File.h"
#include "engine/io/GaussianTransform.h"
#include "engine/io/Image.h"
#include "engine/io/MeshLoader.h"
#include "engine/render/Scene.h"
#include "engine/render/SceneTexture.h"
#include "engine/stream/Block.h"
#include "engine/stream/Open.h"
#include "engine/stream/Pack.h"
#include "tests/support/TempDir.h"

using namespace tandem;
namespace fs = std::filesystem;

namespace {

/// An ascii PLY point cloud of `points` points, the first at (first, 0, 0), then +1 in x.
std::string plyCloud(int points, float first = 0.0f)
{
    std::string text = fmt::format("ply\nformat ascii 1.0\nelement vertex {}\n"
                                   "property float x\nproperty float y\nproperty float z\n"
                                   "end_header\n",
                                   points);
    for (int i = 0; i < points; ++i)
        text += fmt::format("{} 0 0\n", first + static_cast<float>(i));
    return text;
}

const std::string objTriangle = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nf 2 4 3\n";

Result<std::unique_ptr<stream::Source>> open(const fs::path& spec,
                                             stream::SequenceOptions options = {})
{
    return stream::openFileSequence(spec.string(), options);
}

std::vector<std::string> fileNames(const stream::Source& source)
{
    std::vector<std::string> names;
    for (int i = 0; i < source.frameCount(); ++i)
        names.push_back(fs::path(source.frameName(i)).filename().string());
    return names;
}

/// Staging memory for one load.
struct Staging {
    std::vector<std::uint8_t> memory;
    stream::BlockSink sink()
    {
        return [this](std::size_t bytes) {
            memory.resize(bytes);
            return std::span<std::uint8_t>(memory);
        };
    }
};

void expectFailure(const Result<std::unique_ptr<stream::Source>>& result,
                   const std::string& fragment)
{
    ASSERT_FALSE(result) << "expected a failure containing '" << fragment << "'";
    EXPECT_NE(result.error().find(fragment), std::string::npos) << result.error();
}

} // namespace

TEST(FolderSource, FolderInNaturalOrderSkippingOtherFiles)
{
    test::TempDir dir;
    dir.write("frame_10.ply", plyCloud(3));
    dir.write("frame_2.ply", plyCloud(3));
    dir.write("frame_1.PLY", plyCloud(3));
    dir.write("frame_3.Obj", objTriangle);
    dir.write("notes.txt", "not a frame");
    dir.write("frame_4.png", "not a frame either");
    dir.write(".frame_0.ply", plyCloud(3));       // hidden
    dir.write("nested/frame_0.ply", plyCloud(3)); // not recursive
    auto source = open(dir.path());
    ASSERT_TRUE(source) << source.error();
    const stream::Source& s = *source.value();
    EXPECT_EQ(fileNames(s), (std::vector<std::string>{"frame_1.PLY", "frame_2.ply", "frame_3.Obj",
                                                      "frame_10.ply"}));
    EXPECT_EQ(s.frameName(0), (dir.path() / "frame_1.PLY").string());
    EXPECT_DOUBLE_EQ(s.fps(), 30.0);
    EXPECT_EQ(s.description(),
              fmt::format("folder {}/ (3 PLY and 1 OBJ files at 30 fps)", dir.path().string()));
    EXPECT_FALSE(s.largestFrame());
}

TEST(FolderSource, FolderDescriptionAndFps)
{
    test::TempDir dir;
    for (int i = 0; i < 3; ++i)
        dir.write(fmt::format("f{}.ply", i), plyCloud(1));
    auto source = open(dir.path().string() + "/", {24.0, true});
    ASSERT_TRUE(source) << source.error();
    EXPECT_EQ(source.value()->description(),
              fmt::format("folder {}/ (3 PLY files at 24 fps)", dir.path().string()));
    EXPECT_DOUBLE_EQ(source.value()->fps(), 24.0);
}

TEST(FolderSource, EmptyFolderFails)
{
    test::TempDir dir;
    auto empty = open(dir.path());
    ASSERT_FALSE(empty);
    EXPECT_EQ(empty.error(), dir.path().string() +
                                 ": no frames (.ply, .obj, .splat, .spz, .cwipcdump, .drc, .glb "
                                 "or .gltf files) in this folder");
    dir.write("readme.txt", "x");
    dir.write("sub/frame_0.ply", plyCloud(1));
    expectFailure(open(dir.path()), "no frames (.ply, .obj, .splat, .spz, .cwipcdump, .drc, .glb "
                                    "or .gltf files) in this folder");
}

TEST(FolderSource, NoSuchFileOrFolder)
{
    test::TempDir dir;
    const std::string spec = (dir.path() / "nothing_here").string();
    auto result = stream::openFileSequence(spec, {});
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error(), spec + ": no such file or folder");
    expectFailure(open(dir.path() / "missing.json"), "no such file or folder");
    expectFailure(open(dir.path() / "missing.ply"), "no such file or folder");
    dir.write("picture.png", "x");
    expectFailure(open(dir.path() / "picture.png"), "not a frame sequence");
}

TEST(FolderSource, GlobPattern)
{
    test::TempDir dir;
    dir.write("frame_10.ply", plyCloud(2));
    dir.write("frame_2.ply", plyCloud(2));
    dir.write("frame_1.obj", objTriangle);
    dir.write("frame_3.txt", "x");
    dir.write("other_1.ply", plyCloud(2));
    auto all = open(dir.path() / "frame_*");
    ASSERT_TRUE(all) << all.error();
    EXPECT_EQ(fileNames(*all.value()),
              (std::vector<std::string>{"frame_1.obj", "frame_2.ply", "frame_10.ply"}));
    auto ply = open(dir.path() / "frame_*.ply");
    ASSERT_TRUE(ply) << ply.error();
    EXPECT_EQ(fileNames(*ply.value()), (std::vector<std::string>{"frame_2.ply", "frame_10.ply"}));
    EXPECT_NE(ply.value()->description().find("(2 PLY files at 30 fps)"), std::string::npos)
        << ply.value()->description();
    auto single = open(dir.path() / "frame_?.ply");
    ASSERT_TRUE(single) << single.error();
    EXPECT_EQ(fileNames(*single.value()), (std::vector<std::string>{"frame_2.ply"}));
    expectFailure(open(dir.path() / "scan_*.ply"),
                  "no .ply, .obj, .splat, .spz, .cwipcdump, .drc, .glb or .gltf file matches");
    expectFailure(open(dir.path() / "nowhere" / "frame_*.ply"), "no such folder");
}

TEST(FolderSource, PrintfPatternFromOne)
{
    test::TempDir dir;
    for (int i : {1, 2, 3})
        dir.write(fmt::format("frame_{:04d}.ply", i), plyCloud(1));
    dir.write("frame_01.ply", plyCloud(1)); // not what %04d names
    auto source = open(dir.path() / "frame_%04d.ply");
    ASSERT_TRUE(source) << source.error();
    EXPECT_EQ(fileNames(*source.value()),
              (std::vector<std::string>{"frame_0001.ply", "frame_0002.ply", "frame_0003.ply"}));
    EXPECT_NE(source.value()->description().find("(frames 1 to 3 at 30 fps)"), std::string::npos)
        << source.value()->description();
}

TEST(FolderSource, PrintfPatternGapIsAMissingFrameSkippedAndNamed)
{
    test::TempDir dir;
    for (int i : {1, 2, 3, 5, 6})
        dir.write(fmt::format("frame_{:04d}.ply", i), plyCloud(i));
    auto source = open(dir.path() / "frame_%04d.ply");
    ASSERT_TRUE(source) << source.error();
    // The missing number keeps its place on the timeline: the frames after it are not lost.
    EXPECT_EQ(fileNames(*source.value()),
              (std::vector<std::string>{"frame_0001.ply", "frame_0002.ply", "frame_0003.ply",
                                        "frame_0004.ply", "frame_0005.ply", "frame_0006.ply"}));
    EXPECT_NE(
        source.value()->description().find("frames 1 to 6, 1 missing and skipped: frame_0004.ply"),
        std::string::npos)
        << source.value()->description();
    Staging staging;
    auto gap = source.value()->load(3, staging.sink());
    ASSERT_FALSE(gap);
    EXPECT_NE(gap.error().find("frame_0004.ply"), std::string::npos) << gap.error();
    auto after = source.value()->load(4, staging.sink());
    ASSERT_TRUE(after) << after.error();
    auto view = stream::viewBlock(after.value(), "frame");
    ASSERT_TRUE(view) << view.error();
    EXPECT_EQ(view.value().counts().vertices, 5u);

    // A folder named like a frame is no frame: 7 is missing, so the sequence still ends at 6.
    std::filesystem::create_directory(dir.path() / "frame_0007.ply");
    auto withFolder = open(dir.path() / "frame_%04d.ply");
    ASSERT_TRUE(withFolder) << withFolder.error();
    EXPECT_EQ(withFolder.value()->frameCount(), 6);

    // More numbers missing than files: not a sequence with a few lost frames.
    test::TempDir sparse;
    for (int i : {1, 10, 20})
        sparse.write(fmt::format("scan{}.ply", i), plyCloud(1));
    expectFailure(open(sparse.path() / "scan%d.ply"), "17 numbers between are missing");
    expectFailure(open(sparse.path() / "scan%d.ply"), "use a glob (scan*.ply)");
}

TEST(FolderSource, PrintfPatternFromZeroUnpadded)
{
    test::TempDir dir;
    for (int i = 0; i < 12; ++i)
        dir.write(fmt::format("f{}.obj", i), objTriangle);
    auto source = open(dir.path() / "f%d.obj");
    ASSERT_TRUE(source) << source.error();
    ASSERT_EQ(source.value()->frameCount(), 12);
    EXPECT_EQ(fileNames(*source.value()).front(), "f0.obj");
    EXPECT_EQ(fileNames(*source.value()).back(), "f11.obj");
    expectFailure(open(dir.path() / "g%03d.ply"), "no file in");
    expectFailure(open(dir.path() / "f%d_%d.obj"), "one %d or %0Nd");
}

TEST(FolderSource, SingleFile)
{
    test::TempDir dir;
    const fs::path file = dir.write("only.OBJ", objTriangle);
    auto source = open(file);
    ASSERT_TRUE(source) << source.error();
    EXPECT_EQ(source.value()->frameCount(), 1);
    EXPECT_EQ(source.value()->frameName(0), file.string());
}

TEST(FolderSource, Manifest)
{
    test::TempDir dir;
    dir.write("seq/a.ply", plyCloud(2));
    dir.write("seq/meshes/b.obj", objTriangle);
    dir.write("seq/meshes/b.png", "png");
    dir.write("seq/c.ply", plyCloud(4));
    dir.write("seq/c.png", "png");
    const fs::path manifest = dir.write("seq/manifest.json", R"({"fps": 12.5, "frames": ["a.ply",
            {"file": "meshes/b.obj", "texture": "meshes/b.png"}, {"file": "c.ply"}],
            "textures": [null, null, "c.png"]})");
    auto source = open(manifest);
    ASSERT_TRUE(source) << source.error();
    auto* sequence = dynamic_cast<stream::FolderSource*>(source.value().get());
    ASSERT_NE(sequence, nullptr);
    EXPECT_EQ(sequence->frameCount(), 3);
    EXPECT_DOUBLE_EQ(sequence->fps(), 12.5);
    EXPECT_EQ(sequence->frameName(1), (dir.path() / "seq" / "meshes" / "b.obj").string());
    EXPECT_FALSE(sequence->texture(0));
    EXPECT_EQ(sequence->texture(1), dir.path() / "seq" / "meshes" / "b.png");
    EXPECT_EQ(sequence->texture(2), dir.path() / "seq" / "c.png");
    EXPECT_EQ(sequence->description(),
              fmt::format("manifest {} (3 frames at 12.5 fps)", manifest.string()));
    EXPECT_TRUE(source.warnings().empty());

    // A frame rate the user gives wins over the manifest's; without "fps", the default.
    auto given = open(manifest, {60.0, true});
    ASSERT_TRUE(given) << given.error();
    EXPECT_DOUBLE_EQ(given.value()->fps(), 60.0);
    const fs::path noFps = dir.write("seq/nofps.json", R"({"frames": ["a.ply"], "note": 1})");
    auto defaulted = open(noFps, {25.0, false});
    ASSERT_TRUE(defaulted) << defaulted.error();
    EXPECT_DOUBLE_EQ(defaulted.value()->fps(), 25.0);
    ASSERT_EQ(defaulted.warnings().size(), 1u);
    EXPECT_NE(defaulted.warnings()[0].find("unknown key \"note\""), std::string::npos);
}

TEST(FolderSource, ManifestListsEveryMissingFileAtOnce)
{
    test::TempDir dir;
    dir.write("here.ply", plyCloud(1));
    const fs::path manifest =
        dir.write("manifest.json", R"({"frames": ["a.ply", "here.ply", "b.ply",
            {"file": "here.ply", "texture": "c.png"}, "a.ply"]})");
    auto result = open(manifest);
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error(), manifest.string() + ": 3 files are missing: a.ply, b.ply, c.png");
    const fs::path one = dir.write("one.json", R"({"frames": ["here.ply", "gone.obj"]})");
    auto single = open(one);
    ASSERT_FALSE(single);
    EXPECT_EQ(single.error(), one.string() + ": 1 file is missing: gone.obj");
}

TEST(FolderSource, ManifestErrorsNameTheManifestAndTheProblem)
{
    test::TempDir dir;
    dir.write("a.ply", plyCloud(1));
    const std::pair<std::string, std::string> cases[] = {
        {R"({"frames": ["a.ply",)", "not valid JSON: parse error at line 1"},
        {"", "not valid JSON"},
        {R"(["a.ply"])", "expected a JSON object"},
        {R"({"fps": 30})", "no \"frames\" list"},
        {R"({"frames": "a.ply"})", "\"frames\" must be a list, not string"},
        {R"({"frames": []})", "\"frames\" is empty"},
        {R"({"frames": [3]})", "frames[0] must be a file name or"},
        {R"({"frames": ["a.ply", ""]})", "frames[1] must be a file name"},
        {R"({"frames": [{"texture": "t.png"}]})", "frames[0] has no \"file\""},
        {R"({"frames": [{"file": 7}]})", "frames[0].file must be a file name"},
        {R"({"frames": [{"file": "a.ply", "texture": false}]})", "frames[0].texture must be"},
        {R"({"frames": ["a.ply"], "fps": "fast"})", "\"fps\" must be a number"},
        {R"({"frames": ["a.ply"], "fps": 0})", "\"fps\" must be a number"},
        // A rate of a frame every 11 days would plan billions of output frames.
        {R"({"frames": ["a.ply"], "fps": 1e-6})",
         "\"fps\" must be a number from 0.1 to 1000, not 1e-06"},
        {R"({"frames": ["a.ply"], "fps": 1001})", "from 0.1 to 1000, not 1001"},
        // A large or deep value is described, never written out whole.
        {R"({"frames": ["a.ply"], "fps": [[[[1, 2, 3]]]]})",
         "\"fps\" must be a number from 0.1 to 1000, not a list of 1 entry"},
        {R"({"frames": [{"file": {"a": [1, 2], "b": 2}}]})",
         "frames[0].file must be a file name (a non-empty string), not an object of 2 keys"},
        // A long string is cut, also inside a character of several bytes.
        {"{\"frames\": [\"a.ply\"], \"fps\": \"" + std::string(59, 'x') + "\u00e9\u00e9\"}",
         "not \"" + std::string(59, 'x') + "\ufffd\"…"},
        {R"({"frames": ["a.ply"], "textures": []})", "\"textures\" must be a list as long"},
        {R"({"frames": [{"file": "a.ply", "texture": "t.png"}], "textures": ["u.png"]})",
         "a texture both in"},
    };
    for (const auto& [json, fragment] : cases) {
        const fs::path manifest = dir.write("bad.json", json);
        auto result = open(manifest);
        ASSERT_FALSE(result) << json;
        EXPECT_NE(result.error().find(manifest.string() + ": "), std::string::npos)
            << result.error();
        EXPECT_NE(result.error().find(fragment), std::string::npos)
            << json << " -> " << result.error();
    }
}

TEST(FolderSource, ADeeplyNestedManifestFailsBeforeItIsParsed)
{
    // 70 000 levels (140 KB) overflowed the stack in the parser and in the message's dump().
    test::TempDir dir;
    const fs::path deep = dir.write("deep.json", "{\"frames\": " + std::string(70000, '[') +
                                                     std::string(70000, ']') + "}");
    auto result = open(deep);
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error(), deep.string() + ": lists and objects nested more than 64 deep: not "
                                              "a sequence manifest ({\"frames\": [...]})");
    // Brackets inside strings do not nest; 64 levels are a manifest's business to reject.
    dir.write("a.ply", plyCloud(1));
    const fs::path named = dir.write("named.json", "{\"frames\": [\"a.ply\"], \"x\": \"" +
                                                       std::string(100, '[') + "\"}");
    EXPECT_TRUE(open(named)) << open(named).error();
    const fs::path sixtyFour =
        dir.write("64.json", "{\"frames\": " + std::string(63, '[') + std::string(63, ']') + "}");
    auto ok = open(sixtyFour);
    ASSERT_FALSE(ok);
    EXPECT_NE(ok.error().find("frames[0] must be a file name or"), std::string::npos) << ok.error();
}

TEST(FolderSource, BadFrameRateOption)
{
    test::TempDir dir;
    dir.write("a.ply", plyCloud(1));
    expectFailure(open(dir.path(), {0.0, true}), "frame rate 0 is out of range (0.1 to 1000 fps)");
    expectFailure(open(dir.path(), {-5.0, true}), "out of range");
    expectFailure(open(dir.path(), {0.05, true}), "frame rate 0.05 is out of range");
    expectFailure(open(dir.path(), {NAN, true}), "out of range");
    EXPECT_TRUE(open(dir.path(), {0.1, true}));
    EXPECT_TRUE(open(dir.path(), {1000.0, true}));
}

TEST(FolderSource, AStopAskedForEndsTheListingSayingSo)
{
    // A folder of a million files takes a while to list: a signal must end it, not wait for it.
    test::TempDir dir;
    for (int i = 0; i < 3; ++i)
        dir.write(fmt::format("f_{}.ply", i), plyCloud(1));
    dir.write("list.json", R"({"frames": ["f_0.ply", "f_1.ply"]})");
    int polls = 0;
    const StopToken stop([&polls] { return ++polls > 0 ? SIGINT : 0; });
    for (const fs::path& spec :
         {dir.path(), dir.path() / "f_*.ply", dir.path() / "f_%d.ply", dir.path() / "list.json"}) {
        polls = 0;
        auto opened = stream::openSource(spec.string(), {}, stop);
        ASSERT_FALSE(opened) << spec;
        EXPECT_EQ(opened.error().rfind(
                      std::string(strsignal(SIGINT)) + ": stopped during set-up, while ", 0),
                  0u)
            << opened.error();
        EXPECT_GE(polls, 1) << spec;
    }
    // Not asked: the same specs open.
    const StopToken never([] { return 0; });
    EXPECT_TRUE(stream::openSource(dir.path().string(), {}, never));
    EXPECT_TRUE(stream::openSource((dir.path() / "list.json").string(), {}, never));
}

TEST(OpenSource, APackOrSampleOfAFrameRateOutOfRangeIsRefused)
{
    // A pack whose header says 1e-6 fps (a frame every 11 days), its checksum made to match.
    test::TempDir dir;
    const fs::path seed =
        fs::path(TANDEM_SOURCE_DIR) / "tests" / "fuzz" / "seeds" / "pack" / "points_none.tdpk";
    auto bytes = readFile(seed);
    ASSERT_TRUE(bytes) << bytes.error();
    stream::PackHeader h;
    std::memcpy(&h, bytes.value().data(), sizeof h);
    ASSERT_TRUE(stream::openSource(seed.string(), {})) << "the seed pack opens";
    h.fps = 1e-6;
    h.headerCrc = 0;
    h.headerCrc = stream::packCrc32({reinterpret_cast<const std::uint8_t*>(&h), sizeof h});
    std::memcpy(bytes.value().data(), &h, sizeof h);
    const fs::path slow =
        dir.write("slow.tdpk", std::string(bytes.value().begin(), bytes.value().end()));
    auto pack = stream::openSource(slow.string(), {});
    ASSERT_FALSE(pack);
    EXPECT_NE(
        pack.error().find("slow.tdpk: the header's frame rate 1e-06 fps lies outside 0.1..1000"),
        std::string::npos)
        << pack.error();
    auto sample = stream::openSource("sample:fps=0.01", {});
    ASSERT_FALSE(sample);
    EXPECT_NE(sample.error().find("fps 0.1 to 1000"), std::string::npos) << sample.error();
}

TEST(FolderSource, NamesThatAreNoRegularFileAreSkippedOrRefusedNotRead)
{
    // A FIFO named like a frame blocked a loader forever; /dev/zero linked as z.ply was read
    // until memory ran out.
    test::TempDir dir;
    dir.write("seq/frame_0.ply", plyCloud(1));
    dir.write("seq/frame_2.ply", plyCloud(1));
    const fs::path fifo = dir.path() / "seq" / "frame_1.ply";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    fs::create_symlink("/dev/zero", dir.path() / "seq" / "z.ply");
    fs::create_symlink(dir.path() / "gone.ply", dir.path() / "seq" / "dangling.ply");

    // A folder and a glob skip them, saying so once.
    for (const fs::path& spec : {dir.path() / "seq", dir.path() / "seq" / "*.ply"}) {
        SCOPED_TRACE(spec.string());
        auto source = open(spec);
        ASSERT_TRUE(source) << source.error();
        EXPECT_EQ(fileNames(*source.value()),
                  (std::vector<std::string>{"frame_0.ply", "frame_2.ply"}));
        ASSERT_EQ(source.warnings().size(), 1u);
        EXPECT_NE(source.warnings()[0].find("skipped 3 names that are not regular files: "
                                            "dangling.ply (missing (a broken link?)), "
                                            "frame_1.ply (a FIFO (named pipe)), z.ply (a "
                                            "character device)"),
                  std::string::npos)
            << source.warnings()[0];
    }
    // A printf pattern: the FIFO is a gap, and loading it fails at once, naming it.
    auto pattern = open(dir.path() / "seq" / "frame_%d.ply");
    ASSERT_TRUE(pattern) << pattern.error();
    ASSERT_EQ(pattern.value()->frameCount(), 3);
    Staging staging;
    auto gap = pattern.value()->load(1, staging.sink());
    ASSERT_FALSE(gap);
    EXPECT_EQ(gap.error(), fifo.string() + ": is a FIFO (named pipe), not a regular file: refused");
    EXPECT_TRUE(pattern.value()->load(2, staging.sink()));
    // A manifest, or the name itself, is refused.
    const fs::path manifest = dir.write("seq/m.json", R"({"frames": ["frame_0.ply", "z.ply",
                                                                     "frame_1.ply", "gone.ply"]})");
    auto listed = open(manifest);
    ASSERT_FALSE(listed);
    EXPECT_EQ(listed.error(), manifest.string() + ": 1 file is missing: gone.ply; 2 names are not "
                                                  "regular files: z.ply (a character device), "
                                                  "frame_1.ply (a FIFO (named pipe))");
    expectFailure(open(fifo), "frame_1.ply: is a FIFO (named pipe), not a file or folder of "
                              "frames");
    expectFailure(open(dir.path() / "seq" / "z.ply"), "is a character device");
    // A folder of nothing else says why it has no frames.
    fs::create_directories(dir.path() / "only");
    ASSERT_EQ(::mkfifo((dir.path() / "only" / "f.ply").c_str(), 0600), 0);
    expectFailure(open(dir.path() / "only"), "no frames (.ply, .obj, .splat, .spz, .cwipcdump, "
                                             ".drc, .glb or .gltf files) in this folder; " +
                                                 (dir.path() / "only").string() +
                                                 ": skipped 1 name that is not a regular file: "
                                                 "f.ply (a FIFO (named pipe))");
}

TEST(FolderSource, LoadRoundTripsThroughABlock)
{
    test::TempDir dir;
    dir.write("frame_1.ply", plyCloud(3, 10.0f));
    dir.write("frame_2.obj", objTriangle);
    dir.write("frame_10.ply", plyCloud(7));
    auto source = open(dir.path());
    ASSERT_TRUE(source) << source.error();
    const stream::Source& s = *source.value();
    ASSERT_EQ(s.frameCount(), 3);
    const std::size_t vertices[] = {3, 4, 7};
    const std::size_t indices[] = {0, 6, 0};
    for (int i = 0; i < 3; ++i) {
        Staging staging;
        auto block = s.load(i, staging.sink());
        ASSERT_TRUE(block) << block.error();
        auto view = stream::viewBlock(block.value(), s.frameName(i));
        ASSERT_TRUE(view) << view.error();
        ASSERT_EQ(view.value().objects.size(), 1u);
        EXPECT_EQ(view.value().counts().vertices, vertices[i]) << s.frameName(i);
        // Frames of point clouds load as compact points.
        EXPECT_EQ(view.value().isCompact(), indices[i] == 0) << s.frameName(i);
        EXPECT_EQ(view.value().indices.size(), indices[i]) << s.frameName(i);
    }
    Staging staging;
    auto first = s.load(0, staging.sink());
    ASSERT_TRUE(first) << first.error();
    auto view = stream::viewBlock(first.value(), s.frameName(0));
    ASSERT_TRUE(view) << view.error();
    EXPECT_EQ(view.value().positions[2], glm::vec3(12, 0, 0));
    EXPECT_EQ(view.value().bounds.min, glm::vec3(10, 0, 0));
}

TEST(FolderSource, TexturesLoadWithTheirFrames)
{
    // frame_1.obj has texture coordinates and frame_1.png beside it; frame_2.obj has none
    // beside it; the manifest gives frame_1 a texture explicitly, and one to a mesh without
    // texture coordinates.
    test::TempDir dir;
    const std::string texturedQuad = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\n"
                                     "vt 1 1\nvt 0 1\nf 1/1 2/2 3/3\nf 1/1 3/3 4/4\n";
    dir.write("seq/frame_1.obj", texturedQuad);
    dir.write("seq/frame_2.obj", texturedQuad);
    io::Image texture;
    texture.width = 2;
    texture.height = 1;
    texture.pixels = {255, 0, 0, 255, 0, 0, 255, 128};
    ASSERT_TRUE(io::writePng(dir.path() / "seq" / "frame_1.png", texture, false));
    auto source = open(dir.path() / "seq");
    ASSERT_TRUE(source) << source.error();
    auto* sequence = dynamic_cast<stream::FolderSource*>(source.value().get());
    ASSERT_NE(sequence, nullptr);
    // The image beside frame_1 is found when the frame is loaded (io::loadMesh), not named by
    // the folder.
    EXPECT_FALSE(sequence->texture(0));
    EXPECT_FALSE(sequence->texture(1));
    for (int i = 0; i < 2; ++i) {
        Staging staging;
        auto block = sequence->load(i, staging.sink());
        ASSERT_TRUE(block) << block.error();
        // frame_2 has texture coordinates and no image.
        ASSERT_EQ(block.warnings().size(), i == 0 ? 0u : 1u);
        if (i == 1) {
            EXPECT_NE(block.warnings()[0].find("has texture coordinates but no texture"),
                      std::string::npos)
                << block.warnings()[0];
        }
        auto view = stream::viewBlock(block.value(), sequence->frameName(i));
        ASSERT_TRUE(view) << view.error();
        const render::SceneView& v = view.value();
        if (i == 0) {
            EXPECT_EQ(v.textureWidth, 2u);
            EXPECT_EQ(v.textureHeight, 1u);
            EXPECT_TRUE(std::equal(v.texels.begin(), v.texels.end(), texture.pixels.begin(),
                                   texture.pixels.end()));
            EXPECT_TRUE(v.objects[0].flags & render::ObjectHasTexture);
        } else {
            EXPECT_TRUE(v.texels.empty());
            EXPECT_FALSE(v.objects[0].flags & render::ObjectHasTexture);
        }
    }

    // A texture that is no image fails the frame, naming both files; a texture on a mesh
    // without texture coordinates is a warning.
    dir.write("seq/broken.png", "not a png");
    dir.write("seq/plain.obj", objTriangle);
    const fs::path manifest =
        dir.write("seq/m.json", R"({"frames": [{"file": "frame_2.obj", "texture": "broken.png"},
                          {"file": "plain.obj", "texture": "frame_1.png"}]})");
    auto listed = open(manifest);
    ASSERT_TRUE(listed) << listed.error();
    Staging staging;
    auto broken = listed.value()->load(0, staging.sink());
    ASSERT_FALSE(broken);
    EXPECT_NE(broken.error().find("broken.png: cannot read image"), std::string::npos)
        << broken.error();
    EXPECT_NE(broken.error().find("(the texture of "), std::string::npos) << broken.error();
    EXPECT_NE(broken.error().find("frame_2.obj"), std::string::npos) << broken.error();
    auto plain = listed.value()->load(1, staging.sink());
    ASSERT_TRUE(plain) << plain.error();
    ASSERT_EQ(plain.warnings().size(), 1u);
    EXPECT_NE(plain.warnings()[0].find("texture frame_1.png not drawn: the mesh has no texture "
                                       "coordinates"),
              std::string::npos)
        << plain.warnings()[0];

    // A manifest's plain names take the image beside them, and the one their .mtl names.
    dir.write("seq/mtl.mtl", "newmtl m\nmap_Kd tex/mtl_image.png\n");
    dir.write("seq/by_mtl.obj", "mtllib mtl.mtl\nusemtl m\n" + texturedQuad);
    fs::create_directories(dir.path() / "seq" / "tex");
    io::Image blue = texture;
    blue.pixels = {0, 0, 255, 255, 0, 0, 255, 255};
    ASSERT_TRUE(io::writePng(dir.path() / "seq" / "tex" / "mtl_image.png", blue, false));
    const fs::path names =
        dir.write("seq/names.json", R"({"frames": ["frame_1.obj", "by_mtl.obj"]})");
    auto plainNames = open(names);
    ASSERT_TRUE(plainNames) << plainNames.error();
    for (int i = 0; i < 2; ++i) {
        auto block = plainNames.value()->load(i, staging.sink());
        ASSERT_TRUE(block) << block.error();
        EXPECT_TRUE(block.warnings().empty()) << block.warnings()[0];
        auto view = stream::viewBlock(block.value(), plainNames.value()->frameName(i));
        ASSERT_TRUE(view) << view.error();
        const auto& expected = i == 0 ? texture.pixels : blue.pixels;
        EXPECT_TRUE(std::equal(view.value().texels.begin(), view.value().texels.end(),
                               expected.begin(), expected.end()))
            << i;
        EXPECT_TRUE(view.value().objects[0].flags & render::ObjectHasTexture) << i;
    }
}

TEST(FolderSource, NonFinitePointsAreDroppedAndAnAllNaNFrameLoadsEmpty)
{
    test::TempDir dir;
    dir.write("seq/frame_1.ply", "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                                 "property float y\nproperty float z\nend_header\n"
                                 "0 0 0\nnan nan nan\n1 0 0\n");
    dir.write("seq/frame_2.ply", "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\n"
                                 "property float y\nproperty float z\nend_header\n"
                                 "nan 0 0\n0 nan 0\n");
    auto source = open(dir.path() / "seq");
    ASSERT_TRUE(source) << source.error();
    Staging staging;
    const std::size_t points[] = {2, 0};
    const char* const dropped[] = {"dropped 1 of 3 points", "dropped 2 of 2 points"};
    for (int i = 0; i < 2; ++i) {
        auto block = source.value()->load(i, staging.sink());
        ASSERT_TRUE(block) << block.error();
        ASSERT_EQ(block.warnings().size(), 1u);
        EXPECT_NE(block.warnings()[0].find(dropped[i]), std::string::npos) << block.warnings()[0];
        auto view = stream::viewBlock(block.value(), source.value()->frameName(i));
        ASSERT_TRUE(view) << view.error();
        EXPECT_EQ(view.value().counts().vertices, points[i]);
    }
}

TEST(FolderSource, LoadFailureNamesTheCorruptFile)
{
    test::TempDir dir;
    dir.write("frame_1.ply", plyCloud(3));
    const fs::path corrupt =
        dir.write("frame_2.ply", "ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\n"
                                 "property float y\nproperty float z\nend_header\n"
                                 "0 0 0\n1 zero 0\n");
    auto source = open(dir.path());
    ASSERT_TRUE(source) << source.error();
    Staging staging;
    auto good = source.value()->load(0, staging.sink());
    EXPECT_TRUE(good) << good.error();
    auto bad = source.value()->load(1, staging.sink());
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().find(corrupt.string()), std::string::npos) << bad.error();
    EXPECT_NE(bad.error().find("is malformed, not a number"), std::string::npos) << bad.error();
    // A file removed after opening: the load says so, naming it.
    fs::remove(dir.path() / "frame_1.ply");
    auto gone = source.value()->load(0, staging.sink());
    ASSERT_FALSE(gone);
    EXPECT_NE(gone.error().find((dir.path() / "frame_1.ply").string() + ": no such file"),
              std::string::npos)
        << gone.error();
}

TEST(FolderSource, LoadFailsWhenTheSinkCannotHoldTheFrame)
{
    test::TempDir dir;
    const fs::path file = dir.write("big.ply", plyCloud(100));
    auto source = open(file);
    ASSERT_TRUE(source) << source.error();
    auto result = source.value()->load(0, [](std::size_t) { return std::span<std::uint8_t>(); });
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().find(file.string()), std::string::npos) << result.error();
    EXPECT_NE(result.error().find("does not fit"), std::string::npos) << result.error();
}

TEST(FolderSource, APlyFrameTooLargeIsRefusedFromItsHeaderBeforeDecoding)
{
    test::TempDir dir;
    // The header says 100 000 points; the body is garbage that decoding would reject. Refused
    // from the header alone, the sink is asked once, for the least the frame could take.
    std::string text = plyCloud(0);
    text.replace(text.find("element vertex 0"), 16, "element vertex 100000");
    const fs::path file = dir.write("huge.ply", text + "not a body");
    auto source = open(file);
    ASSERT_TRUE(source) << source.error();
    std::vector<std::size_t> asked;
    auto result = source.value()->load(0, [&](std::size_t bytes) {
        asked.push_back(bytes);
        return std::span<std::uint8_t>();
    });
    ASSERT_FALSE(result);
    EXPECT_NE(result.error().find("huge.ply: the frame (at least 1.9 MiB) does not fit"),
              std::string::npos)
        << result.error();
    EXPECT_EQ(asked, (std::vector<std::size_t>{100000 * 20}));

    // One that fits is asked for its least, then decoded into its block.
    const fs::path small = dir.write("small.ply", plyCloud(10));
    auto fits = open(small);
    ASSERT_TRUE(fits) << fits.error();
    Staging staging;
    auto block = fits.value()->load(0, staging.sink());
    ASSERT_TRUE(block) << block.error();
    auto view = stream::viewBlock(block.value(), "small");
    ASSERT_TRUE(view) << view.error();
    EXPECT_EQ(view.value().counts().vertices, 10u);
}

TEST(FolderSource, LoadsFromSeveralThreadsAtOnce)
{
    test::TempDir dir;
    constexpr int Frames = 16;
    for (int i = 0; i < Frames; ++i)
        dir.write(fmt::format("frame_{}.ply", i), plyCloud(10 + i));
    auto source = open(dir.path() / "frame_%d.ply");
    ASSERT_TRUE(source) << source.error();
    ASSERT_EQ(source.value()->frameCount(), Frames);
    std::atomic<int> good{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (int k = 0; k < Frames; ++k) {
                const int i = (k + t * 5) % Frames;
                Staging staging;
                auto block = source.value()->load(i, staging.sink());
                if (!block)
                    continue;
                auto view = stream::viewBlock(block.value(), "frame");
                if (view && view.value().counts().vertices == static_cast<std::size_t>(10 + i))
                    ++good;
            }
        });
    for (auto& thread : threads)
        thread.join();
    EXPECT_EQ(good.load(), 4 * Frames);
}

TEST(FolderSource, APointCloudFrameIsDecodedStraightIntoTheBlockLoadMeshWouldHaveMade)
{
    // Binary, with normals and colours, turned z-up: the block FolderSource loads is byte for
    // byte the one io::loadMesh's cloud, turned and laid out, gives (the path it used to take).
    std::string text = "ply\nformat binary_little_endian 1.0\nelement vertex 2000\n"
                       "property float x\nproperty float y\nproperty float z\n"
                       "property float nx\nproperty float ny\nproperty float nz\n"
                       "property uchar red\nproperty uchar green\nproperty uchar blue\n"
                       "end_header\n";
    for (int i = 0; i < 2000; ++i) {
        const float values[] = {0.5f * float(i), -1.0f, float(i % 7), 0.0f, float(i % 3), 1.0f};
        text.append(reinterpret_cast<const char*>(values), sizeof values);
        const char rgb[] = {char(i % 256), char(255 - i % 256), 7};
        text.append(rgb, 3);
    }
    test::TempDir dir;
    dir.write("seq/frame_1.ply", text);
    stream::SequenceOptions options;
    options.turn = io::upTurn(io::UpAxis::PlusZ);
    auto source = open(dir.path() / "seq", options);
    ASSERT_TRUE(source) << source.error();
    Staging staging;
    auto block = source.value()->load(0, staging.sink());
    ASSERT_TRUE(block) << block.error();
    EXPECT_TRUE(block.warnings().empty());

    auto mesh = io::loadMesh(dir.path() / "seq" / "frame_1.ply");
    ASSERT_TRUE(mesh) << mesh.error();
    io::turnMesh(mesh.value(), options.turn);
    render::Scene scene;
    ASSERT_TRUE(render::addObject(scene, {"frame_1.ply", std::move(mesh.value())}));
    Staging reference;
    auto expected = stream::blockFromScene(scene, reference.sink(), "frame_1.ply");
    ASSERT_TRUE(expected) << expected.error();
    ASSERT_EQ(block.value().size(), expected.value().size());
    EXPECT_TRUE(std::equal(block.value().begin(), block.value().end(), expected.value().begin()));
    auto view = stream::viewBlock(block.value(), "frame_1.ply");
    ASSERT_TRUE(view) << view.error();
    EXPECT_TRUE(view.value().isCompact());
    EXPECT_EQ(view.value().positions[3], glm::vec3(1.5f, 3.0f, 1.0f)); // (x, z, -y)
    EXPECT_EQ(view.value().attributes[3].color & 0xffffffu, 3u | (252u << 8) | (7u << 16));
}
