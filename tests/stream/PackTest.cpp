// The .tdpk pack: round trips of the sample through every codec and position encoding, the
// header's largest frame, damage detection (checksums, frames that do not decode, forged
// bounds and rates), and the file-level failures (truncated, wrong magic, another version,
// never overwriting, a FIFO); the writer's folder and stale temporaries. No GL.
#include "engine/stream/Pack.h"

#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "engine/core/AtomicFile.h"
#include "engine/io/Image.h"
#include "engine/stream/Block.h"
#include "engine/stream/FolderSource.h"
#include "engine/stream/SampleSource.h"

using namespace tandem;
namespace fs = std::filesystem;

namespace {

fs::path freshFolder(const std::string& name)
{
    const fs::path dir = fs::path(TANDEM_TEST_OUTPUT_DIR) / "pack" / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

std::unique_ptr<stream::Source> sample(const std::string& spec)
{
    auto settings = stream::parseSample(spec);
    EXPECT_TRUE(settings) << settings.error();
    return stream::makeSampleSource(settings.value());
}

/// Loads frame `index` of `source` into a vector of its own.
std::vector<std::uint8_t> loadBlock(const stream::Source& source, int index)
{
    std::vector<std::uint8_t> bytes;
    auto block = source.load(index, [&](std::size_t n) {
        bytes.resize(n);
        return std::span<std::uint8_t>(bytes);
    });
    EXPECT_TRUE(block) << block.error();
    if (block)
        bytes.resize(block.value().size());
    return bytes;
}

/// Writes every frame of `source` into a pack at `path`.
stream::PackInfo writePack(const stream::Source& source, const fs::path& path,
                           stream::PackSettings settings)
{
    settings.fps = source.fps();
    auto writer = stream::PackWriter::create(path, settings);
    EXPECT_TRUE(writer) << writer.error();
    for (int i = 0; i < source.frameCount(); ++i) {
        auto encoded =
            stream::PackWriter::encode(loadBlock(source, i), source.frameName(i), settings);
        EXPECT_TRUE(encoded) << encoded.error();
        auto ok = writer.value()->append(std::move(encoded.value()));
        EXPECT_TRUE(ok) << ok.error();
    }
    auto info = writer.value()->finish();
    EXPECT_TRUE(info) << info.error();
    return info.value();
}

std::vector<std::uint8_t> readAll(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeAll(const fs::path& path, const std::vector<std::uint8_t>& bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
}

template <class T> bool sameArrays(std::span<const T> a, std::span<const T> b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
}

/// Checks that `decoded` is `original` with positions within half a quantization step.
void expectQuantizedMatch(const std::vector<std::uint8_t>& original,
                          const std::vector<std::uint8_t>& decoded, const std::string& name)
{
    ASSERT_EQ(decoded.size(), original.size()) << name;
    auto a = stream::viewBlock(original, name);
    auto b = stream::viewBlock(decoded, name);
    ASSERT_TRUE(a) << a.error();
    ASSERT_TRUE(b) << b.error();
    const render::SceneView& va = a.value();
    const render::SceneView& vb = b.value();
    EXPECT_TRUE(sameArrays(va.objects, vb.objects)) << name;
    EXPECT_TRUE(sameArrays(va.indices, vb.indices)) << name;
    EXPECT_TRUE(sameArrays(va.provokingOffsets, vb.provokingOffsets)) << name;
    EXPECT_TRUE(sameArrays(va.provokingTriangles, vb.provokingTriangles)) << name;
    EXPECT_EQ(va.bounds.min, vb.bounds.min);
    EXPECT_EQ(va.bounds.max, vb.bounds.max);
    // The quantization box: the vertices' own bounds.
    io::Bounds box;
    for (const render::Vertex& v : va.vertices)
        box.extend(v.position);
    ASSERT_EQ(va.vertices.size(), vb.vertices.size());
    float worst = 0.0f;
    for (std::size_t i = 0; i < va.vertices.size(); ++i) {
        const render::Vertex& x = va.vertices[i];
        const render::Vertex& y = vb.vertices[i];
        ASSERT_EQ(x.normal, y.normal) << name << " vertex " << i;
        ASSERT_EQ(x.color, y.color) << name << " vertex " << i;
        ASSERT_EQ(x.texcoord, y.texcoord) << name << " vertex " << i;
        for (int axis = 0; axis < 3; ++axis) {
            const float halfStep = 0.5f * (box.max[axis] - box.min[axis]) / 65535.0f;
            // Plus the float rounding of the decoded value.
            const float bound = halfStep * 1.001f + 1e-7f * std::abs(x.position[axis]);
            const float error = std::abs(x.position[axis] - y.position[axis]);
            ASSERT_LE(error, bound) << name << " vertex " << i << " axis " << axis;
            worst = std::max(worst, error / halfStep);
        }
    }
    // Quantization happened (not a lossless copy by accident) and stayed within the bound.
    EXPECT_GT(worst, 0.1f) << name;
}

} // namespace

TEST(Pack, CodecAndPositionNames)
{
    EXPECT_EQ(stream::Codecs.parse("zstd").value(), stream::Codec::Zstd);
    EXPECT_EQ(stream::PositionEncodings.parse("u16").value(), stream::PositionEncoding::U16);
    auto bad = stream::Codecs.parse("gzip");
    ASSERT_FALSE(bad);
    EXPECT_EQ(bad.error(), "'gzip' is not none, lz4 or zstd");
    EXPECT_FALSE(stream::PositionEncodings.parse("f16"));
    EXPECT_EQ(stream::Codecs.name(stream::Codec::Lz4), "lz4");
    EXPECT_EQ(stream::PositionEncodings.name(stream::PositionEncoding::F32), "f32");
}

TEST(Pack, RoundTripsEveryCodecAndPositionEncoding)
{
    const fs::path dir = freshFolder("round_trip");
    for (const std::string spec :
         {"sample:points=2000,frames=5", "sample:mesh,points=2000,frames=3"}) {
        const auto source = sample(spec);
        std::vector<std::vector<std::uint8_t>> originals;
        for (int i = 0; i < source->frameCount(); ++i)
            originals.push_back(loadBlock(*source, i));
        for (stream::Codec codec : {stream::Codec::None, stream::Codec::Lz4, stream::Codec::Zstd})
            for (stream::PositionEncoding positions :
                 {stream::PositionEncoding::F32, stream::PositionEncoding::U16}) {
                const std::string what = fmt::format("{} {} {}", spec, stream::Codecs.name(codec),
                                                     stream::PositionEncodings.name(positions));
                SCOPED_TRACE(what);
                // Frames of point clouds are compact points, which keep float positions.
                const bool quantized = positions == stream::PositionEncoding::U16 &&
                                       spec.find("mesh") != std::string::npos;
                const fs::path path =
                    dir / fmt::format("{}_{}_{}.tdpk",
                                      spec.find("mesh") != spec.npos ? "mesh" : "points",
                                      stream::Codecs.name(codec),
                                      stream::PositionEncodings.name(positions));
                stream::PackSettings settings;
                settings.codec = codec;
                settings.positions = positions;
                const stream::PackInfo written = writePack(*source, path, settings);

                auto read = stream::readPackInfo(path);
                ASSERT_TRUE(read) << read.error();
                const stream::PackInfo& info = read.value();
                EXPECT_EQ(info.version, stream::PackVersion);
                EXPECT_EQ(info.frameCount(), source->frameCount());
                EXPECT_EQ(info.fps, source->fps());
                EXPECT_EQ(info.fileBytes, fs::file_size(path));
                EXPECT_EQ(info.storedBytes(), written.storedBytes());
                // The header's largest frame is the sample's (every frame the same counts).
                const render::SceneCounts largest = source->largestFrame().value();
                EXPECT_EQ(info.largest.objects, largest.objects);
                EXPECT_EQ(info.largest.vertices, largest.vertices);
                EXPECT_EQ(info.largest.indices, largest.indices);
                EXPECT_EQ(info.largest.provokingOffsets, largest.provokingOffsets);
                EXPECT_EQ(info.largest.provokingTriangles, largest.provokingTriangles);
                EXPECT_EQ(info.largestBlockBytes, stream::blockBytes(largest));
                for (int i = 0; i < info.frameCount(); ++i) {
                    const stream::PackFrame& f = info.frames[static_cast<std::size_t>(i)];
                    EXPECT_EQ(f.offset % stream::PackAlign, 0u);
                    EXPECT_EQ(f.name, source->frameName(i));
                    EXPECT_EQ(f.blockBytes, originals[static_cast<std::size_t>(i)].size());
                    EXPECT_EQ(f.vertexCount, largest.vertices);
                    EXPECT_EQ(f.positions, quantized ? stream::PositionEncoding::U16
                                                     : stream::PositionEncoding::F32);
                    if (codec == stream::Codec::None) {
                        EXPECT_EQ(f.codec, stream::Codec::None);
                    } else {
                        EXPECT_LE(f.storedBytes, f.blockBytes);
                    }
                    for (int a = 0; a < 3; ++a) {
                        EXPECT_LE(info.bounds.min[a], f.bounds.min[a]);
                        EXPECT_GE(info.bounds.max[a], f.bounds.max[a]);
                    }
                }
                if (codec == stream::Codec::Zstd) {
                    EXPECT_TRUE(info.flags & stream::PackHasCompressedFrames);
                }
                EXPECT_EQ((info.flags & stream::PackHasQuantizedFrames) != 0, quantized);

                auto opened = stream::openPack(path);
                ASSERT_TRUE(opened) << opened.error();
                const stream::Source& pack = *opened.value();
                EXPECT_EQ(pack.frameCount(), source->frameCount());
                EXPECT_EQ(pack.frameName(1), "frame 1 of " + path.filename().string() + " (" +
                                                 source->frameName(1) + ")");
                ASSERT_TRUE(pack.largestFrame());
                EXPECT_EQ(pack.largestFrame()->vertices, largest.vertices);
                ASSERT_TRUE(pack.bounds());
                // Backwards, so the loader's per-thread buffers get reused at other sizes.
                for (int i = pack.frameCount() - 1; i >= 0; --i) {
                    std::vector<std::uint8_t> sinkMemory;
                    auto block = pack.load(i, [&](std::size_t n) {
                        sinkMemory.resize(n);
                        return std::span<std::uint8_t>(sinkMemory);
                    });
                    ASSERT_TRUE(block) << block.error();
                    EXPECT_EQ(block.value().data(), sinkMemory.data());
                    const std::vector<std::uint8_t> decoded(block.value().begin(),
                                                            block.value().end());
                    const auto& original = originals[static_cast<std::size_t>(i)];
                    if (!quantized)
                        EXPECT_TRUE(decoded == original) << "frame " << i << " differs";
                    else
                        expectQuantizedMatch(original, decoded, what);
                    EXPECT_TRUE(stream::viewBlock(decoded, "decoded"));
                }
                auto damaged = stream::verifyPack(path);
                ASSERT_TRUE(damaged) << damaged.error();
                EXPECT_TRUE(damaged.value().empty());
            }
    }
}

TEST(Pack, CarriesFrameTextures)
{
    // Two textured OBJ frames with textures of different sizes: the header states the widest
    // and tallest, and every codec and position encoding gives the texels back exactly.
    const fs::path dir = freshFolder("textures");
    const std::string quad = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\n"
                             "vt 0 1\nf 1/1 2/2 3/3\nf 1/1 3/3 4/4\n";
    for (int frame = 1; frame <= 2; ++frame) {
        std::ofstream(dir / fmt::format("frame_{}.obj", frame)) << quad;
        io::Image texture;
        texture.width = frame == 1 ? 2 : 3;
        texture.height = frame == 1 ? 2 : 1;
        for (int i = 0; i < texture.width * texture.height * 4; ++i)
            texture.pixels.push_back(static_cast<std::uint8_t>(frame * 40 + i));
        ASSERT_TRUE(io::writePng(dir / fmt::format("frame_{}.png", frame), texture, false));
    }
    auto source = stream::openFileSequence(dir.string(), {});
    ASSERT_TRUE(source) << source.error();
    std::vector<std::vector<std::uint8_t>> originals;
    for (int i = 0; i < 2; ++i)
        originals.push_back(loadBlock(*source.value(), i));
    for (stream::Codec codec : {stream::Codec::None, stream::Codec::Lz4, stream::Codec::Zstd})
        for (stream::PositionEncoding positions :
             {stream::PositionEncoding::F32, stream::PositionEncoding::U16}) {
            SCOPED_TRACE(fmt::format("{} {}", stream::Codecs.name(codec),
                                     stream::PositionEncodings.name(positions)));
            stream::PackSettings settings;
            settings.codec = codec;
            settings.positions = positions;
            const fs::path path = dir / fmt::format("seq_{}_{}.tdpk", stream::Codecs.name(codec),
                                                    stream::PositionEncodings.name(positions));
            writePack(*source.value(), path, settings);
            auto opened = stream::openPack(path);
            ASSERT_TRUE(opened) << opened.error();
            const render::SceneCounts largest = opened.value()->largestFrame().value();
            EXPECT_EQ(largest.textureWidth, 3u);
            EXPECT_EQ(largest.textureHeight, 2u);
            for (int i = 0; i < 2; ++i) {
                const std::vector<std::uint8_t> decoded = loadBlock(*opened.value(), i);
                ASSERT_LE(decoded.size(), stream::blockBytes(largest));
                auto a = stream::viewBlock(originals[static_cast<std::size_t>(i)], "original");
                auto b = stream::viewBlock(decoded, "decoded");
                ASSERT_TRUE(a && b);
                EXPECT_EQ(b.value().textureWidth, a.value().textureWidth);
                EXPECT_TRUE(sameArrays(a.value().texels, b.value().texels)) << "frame " << i;
                EXPECT_TRUE(b.value().objects[0].flags & render::ObjectHasTexture);
            }
        }
}

TEST(Pack, LoadsFromSeveralThreadsAtOnce)
{
    const fs::path path = freshFolder("threads") / "seq.tdpk";
    const auto source = sample("sample:points=2000,frames=5");
    stream::PackSettings settings;
    settings.codec = stream::Codec::Zstd;
    settings.positions = stream::PositionEncoding::U16;
    writePack(*source, path, settings);
    auto opened = stream::openPack(path);
    ASSERT_TRUE(opened) << opened.error();
    const stream::Source& pack = *opened.value();
    std::vector<std::vector<std::uint8_t>> expected;
    for (int i = 0; i < pack.frameCount(); ++i)
        expected.push_back(loadBlock(pack, i));
    std::vector<std::thread> threads;
    std::atomic<int> mismatches{0};
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            for (int round = 0; round < 10; ++round) {
                const int i = (t + round) % pack.frameCount();
                std::vector<std::uint8_t> bytes;
                auto block = pack.load(i, [&](std::size_t n) {
                    bytes.resize(n);
                    return std::span<std::uint8_t>(bytes);
                });
                if (!block || bytes != expected[static_cast<std::size_t>(i)])
                    ++mismatches;
            }
        });
    for (std::thread& t : threads)
        t.join();
    EXPECT_EQ(mismatches.load(), 0);
}

