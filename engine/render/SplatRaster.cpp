#include "engine/render/SplatRaster.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "engine/core/Log.h"
#include "engine/core/ThreadPool.h"
#include "engine/cuda/Copy.h"
#include "engine/render/detail/HostTargets.h"
#include "engine/render/detail/SplatReport.h"

#if !TANDEM_HAS_CUDA
#include "engine/core/Error.h"
#endif

namespace tandem::render {

using namespace splats;

namespace {

GaussianIn gaussianAt(const SplatScene& scene, const SplatFrame& f, std::uint32_t i)
{
    return {scene.positions + 3 * std::size_t{i}, scene.scales + 3 * std::size_t{i},
            scene.rotations + 4 * std::size_t{i}, scene.opacities[i],
            scene.sh + std::size_t{i} * static_cast<std::size_t>(f.shStride) * 3};
}

} // namespace

SplatArrays splatArrays(const io::GaussianData& g)
{
    SplatArrays a;
    a.count = static_cast<std::uint32_t>(g.count());
    a.shDegree = g.shDegree;
    a.positions.reserve(g.count() * 3);
    a.scales.reserve(g.count() * 3);
    a.rotations.reserve(g.count() * 4);
    for (std::size_t i = 0; i < g.count(); ++i) {
        for (int k = 0; k < 3; ++k) {
            a.positions.push_back(g.positions[i][k]);
            a.scales.push_back(g.scales[i][k]);
        }
        const glm::quat& q = g.rotations[i];
        a.rotations.insert(a.rotations.end(), {q.w, q.x, q.y, q.z});
    }
    a.opacities = g.opacities;
    a.sh = g.sh;
    return a;
}

SplatFrame makeSplatFrame(const Camera& camera, int width, int height, bool colorIsHalf,
                          const SplatLook& look, bool targetsDrawn)
{
    SplatFrame f{};
    const glm::mat4 view = camera.view() * look.model;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 4; ++c)
            f.view[r * 4 + c] = view[c][r];
    const glm::vec3 eye = glm::vec3(glm::inverse(look.model) * glm::vec4(camera.eye, 1.0f));
    for (int i = 0; i < 3; ++i)
        f.eye[i] = eye[i];
    const glm::mat4 projection =
        camera.projection(static_cast<float>(width) / static_cast<float>(std::max(height, 1)));
    // x_pixel = ((ndc + 1) size - 1) / 2, ndc = P00 x / depth: focal = size P00 / 2.
    f.focal[0] = static_cast<float>(width) * 0.5f * projection[0][0];
    f.focal[1] = static_cast<float>(height) * 0.5f * projection[1][1];
    f.centre[0] = (static_cast<float>(width) - 1.0f) * 0.5f;
    f.centre[1] = (static_cast<float>(height) - 1.0f) * 0.5f;
    f.limit[0] = FrustumSlack / projection[0][0];
    f.limit[1] = FrustumSlack / projection[1][1];
    f.width = width;
    f.height = height;
    f.tilesX = (width + TileSize - 1) / TileSize;
    f.tilesY = (height + TileSize - 1) / TileSize;
    f.scaleModifier = look.scaleModifier;
    f.shDegree = std::clamp(look.shDegree, 0, std::clamp(look.storedDegree, 0, MaxShDegree));
    f.shStride = shCount(std::clamp(look.storedDegree, 0, MaxShDegree));
    f.colorIsHalf = colorIsHalf ? 1 : 0;
    f.targetsDrawn = targetsDrawn ? 1 : 0;
    f.debug = look.debug;
    for (int c = 0; c < 3; ++c)
        f.background[c] = unorm8(look.background[c]);
    f.background[3] = 1.0f;
    const glm::vec3 facing = glm::normalize(camera.eye - camera.target);
    for (int i = 0; i < 3; ++i)
        f.facing[i] = facing[i];
    return f;
}

