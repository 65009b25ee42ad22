#include "engine/render/PointPass.h"

#include <atomic>
#include <cmath>
#include <cstring>

#include <glm/glm.hpp>

#include "engine/core/Log.h"
#include "engine/core/Stall.h"
#include "engine/core/ThreadPool.h"
#include "engine/gl/Debug.h"
#include "engine/gl/Texture.h"
#include "engine/interop/HostTransfer.h"
#include "engine/render/GBuffer.h"
#include "engine/render/GeometryPass.h"
#include "engine/render/GpuScene.h"

namespace tandem::render {

static_assert(sizeof(PointVertex) == sizeof(Vertex), "PointVertex mirrors Vertex");
static_assert(sizeof(PointObject) == sizeof(GpuObject), "PointObject mirrors GpuObject");

const char* pointPathName(PointPath path)
{
    switch (path) {
    case PointPath::Cuda:
        return "cuda";
    case PointPath::Host:
        return "host";
    case PointPath::Gl:
        return "gl";
    }
    return "gl";
}

Result<PointChoice> parsePointChoice(const std::string& text)
{
    if (text == "auto")
        return PointChoice::Auto;
    if (text == "cuda")
        return PointChoice::Cuda;
    if (text == "host")
        return PointChoice::Host;
    if (text == "gl")
        return PointChoice::Gl;
    return fail("--points: expected auto, cuda, host or gl, got '" + text + "'");
}

struct PointPass::Host {
    ThreadPool pool;
    interop::HostTransfer transfer;
    std::vector<PointVertex> vertices;
    GLuint verticesOf = 0; ///< the GL buffer `vertices` was read from
    std::size_t verticesSize = 0;
    std::vector<std::atomic<std::uint64_t>> keys;
    std::vector<std::uint8_t> color;
    std::vector<float> depth;
    std::vector<std::uint16_t> normal;
    std::vector<std::uint32_t> id;
};

PointPass::PointPass(PointPath path) : m_path(path)
{
    if (path == PointPath::Host)
        m_host = std::make_unique<Host>();
}

PointPass::~PointPass() = default;

namespace {

void rowMajor(const glm::mat4& m, float out[16])
{
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c)
            out[r * 4 + c] = m[c][r];
}

} // namespace

PointFrame makePointFrame(const Camera& camera, int width, int height, bool colorIsHalf,
                          const PointSize& size)
{
    PointFrame f{};
    const CameraBlock block = makeCameraBlock(camera, width, height);
    rowMajor(block.viewProjection, f.viewProjection);
    rowMajor(block.view, f.view);
    for (int i = 0; i < 3; ++i) {
        f.eye[i] = block.eye[i];
        f.lightDir[i] = block.lightDir[i];
    }
    f.width = width;
    f.height = height;
    f.sizePixels = size.pixels;
    f.worldSize = size.world;
    f.focalPixels = focalPixels(camera, height);
    f.colorIsHalf = colorIsHalf ? 1 : 0;
    return f;
}

void PointPass::setFrame(const GpuScene& scene, GBuffer& gbuffer, const Camera& camera,
                         const PointSize& size)
{
    m_scene = &scene;
    m_gbuffer = &gbuffer;
    m_frame = makePointFrame(camera, gbuffer.width(), gbuffer.height(),
                             gbuffer.colorFormat() == ColorFormat::Rgba16F, size);
    m_objects.clear();
    for (const GpuObject& o : scene.objects())
        m_objects.push_back({o.firstVertex, o.vertexCount, o.firstPrimitive, o.flags});
    if (m_path == PointPath::Cuda) {
        // One key per pixel of the G-buffer's capacity, so resizes within it keep the buffer.
        const std::size_t bytes = static_cast<std::size_t>(gbuffer.capacityWidth()) *
                                  gbuffer.capacityHeight() * sizeof(std::uint64_t);
        if (m_visibility.size() < bytes) {
            m_registrations.clear(); // the registration names the buffer about to go
            m_visibility = gl::Buffer(bytes, nullptr, 0, "points.visibility");
            log::info("points: {:.1f} MiB visibility buffer ({}x{} keys)",
                      static_cast<double>(bytes) / (1024.0 * 1024.0), gbuffer.capacityWidth(),
                      gbuffer.capacityHeight());
        }
    }
}