TEST(Pack, FindsTheDamagedFrame)
{
    const fs::path dir = freshFolder("damage");
    const auto source = sample("sample:points=2000,frames=5");
    for (stream::Codec codec : {stream::Codec::None, stream::Codec::Lz4}) {
        SCOPED_TRACE(stream::Codecs.name(codec));
        const fs::path path = dir / fmt::format("seq_{}.tdpk", stream::Codecs.name(codec));
        stream::PackSettings settings;
        settings.codec = codec;
        const stream::PackInfo info = writePack(*source, path, settings);

        std::vector<std::uint8_t> bytes = readAll(path);
        const stream::PackFrame& two = info.frames[2];
        bytes[two.offset + two.storedBytes / 2] ^= 0x10;
        writeAll(path, bytes);

        std::vector<int> seen;
        auto damaged = stream::verifyPack(path, [&](int done, int total) {
            EXPECT_EQ(total, 5);
            seen.push_back(done);
        });
        ASSERT_TRUE(damaged) << damaged.error();
        ASSERT_EQ(damaged.value().size(), 1u);
        EXPECT_EQ(damaged.value()[0].frame, 2);
        EXPECT_EQ(damaged.value()[0].reason,
                  "frame 2 (sample frame 2): checksum mismatch (damaged)");
        EXPECT_EQ(seen, (std::vector<int>{1, 2, 3, 4, 5}));

        auto opened = stream::openPack(path);
        ASSERT_TRUE(opened) << opened.error();
        std::vector<std::uint8_t> memory;
        const stream::BlockSink sink = [&](std::size_t n) {
            memory.resize(n);
            return std::span<std::uint8_t>(memory);
        };
        auto frame2 = opened.value()->load(2, sink);
        ASSERT_FALSE(frame2);
        EXPECT_EQ(frame2.error(), "frame 2 of " + path.filename().string() +
                                      " (sample frame 2): checksum mismatch (damaged)");
        EXPECT_TRUE(opened.value()->load(1, sink));
        EXPECT_TRUE(opened.value()->load(3, sink));
    }
}

