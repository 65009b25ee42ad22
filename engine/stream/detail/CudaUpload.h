// The CUDA half of SequencePlayer: the copy stream; per buffer set (front and back), CUDA memory
// for compact points and Gaussian splats and the events that order their copies with the frames
// that read them; mesh copies into the frame's mapped GL buffers; fences that say when a staging
// slot's copy is done. Plain types only (streams as void*): CudaUpload.cpp is the CUDA side,
// CudaUploadStub.cpp the build without CUDA (whose constructor throws: the CUDA upload path
// cannot be chosen there). Private to stream/. Render thread.
#pragma once

#include <cstddef>
#include <memory>

#include "engine/render/SceneLayout.h"

namespace tandem::interop {
class PassHooks;
}
namespace tandem::profile {
class Profiler;
}

namespace tandem::stream::detail {

class CudaUpload {
public:
    /// Makes the copy stream and its events, naming the stream "copy" on `profiler` (may be
    /// null). Throws CudaError when CUDA refuses, Error in a build without CUDA.
    explicit CudaUpload(profile::Profiler* profiler);
    /// Waits for the copies in flight and the frames still reading either set's points, then
    /// frees the memory (blocks: teardown only). Never throws; failures are logged.
    ~CudaUpload();
    CudaUpload(const CudaUpload&) = delete;
    CudaUpload& operator=(const CudaUpload&) = delete;

    /// Makes set `set`'s memory hold at least `points` compact points (`atLeast` when larger:
    /// the largest frame's, so it grows rarely) and a splat region of `splatBytes` (with a
    /// quarter more when it grows). Waits for the copy stream and the set's readers first when
    /// it reallocates (rare).
    void reserve(int set, std::size_t points, std::size_t atLeast, std::size_t splatBytes);
    /// Set `set`'s points in CUDA memory: 3 floats a point, and their packed attributes.
    const float* positions(int set) const;
    const render::PointAttributes* attributes(int set) const;
    /// Set `set`'s splat region in CUDA memory (render::SplatView's bytes as they were).
    const void* splats(int set) const;

    /// Copies `view`'s compact points and splat region (whichever it has) into set `set` on
    /// the copy stream, once the last frame that read the set is done with it; timed as
    /// "stream.upload" through `hooks`.
    void copyToDevice(int set, const render::SceneView& view, interop::PassHooks& hooks);
    /// Makes `frameStream` wait (on the GPU) for set `set`'s points to arrive.
    void waitForPoints(int set, void* frameStream);
    /// Marks set `set`'s points free for the next copy once `frameStream`'s work so far is done.
    void releasePoints(int set, void* frameStream);

    /// Where a mesh frame goes: the frame's mapped GL buffers (device pointers).
    struct MeshTargets {
        void* vertices = nullptr;
        void* indices = nullptr;
        void* provokingOffsets = nullptr;
        void* provokingTriangles = nullptr;
    };
    /// Copies a mesh frame into `targets` on the copy stream, starting once `frameStream` has
    /// reached this point (the map: GL is done with the buffers), overlapping what follows on
    /// it; timed as "stream.upload" through `hooks`.
    void copyMesh(const render::SceneView& view, const MeshTargets& targets, void* frameStream,
                  interop::PassHooks& hooks);
    /// Makes `frameStream` wait (on the GPU) for every copy issued so far (before the unmap).
    void waitForCopies(void* frameStream);

    /// A fence after the copies issued so far; its number for isDone(), wait() and recycle().
    int fence();
    /// Whether the copies before `fence` are done (never waits).
    bool isDone(int fence) const;
    /// Waits for the copies before `fence`. Blocks (counted as a stall).
    void wait(int fence) const;
    /// Gives `fence` back to the pool.
    void recycle(int fence);

private:
    struct State;
    std::unique_ptr<State> m_state;
};

} // namespace tandem::stream::detail
