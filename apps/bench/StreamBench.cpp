// tandem-bench stream: what streaming a volumetric sequence of 1 M-point frames costs and where
// it is bound. In one run: the pinned host-to-device bandwidth (the ceiling); each upload path
// for one frame's vertices (glNamedBufferSubData from pinned memory; a persistent-mapped
// staging buffer and a GL copy; a CUDA copy from pinned memory into a registered GL buffer),
// as GB/s and as a share of that ceiling; loading one frame on one core from each source kind
// (binary and ASCII PLY, Draco and GLB points, OBJ and GLB meshes, packs with each codec and
// position encoding) and tandem-pack's conversion speed per core (each kind of frame file);
// and the viewer end to end (the session and sequence run
// tandem-viewer uses, --headless --every-frame, tonemap,fxaa, no output) streaming from a pack
// against the same pack preloaded, and from binary PLY files, at 1080p and 4K.
#include "StreamBench.h"

#include "FrameFiles.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include <fmt/format.h>
#include <glad/gl.h>
#if TANDEM_HAS_CUDA
// After glad: cuda_gl_interop.h includes GL/gl.h, which glad's guard then leaves empty.
#include <cuda_gl_interop.h>

#include "engine/cuda/CudaCheck.h"
#include "engine/cuda/DeviceMemory.h"
#include "engine/cuda/Stream.h"
#endif

#include "engine/core/Error.h"
#include "engine/gl/Buffer.h"
#include "engine/stream/Block.h"
#include "engine/stream/Open.h"
#include "engine/stream/Pack.h"
#include "engine/stream/SampleSource.h"
#include "engine/stream/Streamer.h"