bool PointPass::isEnabled() const
{
    return m_path != PointPath::Gl && m_scene && m_scene->hasPoints();
}

interop::Path PointPass::path() const
{
    return m_path == PointPath::Cuda ? interop::Path::Cuda : interop::Path::Host;
}

void PointPass::declare(interop::Uses& uses)
{
    using interop::Intent;
    m_visibilityRef = uses.buffer(m_visibility, m_registrations, Intent::Write);
    m_verticesRef = uses.buffer(m_scene->vertexBuffer(), m_scene->registrations(), Intent::Read);
    m_objectsRef = uses.buffer(m_scene->objectBuffer(), m_scene->registrations(), Intent::Read);
    const interop::FrameTextures t = m_gbuffer->frameTextures();
    // Read (the meshes' depth, to test against) and written where a point wins.
    m_depthRef = uses.image(*t.depth, *t.registrations, Intent::ReadWrite);
    m_colorRef = uses.image(*t.color, *t.registrations, Intent::ReadWrite);
    m_normalRef = uses.image(*t.normal, *t.registrations, Intent::ReadWrite);
    m_idRef = uses.image(*t.id, *t.registrations, Intent::ReadWrite);
}

void PointPass::run(const interop::MappedView* view, interop::PassHooks& hooks)
{
    if (m_path == PointPath::Host) {
        runHost(hooks);
        return;
    }
#ifdef TANDEM_HAS_CUDA
    PointLaunch launch{};
    launch.stream = view->stream();
    launch.frame = m_frame;
    launch.vertices = static_cast<const PointVertex*>(view->pointer(m_verticesRef));
    launch.objects = static_cast<const PointObject*>(view->pointer(m_objectsRef));
    launch.hostObjects = m_objects.data();
    launch.objectCount = static_cast<int>(m_objects.size());
    launch.keys = static_cast<std::uint64_t*>(view->pointer(m_visibilityRef));
    launch.pitch = m_gbuffer->capacityWidth();
    launch.depth = view->surface(m_depthRef);
    launch.color = view->surface(m_colorRef);
    launch.normal = view->surface(m_normalRef);
    launch.id = view->surface(m_idRef);
    rasterizePointsCuda(launch, hooks);
#else
    (void)view;
    (void)hooks;
#endif
}

