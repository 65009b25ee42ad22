// tandem-pack: converts a volumetric sequence (the sample, a folder/manifest/pattern of PLY/OBJ
// files, another pack) into a .tdpk pack, verifies a pack's checksums, or prints its index.
// Frames load and encode on several threads and are written in order. Wiring only: the format
// is engine/stream/Pack.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "engine/core/Log.h"
#include "engine/core/StopToken.h"
#include "engine/frame/Progress.h"
#include "engine/stream/Open.h"
#include "engine/stream/Pack.h"

using namespace tandem;

namespace {

constexpr int ExitOk = 0;
constexpr int ExitInput = 1; ///< missing or malformed input, unwritable output, damaged frames
constexpr int ExitUsage = 2; ///< a bad command line

int exitWith(int code, const std::string& message)
{
    fmt::print(stderr, "error: {}\n", message);
    if (code == ExitUsage)
        fmt::print(stderr, "Run with --help for usage.\n");
    return code;
}

double mib(std::uint64_t bytes)
{
    return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

std::string countsText(const render::SceneCounts& c)
{
    std::string text = fmt::format("{} vertices, {} indices ({} triangles), {} objects", c.vertices,
                                   c.indices, c.indices / 3, c.objects);
    if (c.textureWidth > 0)
        text += fmt::format(", textures up to {}x{}", c.textureWidth, c.textureHeight);
    return text;
}

/// "lz4 (all 150 frames)" or "lz4 140, none 10".
template <class T, class Name>
std::string tally(const stream::PackInfo& info, T stream::PackFrame::*field, Name name)
{
    std::map<int, int> counts;
    for (const stream::PackFrame& f : info.frames)
        ++counts[static_cast<int>(f.*field)];
    if (counts.size() == 1)
        return fmt::format("{} (all {} frames)", name(static_cast<T>(counts.begin()->first)),
                           info.frameCount());
    std::string text;
    for (const auto& [value, n] : counts)
        text += fmt::format("{}{} {}", text.empty() ? "" : ", ", name(static_cast<T>(value)), n);
    return text;
}

int printInfo(const std::string& file)
{
    auto read = stream::readPackInfo(file);
    if (!read)
        return exitWith(ExitInput, read.error());
    const stream::PackInfo& info = read.value();
    const std::uint64_t stored = info.storedBytes();
    const std::uint64_t blocks = info.blockBytes();
    fmt::print("{}: tandem pack, format version {}\n", file, info.version);
    fmt::print("  frames     {} at {:g} fps ({:.2f} s)\n", info.frameCount(), info.fps,
               info.frameCount() / info.fps);
    fmt::print("  largest    {}; block {:.2f} MiB, stored {:.2f} MiB\n", countsText(info.largest),
               mib(info.largestBlockBytes), mib(info.largestStoredBytes));
    fmt::print("  size       {:.2f} MiB stored of {:.2f} MiB of blocks (ratio {:.2f}:1); file {} "
               "bytes, index {} bytes at {}\n",
               mib(stored), mib(blocks),
               stored ? static_cast<double>(blocks) / static_cast<double>(stored) : 0.0,
               info.fileBytes, info.indexBytes, info.indexOffset);
    fmt::print("  codec      {}\n", tally(info, &stream::PackFrame::codec, stream::codecName));
    fmt::print("  positions  {}\n",
               tally(info, &stream::PackFrame::positions, stream::positionEncodingName));
    const io::Bounds& b = info.bounds;
    fmt::print("  bounds     ({:g}, {:g}, {:g}) .. ({:g}, {:g}, {:g})\n", b.min.x, b.min.y, b.min.z,
               b.max.x, b.max.y, b.max.z);
    fmt::print("  first      {}\n  last       {}\n", info.frames.front().name,
               info.frames.back().name);
    return ExitOk;
}

int verify(const std::string& file, bool quiet)
{
    auto info = stream::readPackInfo(file);
    if (!info)
        return exitWith(ExitInput, info.error());
    const int total = info.value().frameCount();
    frame::Progress progress("tandem-pack --verify", static_cast<std::uint64_t>(total), !quiet);
    auto damaged = stream::verifyPack(
        file, [&](int done, int) { progress.update(static_cast<std::uint64_t>(done)); });
    if (!damaged)
        return exitWith(ExitInput, damaged.error());
    progress.finish(static_cast<std::uint64_t>(total));
    if (damaged.value().empty()) {
        fmt::print("{}: {} frames, every checksum matches\n", file, total);
        return ExitOk;
    }
    std::string list;
    for (int i : damaged.value()) {
        fmt::print(stderr, "{}: frame {} ({}): checksum mismatch (damaged)\n", file, i,
                   info.value().frames[static_cast<std::size_t>(i)].name);
        list += fmt::format("{}{}", list.empty() ? "" : ", ", i);
    }
    return exitWith(ExitInput, fmt::format("{}: {} of {} frames damaged: {}", file,
                                           damaged.value().size(), total, list));
}

struct ConvertOptions {
    std::string source;
    std::string output;
    std::string codec = "none";
    std::string positions = "f32";
    unsigned threads = 0;
    double fps = 0.0;
    bool fpsGiven = false;
    bool overwrite = false;
    bool quiet = false;
};

int convert(const ConvertOptions& o)
{
    // SIGINT or SIGTERM: the conversion stops and the writer removes its temporary file.
    const StopSignals signals;
    const auto start = std::chrono::steady_clock::now();
    stream::SequenceOptions sequence;
    if (o.fpsGiven) {
        sequence.fps = o.fps;
        sequence.fpsGiven = true;
    }
    auto opened = stream::openSource(o.source, sequence);
    if (!opened)
        return exitWith(ExitInput, opened.error());
    for (const std::string& warning : opened.warnings())
        log::warning("{}", warning);
    const stream::Source& source = *opened.value();
    // A re-packed pack keeps its frames' original names (a file sequence's file names).
    std::vector<std::string> names;
    for (int i = 0; i < source.frameCount(); ++i)
        names.push_back(source.frameName(i));
    if (stream::isPackFile(o.source)) {
        auto info = stream::readPackInfo(o.source);
        if (!info)
            return exitWith(ExitInput, info.error());
        for (int i = 0; i < source.frameCount(); ++i)
            names[static_cast<std::size_t>(i)] =
                info.value().frames[static_cast<std::size_t>(i)].name;
    }

    stream::PackSettings settings;
    settings.codec = stream::parseCodec(o.codec).value();
    settings.positions = stream::parsePositionEncoding(o.positions).value();
    settings.fps = o.fpsGiven ? o.fps : source.fps();
    settings.overwrite = o.overwrite;
    auto created = stream::PackWriter::create(o.output, settings);
    if (!created)
        return exitWith(ExitInput, created.error());
    stream::PackWriter& writer = *created.value();

    const int count = source.frameCount();
    const unsigned threads =
        std::max(1u, std::min(o.threads ? o.threads : std::thread::hardware_concurrency(),
                              static_cast<unsigned>(count)));
    // Workers load and encode frames at most `window` ahead of the writer, which appends them
    // in order: memory stays a few frames deep however long the sequence.
    const int window = static_cast<int>(2 * threads);
    std::mutex mutex;
    std::condition_variable changed;
    std::map<int, Result<stream::EncodedFrame>> ready;
    int next = 0;
    int written = 0;
    bool stop = false;
    const auto work = [&] {
        for (;;) {
            int index = 0;
            {
                std::unique_lock lock(mutex);
                changed.wait(lock, [&] { return stop || next < written + window; });
                if (stop || next >= count)
                    return;
                index = next++;
            }
            std::vector<std::uint8_t> block;
            auto loaded = source.load(index, [&](std::size_t bytes) {
                block.resize(bytes);
                return std::span<std::uint8_t>(block);
            });
            Result<stream::EncodedFrame> encoded = fail(loaded ? "" : loaded.error());
            if (loaded) {
                if (loaded.value().data() != block.data())
                    block.assign(loaded.value().begin(), loaded.value().end());
                block.resize(loaded.value().size());
                encoded = stream::PackWriter::encode(
                    std::move(block), names[static_cast<std::size_t>(index)], settings);
                for (const std::string& warning : loaded.warnings())
                    encoded.addWarning(warning);
            }
            std::lock_guard lock(mutex);
            ready.emplace(index, std::move(encoded));
            changed.notify_all();
        }
    };
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < threads; ++t)
        workers.emplace_back(work);
    const auto stopWorkers = [&] {
        {
            std::lock_guard lock(mutex);
            stop = true;
        }
        changed.notify_all();
        for (std::thread& t : workers)
            t.join();
    };

    frame::Progress progress("tandem-pack", static_cast<std::uint64_t>(count), !o.quiet);
    for (int i = 0; i < count; ++i) {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return ready.count(i) > 0; });
        if (const int signal = signals.signal(); signal != 0) {
            lock.unlock();
            stopWorkers();
            // The writer, destroyed on return, removes its temporary file.
            log::warning("{}: stopped after {} of {} frames; nothing written", strsignal(signal), i,
                         count);
            return 128 + signal;
        }
        Result<stream::EncodedFrame> frame = std::move(ready.at(i));
        ready.erase(i);
        lock.unlock();
        if (!frame) {
            stopWorkers();
            // The writer, destroyed on return, removes its temporary file.
            return exitWith(ExitInput, fmt::format("{}; nothing written", frame.error()));
        }
        for (const std::string& warning : frame.warnings())
            log::warning("{}", warning);
        if (auto ok = writer.append(std::move(frame.value())); !ok) {
            stopWorkers();
            return exitWith(ExitInput, ok.error());
        }
        lock.lock();
        written = i + 1;
        lock.unlock();
        changed.notify_all();
        progress.update(static_cast<std::uint64_t>(i + 1));
    }
    stopWorkers();
    auto finished = writer.finish();
    if (!finished)
        return exitWith(ExitInput, finished.error());
    progress.finish(static_cast<std::uint64_t>(count));

    const stream::PackInfo& info = finished.value();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::uint64_t blocks = info.blockBytes();
    const std::uint64_t stored = info.storedBytes();
    // What the frames hold, which may not be what was asked: incompressible frames stay
    // uncompressed, and compact points keep f32 positions (what the point pass reads).
    const std::string positions =
        tally(info, &stream::PackFrame::positions, stream::positionEncodingName);
    const auto f32 = std::count_if(info.frames.begin(), info.frames.end(), [](const auto& f) {
        return f.positions == stream::PositionEncoding::F32 && f.vertexCount > 0;
    });
    if (o.positions == "u16" && f32 > 0)
        log::warning("--positions u16 applies to mesh frames; {} point-cloud frames keep f32 "
                     "positions",
                     f32);
    fmt::print("tandem-pack: wrote {}: {} frames from {}, {:.1f} MB of blocks -> {:.1f} MB stored "
               "(ratio {:.2f}:1, {}, {} positions), {} threads, {:.2f} s, {:.1f} MB/s\n",
               o.output, count, source.description(), static_cast<double>(blocks) / 1e6,
               static_cast<double>(stored) / 1e6,
               static_cast<double>(blocks) /
                   static_cast<double>(std::max<std::uint64_t>(stored, 1)),
               tally(info, &stream::PackFrame::codec, stream::codecName), positions, threads,
               seconds, static_cast<double>(blocks) / 1e6 / std::max(seconds, 1e-9));
    return ExitOk;
}

} // namespace