TEST(Pack, FrameLargerThanTheSinkGivesFails)
{
    const fs::path path = freshFolder("small_sink") / "seq.tdpk";
    writePack(*sample("sample:points=2000,frames=2"), path, {});
    auto opened = stream::openPack(path);
    ASSERT_TRUE(opened) << opened.error();
    auto block = opened.value()->load(0, [](std::size_t) { return std::span<std::uint8_t>(); });
    ASSERT_FALSE(block);
    EXPECT_NE(block.error().find("frame 0 of seq.tdpk"), std::string::npos) << block.error();
}

TEST(Pack, RejectsBrokenFiles)
{
    const fs::path dir = freshFolder("broken");
    const fs::path good = dir / "good.tdpk";
    const stream::PackInfo info = writePack(*sample("sample:points=2000,frames=3"), good, {});
    const std::vector<std::uint8_t> bytes = readAll(good);
    const auto expectFailure = [&](const std::string& name, const std::vector<std::uint8_t>& data,
                                   const std::vector<std::string>& parts) {
        const fs::path path = dir / name;
        writeAll(path, data);
        auto read = stream::readPackInfo(path);
        ASSERT_FALSE(read) << name;
        for (const std::string& part : parts)
            EXPECT_NE(read.error().find(part), std::string::npos) << read.error();
        EXPECT_NE(read.error().find(path.string()), std::string::npos) << read.error();
        EXPECT_FALSE(stream::openPack(path)) << name;
        EXPECT_FALSE(stream::verifyPack(path)) << name;
    };

    // Truncated: in the middle of the frames, and inside the header.
    expectFailure("half.tdpk", {bytes.begin(), bytes.begin() + bytes.size() / 2},
                  {"truncated", std::to_string(bytes.size() / 2), std::to_string(bytes.size())});
    expectFailure("short.tdpk", {bytes.begin(), bytes.begin() + 50}, {"truncated"});
    // Trailing bytes.
    std::vector<std::uint8_t> longer = bytes;
    longer.resize(bytes.size() + 10);
    expectFailure("longer.tdpk", longer, {"more than"});
    // Wrong magic.
    std::vector<std::uint8_t> ply = bytes;
    std::memcpy(ply.data(), "ply\n", 4);
    expectFailure("magic.tdpk", ply, {"not a tandem pack"});
    EXPECT_FALSE(stream::isPackFile(dir / "magic.tdpk"));
    EXPECT_TRUE(stream::isPackFile(good));
    EXPECT_FALSE(stream::isPackFile(dir / "none.tdpk"));
    EXPECT_FALSE(stream::isPackFile(dir));
    // A future version: named, with the version this build reads.
    std::vector<std::uint8_t> future = bytes;
    const std::uint32_t seven = 7;
    std::memcpy(future.data() + offsetof(stream::PackHeader, version), &seven, 4);
    expectFailure("future.tdpk", future,
                  {"version 7", "newer", fmt::format("version {}", stream::PackVersion)});
    // A damaged header and a damaged index.
    std::vector<std::uint8_t> header = bytes;
    header[offsetof(stream::PackHeader, fps)] ^= 1;
    expectFailure("header.tdpk", header, {"header is damaged"});
    std::vector<std::uint8_t> index = bytes;
    index[info.indexOffset + 3] ^= 1;
    expectFailure("index.tdpk", index, {"index is damaged"});
    // Missing, and a folder.
    EXPECT_NE(stream::readPackInfo(dir / "none.tdpk").error().find("no such file"),
              std::string::npos);
    EXPECT_NE(stream::readPackInfo(dir).error().find("is a directory"), std::string::npos);
}