namespace tandem::bench {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::vector<std::uint8_t> blockOf(const render::Scene& scene)
{
    std::vector<std::uint8_t> block(stream::blockBytes(render::sceneCounts(scene)));
    stream::writeBlock(scene, block);
    return block;
}

/// Writes frames [0, frames) of the sample with `points` points into a pack, encoding on
/// every core, appending in order.
/// Packs `frames` frames of `sample` into `path`; checks that every frame holds the position
/// encoding asked for (u16 applies to mesh frames only: compact points keep f32).
void writeSamplePack(const fs::path& path, stream::SampleSettings sample, int frames,
                     const stream::PackSettings& packSettings)
{
    sample.frames = frames;
    writePack(
        path, frames, packSettings, [&](int i) { return blockOf(stream::sampleFrame(sample, i)); },
        [](int i) { return fmt::format("sample frame {}", i); });
    const auto info = stream::readPackInfo(path);
    if (!info)
        throw Error(info.error());
    for (const stream::PackFrame& f : info.value().frames)
        if (f.positions != packSettings.positions)
            throw Error(fmt::format("{}: {} holds {} positions, not {}", path.string(), f.name,
                                    stream::PositionEncodings.name(f.positions),
                                    stream::PositionEncodings.name(packSettings.positions)));
}

/// Pinned (where CUDA works) memory holding `bytes`, freed with the object.
struct Staging {
    stream::HostMemory memory{true};
    std::uint8_t* data = nullptr;
    std::size_t bytes = 0;
    explicit Staging(std::size_t n) : bytes(n)
    {
        data = static_cast<std::uint8_t*>(memory.allocate(n));
        if (!data)
            throw Error(fmt::format("could not allocate {} bytes of staging memory", n));
    }
    ~Staging() { memory.release(data); }
    Staging(const Staging&) = delete;
    Staging& operator=(const Staging&) = delete;
};

// --- 1 and 2: the ceiling and the upload paths ---------------------------------------------

nlohmann::json measureUploads(const Settings& settings, const std::vector<std::uint8_t>& vertices,
                              std::vector<std::vector<std::string>>& rows)
{
    const std::size_t bytes = vertices.size();
    Staging staging(bytes);
    std::memcpy(staging.data, vertices.data(), bytes);
    const auto gbps = [&](double ms) {
        return ms > 0 ? bytes / (ms * 1e6) : 0.0;
    };
    nlohmann::json out = nlohmann::json::object();
    out["bytes"] = bytes;
    out["staging_pinned"] = staging.memory.isPinned();
    double ceiling = 0.0;
#if TANDEM_HAS_CUDA
    if (staging.memory.isPinned()) {
        cuda::Stream stream;
        cuda::DeviceMemory memory(bytes, "the copy benchmark's target");
        void* device = memory.data();
        const double pinnedMs = timeFrames(
            settings,
            [&] {
                TANDEM_CUDA_CHECK(cudaMemcpyAsync(device, staging.data, bytes,
                                                  cudaMemcpyHostToDevice, stream.get()));
            },
            [&] { stream.synchronize(); });
        std::vector<std::uint8_t> pageable(vertices);
        const double pageableMs = timeFrames(
            settings,
            [&] {
                TANDEM_CUDA_CHECK(cudaMemcpyAsync(device, pageable.data(), bytes,
                                                  cudaMemcpyHostToDevice, stream.get()));
            },
            [&] { stream.synchronize(); });
        ceiling = gbps(pinnedMs);
        out["pinned_h2d_gb_per_s"] = ceiling;
        out["pageable_h2d_gb_per_s"] = gbps(pageableMs);
        rows.push_back({"pinned host->device (cudaMemcpyAsync)", fmt::format("{:.3f}", pinnedMs),
                        fmt::format("{:.1f}", ceiling), "100 %"});
        rows.push_back({"pageable host->device", fmt::format("{:.3f}", pageableMs),
                        fmt::format("{:.1f}", gbps(pageableMs)),
                        fmt::format("{:.0f} %", 100 * gbps(pageableMs) / ceiling)});
    }
#endif
    const auto share = [&](double g) {
        return ceiling > 0 ? fmt::format("{:.0f} %", 100 * g / ceiling) : std::string("-");
    };
    nlohmann::json paths = nlohmann::json::array();
    const auto add = [&](const std::string& name, const std::string& label, double ms) {
        const double g = gbps(ms);
        paths.push_back({{"path", name},
                         {"median_ms", ms},
                         {"gb_per_s", g},
                         {"share_of_pinned", ceiling > 0 ? g / ceiling : 0.0}});
        rows.push_back({label, fmt::format("{:.3f}", ms), fmt::format("{:.1f}", g), share(g)});
    };
    gl::Buffer target(bytes, nullptr, GL_DYNAMIC_STORAGE_BIT, "bench upload target");
    add("gl-subdata", "glNamedBufferSubData from pinned",
        timeFrames(
            settings, [&] { target.write(0, staging.data, bytes); }, [] { glFinish(); }));
    {
        gl::Buffer upload(bytes, nullptr,
                          GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT |
                              GL_CLIENT_STORAGE_BIT,
                          "bench persistent staging");
        std::uint8_t* mapped =
            upload.map(0, bytes, GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT);
        std::memcpy(mapped, staging.data, bytes);
        add("gl-copy", "persistent-mapped staging + glCopyNamedBufferSubData",
            timeFrames(
                settings,
                [&] {
                    glCopyNamedBufferSubData(upload.id(), target.id(), 0, 0,
                                             static_cast<GLsizeiptr>(bytes));
                },
                [] { glFinish(); }));
        upload.unmap();
    }
#if TANDEM_HAS_CUDA
    if (staging.memory.isPinned()) {
        cuda::Stream stream;
        cudaGraphicsResource* resource = nullptr;
        TANDEM_CUDA_CHECK(
            cudaGraphicsGLRegisterBuffer(&resource, target.id(), cudaGraphicsRegisterFlagsNone));
        TANDEM_CUDA_CHECK(cudaGraphicsMapResources(1, &resource, stream.get()));
        void* pointer = nullptr;
        std::size_t size = 0;
        TANDEM_CUDA_CHECK(cudaGraphicsResourceGetMappedPointer(&pointer, &size, resource));
        add("cuda-copy", "CUDA copy from pinned into a mapped GL buffer",
            timeFrames(
                settings,
                [&] {
                    TANDEM_CUDA_CHECK(cudaMemcpyAsync(pointer, staging.data, bytes,
                                                      cudaMemcpyHostToDevice, stream.get()));
                },
                [&] { stream.synchronize(); }));
        TANDEM_CUDA_CHECK(cudaGraphicsUnmapResources(1, &resource, stream.get()));
        add("cuda-copy+map", "  the same with a map and unmap each time",
            timeFrames(
                settings,
                [&] {
                    TANDEM_CUDA_CHECK(cudaGraphicsMapResources(1, &resource, stream.get()));
                    TANDEM_CUDA_CHECK(
                        cudaGraphicsResourceGetMappedPointer(&pointer, &size, resource));
                    TANDEM_CUDA_CHECK(cudaMemcpyAsync(pointer, staging.data, bytes,
                                                      cudaMemcpyHostToDevice, stream.get()));
                    TANDEM_CUDA_CHECK(cudaGraphicsUnmapResources(1, &resource, stream.get()));
                },
                [&] { stream.synchronize(); }));
        TANDEM_CUDA_CHECK(cudaGraphicsUnregisterResource(resource));
    }
#endif
    out["paths"] = paths;
    return out;
}

// --- 3: loading one frame on one core -------------------------------------------------------

struct Kind {
    std::string name;
    std::string spec; ///< what openSource() opens
    std::uint64_t fileBytes = 0;
    bool files = false; ///< a folder of frame files (what tandem-pack converts), not a pack
};

nlohmann::json measureLoads(const std::vector<Kind>& kinds, std::size_t blockCapacity,
                            const stream::PackSettings& convert,
                            std::vector<std::vector<std::string>>& rows)
{
    nlohmann::json out = nlohmann::json::array();
    Staging sink(blockCapacity);
    const stream::BlockSink give = [&](std::size_t bytes) {
        return bytes <= sink.bytes ? std::span<std::uint8_t>(sink.data, bytes)
                                   : std::span<std::uint8_t>();
    };
    const int reps = 2;
    for (const Kind& kind : kinds) {
        auto source = stream::openSource(kind.spec, {});
        if (!source)
            throw Error(source.error());
        std::vector<double> times, converts;
        std::uint64_t blockBytes = 0;
        const int frames = source.value()->frameCount();
        for (int rep = 0; rep < reps; ++rep)
            for (int i = 0; i < frames; ++i) {
                const auto start = Clock::now();
                auto block = source.value()->load(i, give);
                if (!block)
                    throw Error(block.error());
                times.push_back(msSince(start));
                blockBytes = block.value().size();
                // tandem-pack's work per frame: load, then encode as `convert` says.
                if (rep == 0 && kind.files) {
                    const auto again = Clock::now();
                    auto reloaded = source.value()->load(i, give);
                    std::vector<std::uint8_t> copy(reloaded.value().begin(),
                                                   reloaded.value().end());
                    auto encoded = stream::PackWriter::encode(std::move(copy), "frame", convert);
                    if (!encoded)
                        throw Error(encoded.error());
                    converts.push_back(msSince(again));
                }
            }
        const double ms = median(times);
        const double fileMb = static_cast<double>(kind.fileBytes) / frames / 1e6;
        nlohmann::json row = {{"source", kind.name},
                              {"file_mb_per_frame", fileMb},
                              {"block_mb_per_frame", blockBytes / 1e6},
                              {"median_ms_per_frame", ms},
                              {"frames_per_s_per_core", 1e3 / ms},
                              {"file_mb_per_s_per_core", fileMb / (ms * 1e-3)},
                              {"block_gb_per_s_per_core", blockBytes / (ms * 1e6)}};
        std::string convertText = "-";
        if (!converts.empty()) {
            const double c = median(converts);
            row["pack_convert_ms_per_frame"] = c;
            row["pack_convert_mb_per_s_per_core"] = fileMb / (c * 1e-3);
            convertText = fmt::format("{:.0f}", fileMb / (c * 1e-3));
        }
        out.push_back(row);
        rows.push_back({kind.name, fmt::format("{:.1f}", fileMb), fmt::format("{:.2f}", ms),
                        fmt::format("{:.0f}", 1e3 / ms),
                        fmt::format("{:.0f}", fileMb / (ms * 1e-3)), convertText});
    }
    return out;
}

// --- 4: the viewer end to end ---------------------------------------------------------------

nlohmann::json runViewer(const Settings& settings, const Size& size, const ViewerPlay& e,
                         const fs::path& reportPath, std::vector<std::vector<std::string>>& rows)
{
    const ViewerPlayed played = playSequence(settings, size, e, reportPath);
    const auto& streaming = played.report["streaming"];
    rows.push_back({size.name, e.name, fmt::format("{:.0f}", played.framesPerSecond),
                    fmt::format("{:.3f}", played.gpuFrameMs),
                    streaming["upload_path"].get<std::string>(),
                    fmt::format("{:.1f}", streaming["upload_gb_per_s"].get<double>()),
                    fmt::format("{:.2f}", streaming["cache_hit_rate"].get<double>()),
                    std::to_string(streaming["loader_waits"].get<int>())});
    return {{"size", size.name},
            {"resolution", {size.width, size.height}},
            {"variant", e.name},
            {"source", e.spec},
            {"preloaded", e.preload},
            {"frames", e.frames},
            {"frames_per_second", played.framesPerSecond},
            {"gpu_frame_ms_p50", played.gpuFrameMs},
            {"streaming", streaming},
            {"points", played.report["points"]},
            {"backend", played.report["backend"]},
            {"stalls_by_cause", played.report["profile"]["stalls_by_cause"]}};
}

} // namespace

