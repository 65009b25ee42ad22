// Gaussian splats rasterized by CUDA kernels (and, on the host, by the same functions:
// render/SplatMath.h), into the G-buffer's targets, depth-composited with what meshes and points
// left there. Three stages, each a span:
//   splats.project  each Gaussian's 2D footprint, conic, SH colour and depth key;
//   splats.sort     one global sort of the visible Gaussians by depth (32-bit keys, ties by
//                   index), then their tile entries, emitted in that order, sorted stably by
//                   tile (as few key bits as the tiles need): each 16×16 tile gets its
//                   Gaussians front to back;
//   splats.blend    one CUDA block a tile, one thread a pixel, front to back until the pixel is
//                   done, then the pixel over its surface into the targets.
// Nothing waits on the GPU: the tile entries go into a buffer sized from earlier frames' counts
// (read back a frame late, without waiting); a frame with more entries than fit is still drawn
// exactly (its tiles walk the depth-sorted Gaussians themselves, slowly), counted, and the buffer
// grows for the next. No CUDA types here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include <glm/glm.hpp>

#include "engine/io/GaussianData.h"
#include "engine/render/Camera.h"
#include "engine/render/SplatMath.h"
#include "engine/render/SplatPacking.h"

namespace tandem::interop {
class PassHooks;
}

namespace tandem::render {

namespace detail {
struct HostTargets;
}

/// Gaussians as the rasterizer reads them (CUDA device memory for SplatRaster, host memory for
/// the host twin), Gaussian i at index i of each array.
struct SplatScene {
    const float* positions = nullptr; ///< 3 a Gaussian
    const float* scales = nullptr;    ///< 3 a Gaussian, linear
    const float* rotations = nullptr; ///< 4 a Gaussian: w, x, y, z
    const float* opacities = nullptr; ///< 1 a Gaussian, 0..1
    const float* sh = nullptr;        ///< SplatFrame::shStride × 3 a Gaussian, coefficient-major
    std::uint32_t count = 0;
};

/// Gaussians in host memory laid out as the rasterizer reads them (rotations w first).
struct SplatArrays {
    std::vector<float> positions, scales, rotations, opacities, sh;
    int shDegree = 0;
    std::uint32_t count = 0;

    /// Pointers into these arrays.
    SplatScene scene() const
    {
        return {positions.data(), scales.data(), rotations.data(),
                opacities.data(), sh.data(),     count};
    }
};
/// `gaussians` in the rasterizer's layout.
SplatArrays splatArrays(const io::GaussianData& gaussians);

/// A splat region (SplatPacking.h) in device memory: a streamed frame's Gaussians as its copy
/// left them.
struct DeviceSplatRegion {
    const void* region = nullptr;
    std::uint32_t count = 0;
    int shDegree = 0;
    SplatEncoding encoding = SplatEncoding::F32;
    /// A cudaEvent_t the pass's stream waits for before reading the region (written on another
    /// stream: a Python loop's tensors), or null: ordered already (the frame's own copy).
    void* ready = nullptr;
};

/// The G-buffer's targets as the CUDA pass writes them (cudaSurfaceObject_t values), and an
/// optional count of the Gaussians blended at each pixel (device, `countPitch` a row).
struct SplatTargets {
    std::uint64_t color = 0, depth = 0, normal = 0, id = 0;
    std::uint32_t* counts = nullptr;
    int countPitch = 0;
};

/// What a splat frame took, as the GPU reported it (a frame or more late).
struct SplatCounts {
    std::uint64_t visible = 0;    ///< Gaussians that reached a pixel's tile
    std::uint64_t entries = 0;    ///< (Gaussian, tile) pairs blended from
    std::uint64_t capacity = 0;   ///< entries the buffer held then
    std::uint64_t slowFrames = 0; ///< frames whose entries did not fit (drawn the slow way)
};

/// How splats are drawn, besides the camera.
struct SplatLook {
    glm::mat4 model{1.0f};      ///< the Gaussians' frame → world (an up-axis turn, a placement)
    float scaleModifier = 1.0f; ///< multiplies every scale
    int shDegree = 3;           ///< the highest degree evaluated (lowered to the stored one)
    int storedDegree = 0;       ///< the degree the Gaussians carry
    std::uint8_t background[3] = {0x17, 0x17, 0x1c}; ///< sRGB bytes, where nothing else drew
    int debug = splats::SplatDebugNone;              ///< splats::SplatDebug: a debug view instead
};

/// The frame data the splat functions need for `camera` drawing a `width`×`height` region;
/// `targetsDrawn`: meshes or points drew the G-buffer first.
splats::SplatFrame makeSplatFrame(const Camera& camera, int width, int height, bool colorIsHalf,
                                  const SplatLook& look, bool targetsDrawn);

/// The host twin: the same functions on CPU threads. Reads the surface from `targets` when
/// `f.targetsDrawn` (rows from the bottom, f.width × f.height) and writes the frame into them;
/// `counts`, if not null, receives the Gaussians blended at each pixel. Bit for bit what the
/// CUDA pass writes.
void renderSplatsHost(const SplatScene& scene, const splats::SplatFrame& f,
                      detail::HostTargets& targets, std::vector<std::uint32_t>* counts = nullptr);

class SplatRaster {
public:
    /// Nothing is allocated until the first call. Without CUDA in the build, render() throws.
    SplatRaster();
    ~SplatRaster();
    SplatRaster(const SplatRaster&) = delete;
    SplatRaster& operator=(const SplatRaster&) = delete;

    /// Enqueues the frame on `stream` (a cudaStream_t): `scene` in device memory into `targets`.
    /// Does not block, except that growing its scratch memory allocates (and frees). `hooks`
    /// hear splats.project, splats.sort and splats.blend. Throws CudaError.
    void render(const SplatScene& scene, const splats::SplatFrame& f, const SplatTargets& targets,
                void* stream, interop::PassHooks& hooks);

    /// `region`'s Gaussians as render() reads them: pointers into it (F32), or its records
    /// unpacked (unpackSplat()) into this rasterizer's memory on `stream` (Packed; hooks hear
    /// splats.unpack), valid until the next call; `stream` first waits for region.ready. Throws
    /// CudaError, Error without CUDA.
    SplatScene sceneOf(const DeviceSplatRegion& region, void* stream, interop::PassHooks& hooks);

    /// A cudaEvent_t recorded after the last frame's kernels (the scene's arrays are no longer
    /// read after it), or null before the first frame.
    void* lastFrameDone() const;

    /// The latest frame the GPU has finished reporting on (never waits).
    SplatCounts counts();
    /// Tile entries the next frame may hold before it takes the slow way (tests: a small one
    /// forces it). 0: grow from the counts seen, as usual.
    void setEntryCapacity(std::size_t entries);

private:
    /// sceneOf() of a Packed region.
    SplatScene unpack(const DeviceSplatRegion& region, void* stream, interop::PassHooks& hooks);

    struct Scratch;
    std::unique_ptr<Scratch> m_scratch;
};

} // namespace tandem::render
