#include "engine/render/SceneLayout.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "engine/core/Error.h"

namespace tandem::render {

std::string formatGpuBytes(std::size_t bytes)
{
    const double mib = static_cast<double>(bytes) / (1024.0 * 1024.0);
    return mib >= 1024.0 ? fmt::format("{:.2f} GiB", mib / 1024.0) : fmt::format("{:.1f} MiB", mib);
}

std::size_t meshVertexEnd(const Scene& scene)
{
    std::size_t first = 0, end = 0;
    for (const auto& object : scene.objects) {
        const std::size_t count = object.mesh.positions.size();
        if (count > 0 && !object.mesh.isPointCloud())
            end = first + count;
        first += count;
    }
    return end;
}

std::size_t SceneCounts::bytes() const
{
    const std::size_t vertex =
        compact ? sizeof(glm::vec3) + sizeof(PointAttributes) : sizeof(Vertex);
    return std::size_t{objects} * sizeof(GpuObject) + std::size_t{vertices} * vertex +
           (std::size_t{indices} + provokingOffsets + provokingTriangles) * sizeof(std::uint32_t) +
           textureBytes() + splatRegion().bytes;
}

SplatRegion SceneCounts::splatRegion() const
{
    return render::splatRegion(splats, splatDegree, splatEncoding, SplatAlign);
}

SceneCounts SceneCounts::max(const SceneCounts& a, const SceneCounts& b)
{
    return {std::max(a.objects, b.objects),
            std::max(a.vertices, b.vertices),
            std::max(a.indices, b.indices),
            std::max(a.provokingOffsets, b.provokingOffsets),
            std::max(a.provokingTriangles, b.provokingTriangles),
            a.compact && b.compact,
            std::max(a.textureWidth, b.textureWidth),
            std::max(a.textureHeight, b.textureHeight),
            std::max(a.splats, b.splats),
            std::max(a.splatDegree, b.splatDegree),
            a.splatEncoding == SplatEncoding::Packed && b.splatEncoding == SplatEncoding::Packed
                ? SplatEncoding::Packed
                : SplatEncoding::F32};
}

bool SceneCounts::fitsIn(const SceneCounts& c) const
{
    return objects <= c.objects && vertices <= c.vertices && indices <= c.indices &&
           provokingOffsets <= c.provokingOffsets && provokingTriangles <= c.provokingTriangles;
}

SceneCounts SceneView::counts() const
{
    return {static_cast<std::uint32_t>(objects.size()),
            static_cast<std::uint32_t>(isCompact() ? positions.size() : vertices.size()),
            static_cast<std::uint32_t>(indices.size()),
            static_cast<std::uint32_t>(provokingOffsets.size()),
            static_cast<std::uint32_t>(provokingTriangles.size()),
            isCompact(),
            textureWidth,
            textureHeight,
            splats.count,
            static_cast<std::uint8_t>(splats.shDegree),
            splats.encoding};
}

void checkIndexable(std::size_t vertices, std::size_t indices)
{
    if (vertices > std::numeric_limits<std::uint32_t>::max() - 1 ||
        indices > std::numeric_limits<std::uint32_t>::max())
        throw Error(fmt::format("a scene of {} vertices and {} indices exceeds 32-bit indexing",
                                vertices, indices),
                    "render::checkIndexable");
}

Vertex vertexOf(const io::MeshData& mesh, std::size_t i)
{
    Vertex v;
    v.position = mesh.positions[i];
    v.normal = mesh.normals.empty() ? glm::vec3(0.0f) : mesh.normals[i];
    v.color = mesh.colors.empty() ? glm::u8vec4(255) : mesh.colors[i];
    v.texcoord = mesh.texcoords.empty() ? glm::vec2(0.0f) : mesh.texcoords[i];
    return v;
}

void buildProvokingTable(std::span<const std::uint32_t> indices, std::span<std::uint32_t> offsets,
                         std::span<std::uint32_t> byVertex)
{
    const std::size_t triangles = indices.size() / 3;
    std::fill(offsets.begin(), offsets.end(), 0u);
    for (std::size_t t = 0; t < triangles; ++t)
        ++offsets[indices[3 * t + 2] + 1];
    for (std::size_t v = 0; v + 1 < offsets.size(); ++v)
        offsets[v + 1] += offsets[v];
    std::vector<std::uint32_t> next(offsets.begin(), offsets.end() - (offsets.empty() ? 0 : 1));
    for (std::size_t t = 0; t < triangles; ++t)
        byVertex[next[indices[3 * t + 2]]++] = static_cast<std::uint32_t>(t);
}

SceneCounts sceneCounts(const Scene& scene)
{
    SceneCounts c;
    forEachRecord(scene, [&](const GpuObject&, const SceneObject&) { ++c.objects; });
    checkIndexable(scene.vertexCount(), scene.triangleCount() * 3);
    c.vertices = static_cast<std::uint32_t>(scene.vertexCount());
    c.indices = static_cast<std::uint32_t>(scene.triangleCount() * 3);
    const std::size_t end = meshVertexEnd(scene);
    c.provokingOffsets = c.indices > 0 ? static_cast<std::uint32_t>(end + 1) : 0u;
    c.provokingTriangles = c.indices / 3;
    c.compact = c.vertices > 0 && c.indices == 0;
    for (const auto& object : scene.objects)
        c.compact = c.compact && object.mesh.isPointCloud();
    if (!scene.texture.pixels.empty()) {
        c.textureWidth = static_cast<std::uint32_t>(scene.texture.width);
        c.textureHeight = static_cast<std::uint32_t>(scene.texture.height);
    }
    std::size_t splats = 0;
    for (const SplatObject& object : scene.splats) {
        splats += object.gaussians.count();
        c.splatDegree =
            std::max(c.splatDegree, static_cast<std::uint8_t>(object.gaussians.shDegree));
    }
    if (splats > std::numeric_limits<std::uint32_t>::max())
        throw Error(fmt::format("a scene of {} Gaussians exceeds 32-bit counts", splats),
                    "render::sceneCounts");
    c.splats = static_cast<std::uint32_t>(splats);
    return c;
}

void layOutSplats(const Scene& scene, SplatEncoding encoding, std::span<std::uint8_t> out)
{
    std::uint32_t count = 0;
    int degree = 0;
    for (const SplatObject& object : scene.splats) {
        count += static_cast<std::uint32_t>(object.gaussians.count());
        degree = std::max(degree, object.gaussians.shDegree);
    }
    const SplatRegion r = splatRegion(count, degree, encoding, SplatAlign);
    TANDEM_ASSERT(out.size() >= r.bytes, "render::layOutSplats: the region is too small");
    std::fill(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(r.bytes), std::uint8_t{0});
    const auto at = [&](std::size_t offset) {
        return reinterpret_cast<float*>(out.data() + offset);
    };
    const std::size_t stride = static_cast<std::size_t>(io::shCoefficients(degree)) * 3;
    std::vector<float> sh(stride);
    std::size_t i = 0;
    for (const SplatObject& object : scene.splats) {
        const io::GaussianData& g = object.gaussians;
        const std::size_t own = static_cast<std::size_t>(io::shCoefficients(g.shDegree)) * 3;
        for (std::size_t j = 0; j < g.count(); ++j, ++i) {
            const glm::quat& q = g.rotations[j];
            const float rotation[4] = {q.w, q.x, q.y, q.z};
            std::copy_n(g.sh.begin() + static_cast<std::ptrdiff_t>(j * own), own, sh.begin());
            std::fill(sh.begin() + static_cast<std::ptrdiff_t>(own), sh.end(), 0.0f);
            if (encoding == SplatEncoding::F32) {
                std::copy_n(&g.positions[j].x, 3, at(r.positions) + i * 3);
                std::copy_n(&g.scales[j].x, 3, at(r.scales) + i * 3);
                std::copy_n(rotation, 4, at(r.rotations) + i * 4);
                at(r.opacities)[i] = g.opacities[j];
                std::copy_n(sh.begin(), stride, at(r.sh) + i * stride);
            } else {
                auto* rest = reinterpret_cast<std::int8_t*>(
                    out.data() + r.rest + i * static_cast<std::size_t>(shRestBytes(degree)));
                const PackedSplat p = packSplat(&g.positions[j].x, &g.scales[j].x, rotation,
                                                g.opacities[j], sh.data(), degree, rest);
                std::memcpy(out.data() + r.records + i * sizeof(PackedSplat), &p, sizeof p);
            }
        }
    }
}

namespace {

/// The F32 arrays of region `view` (expects an F32 view).
struct F32Arrays {
    const float *positions, *scales, *rotations, *opacities, *sh;
};
F32Arrays f32Arrays(const SplatView& view)
{
    const SplatRegion r = view.layout();
    const auto at = [&](std::size_t offset) {
        return reinterpret_cast<const float*>(view.region.data() + offset);
    };
    return {at(r.positions), at(r.scales), at(r.rotations), at(r.opacities), at(r.sh)};
}

} // namespace

void packSplatRegion(const SplatView& from, std::span<std::uint8_t> out)
{
    TANDEM_ASSERT(from.encoding == SplatEncoding::F32, "render::packSplatRegion: not F32");
    const SplatRegion r = splatRegion(from.count, from.shDegree, SplatEncoding::Packed, SplatAlign);
    TANDEM_ASSERT(out.size() >= r.bytes, "render::packSplatRegion: the region is too small");
    std::fill(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(r.bytes), std::uint8_t{0});
    const F32Arrays a = f32Arrays(from);
    const std::size_t stride = static_cast<std::size_t>(io::shCoefficients(from.shDegree)) * 3;
    const auto restBytes = static_cast<std::size_t>(shRestBytes(from.shDegree));
    for (std::size_t i = 0; i < from.count; ++i) {
        auto* rest = reinterpret_cast<std::int8_t*>(out.data() + r.rest + i * restBytes);
        const PackedSplat p = packSplat(a.positions + i * 3, a.scales + i * 3, a.rotations + i * 4,
                                        a.opacities[i], a.sh + i * stride, from.shDegree, rest);
        std::memcpy(out.data() + r.records + i * sizeof(PackedSplat), &p, sizeof p);
    }
}

void unpackSplatRegion(const SplatView& view, std::vector<float>& positions,
                       std::vector<float>& scales, std::vector<float>& rotations,
                       std::vector<float>& opacities, std::vector<float>& sh)
{
    const std::size_t n = view.count;
    const std::size_t stride = static_cast<std::size_t>(io::shCoefficients(view.shDegree)) * 3;
    if (view.encoding == SplatEncoding::F32) {
        const F32Arrays a = f32Arrays(view);
        positions.assign(a.positions, a.positions + n * 3);
        scales.assign(a.scales, a.scales + n * 3);
        rotations.assign(a.rotations, a.rotations + n * 4);
        opacities.assign(a.opacities, a.opacities + n);
        sh.assign(a.sh, a.sh + n * stride);
        return;
    }
    positions.resize(n * 3);
    scales.resize(n * 3);
    rotations.resize(n * 4);
    opacities.resize(n);
    sh.resize(n * stride);
    const SplatRegion r = view.layout();
    const auto restBytes = static_cast<std::size_t>(shRestBytes(view.shDegree));
    for (std::size_t i = 0; i < n; ++i) {
        PackedSplat p;
        std::memcpy(&p, view.region.data() + r.records + i * sizeof(PackedSplat), sizeof p);
        const auto* rest =
            reinterpret_cast<const std::int8_t*>(view.region.data() + r.rest + i * restBytes);
        unpackSplat(p, rest, view.shDegree, &positions[i * 3], &scales[i * 3], &rotations[i * 4],
                    &opacities[i], &sh[i * stride]);
    }
}

void layOutScene(const Scene& scene, const SceneArrays& out)
{
    std::size_t object = 0, vertex = 0, index = 0;
    const bool compact = !out.positions.empty();
    forEachRecord(scene, [&](const GpuObject& record, const SceneObject& o) {
        out.objects[object++] = record;
        const io::MeshData& mesh = o.mesh;
        for (std::size_t i = 0; i < mesh.positions.size(); ++i, ++vertex) {
            const Vertex v = vertexOf(mesh, i);
            if (!compact) {
                out.vertices[vertex] = v;
                continue;
            }
            // The attributes the CUDA point pass would pack from the vertex, packed now.
            PointVertex p;
            std::memcpy(&p, &v, sizeof(p));
            out.positions[vertex] = v.position;
            out.attributes[vertex] = packPoint(p, record.flags);
        }
        for (std::uint32_t i : mesh.indices)
            out.indices[index++] = record.firstVertex + i;
    });
    if (!out.provokingOffsets.empty())
        buildProvokingTable(out.indices, out.provokingOffsets, out.provokingTriangles);
    if (!out.texels.empty())
        std::memcpy(out.texels.data(), scene.texture.pixels.data(), out.texels.size());
}

Result<bool> validateScene(const SceneView& view, const std::string& name)
{
    if (view.isCompact() && (view.attributes.size() != view.positions.size() ||
                             !view.vertices.empty() || !view.indices.empty()))
        return fail(fmt::format("{}: compact points with {} positions, {} attributes, {} "
                                "vertices and {} indices",
                                name, view.positions.size(), view.attributes.size(),
                                view.vertices.size(), view.indices.size()));
    const std::size_t vertices = view.isCompact() ? view.positions.size() : view.vertices.size();
    if (view.textureWidth > MaxTextureSize || view.textureHeight > MaxTextureSize ||
        (view.textureWidth == 0) != (view.textureHeight == 0) ||
        view.texels.size() != view.counts().textureBytes())
        return fail(fmt::format("{}: a {}x{} texture with {} bytes", name, view.textureWidth,
                                view.textureHeight, view.texels.size()));
    std::size_t triangles = 0, vertexEnd = 0;
    for (const GpuObject& o : view.objects) {
        if (std::size_t{o.firstVertex} + o.vertexCount > vertices)
            return fail(fmt::format("{}: an object's vertices {}..{} lie past the {} vertices",
                                    name, o.firstVertex, std::size_t{o.firstVertex} + o.vertexCount,
                                    vertices));
        if (view.isCompact() && !(o.flags & ObjectIsPoints))
            return fail(fmt::format("{}: a mesh object among compact points", name));
        if ((o.flags & ObjectHasTexture) && view.texels.empty())
            return fail(fmt::format("{}: a textured object and no texture", name));
        if (!(o.flags & ObjectIsPoints))
            vertexEnd =
                std::max<std::size_t>(vertexEnd, std::size_t{o.firstVertex} + o.vertexCount);
    }
    if (view.indices.size() % 3 != 0)
        return fail(
            fmt::format("{}: {} indices are not whole triangles", name, view.indices.size()));
    triangles = view.indices.size() / 3;
    for (std::uint32_t i : view.indices)
        if (i >= vertices)
            return fail(fmt::format("{}: triangle index {} is out of range ({} vertices)", name, i,
                                    vertices));
    if (triangles > 0) {
        if (view.provokingTriangles.size() != triangles ||
            view.provokingOffsets.size() < vertexEnd + 1 ||
            view.provokingOffsets.size() > vertices + 1)
            return fail(
                fmt::format("{}: the provoking-vertex table does not match the triangles", name));
        std::uint32_t previous = 0;
        for (std::uint32_t offset : view.provokingOffsets) {
            if (offset < previous || offset > triangles)
                return fail(fmt::format("{}: the provoking-vertex table is out of order", name));
            previous = offset;
        }
        for (std::uint32_t t : view.provokingTriangles)
            if (t >= triangles)
                return fail(fmt::format("{}: the provoking-vertex table names triangle {} of {}",
                                        name, t, triangles));
    }
    return true;
}

std::size_t gpuBytesOf(const Scene& scene)
{
    const std::size_t triangles = scene.triangleCount();
    return scene.vertexCount() * sizeof(Vertex) + triangles * 3 * sizeof(std::uint32_t) +
           (meshVertexEnd(scene) + 1 + triangles) * sizeof(std::uint32_t) +
           scene.objects.size() * sizeof(GpuObject) + scene.texture.pixels.size();
}

Result<std::size_t> checkGpuMemory(const Scene& scene, std::size_t freeBytes)
{
    const std::size_t needed = gpuBytesOf(scene);
    if (freeBytes > 0 && needed > freeBytes)
        return fail(fmt::format("the scene ({} vertices, {} triangles) needs {} of GPU memory, "
                                "and the GPU has {} free",
                                scene.vertexCount(), scene.triangleCount(), formatGpuBytes(needed),
                                formatGpuBytes(freeBytes)));
    return needed;
}

} // namespace tandem::render