TEST(Pack, NeverOverwritesUnlessAsked)
{
    const fs::path dir = freshFolder("overwrite");
    const fs::path path = dir / "seq.tdpk";
    writeAll(path, {'k', 'e', 'e', 'p'});
    const auto source = sample("sample:points=2000,frames=2");

    auto refused = stream::PackWriter::create(path, {});
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().find("already exists"), std::string::npos) << refused.error();
    EXPECT_EQ(readAll(path).size(), 4u);

    // The destination appearing while writing: finish() refuses too and leaves no temporary.
    fs::remove(path);
    {
        auto writer = stream::PackWriter::create(path, {});
        ASSERT_TRUE(writer) << writer.error();
        ASSERT_TRUE(writer.value()->add(loadBlock(*source, 0), "f0"));
        writeAll(path, {'k', 'e', 'e', 'p'});
        auto finished = writer.value()->finish();
        ASSERT_FALSE(finished);
        EXPECT_NE(finished.error().find("already exists"), std::string::npos);
    }
    EXPECT_EQ(readAll(path).size(), 4u);
    EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);

    stream::PackSettings overwrite;
    overwrite.overwrite = true;
    writePack(*source, path, overwrite);
    EXPECT_TRUE(stream::readPackInfo(path));
    EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

TEST(Pack, AbandonedWriterLeavesNothing)
{
    const fs::path dir = freshFolder("abandoned");
    {
        auto writer = stream::PackWriter::create(dir / "seq.tdpk", {});
        ASSERT_TRUE(writer) << writer.error();
        ASSERT_TRUE(writer.value()->add(loadBlock(*sample("sample:points=100,frames=1"), 0), "f"));
        EXPECT_FALSE(fs::is_empty(dir)); // the temporary file
    }
    EXPECT_TRUE(fs::is_empty(dir));
    // No frames: nothing to finish.
    auto writer = stream::PackWriter::create(dir / "empty.tdpk", {});
    ASSERT_TRUE(writer) << writer.error();
    EXPECT_FALSE(writer.value()->finish());
    EXPECT_FALSE(fs::exists(dir / "empty.tdpk"));
}