int runStreamBench(const Settings& settings, const StreamBenchSettings& b)
{
    const std::size_t points = parseCount(b.points);
    if (points < 16 || points > 200'000'000)
        throw Error(fmt::format("--points '{}' is not a point count (16 to 200M)", b.points));
    const std::vector<Size> sizes = parseSizes(b.sizes);
    fs::path root = b.workDir.empty() ? fs::temp_directory_path() /
                                            fmt::format("tandem-stream-bench-{}", getpid())
                                      : fs::path(b.workDir);
    fs::create_directories(root);
    auto context = makeContext(settings.device);
    nlohmann::json json = header("stream", settings);
    json["points_per_frame"] = points;
    json["sequence"] = "the built-in sample (a deforming surface), coloured, with normals";
    json["hardware_threads"] = std::thread::hardware_concurrency();
    std::printf("stream benchmark: %zu points a frame, work folder %s\n", points,
                root.string().c_str());

    // 1, 2: one frame's vertices through each path.
    stream::SampleSettings sample;
    sample.points = static_cast<std::uint32_t>(points);
    const render::Scene frame0 = stream::sampleFrame(sample, 0);
    const std::vector<std::uint8_t> block = blockOf(frame0);
    const render::SceneView view = stream::viewBlock(block, "frame 0").value();
    // What one frame uploads: its vertices, or its compact points (positions, attributes).
    std::vector<std::uint8_t> upload;
    const auto append = [&](const auto& span) {
        const auto* bytes = reinterpret_cast<const std::uint8_t*>(span.data());
        upload.insert(upload.end(), bytes, bytes + span.size_bytes());
    };
    append(view.vertices);
    append(view.positions);
    append(view.attributes);
    std::vector<std::vector<std::string>> uploadRows;
    json["uploads"] = measureUploads(settings, upload, uploadRows);
    json["uploads"]["what"] =
        view.isCompact() ? "compact points (20 bytes a point)" : "vertices (36 bytes a vertex)";
    std::printf("\none frame's upload (%.1f MB of %s), median of %d:\n", upload.size() / 1e6,
                view.isCompact() ? "compact points" : "vertices", settings.frames);
    printTable({"path", "ms", "GB/s", "of pinned"}, uploadRows);

    // 3: sources. Folders of frame files as published data comes (PLY, Draco, GLB of the point
    // frames; OBJ and GLB of the mesh variant), then packs.
    stream::SampleSettings meshSample = sample;
    meshSample.mesh = true;
    std::vector<Kind> kinds;
    struct FileKind {
        const char* name;
        const char* folder;
        const char* extension;
        bool mesh;
        void (*write)(const fs::path&, const io::MeshData&);
    };
    for (const FileKind& k : {FileKind{"ply binary", "ply-binary", "ply", false,
                                       [](const fs::path&f, const io::MeshData&m) {
                                           writePly(f, m, false);
                                       }},
                              FileKind{"ply ascii", "ply-ascii", "ply", false,
                                       [](const fs::path&f, const io::MeshData&m) {
                                           writePly(f, m, true);
                                       }},
                              FileKind{"drc points", "drc", "drc", false, writeDraco},
                              FileKind{"glb points", "glb", "glb", false, writeGlb},
                              FileKind{"glb mesh", "glb-mesh", "glb", true, writeGlb},
                              FileKind{"obj mesh", "obj-mesh", "obj", true, writeObj}}) {
        const fs::path dir = root / k.folder;
        fs::create_directories(dir);
        // Exactly --load-frames files: a reused --work may hold more from an earlier run.
        for (const auto& entry : fs::directory_iterator(dir)) {
            int index = -1;
            if (std::sscanf(entry.path().filename().string().c_str(), "frame_%d.", &index) != 1 ||
                index >= b.loadFrames)
                fs::remove(entry.path());
        }
        Kind kind{k.name, dir.string(), 0, true};
        for (int i = 0; i < b.loadFrames; ++i) {
            const fs::path file = dir / fmt::format("frame_{:04d}.{}", i, k.extension);
            if (!fs::exists(file))
                k.write(file, stream::sampleFrame(k.mesh ? meshSample : sample, i).objects[0].mesh);
            kind.fileBytes += fs::file_size(file);
        }
        kinds.push_back(kind);
    }
    // Packs of point frames (compact points, f32: what the point pass reads), then of the mesh
    // variant, where 16-bit positions apply.
    const std::size_t meshBlockBytes = blockOf(stream::sampleFrame(meshSample, 0)).size();
    struct PackKind {
        bool mesh;
        stream::Codec codec;
        stream::PositionEncoding positions;
    };
    using stream::Codec;
    using stream::PositionEncoding;
    for (PackKind k : {PackKind{false, Codec::None, PositionEncoding::F32},
                       PackKind{false, Codec::Lz4, PositionEncoding::F32},
                       PackKind{false, Codec::Zstd, PositionEncoding::F32},
                       PackKind{true, Codec::None, PositionEncoding::F32},
                       PackKind{true, Codec::None, PositionEncoding::U16},
                       PackKind{true, Codec::Lz4, PositionEncoding::F32},
                       PackKind{true, Codec::Lz4, PositionEncoding::U16}}) {
        const char* what = k.mesh ? "mesh" : "points";
        const std::string name = fmt::format("{} pack {} {}", what, stream::Codecs.name(k.codec),
                                             stream::PositionEncodings.name(k.positions));
        const fs::path path =
            root / fmt::format("load-{}-{}-{}.tdpk", what, stream::Codecs.name(k.codec),
                               stream::PositionEncodings.name(k.positions));
        stream::PackSettings p;
        p.codec = k.codec;
        p.positions = k.positions;
        p.overwrite = true;
        writeSamplePack(path, k.mesh ? meshSample : sample, b.loadFrames, p);
        kinds.push_back(
            {name, path.string(), stream::readPackInfo(path).value().storedBytes(), false});
    }
    std::vector<std::vector<std::string>> loadRows;
    stream::PackSettings convert; // what tandem-pack does by default
    json["loads"] =
        measureLoads(kinds, std::max(block.size(), meshBlockBytes) + 4096, convert, loadRows);
    std::printf("\none frame loaded on one core (median of %d frames x reps):\n", b.loadFrames);
    printTable(
        {"source", "file MB", "ms/frame", "frames/s/core", "file MB/s/core", "pack MB/s/core"},
        loadRows);

    // 4: the viewer end to end.
    const fs::path pack = root / fmt::format("sequence-{}-{}.tdpk", b.points, b.sequenceFrames);
    if (!fs::exists(pack)) {
        std::printf("\nwriting %s (%d frames)...\n", pack.string().c_str(), b.sequenceFrames);
        stream::PackSettings p;
        writeSamplePack(pack, sample, b.sequenceFrames, p);
    }
    const std::size_t blockBytes = (block.size() + 4095) / 4096 * 4096;
    const std::size_t streamed = std::max<std::size_t>(std::size_t{1024} << 20, 4 * blockBytes);
    const std::size_t preloaded = blockBytes * static_cast<std::size_t>(b.sequenceFrames + 2);
    const int loops = std::max(1, settings.frames / b.sequenceFrames);
    // PLY files streamed: a folder of distinct frames, more of them than the staging slots a
    // folder gets (two a loader: it cannot say its largest frame before loading), so every loop
    // decodes every file again (the files themselves come from the page cache). The folder is named
    // by the point count and holds exactly --ply-frames files, so a reused --work stays right.
    const fs::path plyFolder = root / fmt::format("ply-stream-{}", points);
    fs::create_directories(plyFolder);
    for (const auto& entry : fs::directory_iterator(plyFolder)) {
        const std::string name = entry.path().filename().string();
        int index = -1;
        if (std::sscanf(name.c_str(), "frame_%d.ply", &index) != 1 || index >= b.plyFrames)
            fs::remove(entry.path());
    }
    for (int i = 0; i < b.plyFrames; ++i) {
        const fs::path file = plyFolder / fmt::format("frame_{:04d}.ply", i);
        if (!fs::exists(file))
            writePly(file, stream::sampleFrame(sample, i).objects[0].mesh, false);
    }
    std::vector<ViewerPlay> variants = {
        {"pack streamed", pack.string(), false, streamed, b.sequenceFrames * loops, {}},
        {"ply binary streamed", plyFolder.string(), false, streamed, 4 * b.plyFrames, {}}};
    if (b.preloaded)
        variants.insert(
            variants.begin() + 1,
            {"pack preloaded", pack.string(), true, preloaded, b.sequenceFrames * loops, {}});
    nlohmann::json endToEnd = nlohmann::json::array();
    std::vector<std::vector<std::string>> viewerRows;
    for (const Size& size : sizes)
        for (const ViewerPlay& e : variants) {
            if (e.name.rfind("ply", 0) == 0 && &size != &sizes.front())
                continue; // loader-bound: one size says it
            std::printf("viewer: %s, %s...\n", size.name.c_str(), e.name.c_str());
            endToEnd.push_back(runViewer(settings, size, e, root / "report.json", viewerRows));
        }
    json["viewer"] = endToEnd;
    json["viewer_command"] = "tandem-viewer --headless --every-frame --loop loop --format none "
                             "--postfx tonemap,fxaa SEQUENCE (in process)";
    std::printf("\nthe viewer end to end (--every-frame, tonemap,fxaa, no output):\n");
    printTable({"size", "source", "frames/s", "GPU ms p50", "upload", "upload GB/s", "hit rate",
                "loader waits"},
               viewerRows);
    if (!b.keep && b.workDir.empty())
        fs::remove_all(root);
    return writeJson(settings, json) ? 0 : 1;
}

} // namespace tandem::bench
