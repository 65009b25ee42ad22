// tandem-pack: converts a volumetric sequence (the sample, a folder/manifest/pattern of PLY/OBJ
// files, another pack) into a .tdpk pack, verifies a pack (every frame decoded and checked), or
// prints its index. Frames load and encode on several threads and are written in order. Wiring
// only: the format is engine/stream/Pack. Built without GL (it links stream's loader side).
// SIGINT and SIGTERM stop it at any point: the temporary goes, and it exits 128 + the signal.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "engine/app/CliRange.h"
#include "engine/app/EnumOption.h"
#include "engine/app/VersionOption.h"
#include "engine/core/Log.h"
#include "engine/core/Plural.h"
#include "engine/core/Printable.h"
#include "engine/core/Progress.h"
#include "engine/core/StopToken.h"
#include "engine/io/GaussianTransform.h"
#include "engine/stream/Block.h"
#include "engine/stream/Open.h"
#include "engine/stream/Pack.h"

using namespace tandem;

namespace {

constexpr int ExitOk = 0;
constexpr int ExitInput = 1; ///< missing or malformed input, unwritable output, damaged frames
constexpr int ExitUsage = 2; ///< a bad command line

/// How often the writer, waiting for a frame, looks at the stop flag.
constexpr auto StopPoll = std::chrono::milliseconds(50);

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

std::string_view codecName(stream::Codec codec)
{
    return stream::Codecs.name(codec);
}

std::string_view positionsName(stream::PositionEncoding positions)
{
    return stream::PositionEncodings.name(positions);
}

/// "lz4 (all 150 frames)" or "lz4 140, none 10".
template <class T, class Name>
std::string tally(const stream::PackInfo& info, T stream::PackFrame::*field, Name name)
{
    std::map<int, int> counts;
    for (const stream::PackFrame& f : info.frames)
        ++counts[static_cast<int>(f.*field)];
    if (counts.size() == 1)
        return fmt::format("{} (all {})", name(static_cast<T>(counts.begin()->first)),
                           counted(info.frameCount(), "frame", "frames"));
    std::string text;
    for (const auto& [value, n] : counts)
        text += fmt::format("{}{} {}", text.empty() ? "" : ", ", name(static_cast<T>(value)), n);
    return text;
}

/// What the first frame of pack `file` holds of Gaussian splats: "1000000 Gaussians of SH
/// degree 3, packed (80 bytes each) in frame 0" (each frame's block says; the index does not).
std::string splatsText(const std::string& file)
{
    auto pack = stream::openPack(file);
    if (!pack)
        return pack.error();
    std::vector<std::uint8_t> memory;
    auto block = pack.value()->load(0, [&](std::size_t bytes) {
        memory.resize(bytes);
        return std::span<std::uint8_t>(memory);
    });
    if (!block)
        return block.error();
    auto counts = stream::blockCounts(block.value(), "frame 0");
    if (!counts)
        return counts.error();
    const render::SceneCounts& c = counts.value();
    if (c.splats == 0)
        return "none in frame 0";
    return fmt::format("{} Gaussians of SH degree {}, {} ({} bytes each) in frame 0", c.splats,
                       c.splatDegree, stream::SplatEncodings.name(c.splatEncoding),
                       c.splatRegion().bytes / c.splats);
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
    fmt::print("  codec      {}\n", tally(info, &stream::PackFrame::codec, codecName));
    fmt::print("  positions  {}\n", tally(info, &stream::PackFrame::positions, positionsName));
    if (info.flags & stream::PackHasSplats)
        fmt::print("  splats     {}\n", splatsText(file));
    const io::Bounds& b = info.bounds;
    fmt::print("  bounds     ({:g}, {:g}, {:g}) .. ({:g}, {:g}, {:g})\n", b.min.x, b.min.y, b.min.z,
               b.max.x, b.max.y, b.max.z);
    // Names come from the file: a terminal escape in one is shown, not obeyed.
    fmt::print("  first      {}\n  last       {}\n", printable(info.frames.front().name),
               printable(info.frames.back().name));
    // Each frame as the index gives it.
    fmt::print("  {:>6}  {:>10}  {:>10}  {:>10}  {:>10}  {:<5}  {:<9}  {}\n", "frame", "vertices",
               "triangles", "block MiB", "stored MiB", "codec", "positions", "name");
    for (std::size_t i = 0; i < info.frames.size(); ++i) {
        const stream::PackFrame& f = info.frames[i];
        fmt::print("  {:>6}  {:>10}  {:>10}  {:>10.2f}  {:>10.2f}  {:<5}  {:<9}  {}\n", i,
                   f.vertexCount, f.indexCount / 3, mib(f.blockBytes), mib(f.storedBytes),
                   codecName(f.codec), positionsName(f.positions), printable(f.name));
    }
    return ExitOk;
}

int verify(const std::string& file, bool quiet)
{
    auto info = stream::readPackInfo(file);
    if (!info)
        return exitWith(ExitInput, info.error());
    const int total = info.value().frameCount();
    Progress progress("tandem-pack --verify", static_cast<std::uint64_t>(total), !quiet);
    auto damaged = stream::verifyPack(
        file, [&](int done, int) { progress.update(static_cast<std::uint64_t>(done)); });
    if (!damaged)
        return exitWith(ExitInput, damaged.error());
    progress.finish(static_cast<std::uint64_t>(total));
    if (damaged.value().empty()) {
        fmt::print("{}: {}, each checksum matches and each frame decodes\n", file,
                   counted(static_cast<std::uint64_t>(total), "frame", "frames"));
        return ExitOk;
    }
    std::string list;
    for (const stream::PackDamage& d : damaged.value()) {
        fmt::print(stderr, "{}: {}\n", file, printable(d.reason));
        list += fmt::format("{}{}", list.empty() ? "" : ", ", d.frame);
    }
    return exitWith(ExitInput,
                    fmt::format("{}: {} of {} damaged: {}", file, damaged.value().size(),
                                counted(static_cast<std::uint64_t>(total), "frame", "frames"),
                                list));
}

struct ConvertOptions {
    std::string source;
    std::string output;
    stream::Codec codec = stream::Codec::None;
    stream::PositionEncoding positions = stream::PositionEncoding::F32;
    render::SplatEncoding splats = render::SplatEncoding::Packed;
    io::UpAxis up = io::UpAxis::PlusY; ///< the files' up axis: frames are turned to +y
    unsigned threads = 0;
    double fps = 0.0;
    bool fpsGiven = false;
    bool overwrite = false;
    bool quiet = false;
    StopToken stop; ///< the entry point's SIGINT and SIGTERM
};

/// A stop asked for by SIGINT or SIGTERM: says so and returns the exit code, 128 + the signal.
/// `writer` (may be null) removes its temporary now.
int stopped(int signal, stream::PackWriter* writer, int done, int count)
{
    if (writer)
        writer->abandon();
    log::warning("{}: stopped after {} of {} frames; nothing written", strsignal(signal), done,
                 count);
    return 128 + signal;
}

int convert(const ConvertOptions& o)
{
    const auto start = std::chrono::steady_clock::now();
    stream::SequenceOptions sequence;
    if (o.fpsGiven) {
        sequence.fps = o.fps;
        sequence.fpsGiven = true;
    }
    sequence.turn = io::upTurn(o.up);
    // Listing a folder of a million files ends at a signal too.
    auto opened = stream::openSource(o.source, sequence, o.stop);
    if (const int signal = o.stop.stopRequested(); signal != 0)
        return stopped(signal, nullptr, 0, 0);
    if (!opened)
        return exitWith(ExitInput, opened.error());
    for (const std::string& warning : opened.warnings())
        log::warning("{}", warning);
    const stream::Source& source = *opened.value();
    // A re-packed pack keeps its frames' original names (a file sequence's file names).
    std::vector<std::string> names;
    for (int i = 0; i < source.frameCount(); ++i) {
        if (const int signal = o.stop.stopRequested(); signal != 0)
            return stopped(signal, nullptr, 0, source.frameCount());
        names.push_back(source.frameName(i));
    }
    if (stream::isPackFile(o.source)) {
        auto info = stream::readPackInfo(o.source);
        if (!info)
            return exitWith(ExitInput, info.error());
        for (int i = 0; i < source.frameCount(); ++i)
            names[static_cast<std::size_t>(i)] =
                info.value().frames[static_cast<std::size_t>(i)].name;
    }

    stream::PackSettings settings;
    settings.codec = o.codec;
    settings.positions = o.positions;
    settings.splats = o.splats;
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
    std::size_t exited = 0; ///< workers that left their loop
    const auto work = [&] {
        for (;;) {
            int index = 0;
            {
                std::unique_lock lock(mutex);
                changed.wait(lock, [&] { return stop || next < written + window; });
                if (stop || next >= count || o.stop.stopRequested() != 0)
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
        workers.emplace_back([&] {
            work();
            std::lock_guard lock(mutex);
            ++exited;
            changed.notify_all();
        });
    const auto stopWorkers = [&] {
        {
            std::lock_guard lock(mutex);
            stop = true;
        }
        changed.notify_all();
        for (std::thread& t : workers)
            t.join();
    };
    // Stopped by a signal: the workers finish the frames they load and leave. One blocked in a
    // read that never returns (a FIFO named like a frame, a hung network mount) is not waited
    // for: the temporary goes and the process ends without it.
    const auto stopNow = [&](int signal, int done) {
        {
            std::unique_lock lock(mutex);
            stop = true;
            changed.notify_all();
            if (!changed.wait_for(lock, std::chrono::seconds(2),
                                  [&] { return exited == workers.size(); })) {
                lock.unlock();
                const int code = stopped(signal, &writer, done, count);
                std::fflush(nullptr);
                std::_Exit(code);
            }
        }
        for (std::thread& t : workers)
            t.join();
        return stopped(signal, &writer, done, count);
    };

    Progress progress("tandem-pack", static_cast<std::uint64_t>(count), !o.quiet);
    for (int i = 0; i < count; ++i) {
        std::unique_lock lock(mutex);
        int signal = 0;
        while (ready.count(i) == 0 && (signal = o.stop.stopRequested()) == 0)
            changed.wait_for(lock, StopPoll);
        if (signal == 0)
            signal = o.stop.stopRequested();
        if (signal != 0) {
            lock.unlock();
            return stopNow(signal, i);
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
    if (const int signal = o.stop.stopRequested(); signal != 0)
        return stopNow(signal, count);
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
    const std::string positions = tally(info, &stream::PackFrame::positions, positionsName);
    const auto f32 = std::count_if(info.frames.begin(), info.frames.end(), [](const auto& f) {
        return f.positions == stream::PositionEncoding::F32 && f.vertexCount > 0;
    });
    if (o.positions == stream::PositionEncoding::U16 && f32 > 0)
        log::warning("--positions u16 applies to mesh frames; {} point-cloud frames keep f32 "
                     "positions",
                     f32);
    fmt::print("tandem-pack: wrote {}: {} from {}, {:.1f} MiB of blocks -> {:.1f} MiB stored "
               "(ratio {:.2f}:1, {}, {} positions), {}, {:.2f} s, {:.1f} MiB/s\n",
               o.output, counted(static_cast<std::uint64_t>(count), "frame", "frames"),
               source.description(), mib(blocks), mib(stored),
               static_cast<double>(blocks) /
                   static_cast<double>(std::max<std::uint64_t>(stored, 1)),
               tally(info, &stream::PackFrame::codec, codecName), positions,
               counted(static_cast<std::uint64_t>(threads), "thread", "threads"), seconds,
               mib(blocks) / std::max(seconds, 1e-9));
    return ExitOk;
}

} // namespace

int main(int argc, char** argv)
{
    // The process's signals are this entry point's: SIGINT or SIGTERM asks every loop of the
    // run, set-up included, to stop.
    const StopSignals signals;
    ConvertOptions o;
    o.stop = signals.token();
    std::string codec = "none";
    std::string positions = "f32";
    std::string verifyFile;
    std::string infoFile;
    CLI::App cli{
        "tandem-pack: convert a volumetric sequence into a .tdpk pack made for streaming (frame "
        "blocks at aligned offsets, optionally compressed and with 16-bit positions, CRC-32 per "
        "frame), check a pack (every frame read, checksummed and decoded), or print its index.\n"
        "  tandem-pack SRC -o FILE.tdpk [--codec none|lz4|zstd] [--positions f32|u16] ...\n"
        "  tandem-pack --verify FILE.tdpk\n"
        "  tandem-pack --info FILE.tdpk"};
    auto* src = cli.add_option(
        "SRC", o.source,
        "the sequence: sample[:mesh,points=N,frames=N,fps=F], a .tdpk pack (re-pack), a folder "
        "of .ply/.obj/.cwipcdump/.drc/.glb/.gltf frames or of Gaussian splat frames (3DGS or "
        "compressed PLY, .splat, .spz), a JSON manifest, a pattern (frame_%04d.ply, "
        "frame_*.ply)");
    auto* out = cli.add_option("-o,--output", o.output,
                               "the pack to write (.tdpk); its folder is made when missing");
    cli.add_option("--codec", codec,
                   "frame compression, " + stream::Codecs.list() +
                       " (default none): " + stream::Codecs.describe());
    cli.add_option("--positions", positions,
                   "vertex positions of mesh frames, " + stream::PositionEncodings.list() +
                       " (default f32): " + stream::PositionEncodings.describe() +
                       "; point-cloud frames keep f32");
    std::string splats;
    cli.add_option("--splats", splats,
                   "Gaussian splats of splat frames, " + stream::SplatEncodings.list() +
                       " (default packed): " + stream::SplatEncodings.describe());
    app::addEnumOption(cli, "--up", o.up, io::UpAxes,
                       "which axis of the source files points up: each frame is turned so it "
                       "points up in the pack (not for a pack: its frames are as packed)");
    cli.add_option("--threads", o.threads, "threads loading and encoding frames (default: all)")
        ->check(CLI::Range(1u, 1024u));
    const auto rate = app::CliRange(stream::MinFps, stream::MaxFps);
    auto* sequenceFps =
        cli.add_option("--sequence-fps", o.fps,
                       "frames per second of the sequence clock written into the pack (default: "
                       "the source's; 0.1 to 1000), as tandem-viewer's --sequence-fps")
            ->check(rate);
    // tandem-pack's old name for it. Kept, with a warning, for scripts written against it:
    // tandem-pack has no output rate, so it cannot mean tandem-viewer's --fps.
    auto* fpsAlias = cli.add_option("--fps", o.fps, "the old name of --sequence-fps")
                         ->check(rate)
                         ->group("Deprecated");
    cli.add_flag("--overwrite", o.overwrite, "replace an existing output file");
    cli.add_flag("-q,--quiet", o.quiet, "no progress line");
    auto* verifyOption = cli.add_option("--verify", verifyFile,
                                        "read every frame, check its checksum and decode it as "
                                        "a player would; exit 1 if any fails, naming it");
    auto* infoOption = cli.add_option("--info", infoFile, "print the pack's header and index");
    verifyOption->excludes(infoOption)->excludes(src)->excludes(out);
    infoOption->excludes(src)->excludes(out);
    app::addVersionOption(cli, "tandem-pack");
    try {
        cli.parse(argc, argv);
        if (auto parsed = stream::Codecs.parse(codec); parsed)
            o.codec = parsed.value();
        else
            throw CLI::ValidationError("--codec: " + parsed.error());
        if (!splats.empty()) {
            auto parsed = stream::SplatEncodings.parse(splats);
            if (!parsed)
                throw CLI::ValidationError("--splats: " + parsed.error());
            o.splats = parsed.value();
        }
        if (auto parsed = stream::PositionEncodings.parse(positions); parsed)
            o.positions = parsed.value();
        else
            throw CLI::ValidationError("--positions: " + parsed.error());
        if (sequenceFps->count() > 0 && fpsAlias->count() > 0)
            throw CLI::ValidationError("--fps is the deprecated name of --sequence-fps: give one");
        o.fpsGiven = sequenceFps->count() > 0 || fpsAlias->count() > 0;
        if (verifyFile.empty() && infoFile.empty() && (o.source.empty() || o.output.empty()))
            throw CLI::ValidationError(
                "give SRC and -o FILE.tdpk, or --verify FILE, or --info FILE");
    } catch (const CLI::CallForHelp&) {
        std::printf("%s", cli.help().c_str());
        return ExitOk;
    } catch (const CLI::CallForVersion& call) {
        return app::printVersion(call);
    } catch (const CLI::ParseError& e) {
        return exitWith(ExitUsage, e.what());
    }
    if (fpsAlias->count() > 0)
        log::warning("--fps is deprecated in tandem-pack: it sets the sequence clock, which "
                     "--sequence-fps names (as in tandem-viewer, where --fps is the output rate)");
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
