#include "engine/render/PointPass.h"

#include <atomic>
#include <cmath>
#include <cstddef>
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
#include "engine/render/detail/HostTargets.h"

namespace tandem::render {

static_assert(sizeof(PointVertex) == sizeof(Vertex), "PointVertex mirrors Vertex");
static_assert(sizeof(PointObject) == sizeof(GpuObject), "PointObject mirrors GpuObject");

struct PointPass::Host {
    ThreadPool pool;
    interop::HostTransfer transfer;
    std::vector<PointVertex> vertices;
    std::vector<PointAttributes> attributes;
    std::uint64_t serial = 0; ///< the scene `vertices` and `attributes` were made from
    std::vector<std::atomic<std::uint64_t>> keys;
    detail::HostTargets targets;
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
                          const GeometryOptions& options, bool meshDrawn)
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
    f.sizePixels = options.pointSize;
    f.worldSize = options.pointWorldSize;
    f.focalPixels = focalPixels(camera, height);
    f.colorIsHalf = colorIsHalf ? 1 : 0;
    f.projection[0] = block.projection[0][0];
    f.projection[1] = block.projection[1][1];
    f.meshDrawn = meshDrawn ? 1 : 0;
    setBackground(f, linearBackground(options).data());
    return f;
}

void PointPass::setFrame(const GpuScene& scene, GBuffer& gbuffer, const Camera& camera,
                         const GeometryOptions& options, bool meshDrawn)
{
    m_scene = &scene;
    m_gbuffer = &gbuffer;
    m_frame = makePointFrame(camera, gbuffer.width(), gbuffer.height(),
                             gbuffer.colorFormat() == ColorFormat::Rgba16F, options, meshDrawn);
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
#ifdef TANDEM_HAS_CUDA
        const std::size_t count = scene.vertexCount();
        if (m_attributeCapacity < count) {
            m_attributeCapacity = 0; // still right if the allocation throws
            m_attributes.reserve(count, "packed point attributes");
            m_attributeCapacity = count;
            m_packedSerial = 0;
            log::info("points: {:.1f} MiB of packed point attributes (8 bytes a point)",
                      static_cast<double>(count * sizeof(PointAttributes)) / (1024.0 * 1024.0));
        }
#endif
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
    if (!m_device.positions)
        m_verticesRef =
            uses.buffer(m_scene->vertexBuffer(), m_scene->registrations(), Intent::Read);
    m_objectsRef = uses.buffer(m_scene->objectBuffer(), m_scene->registrations(), Intent::Read);
    const interop::FrameTextures t = m_gbuffer->frameTextures();
    // Read (the meshes' depth, to start the keys from) and written where a point wins.
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
    launch.objects = static_cast<const PointObject*>(view->pointer(m_objectsRef));
    launch.hostObjects = m_objects.data();
    launch.objectCount = static_cast<int>(m_objects.size());
    if (m_device.positions) {
        launch.vertices = nullptr;
        launch.positions = m_device.positions;
        launch.positionStride = 3;
        launch.attributes = nullptr;
        launch.packed = m_device.attributes;
        launch.pack = false;
    } else {
        launch.vertices = static_cast<const PointVertex*>(view->pointer(m_verticesRef));
        static_assert(offsetof(PointVertex, position) == 0, "a vertex starts with its position");
        launch.positions = reinterpret_cast<const float*>(launch.vertices);
        launch.positionStride = sizeof(PointVertex) / sizeof(float);
        launch.attributes = m_attributes.data();
        launch.packed = launch.attributes;
        launch.pack = m_packedSerial != m_scene->serial();
    }
    launch.keys = static_cast<std::uint64_t*>(view->pointer(m_visibilityRef));
    launch.pitch = m_gbuffer->capacityWidth();
    launch.depth = view->surface(m_depthRef);
    launch.color = view->surface(m_colorRef);
    launch.normal = view->surface(m_normalRef);
    launch.id = view->surface(m_idRef);
    rasterizePointsCuda(launch, hooks);
    if (!m_device.positions)
        m_packedSerial = m_scene->serial();
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
    // The scene's vertices, read back and packed once per scene (a blocking read: the host
    // path only).
    if (h.serial != m_scene->serial()) {
        const gl::Buffer& vertices = m_scene->vertexBuffer();
        h.vertices.resize(vertices.size() / sizeof(PointVertex));
        recordStall(StallCause::Readback);
        glGetNamedBufferSubData(vertices.id(), 0, static_cast<GLsizeiptr>(vertices.size()),
                                h.vertices.data());
        gl::check("glGetNamedBufferSubData (points: vertices)");
        h.attributes.assign(h.vertices.size(), PointAttributes{});
        for (const PointObject& object : m_objects)
            if (object.flags & ObjectIsPoints)
                for (std::uint32_t i = 0; i < object.vertexCount; ++i)
                    h.attributes[object.firstVertex + i] =
                        packPoint(h.vertices[object.firstVertex + i], object.flags);
        h.serial = m_scene->serial();
    }
    // The G-buffer as the meshes left it (its depth starts the keys; the rest is kept where no
    // point wins). Without meshes nothing drew it: every pixel is written below.
    if (f.meshDrawn) {
        h.targets.assign(h.transfer.download(t), pixels);
        h.transfer.release();
    } else {
        h.targets.resize(pixels, f.colorIsHalf != 0);
        h.targets.depth.assign(pixels, 0.0f);
    }
    if (h.keys.size() < pixels)
        h.keys = std::vector<std::atomic<std::uint64_t>>(pixels);

    hooks.beginStage("points.raster", nullptr);
    h.pool.parallelFor(f.height, [&](int begin, int end) {
        for (std::size_t i = static_cast<std::size_t>(begin) * f.width;
             i < static_cast<std::size_t>(end) * f.width; ++i)
            h.keys[i].store(initialKey(h.targets.depth[i]), std::memory_order_relaxed);
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
                for (int py = box.y0; py <= box.y1; ++py) {
                    const SplatRow row = splatRow(p, box, py);
                    for (int px = row.x0; px <= row.x1; ++px) {
                        if (!splatCovers(p, px, py))
                            continue;
                        detail::keepLeast(h.keys[static_cast<std::size_t>(py) * f.width + px], key);
                    }
                }
            }
        });
    }
    hooks.endStage("points.raster", nullptr);
    hooks.beginStage("points.resolve", nullptr);
    const ResolvedPixel background = backgroundPixel(f);
    h.pool.parallelFor(f.height, [&](int begin, int end) {
        for (int y = begin; y < end; ++y)
            for (int x = 0; x < f.width; ++x) {
                const std::size_t pixel = static_cast<std::size_t>(y) * f.width + x;
                const std::uint64_t key = h.keys[pixel].load(std::memory_order_relaxed);
                const auto index = static_cast<std::uint32_t>(key);
                const int o =
                    index == NoPointIndex
                        ? -1
                        : objectOf(m_objects.data(), static_cast<int>(m_objects.size()), index);
                if (o < 0 && f.meshDrawn)
                    continue;
                const ResolvedPixel r =
                    o < 0 ? background
                          : resolvePoint(f, h.attributes[index], keyDepth(key), x, y,
                                         pointId(m_objects[static_cast<std::size_t>(o)], index));
                h.targets.store(pixel, r, f.colorIsHalf != 0);
            }
    });
    hooks.endStage("points.resolve", nullptr);
    h.targets.upload(t, f.width, f.height, "points.host.upload");
}

} // namespace tandem::render
