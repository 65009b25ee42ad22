// Volumetric video as a sequence of files on disk, one file a frame (PLY/OBJ/Draco meshes and
// point clouds, CWIPC point-cloud dumps, Gaussian splats: a 3DGS or compressed PLY, .splat, .spz):
// a folder, a JSON manifest, a glob or printf pattern, or a single file. Opening lists the frames
// and checks that they exist; each load decodes one file (io::loadMesh, io::readGaussians) into a
// frame block. No caching and no look-ahead here (the streamer does that). Any thread; load() from
// several at once.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "engine/core/Result.h"
#include "engine/core/StopToken.h"
#include "engine/stream/Source.h"

namespace tandem::stream {

struct SequenceOptions {
    double fps = 30.0;     ///< frames per second when the spec does not say (MinFps to MaxFps)
    bool fpsGiven = false; ///< the user chose `fps`: it overrides a manifest's "fps"
    /// Turns every frame's geometry as it loads (io::turnMesh, io::turnGaussians: an up axis,
    /// --up); identity: as stored. Packs are as they were packed.
    glm::dmat3 turn{1.0};
};

/// One frame of a file sequence.
struct SequenceFrame {
    std::filesystem::path file; ///< a .ply, .obj, .splat, .spz, .cwipcdump or .drc file
    /// Its texture image when a manifest names one; else the frame's file decides (the image
    /// its .mtl names, or the one beside it with its name: io::loadMesh).
    std::optional<std::filesystem::path> texture;
};

/// A sequence of mesh or point-cloud files. Immutable after construction, so load() may run on
/// several threads at once.
class FolderSource final : public Source {
public:
    /// Expects `frames` not empty and `fps` > 0. `description` is what description() returns.
    FolderSource(std::vector<SequenceFrame> frames, double fps, std::string description,
                 const glm::dmat3& turn = glm::dmat3(1.0));

    std::string description() const override { return m_description; }
    int frameCount() const override { return static_cast<int>(m_frames.size()); }
    double fps() const override { return m_fps; }
    /// The frame's file path, as the spec composed it ("scans/frame_0001.ply").
    std::string frameName(int index) const override;
    /// The texture image the manifest gives frame `index`, if it gives one.
    std::optional<std::filesystem::path> texture(int index) const;

    /// Decodes the frame's file with io::loadMesh (with the manifest's texture, if any) into a
    /// scene of one object named after the file and its texture (render::addObject), then into
    /// a block from `sink`. A failure names the file (and the texture, when that is what
    /// failed); the loader's warnings are passed on. Thread-safe.
    Result<std::span<const std::uint8_t>> load(int index, const BlockSink& sink) const override;

private:
    std::vector<SequenceFrame> m_frames;
    double m_fps;
    glm::dmat3 m_turn;
    std::string m_description;
};

/// Opens the file sequence `spec` names, which is one of (tried in this order):
/// - a folder: every .ply/.obj file in it (extension case-insensitive, not recursive, other
///   files ignored; names that are no regular file, a FIFO or a link to a device, skipped with
///   a warning), in natural order (NaturalOrder.h);
/// - a file-name part with `*` or `?` ("scans/frame_*.ply"): the .ply/.obj files of that folder
///   whose names match (fnmatch, case-sensitive), in natural order;
/// - a file-name part with one `%d` or `%0Nd` ("scans/frame_%04d.ply"): the numbers from the
///   lowest file of the folder to the highest; a number missing in between is a missing frame
///   that keeps its place on the timeline (more numbers missing than files present: an error
///   pointing to a glob);
/// - a JSON manifest (*.json): `{"fps": 30, "frames": ["f0.ply", {"file": "f1.obj",
///   "texture": "f1.png"}, …], "textures": [null, "t1.png", …]}`; paths relative to the
///   manifest's folder; "fps" optional; textures per frame either inside the frame's object or
///   in the optional "textures" array as long as "frames" (null: none), not both; at most 64
///   lists and objects deep;
/// - a single .ply, .obj, .splat, .spz, .cwipcdump or .drc file: a sequence of one frame.
/// In folders and patterns, .splat, .spz, .cwipcdump and .drc (Draco) files are frames too; any
/// PLY may hold Gaussians (known when it loads). A frame of Gaussians becomes the frame's splats.
/// Frames without a manifest's texture take the one their file names (an OBJ's map_Kd) or the
/// image beside them with their name (frame_0001.obj or frame_0001.drc, frame_0001.png; .png,
/// .jpg, .jpeg), as io::loadMesh finds them.
/// The frame rate is options.fps, or the manifest's when it gives one and !options.fpsGiven;
/// either must be a frame rate (isFrameRate()).
/// Fails with one message naming the spec and the problem: it does not exist, no frames, a
/// malformed manifest, or (manifests) every file it names that is missing or no regular file,
/// in one list; or `stop` asked while the frames were listed and checked (a folder of a
/// million files takes a while), saying so (stoppedWhile()). Only checks that files exist;
/// their contents are read by load().
Result<std::unique_ptr<Source>> openFileSequence(const std::string& spec,
                                                 const SequenceOptions& options,
                                                 const StopToken& stop = {});

} // namespace tandem::stream
