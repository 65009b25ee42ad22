#include "engine/render/MeshPass.h"

#include <algorithm>
#include <atomic>

#include "engine/core/Error.h"
#include "engine/core/Stall.h"
#include "engine/core/ThreadPool.h"
#include "engine/gl/Gl.h"
#include "engine/render/GBuffer.h"
#include "engine/render/GpuScene.h"
#include "engine/render/MeshShading.h"
#include "engine/render/PointPass.h"
#include "engine/render/detail/HostTargets.h"

namespace tandem::render {

static_assert(meshes::ObjectHasColorsBit == ObjectHasColors, "MeshShading.h mirrors ObjectFlag");
static_assert(meshes::ObjectHasTextureBit == ObjectHasTexture, "MeshShading.h mirrors ObjectFlag");

struct MeshPass::Host {
    ThreadPool pool;
    std::vector<PointVertex> vertices;
    std::vector<std::uint32_t> indices;
    std::uint64_t serial = 0; ///< the scene `vertices` and `indices` were read back from
    std::vector<triangles::Vertex> clip;
    std::vector<std::atomic<std::uint64_t>> keys;
    detail::HostTargets targets;
};

MeshPass::MeshPass(RasterPath path) : m_path(path)
{
    TANDEM_ASSERT(path != RasterPath::Gl, "render::MeshPass: GL meshes are the geometry pass's");
    if (path == RasterPath::Host)
        m_host = std::make_unique<Host>();
    else
        m_cuda = std::make_unique<MeshCuda>();
}

MeshPass::~MeshPass() = default;

void MeshPass::setFrame(const GpuScene& scene, GBuffer& gbuffer, const Camera& camera,
                        const GeometryOptions& options)
{
    m_scene = &scene;
    m_gbuffer = &gbuffer;
    m_frame = makePointFrame(camera, gbuffer.width(), gbuffer.height(),
                             gbuffer.colorFormat() == ColorFormat::Rgba16F, options, false);
    m_objects.clear();
    m_meshVertices = 0;
    for (const GpuObject& o : scene.objects()) {
        m_objects.push_back({o.firstVertex, o.vertexCount, o.firstPrimitive, o.flags});
        if (!(o.flags & ObjectIsPoints))
            m_meshVertices = std::max(m_meshVertices, o.firstVertex + o.vertexCount);
    }
}

bool MeshPass::isEnabled() const
{
    return m_scene && m_scene->triangleCount() > 0;
}

interop::Path MeshPass::path() const
{
    return m_path == RasterPath::Cuda ? interop::Path::Cuda : interop::Path::Host;
}

void MeshPass::declare(interop::Uses& uses)
{
    using interop::Intent;
    m_verticesRef = uses.buffer(m_scene->vertexBuffer(), m_scene->registrations(), Intent::Read);
    m_indicesRef = uses.buffer(m_scene->indexBuffer(), m_scene->registrations(), Intent::Read);
    m_objectsRef = uses.buffer(m_scene->objectBuffer(), m_scene->registrations(), Intent::Read);
    // Every pixel of the drawn region is written, but declared ReadWrite: the point pass reads
    // the same targets in most frames, and a union that changed from frame to frame (WriteDiscard
    // alone, ReadWrite with points) would register the four textures again each time.
    const interop::FrameTextures t = m_gbuffer->frameTextures();
    m_colorRef = uses.image(*t.color, *t.registrations, Intent::ReadWrite);
    m_normalRef = uses.image(*t.normal, *t.registrations, Intent::ReadWrite);
    m_depthRef = uses.image(*t.depth, *t.registrations, Intent::ReadWrite);
    m_idRef = uses.image(*t.id, *t.registrations, Intent::ReadWrite);
}

MeshLaunch MeshPass::launchOn(const interop::MappedView& view) const
{
    MeshLaunch l{};
    l.stream = view.stream();
    l.frame = m_frame;
    l.vertices = static_cast<const PointVertex*>(view.pointer(m_verticesRef));
    l.vertexCount = m_meshVertices;
    l.indices = static_cast<const std::uint32_t*>(view.pointer(m_indicesRef));
    l.triangleCount = m_scene->triangleCount();
    l.objects = static_cast<const PointObject*>(view.pointer(m_objectsRef));
    l.hostObjects = m_objects.data();
    l.objectCount = static_cast<int>(m_objects.size());
    if (!m_scene->texels().empty()) {
        l.texels = m_scene->texels().data();
        l.textureWidth = m_scene->texture().width();
        l.textureHeight = m_scene->texture().height();
        l.textureSerial = m_scene->serial();
    }
    l.color = view.surface(m_colorRef);
    l.normal = view.surface(m_normalRef);
    l.depth = view.surface(m_depthRef);
    l.id = view.surface(m_idRef);
    return l;
}

void MeshPass::run(const interop::MappedView* view, interop::PassHooks& hooks)
{
    if (m_path == RasterPath::Host) {
        runHost(hooks);
        return;
    }
    m_cuda->draw(launchOn(*view), hooks);
}

std::vector<double> MeshPass::time(const interop::MappedView& view, int rounds)
{
    TANDEM_ASSERT(m_cuda, "render::MeshPass::time(): a CUDA pass only");
    return m_cuda->time(launchOn(view), rounds);
}

void MeshPass::runHost(interop::PassHooks& hooks)
{
    using namespace triangles;
    Host& h = *m_host;
    const PointFrame& f = m_frame;
    const std::size_t pixels = static_cast<std::size_t>(f.width) * f.height;
    // The scene's vertices and triangles, read back once per scene (a blocking read: the host
    // path only).
    if (h.serial != m_scene->serial()) {
        const auto read = [](const gl::Buffer& buffer, auto& out, std::size_t count) {
            out.resize(count);
            if (count == 0)
                return;
            recordStall(StallCause::Readback);
            glGetNamedBufferSubData(buffer.id(), 0, static_cast<GLsizeiptr>(count * sizeof(out[0])),
                                    out.data());
        };
        read(m_scene->vertexBuffer(), h.vertices, m_scene->vertexCount());
        read(m_scene->indexBuffer(), h.indices, m_scene->indexCount());
        gl::check("glGetNamedBufferSubData (meshes: vertices and triangles)");
        h.serial = m_scene->serial();
    }
    const auto triangleCount = static_cast<int>(m_scene->triangleCount());
    if (h.keys.size() < pixels)
        h.keys = std::vector<std::atomic<std::uint64_t>>(pixels);
    h.clip.resize(m_meshVertices);

    hooks.beginStage("meshes.raster", nullptr);
    for (const PointObject& object : m_objects) {
        if ((object.flags & ObjectIsPoints) || object.vertexCount == 0)
            continue;
        h.pool.parallelFor(static_cast<int>(object.vertexCount), [&](int begin, int end) {
            for (int i = begin; i < end; ++i) {
                const std::size_t v = object.firstVertex + static_cast<std::size_t>(i);
                h.clip[v] = meshes::clipVertex(f, h.vertices[v].position);
            }
        });
    }
    h.pool.parallelFor(f.height, [&](int begin, int end) {
        for (std::size_t i = static_cast<std::size_t>(begin) * f.width;
             i < static_cast<std::size_t>(end) * f.width; ++i)
            h.keys[i].store(EmptyKey, std::memory_order_relaxed);
    });
    // Each covered pixel keeps the least key, as the kernels' atomicMin: the result does not
    // depend on the order the threads draw in.
    h.pool.parallelFor(triangleCount, [&](int begin, int end) {
        for (int t = begin; t < end; ++t) {
            const std::uint32_t* index = h.indices.data() + 3 * static_cast<std::size_t>(t);
            if (index[0] >= m_meshVertices || index[1] >= m_meshVertices ||
                index[2] >= m_meshVertices)
                continue;
            const triangles::Vertex triangle[3] = {h.clip[index[0]], h.clip[index[1]],
                                                   h.clip[index[2]]};
            forEachPiece(triangle, f.width, f.height, [&](const Snapped& s) {
                for (int py = s.bounds.y0; py <= s.bounds.y1; ++py)
                    for (int px = s.bounds.x0; px <= s.bounds.x1; ++px) {
                        float depth;
                        if (!cover(s, px, py, depth))
                            continue;
                        detail::keepLeast(h.keys[static_cast<std::size_t>(py) * f.width + px],
                                          keyOf(depth, static_cast<std::uint32_t>(t)));
                    }
            });
        }
    });
    hooks.endStage("meshes.raster", nullptr);

    hooks.beginStage("meshes.resolve", nullptr);
    meshes::MeshScene scene{};
    scene.vertices = h.vertices.data();
    scene.indices = h.indices.data();
    scene.clip = h.clip.data();
    scene.objects = m_objects.data();
    scene.objectCount = static_cast<int>(m_objects.size());
    if (!m_scene->texels().empty()) {
        scene.texels = m_scene->texels().data();
        scene.textureWidth = m_scene->texture().width();
        scene.textureHeight = m_scene->texture().height();
    }
    scene.srgbToLinear = srgb8ToLinearTable().data();
    h.targets.resize(pixels, f.colorIsHalf != 0);
    h.pool.parallelFor(f.height, [&](int begin, int end) {
        for (int y = begin; y < end; ++y)
            for (int x = 0; x < f.width; ++x) {
                const std::size_t pixel = static_cast<std::size_t>(y) * f.width + x;
                h.targets.store(pixel,
                                meshes::resolveMeshPixel(
                                    f, scene, h.keys[pixel].load(std::memory_order_relaxed), x, y),
                                f.colorIsHalf != 0);
            }
    });
    hooks.endStage("meshes.resolve", nullptr);
    h.targets.upload(m_gbuffer->frameTextures(), f.width, f.height, "meshes.host.upload");
}

#if !TANDEM_HAS_CUDA
struct MeshCuda::State {};
MeshCuda::MeshCuda() = default;
MeshCuda::~MeshCuda() = default;
void MeshCuda::draw(const MeshLaunch&, interop::PassHooks&)
{
    throw Error("render::MeshCuda: this build has no CUDA");
}
std::vector<double> MeshCuda::time(const MeshLaunch&, int)
{
    throw Error("render::MeshCuda: this build has no CUDA");
}
#endif

} // namespace tandem::render