void PointPass::runHost(interop::PassHooks& hooks)
{
    Host& h = *m_host;
    const PointFrame& f = m_frame;
    const interop::FrameTextures t = m_gbuffer->frameTextures();
    const std::size_t pixels = static_cast<std::size_t>(f.width) * f.height;
    // The scene's vertices, read back once per scene (a blocking read: the host path only).
    const gl::Buffer& vertices = m_scene->vertexBuffer();
    if (h.verticesOf != vertices.id() || h.verticesSize != vertices.size()) {
        h.vertices.resize(vertices.size() / sizeof(PointVertex));
        recordStall(StallCause::Readback);
        glGetNamedBufferSubData(vertices.id(), 0, static_cast<GLsizeiptr>(vertices.size()),
                                h.vertices.data());
        gl::check("glGetNamedBufferSubData (points: vertices)");
        h.verticesOf = vertices.id();
        h.verticesSize = vertices.size();
    }
    // The G-buffer as the meshes left it.
    const interop::HostFrame in = h.transfer.download(t);
    const std::size_t colorBytes = pixels * (in.colorIsHalf ? 8 : 4);
    h.color.assign(static_cast<const std::uint8_t*>(in.color),
                   static_cast<const std::uint8_t*>(in.color) + colorBytes);
    h.depth.assign(in.depth, in.depth + pixels);
    h.normal.assign(in.normal, in.normal + pixels * 4);
    h.id.assign(in.id, in.id + pixels);
    h.transfer.release();
    if (h.keys.size() < pixels)
        h.keys = std::vector<std::atomic<std::uint64_t>>(pixels);

    hooks.beginStage("points.raster", nullptr);
    h.pool.parallelFor(f.height, [&](int begin, int end) {
        for (int y = begin; y < end; ++y)
            for (int x = 0; x < f.width; ++x)
                h.keys[static_cast<std::size_t>(y) * f.width + x].store(EmptyPointKey,
                                                                        std::memory_order_relaxed);
    });
    for (const PointObject& object : m_objects) {
        if (!(object.flags & ObjectIsPoints))
            continue;
        const int count = static_cast<int>(object.vertexCount);
        h.pool.parallelFor(count, [&](int begin, int end) {
            for (int i = begin; i < end; ++i) {
                const std::uint32_t index = object.firstVertex + static_cast<std::uint32_t>(i);
                const Projected p = projectPoint(f, h.vertices[index].position);
                if (!p.visible)
                    continue;
                const std::uint64_t key = pointKey(p.depth, index);
                const SplatBox box = splatBox(f, p);
                for (int py = box.y0; py <= box.y1; ++py)
                    for (int px = box.x0; px <= box.x1; ++px) {
                        const std::size_t pixel = static_cast<std::size_t>(py) * f.width + px;
                        if (!splatCovers(p, px, py) || !inFrontOfMesh(p.depth, h.depth[pixel]))
                            continue;
                        std::uint64_t seen = h.keys[pixel].load(std::memory_order_relaxed);
                        while (key < seen && !h.keys[pixel].compare_exchange_weak(
                                                 seen, key, std::memory_order_relaxed)) {
                        }
                    }
            }
        });
    }
    hooks.endStage("points.raster", nullptr);
    hooks.beginStage("points.resolve", nullptr);
    h.pool.parallelFor(f.height, [&](int begin, int end) {
        for (int y = begin; y < end; ++y)
            for (int x = 0; x < f.width; ++x) {
                const std::size_t pixel = static_cast<std::size_t>(y) * f.width + x;
                const std::uint64_t key = h.keys[pixel].load(std::memory_order_relaxed);
                if (key == EmptyPointKey)
                    continue;
                const auto index = static_cast<std::uint32_t>(key);
                const int o = objectOf(m_objects.data(), static_cast<int>(m_objects.size()), index);
                if (o < 0)
                    continue;
                const ResolvedPixel r = resolvePoint(f, h.vertices[index],
                                                     m_objects[static_cast<std::size_t>(o)], index);
                if (f.colorIsHalf)
                    std::memcpy(h.color.data() + pixel * 8, r.color16, 8);
                else
                    std::memcpy(h.color.data() + pixel * 4, r.color8, 4);
                std::memcpy(h.normal.data() + pixel * 4, r.normal, 8);
                h.depth[pixel] = r.depth;
                h.id[pixel] = r.id;
            }
    });
    hooks.endStage("points.resolve", nullptr);
    gl::DebugGroup upload("points.host.upload");
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    auto put = [&](const gl::Texture& texture, const void* data) {
        const gl::PixelTransfer transfer = gl::pixelTransferOf(texture.internalFormat());
        glTextureSubImage2D(texture.id(), 0, 0, 0, f.width, f.height, transfer.format,
                            transfer.type, data);
    };
    put(*t.color, h.color.data());
    put(*t.depth, h.depth.data());
    put(*t.normal, h.normal.data());
    put(*t.id, h.id.data());
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    gl::check("glTextureSubImage2D (points: G-buffer)");
}

} // namespace tandem::render
