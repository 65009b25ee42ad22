// Writing .tdpk packs (PackFormat.h): frames encoded (on any thread) and appended in order into
// the pack's temporary (core/AtomicFile.h), which becomes the pack only when finished: a
// failure, a stop or a crash never leaves a partial pack at its name, and temporaries of killed
// runs are removed when the next pack is started there. No GL. One thread at a time (encode()
// is free of that).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/core/AtomicFile.h"
#include "engine/core/Result.h"
#include "engine/stream/PackFormat.h"

namespace tandem::stream {

/// How PackWriter stores frames.
struct PackSettings {
    Codec codec = Codec::None;
    PositionEncoding positions = PositionEncoding::F32;
    /// How Gaussians are stored: packed (SplatPacking.h's error) unless asked for f32.
    render::SplatEncoding splats = render::SplatEncoding::Packed;
    double fps = 30.0;      ///< the sequence clock written into the header
    int zstdLevel = 3;      ///< 1 (fast) .. 19 (small)
    bool overwrite = false; ///< replace an existing file
};

/// A frame encoded for a pack: what PackWriter::encode() makes (on any thread) and append()
/// writes (in order).
struct EncodedFrame {
    std::vector<std::uint8_t> stored;
    PackFrame frame; ///< offset not yet known
    render::SceneCounts counts;
};

class PackWriter {
public:
    /// Starts writing `path`: makes its folder when missing, removes the temporaries killed
    /// writers left there, and creates the pack's temporary. Fails naming the file when it
    /// exists and !settings.overwrite, when it is a folder, when its folder cannot be made or
    /// written, or when the frame rate lies outside [MinFps, MaxFps].
    static Result<std::unique_ptr<PackWriter>> create(const std::filesystem::path& path,
                                                      const PackSettings& settings);
    /// Unfinished: removes the temporary.
    ~PackWriter();
    PackWriter(const PackWriter&) = delete;
    PackWriter& operator=(const PackWriter&) = delete;

    /// Checks `block` (a frame block, stream/Block.h) and encodes it as `settings` say; a frame
    /// that compression does not shrink is stored uncompressed. Fails naming `name` when the
    /// block is malformed or a position is not finite. Thread-safe; CPU only.
    static Result<EncodedFrame> encode(std::vector<std::uint8_t> block, const std::string& name,
                                       const PackSettings& settings);

    /// Writes `frame` as the next frame. Fails naming the file on a write error.
    Result<bool> append(EncodedFrame frame);
    /// encode() then append().
    Result<bool> add(std::span<const std::uint8_t> block, const std::string& name);

    /// Writes the index and header, syncs and renames the file into place. Fails when no frame
    /// was appended, on a write error, or when the destination appeared meanwhile (and
    /// !overwrite). Blocks on the disk (fsync).
    Result<PackInfo> finish();
    /// Gives up: removes the temporary now (what the destructor does), for a stopped run.
    void abandon();

    const std::filesystem::path& path() const { return m_file.path(); }
    int frameCount() const { return static_cast<int>(m_frames.size()); }

private:
    PackWriter(AtomicFile file, const PackSettings& settings);

    AtomicFile m_file;
    PackSettings m_settings;
    std::uint64_t m_end = PackAlign; ///< where the next frame goes
    std::vector<PackFrame> m_frames;
    render::SceneCounts m_largest;
};

} // namespace tandem::stream
