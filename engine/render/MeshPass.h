// Meshes drawn off GL: the scene's triangles through the CUDA triangle rasterizer
// (render::TriangleRaster: GL's clipping, fill rule and depth ties, one 64-bit key per pixel),
// then resolved into the same G-buffer targets the GL geometry pass fills (colour, world normal,
// linear depth, id), every pixel, so the point pass's depth test, post-processing, channels,
// the compare views and captures work unchanged. On CUDA a pass of the frame inside its one
// handoff, first of the drawing passes; on the host the same functions on CPU threads (read
// back once per scene, uploaded after). Who draws the meshes is --raster: gl, cuda, host, or
// auto (measured, frame::Frame). Render thread.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/core/EnumTable.h"
#include "engine/interop/Pass.h"
#include "engine/render/Camera.h"
#include "engine/render/GeometryPass.h"
#include "engine/render/PointSplat.h"

namespace tandem::render {

class GBuffer;
class GpuScene;
class MeshCuda;
struct MeshLaunch;

/// Who draws the meshes.
enum class RasterPath {
    Gl,   ///< GL's hardware rasterizer: the geometry pass's visibility buffer and resolve
    Cuda, ///< the CUDA triangle rasterizer, inside the frame's handoff
    Host, ///< the CUDA rasterizer's functions on CPU threads (slow, exact)
};
/// The paths' names (reports, the overlay).
inline constexpr EnumTable<RasterPath, 3> RasterPaths{
    "raster path",
    {{{RasterPath::Gl, "gl", "GL's hardware rasterizer"},
      {RasterPath::Cuda, "cuda", "the CUDA triangle rasterizer"},
      {RasterPath::Host, "host", "the CUDA rasterizer's functions on the CPU"}}}};

/// What the user asked for (--raster).
enum class RasterChoice { Auto, Gl, Cuda, Host };
inline constexpr EnumTable<RasterChoice, 4> RasterChoices{
    "raster path",
    {{{RasterChoice::Auto, "auto",
       "the faster of GL and CUDA, timed on the first scene (GL without CUDA)"},
      {RasterChoice::Gl, "gl", "GL's hardware rasterizer"},
      {RasterChoice::Cuda, "cuda",
       "the CUDA triangle rasterizer in the frame's handoff; an error if it cannot"},
      {RasterChoice::Host, "host", "the CUDA rasterizer's functions on the CPU: exact, slow"}}}};

class MeshPass final : public interop::Pass {
public:
    /// A pass drawing meshes on `path` (Cuda or Host).
    explicit MeshPass(RasterPath path);
    ~MeshPass() override;

    /// This frame: the scene's triangles into `gbuffer` seen by `camera`, with the background of
    /// `options`.
    void setFrame(const GpuScene& scene, GBuffer& gbuffer, const Camera& camera,
                  const GeometryOptions& options);

    const char* name() const override { return "meshes"; }
    bool isEnabled() const override;
    interop::Path path() const override;
    void declare(interop::Uses& uses) override;
    void run(const interop::MappedView* view, interop::PassHooks& hooks) override;

    /// CUDA: runs the pass `rounds` times on `view`'s stream and returns the GPU time of each,
    /// in milliseconds (CUDA events). Blocks (a counted stall): --raster auto's calibration.
    std::vector<double> time(const interop::MappedView& view, int rounds);

    RasterPath rasterPath() const { return m_path; }
    /// The frame data the last setFrame() prepared (tests).
    const PointFrame& frame() const { return m_frame; }

private:
    void runHost(interop::PassHooks& hooks);
    /// What the CUDA side reads and writes this frame, on `view`.
    MeshLaunch launchOn(const interop::MappedView& view) const;

    RasterPath m_path;
    const GpuScene* m_scene = nullptr;
    GBuffer* m_gbuffer = nullptr;
    PointFrame m_frame{};
    std::vector<PointObject> m_objects;
    std::uint32_t m_meshVertices = 0; ///< vertices up to the last mesh's (what is transformed)
    interop::BufferRef m_verticesRef, m_indicesRef, m_objectsRef;
    interop::ImageRef m_colorRef, m_normalRef, m_depthRef, m_idRef;
    std::unique_ptr<MeshCuda> m_cuda;
    struct Host;
    std::unique_ptr<Host> m_host;
};

/// One frame of the CUDA side: what the kernels read and write.
struct MeshLaunch {
    void* stream; ///< cudaStream_t
    PointFrame frame;
    const PointVertex* vertices;            ///< device: the scene's vertex buffer
    std::uint32_t vertexCount;              ///< one past the last mesh vertex (clip positions held)
    const std::uint32_t* indices;           ///< device: 3 per triangle
    std::uint32_t triangleCount;            ///< triangles in `indices`
    const PointObject* objects;             ///< device: every object record of the scene
    const PointObject* hostObjects;         ///< the same in host memory (what is clipped)
    int objectCount;                        ///< records in each
    const std::uint8_t* texels;             ///< host: the scene's texture (RGBA8 sRGB), or null
    int textureWidth;                       ///< texels a row
    int textureHeight;                      ///< rows
    std::uint64_t textureSerial;            ///< the scene the texture is of: copied once per serial
    std::uint64_t color, normal, depth, id; ///< cudaSurfaceObject_t of the G-buffer targets
};

/// The CUDA side (MeshPassCuda.cu): clip positions of the mesh vertices, the rasterizer's
/// visibility keys, and the resolve into the G-buffer's surfaces, all on the launch's stream;
/// its scratch memory (clip positions, keys, the sRGB table, a device copy of the texture) kept
/// between frames. Without CUDA in the build, draw() and time() throw.
class MeshCuda {
public:
    MeshCuda();
    ~MeshCuda();
    MeshCuda(const MeshCuda&) = delete;
    MeshCuda& operator=(const MeshCuda&) = delete;

    /// Enqueues the frame. Does not block (but for growing its scratch memory, and copying a
    /// new scene's texture); throws CudaError on a failed call. `hooks` hear "meshes.raster"
    /// and "meshes.resolve".
    void draw(const MeshLaunch& launch, interop::PassHooks& hooks);
    /// Draws it `rounds` times and returns each one's GPU time (ms, CUDA events). Blocks.
    std::vector<double> time(const MeshLaunch& launch, int rounds);

private:
    struct State;
    std::unique_ptr<State> m_state;
};

} // namespace tandem::render
