// A volumetric video sequence as the streamer sees it: a number of frames at a frame rate, each
// loadable on its own (from any loader thread, several at once) into a frame block in memory the
// caller hands out. Folders of PLY/OBJ files, manifests, patterns, packs and the built-in sample
// are sources. No GL.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/core/Result.h"
#include "engine/io/MeshData.h"
#include "engine/render/SceneLayout.h"

namespace tandem::stream {

/// The frame rates a sequence may have, in frames per second, wherever it comes from (a
/// manifest's "fps", a pack's header, the sample's fps=, --sequence-fps, tandem-pack --fps): a
/// frame every 10 seconds to 1000 a second. The lower bound keeps what a run plans finite: a
/// headless run of N frames at 1e-6 fps into 30 fps output plans 3e7 output frames for each.
inline constexpr double MinFps = 0.1;
inline constexpr double MaxFps = 1000.0;

/// Whether `fps` lies in [MinFps, MaxFps] (NaN does not).
bool isFrameRate(double fps);

/// The most output frames a run may plan from a sequence's length and rates (a million: nine
/// hours at 30 fps); asking for more is an error that says how to ask for fewer.
inline constexpr int MaxPlannedFrames = 1'000'000;

/// Hands a loader the memory a frame block goes into: `acquire(bytes)` returns `bytes` bytes of
/// staging memory (valid until the load returns) or an empty span when the frame cannot have
/// them (larger than the memory budget: the frame is then skipped, the message saying so).
using BlockSink = std::function<std::span<std::uint8_t>(std::size_t bytes)>;

class Source {
public:
    virtual ~Source() = default;

    /// "pack seq.tdpk (150 frames)", "folder scans/ (300 PLY files)": logs and the overlay.
    virtual std::string description() const = 0;
    virtual int frameCount() const = 0;
    /// Frames per second of the sequence clock.
    virtual double fps() const = 0;
    /// The frame's name in messages: its file, or "frame 12 of pack.tdpk".
    virtual std::string frameName(int index) const = 0;

    /// The largest frame's counts, when the source knows them before loading (a pack's header,
    /// the sample); the streamer then allocates its buffers once.
    virtual std::optional<render::SceneCounts> largestFrame() const { return std::nullopt; }
    /// The largest frame block's bytes, when known before loading (a pack's header says; else
    /// blockBytes() of largestFrame()): the streamer's slot size.
    virtual std::optional<std::size_t> largestBlockBytes() const;
    /// The whole sequence's bounds, when known before loading.
    virtual std::optional<io::Bounds> bounds() const { return std::nullopt; }

    /// Loads frame `index` (0 ≤ index < frameCount()) into memory from `sink` as a frame block
    /// (stream/Block.h) and returns the block's bytes, or a Failure naming the frame and the
    /// problem (a missing, truncated or corrupt file; a checksum that does not match; a frame
    /// larger than the sink gives). Thread-safe.
    virtual Result<std::span<const std::uint8_t>> load(int index, const BlockSink& sink) const = 0;
};

/// Writes `scene` as a block into memory from `sink`: what sources that decode files (or make
/// frames) do. Fails naming `name` when the sink cannot give the bytes.
Result<std::span<const std::uint8_t>>
blockFromScene(const render::Scene& scene, const BlockSink& sink, const std::string& name);

/// Memory for a block of `bytes` from `sink`, or the failure saying the frame `name` does not
/// fit the streaming memory budget.
Result<std::span<std::uint8_t>> blockMemory(const BlockSink& sink, std::size_t bytes,
                                            const std::string& name);

} // namespace tandem::stream