TEST(Pack, RejectsMalformedBlocks)
{
    std::vector<std::uint8_t> block = loadBlock(*sample("sample:points=100,frames=1"), 0);
    block[0] ^= 1;
    auto encoded = stream::PackWriter::encode(block, "scan_0001.ply", {});
    ASSERT_FALSE(encoded);
    EXPECT_NE(encoded.error().find("scan_0001.ply"), std::string::npos) << encoded.error();
}

namespace {

/// Where `bytes` (a whole pack) keeps its header and frame `i`'s index entry.
stream::PackHeader headerOf(const std::vector<std::uint8_t>& bytes)
{
    stream::PackHeader h;
    std::memcpy(&h, bytes.data(), sizeof(h));
    return h;
}

std::size_t entryAt(const std::vector<std::uint8_t>& bytes, int i)
{
    return headerOf(bytes).indexOffset + static_cast<std::size_t>(i) * sizeof(stream::PackEntry);
}

/// Makes every checksum of `bytes` match again after an edit, as a forger would: frame `frame`'s
/// (if ≥ 0), the index's, the header's.
void matchChecksums(std::vector<std::uint8_t>& bytes, int frame = -1)
{
    if (frame >= 0) {
        stream::PackEntry e;
        std::memcpy(&e, bytes.data() + entryAt(bytes, frame), sizeof(e));
        e.crc = stream::packCrc32({bytes.data() + e.offset, e.storedBytes});
        std::memcpy(bytes.data() + entryAt(bytes, frame), &e, sizeof(e));
    }
    stream::PackHeader h = headerOf(bytes);
    h.indexCrc = stream::packCrc32({bytes.data() + h.indexOffset, h.indexBytes});
    h.headerCrc = 0;
    h.headerCrc = stream::packCrc32({reinterpret_cast<const std::uint8_t*>(&h), sizeof(h)});
    std::memcpy(bytes.data(), &h, sizeof(h));
}

void setFloat(std::vector<std::uint8_t>& bytes, std::size_t offset, float value)
{
    std::memcpy(bytes.data() + offset, &value, sizeof(value));
}

} // namespace