int main(int argc, char** argv)
{
    ConvertOptions o;
    std::string verifyFile;
    std::string infoFile;
    CLI::App cli{
        "tandem-pack: convert a volumetric sequence into a .tdpk pack made for streaming (frame "
        "blocks at aligned offsets, optionally compressed and with 16-bit positions, CRC-32 per "
        "frame), check a pack's checksums, or print its index.\n"
        "  tandem-pack SRC -o FILE.tdpk [--codec none|lz4|zstd] [--positions f32|u16] ...\n"
        "  tandem-pack --verify FILE.tdpk\n"
        "  tandem-pack --info FILE.tdpk"};
    auto* src = cli.add_option(
        "SRC", o.source,
        "the sequence: sample[:mesh,points=N,frames=N,fps=F], a .tdpk pack (re-pack), a folder "
        "of .ply/.obj frames, a JSON manifest, a pattern (frame_%04d.ply, frame_*.ply)");
    auto* out = cli.add_option("-o,--output", o.output, "the pack to write (.tdpk)");
    cli.add_option("--codec", o.codec, "frame compression (default none: read in place)")
        ->check(CLI::IsMember({"none", "lz4", "zstd"}));
    cli.add_option("--positions", o.positions,
                   "vertex positions of mesh frames: f32 (exact) or u16 (16-bit in the frame's "
                   "bounds, error at most extent/65535/2); point-cloud frames keep f32")
        ->check(CLI::IsMember({"f32", "u16"}));
    cli.add_option("--threads", o.threads, "threads loading and encoding frames (default: all)")
        ->check(CLI::Range(1u, 1024u));
    auto* fps = cli.add_option("--fps", o.fps, "frames per second (default: the source's)")
                    ->check(CLI::Range(1e-6, 1000.0));
    cli.add_flag("--overwrite", o.overwrite, "replace an existing output file");
    cli.add_flag("-q,--quiet", o.quiet, "no progress line");
    auto* verifyOption = cli.add_option("--verify", verifyFile,
                                        "check every frame's checksum; exit 1 if any "
                                        "is damaged, naming it");
    auto* infoOption = cli.add_option("--info", infoFile, "print the pack's header and index");
    verifyOption->excludes(infoOption)->excludes(src)->excludes(out);
    infoOption->excludes(src)->excludes(out);
    try {
        cli.parse(argc, argv);
        o.fpsGiven = fps->count() > 0;
        if (verifyFile.empty() && infoFile.empty() && (o.source.empty() || o.output.empty()))
            throw CLI::ValidationError(
                "give SRC and -o FILE.tdpk, or --verify FILE, or --info FILE");
    } catch (const CLI::CallForHelp&) {
        std::printf("%s", cli.help().c_str());
        return ExitOk;
    } catch (const CLI::ParseError& e) {
        return exitWith(ExitUsage, e.what());
    }
    try {
        if (!infoFile.empty())
            return printInfo(infoFile);
        if (!verifyFile.empty())
            return verify(verifyFile, o.quiet);
        return convert(o);
    } catch (const std::exception& e) {
        return exitWith(ExitInput, std::string("unexpected failure: ") + e.what());
    }
}