void renderSplatsHost(const SplatScene& scene, const SplatFrame& f, detail::HostTargets& targets,
                      std::vector<std::uint32_t>* counts)
{
    ThreadPool pool;
    const std::uint32_t n = scene.count;
    std::vector<ProjectedSplat> records(n);
    std::vector<Footprint> footprints(n);
    pool.parallelFor(static_cast<int>(n), [&](int begin, int end) {
        for (int i = begin; i < end; ++i) {
            const auto index = static_cast<std::uint32_t>(i);
            footprints[index] =
                projectGaussian(f, gaussianAt(scene, f, index), index, records[index]);
        }
    });
    // Front to back, ties by index: the order the CUDA pass's stable sorts give.
    std::vector<std::uint32_t> order;
    order.reserve(n);
    for (std::uint32_t i = 0; i < n; ++i)
        if (footprints[i].visible)
            order.push_back(i);
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        const std::uint32_t ka = depthKey(records[a]), kb = depthKey(records[b]);
        return ka != kb ? ka < kb : a < b;
    });
    const int tiles = f.tilesX * f.tilesY;
    std::vector<std::vector<std::uint32_t>> lists(static_cast<std::size_t>(tiles));
    for (const std::uint32_t g : order) {
        const Footprint& fp = footprints[g];
        for (int ty = fp.ty0; ty <= fp.ty1; ++ty)
            for (int tx = fp.tx0; tx <= fp.tx1; ++tx)
                if (touchesTile(records[g], tx, ty))
                    lists[static_cast<std::size_t>(ty) * f.tilesX + tx].push_back(g);
    }

    const bool half = f.colorIsHalf != 0;
    const bool centres = f.debug == SplatDebugCentres;
    const std::size_t pixels = static_cast<std::size_t>(f.width) * f.height;
    if (!f.targetsDrawn)
        targets.resize(pixels, half);
    if (counts)
        counts->assign(pixels, 0u);
    std::uint16_t facing[4];
    for (int c = 0; c < 3; ++c)
        facing[c] = floatToHalf(f.facing[c]);
    facing[3] = floatToHalf(1.0f);
    pool.parallelFor(f.height, [&](int begin, int end) {
        for (int py = begin; py < end; ++py)
            for (int px = 0; px < f.width; ++px) {
                const std::size_t pixel = static_cast<std::size_t>(py) * f.width + px;
                float under[4];
                float surface = 0.0f;
                if (f.targetsDrawn) {
                    surface = targets.depth[pixel];
                    if (half)
                        underFromHalf(reinterpret_cast<const std::uint16_t*>(targets.color.data()) +
                                          pixel * 4,
                                      under);
                    else
                        underFromRgba8(targets.color.data() + pixel * 4, under);
                } else {
                    std::memcpy(under, f.background, sizeof under);
                }
                PixelBlend blend = startBlend();
                const auto& list =
                    lists[static_cast<std::size_t>(py / TileSize) * f.tilesX + px / TileSize];
                for (const std::uint32_t g : list)
                    if (!blendGaussian(blend, records[g], px, py, surface, centres))
                        break;
                if (counts)
                    (*counts)[pixel] = blend.count;
                const SplatPixel out = finishPixel(f, blend, under);
                if (!out.writes)
                    continue;
                if (half)
                    storeHalf(out.rgba,
                              reinterpret_cast<std::uint16_t*>(targets.color.data()) + pixel * 4);
                else
                    storeRgba8(out.rgba, targets.color.data() + pixel * 4);
                if (out.setsDepth) {
                    targets.depth[pixel] = out.depth;
                    targets.id[pixel] = out.id;
                    if (out.id != 0u)
                        std::memcpy(targets.normal.data() + pixel * 4, facing, sizeof facing);
                    else
                        std::fill_n(targets.normal.data() + pixel * 4, 4, std::uint16_t{0});
                }
            }
    });
}

void detail::logSlowSplatFrame(std::size_t entries, std::size_t planned)
{
    log::warning("splats: {} tile entries did not fit the {} planned; that frame was drawn the "
                 "slow way, and the plan grows",
                 entries, planned);
}

void detail::logSplatEntryRoom(std::size_t entries)
{
    log::info("splats: room for {} tile entries ({:.1f} MiB)", entries,
              static_cast<double>(entries) * 16.0 / (1024.0 * 1024.0));
}

SplatScene SplatRaster::sceneOf(const DeviceSplatRegion& region, void* stream,
                                interop::PassHooks& hooks)
{
    cuda::streamWait(stream, region.ready);
    if (region.encoding == SplatEncoding::Packed)
        return unpack(region, stream, hooks);
    const SplatRegion r = splatRegion(region.count, region.shDegree, region.encoding, SplatAlign);
    const auto at = [&](std::size_t offset) {
        return reinterpret_cast<const float*>(static_cast<const std::uint8_t*>(region.region) +
                                              offset);
    };
    return {at(r.positions), at(r.scales), at(r.rotations),
            at(r.opacities), at(r.sh),     region.count};
}

#if !TANDEM_HAS_CUDA
struct SplatRaster::Scratch {};
SplatScene SplatRaster::unpack(const DeviceSplatRegion&, void*, interop::PassHooks&)
{
    throw Error("render::SplatRaster: this build has no CUDA");
}
void* SplatRaster::lastFrameDone() const
{
    return nullptr;
}
SplatRaster::SplatRaster() = default;
SplatRaster::~SplatRaster() = default;
void SplatRaster::render(const SplatScene&, const SplatFrame&, const SplatTargets&, void*,
                         interop::PassHooks&)
{
    throw Error("render::SplatRaster: this build has no CUDA");
}
SplatCounts SplatRaster::counts()
{
    return {};
}
void SplatRaster::setEntryCapacity(std::size_t) {}
#endif

} // namespace tandem::render