TEST(Pack, RefusesBoundsThatWouldRenderEveryFrameBlank)
{
    // NaN, ±inf or ±3e38 in the bounds, with every checksum made to match: a camera fitted to
    // them sees nothing. Refused when the pack is opened, naming the pack and the field.
    const fs::path dir = freshFolder("bounds");
    const fs::path good = dir / "good.tdpk";
    writePack(*sample("sample:points=2000,frames=3"), good, {});
    const std::vector<std::uint8_t> bytes = readAll(good);
    const float bad[] = {std::nanf(""), INFINITY, -INFINITY, 3e38f, -3e38f};
    int n = 0;
    for (const float value : bad) {
        SCOPED_TRACE(value);
        // The header's sequence bounds.
        std::vector<std::uint8_t> header = bytes;
        setFloat(header, offsetof(stream::PackHeader, boundsMax) + 4, value);
        matchChecksums(header);
        const fs::path inHeader = dir / fmt::format("header_{}.tdpk", n);
        writeAll(inHeader, header);
        auto read = stream::readPackInfo(inHeader);
        ASSERT_FALSE(read);
        EXPECT_NE(read.error().find(inHeader.string() + ": the header's bounds: max"),
                  std::string::npos)
            << read.error();
        EXPECT_FALSE(stream::openPack(inHeader));
        EXPECT_FALSE(stream::verifyPack(inHeader));
        // Frame 1's bounds in the index.
        std::vector<std::uint8_t> entry = bytes;
        setFloat(entry, entryAt(entry, 1) + offsetof(stream::PackEntry, boundsMin), value);
        matchChecksums(entry);
        const fs::path inEntry = dir / fmt::format("entry_{}.tdpk", n);
        writeAll(inEntry, entry);
        read = stream::readPackInfo(inEntry);
        ASSERT_FALSE(read);
        EXPECT_NE(read.error().find("index entry of frame 1: bounds: min"), std::string::npos)
            << read.error();
        EXPECT_FALSE(stream::openPack(inEntry));
        // Frame 2's own block (an uncompressed frame is its block, bounds in its header).
        std::vector<std::uint8_t> block = bytes;
        stream::PackEntry e;
        std::memcpy(&e, block.data() + entryAt(block, 2), sizeof(e));
        setFloat(block, e.offset + offsetof(stream::BlockHeader, boundsMin), value);
        matchChecksums(block, 2);
        const fs::path inBlock = dir / fmt::format("block_{}.tdpk", n++);
        writeAll(inBlock, block);
        ASSERT_TRUE(stream::readPackInfo(inBlock)) << "the index is intact";
        auto damaged = stream::verifyPack(inBlock);
        ASSERT_TRUE(damaged) << damaged.error();
        ASSERT_EQ(damaged.value().size(), 1u);
        EXPECT_EQ(damaged.value()[0].frame, 2);
        EXPECT_NE(damaged.value()[0].reason.find("the frame block's bounds: min"),
                  std::string::npos)
            << damaged.value()[0].reason;
        auto opened = stream::openPack(inBlock);
        ASSERT_TRUE(opened);
        std::vector<std::uint8_t> memory;
        auto loaded = opened.value()->load(2, [&](std::size_t size) {
            memory.resize(size);
            return std::span<std::uint8_t>(memory);
        });
        EXPECT_FALSE(loaded) << "a player would have drawn it";
    }
    // Empty bounds are not bad bounds: a pack whose frames have no vertices keeps them.
    const io::Bounds empty;
    float min[3], max[3];
    stream::storeBounds(empty, min, max);
    EXPECT_TRUE(stream::checkedBounds(min, max, true, "empty"));
    EXPECT_FALSE(stream::checkedBounds(min, max, false, "empty with vertices"));
}

