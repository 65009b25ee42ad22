// Points drawn in CUDA (or, on the host, by the same per-point functions): each point of the
// scene's point clouds is projected and its round splat written as a 64-bit atomicMin of (view
// depth, point index) into a visibility buffer (a GL buffer registered once, sized with the
// G-buffer), depth-tested against the meshes' linear depth; a resolve then writes the winning
// point's colour, normal, linear depth and id into the same G-buffer targets the mesh pass
// filled, so post-processing, channels, the overlay and captures work unchanged. A pass of the
// frame: on CUDA inside its one handoff, before post-processing. Where neither runs, the geometry
// pass draws points as GL_POINTS. Render thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/EnumTable.h"
#include "engine/core/Result.h"
#include "engine/cuda/DeviceBuffer.h"
#include "engine/gl/Buffer.h"
#include "engine/interop/Pass.h"
#include "engine/interop/Registrations.h"
#include "engine/render/Camera.h"
#include "engine/render/GeometryPass.h"
#include "engine/render/PointSplat.h"

namespace tandem::render {

class GBuffer;
class GpuScene;

/// Who draws the points.
enum class PointPath {
    Cuda, ///< the CUDA rasterizer, inside the frame's handoff
    Host, ///< the same functions on CPU threads (reads the G-buffer back: slow, exact)
    Gl,   ///< GL_POINTS in the geometry pass (round sprites, size attenuation)
};
/// The paths' names (reports, the overlay).
inline constexpr EnumTable<PointPath, 3> PointPaths{
    "point path",
    {{{PointPath::Cuda, "cuda", "the CUDA rasterizer"},
      {PointPath::Host, "host", "the CUDA rasterizer's functions on the CPU"},
      {PointPath::Gl, "gl", "GL_POINTS"}}}};

/// What the user asked for: auto picks CUDA when the frame's interop works, else GL_POINTS.
enum class PointChoice { Auto, Cuda, Host, Gl };
/// --points' values.
inline constexpr EnumTable<PointChoice, 4> PointChoices{
    "point path",
    {{{PointChoice::Auto, "auto", "CUDA when the passes run on CUDA, else GL"},
      {PointChoice::Cuda, "cuda",
       "a CUDA rasterizer in the frame's handoff; an error if it cannot"},
      {PointChoice::Gl, "gl", "GL_POINTS"},
      {PointChoice::Host, "host", "the CUDA rasterizer's functions on the CPU: exact, slow"}}}};

/// The frame data the point functions need for `camera` drawing a `width`×`height` region with
/// the splat sizes and background of `options`; `meshDrawn`: the geometry pass drew meshes.
PointFrame makePointFrame(const Camera& camera, int width, int height, bool colorIsHalf,
                          const GeometryOptions& options, bool meshDrawn);

class PointPass final : public interop::Pass {
public:
    /// A pass drawing points on `path` (Cuda or Host; with Gl it stays disabled: the geometry
    /// pass draws them).
    explicit PointPass(PointPath path);
    ~PointPass() override;

    /// This frame: the scene's point objects into `gbuffer` seen by `camera`, with the splat
    /// sizes and background of `options`. `meshDrawn`: the geometry pass drew the scene's meshes
    /// (points are depth-tested against them); otherwise it did not run, and the pass writes
    /// every pixel. Grows the visibility buffer with the G-buffer (dropping its registration in
    /// the same call).
    void setFrame(const GpuScene& scene, GBuffer& gbuffer, const Camera& camera,
                  const GeometryOptions& options, bool meshDrawn);

    const char* name() const override { return "points"; }
    bool isEnabled() const override;
    interop::Path path() const override;
    void declare(interop::Uses& uses) override;
    void run(const interop::MappedView* view, interop::PassHooks& hooks) override;

    /// Points in CUDA memory someone else fills (a streamed frame's compact points: a position,
    /// 3 floats, and packed attributes per vertex of the scene), read by the CUDA path instead
    /// of the scene's vertex buffer, without packing. Both null (the default): the scene's.
    /// The filler orders its writes before the pass (a stream event) itself.
    struct DevicePoints {
        const float* positions = nullptr;            ///< device, 3 floats a vertex
        const PointAttributes* attributes = nullptr; ///< device, one a vertex
    };
    void setDevicePoints(const DevicePoints& points) { m_device = points; }

    PointPath pointPath() const { return m_path; }
    /// The frame data the last setFrame() prepared (tests, benchmarks).
    const PointFrame& frame() const { return m_frame; }

private:
    void runHost(interop::PassHooks& hooks);

    PointPath m_path;
    DevicePoints m_device;
    const GpuScene* m_scene = nullptr;
    GBuffer* m_gbuffer = nullptr;
    PointFrame m_frame{};
    std::vector<PointObject> m_objects;
    // CUDA: the visibility buffer (one 64-bit key per pixel of the G-buffer's capacity) and its
    // registration, which goes first.
    gl::Buffer m_visibility{gl::NoCreate};
    interop::Registrations m_registrations;
    interop::BufferRef m_visibilityRef, m_verticesRef, m_objectsRef;
    interop::ImageRef m_colorRef, m_normalRef, m_depthRef, m_idRef;
    // CUDA: the packed attributes of the scene (serial) whose points they hold, device memory.
    cuda::DeviceBuffer<PointAttributes> m_attributes;
    std::size_t m_attributeCapacity = 0;
    std::uint64_t m_packedSerial = 0;
    // Host: the vertices read back once per scene, and the keys.
    struct Host;
    std::unique_ptr<Host> m_host;
};

/// The CUDA side (PointPassCuda.cu, CUDA builds only): packs the points' attributes when asked,
/// starts the visibility keys from the meshes' depth, rasterizes the point objects' splats,
/// resolves the winners into the G-buffer's surfaces, all on `stream`. Does not block; throws
/// CudaError on a failed launch. `hooks` hear "points.pack" (when packing), "points.raster" and
/// "points.resolve".
struct PointLaunch {
    void* stream; ///< cudaStream_t
    PointFrame frame;
    const PointVertex* vertices;    ///< device: what `pack` packs (null when not packing)
    const float* positions;         ///< device: vertex i's position at positions + i * stride
    int positionStride;             ///< floats between positions (9 in PointVertex, 3 compact)
    const PointObject* objects;     ///< device: every object record of the scene
    const PointObject* hostObjects; ///< the same records in host memory
    int objectCount;
    PointAttributes* attributes;   ///< device, one per vertex of the scene: packed into when
                                   ///< `pack`
    const PointAttributes* packed; ///< device: what the resolve reads (`attributes` or given)
    bool pack;                     ///< fill `attributes` first (a new scene)
    std::uint64_t* keys;           ///< device, `pitch` keys a row
    int pitch;
    std::uint64_t depth, color, normal, id; ///< cudaSurfaceObject_t of the G-buffer targets
};
void rasterizePointsCuda(const PointLaunch& launch, interop::PassHooks& hooks);

/// The floor the benchmark compares with: each point projected and one atomicMin of its key, no
/// splat, no depth test, no resolve. CUDA builds only. Does not block.
void bareAtomicMinCuda(void* stream, const PointFrame& frame, const PointVertex* vertices,
                       std::uint32_t count, std::uint64_t* keys, int pitch);

} // namespace tandem::render