TEST(Pack, VerifyNamesFramesThatDoNotDecodeThoughTheirChecksumsMatch)
{
    const fs::path dir = freshFolder("undecodable");
    // An lz4 frame whose compressed bytes are scrambled, checksum made to match.
    const fs::path lz4 = dir / "lz4.tdpk";
    stream::PackSettings compressed;
    compressed.codec = stream::Codec::Lz4;
    const stream::PackInfo info =
        writePack(*sample("sample:points=2000,frames=3"), lz4, compressed);
    ASSERT_EQ(info.frames[1].codec, stream::Codec::Lz4);
    std::vector<std::uint8_t> bytes = readAll(lz4);
    for (std::uint64_t b = 0; b < info.frames[1].storedBytes; b += 7)
        bytes[info.frames[1].offset + b] ^= 0x5a;
    matchChecksums(bytes, 1);
    writeAll(lz4, bytes);
    auto damaged = stream::verifyPack(lz4);
    ASSERT_TRUE(damaged) << damaged.error();
    ASSERT_EQ(damaged.value().size(), 1u);
    EXPECT_EQ(damaged.value()[0].frame, 1);
    EXPECT_NE(damaged.value()[0].reason.find("frame 1 (sample frame 1): lz4 data does not "
                                             "decompress"),
              std::string::npos)
        << damaged.value()[0].reason;

    // A mesh frame (uncompressed) whose first triangle names a vertex it does not have:
    // decodes, but the player would refuse it (render::validateScene).
    const fs::path mesh = dir / "mesh.tdpk";
    const stream::PackInfo meshInfo =
        writePack(*sample("sample:mesh,points=2000,frames=2"), mesh, {});
    bytes = readAll(mesh);
    stream::BlockHeader h;
    std::memcpy(&h, bytes.data() + meshInfo.frames[0].offset, sizeof(h));
    ASSERT_GT(h.indexCount, 0u);
    const std::uint32_t outOfRange = h.vertexCount + 5;
    std::memcpy(bytes.data() + meshInfo.frames[0].offset + h.indicesOffset, &outOfRange, 4);
    matchChecksums(bytes, 0);
    writeAll(mesh, bytes);
    damaged = stream::verifyPack(mesh);
    ASSERT_TRUE(damaged) << damaged.error();
    ASSERT_EQ(damaged.value().size(), 1u);
    EXPECT_EQ(damaged.value()[0].frame, 0);
    EXPECT_NE(damaged.value()[0].reason.find("triangle index"), std::string::npos)
        << damaged.value()[0].reason;
}

TEST(Pack, VerifyRefusesAForgedFrameSizeWithoutAllocatingIt)
{
    // A compressed frame's index entry (and the header's largest frame) forged to 133 TB, the
    // checksums made to match: --verify names the frame, and never asks for the memory (a
    // sanitizer or libFuzzer stops a process that asks for that much; a machine with overcommit
    // would start zeroing it).
    const fs::path dir = freshFolder("forged_size");
    const fs::path path = dir / "forged.tdpk";
    stream::PackSettings compressed;
    compressed.codec = stream::Codec::Zstd;
    const stream::PackInfo info =
        writePack(*sample("sample:points=2000,frames=3"), path, compressed);
    ASSERT_EQ(info.frames[1].codec, stream::Codec::Zstd);
    std::vector<std::uint8_t> bytes = readAll(path);
    constexpr std::uint64_t Forged = 0x790000000700;
    stream::PackHeader h = headerOf(bytes);
    h.largestBlockBytes = Forged;
    std::memcpy(bytes.data(), &h, sizeof(h));
    stream::PackEntry e;
    std::memcpy(&e, bytes.data() + entryAt(bytes, 1), sizeof(e));
    e.blockBytes = Forged;
    std::memcpy(bytes.data() + entryAt(bytes, 1), &e, sizeof(e));
    matchChecksums(bytes);
    writeAll(path, bytes);
    ASSERT_TRUE(stream::readPackInfo(path)) << "within the header's own largest frame";
    auto damaged = stream::verifyPack(path);
    ASSERT_TRUE(damaged) << damaged.error();
    ASSERT_EQ(damaged.value().size(), 1u);
    EXPECT_EQ(damaged.value()[0].frame, 1);
    EXPECT_NE(damaged.value()[0].reason.find("frame 1 (sample frame 1): decodes to 126877696.0 "
                                             "MiB, more than the "),
              std::string::npos)
        << damaged.value()[0].reason;
    // A budget of its own (the fuzz target's 64 MiB): the same frame, said against it.
    damaged = stream::verifyPack(path, {}, std::uint64_t{64} << 20);
    ASSERT_TRUE(damaged) << damaged.error();
    ASSERT_EQ(damaged.value().size(), 1u);
    EXPECT_NE(damaged.value()[0].reason.find("more than the 64.0 MiB a frame may take here"),
              std::string::npos)
        << damaged.value()[0].reason;
}

TEST(Pack, WriterMakesAMissingFolderAndRemovesWhatKilledWritersLeft)
{
    const fs::path dir = freshFolder("folders");
    // A writer killed before it finished (no destructor ran) leaves its temporary behind.
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        auto file = AtomicFile::create(dir / "seq.tdpk", Replace::No);
        if (file)
            (void)file.value().write(std::string("half a pack"));
        std::_Exit(file ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    std::vector<fs::path> left;
    for (const auto& entry : fs::directory_iterator(dir))
        left.push_back(entry.path());
    ASSERT_EQ(left.size(), 1u);
    EXPECT_TRUE(isTemporaryName(left[0].filename().string()));

    writePack(*sample("sample:points=100,frames=1"), dir / "seq.tdpk", {});
    EXPECT_FALSE(fs::exists(left[0])) << "the killed writer's temporary is still there";
    // A folder that does not exist yet is made, as every other output's.
    const fs::path nested = dir / "missing" / "deeper" / "x.tdpk";
    writePack(*sample("sample:points=100,frames=1"), nested, {});
    EXPECT_TRUE(stream::readPackInfo(nested));
}

TEST(Pack, RefusesFrameRatesNoClockShouldRun)
{
    const fs::path dir = freshFolder("rates");
    stream::PackSettings slow;
    slow.fps = 1e-6;
    auto refused = stream::PackWriter::create(dir / "slow.tdpk", slow);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().find("frame rate 1e-06 lies outside 0.1..1000"), std::string::npos)
        << refused.error();
    // A header forged to 1e-6 fps plans 3e8 output frames of a 300-frame sequence.
    const fs::path good = dir / "good.tdpk";
    writePack(*sample("sample:points=100,frames=2"), good, {});
    std::vector<std::uint8_t> bytes = readAll(good);
    const double rate = 1e-6;
    std::memcpy(bytes.data() + offsetof(stream::PackHeader, fps), &rate, sizeof(rate));
    matchChecksums(bytes);
    writeAll(dir / "forged.tdpk", bytes);
    auto read = stream::readPackInfo(dir / "forged.tdpk");
    ASSERT_FALSE(read);
    EXPECT_NE(read.error().find("the header's frame rate 1e-06 fps lies outside 0.1..1000"),
              std::string::npos)
        << read.error();
}

TEST(Pack, ANamedPipeIsRefusedNotWaitedOn)
{
    // Opening a FIFO that nobody writes blocks until someone does: a pack reader must not.
    const fs::path dir = freshFolder("fifo");
    const fs::path fifo = dir / "seq.tdpk";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    auto read = stream::readPackInfo(fifo);
    ASSERT_FALSE(read);
    EXPECT_NE(read.error().find("not a regular file"), std::string::npos) << read.error();
    EXPECT_FALSE(stream::isPackFile(fifo));
    EXPECT_FALSE(stream::verifyPack(fifo));
}
