#include "engine/render/TriangleRaster.h"

#include <algorithm>
#include <vector>

#include "engine/render/TriangleRasterMath.h"

#if !TANDEM_HAS_CUDA
#include "engine/core/Error.h"
#endif

namespace tandem::render {

void rasterizeTrianglesHost(const float* positions, const std::uint32_t* triangles, float* output,
                            const ClipRasterShape& shape, std::uint64_t* keys)
{
    using namespace triangles;
    using triangles::Vertex; // not SceneLayout.h's, which a unity build may see here
    const int width = shape.width, height = shape.height;
    const std::size_t pixels = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
    std::vector<std::uint64_t> item(pixels);
    const auto* vertices = reinterpret_cast<const Vertex*>(positions);
    for (std::size_t b = 0; b < shape.batch; ++b) {
        const Vertex* batch = vertices + b * shape.vertices;
        std::fill(item.begin(), item.end(), EmptyKey);
        for (std::size_t t = 0; t < shape.triangles; ++t) {
            const std::uint32_t* index = triangles + 3 * t;
            if (index[0] >= shape.vertices || index[1] >= shape.vertices ||
                index[2] >= shape.vertices)
                continue;
            const Vertex triangle[3] = {batch[index[0]], batch[index[1]], batch[index[2]]};
            forEachPiece(triangle, width, height, [&](const Snapped& s) {
                for (int py = s.bounds.y0; py <= s.bounds.y1; ++py)
                    for (int px = s.bounds.x0; px <= s.bounds.x1; ++px) {
                        float depth;
                        if (!cover(s, px, py, depth))
                            continue;
                        std::uint64_t& key = item[static_cast<std::size_t>(py) * width + px];
                        const std::uint64_t mine = keyOf(depth, static_cast<std::uint32_t>(t));
                        key = mine < key ? mine : key;
                    }
            });
        }
        float* out = output + b * pixels * 4;
        for (int py = 0; py < height; ++py)
            for (int px = 0; px < width; ++px) {
                const std::size_t p = static_cast<std::size_t>(py) * width + px;
                float value[4] = {0.0f, 0.0f, 0.0f, 0.0f};
                if (item[p] != EmptyKey) {
                    const auto t = static_cast<std::uint32_t>(item[p] & 0xffffffffu);
                    const std::uint32_t* index = triangles + 3 * static_cast<std::size_t>(t);
                    resolve(batch[index[0]], batch[index[1]], batch[index[2]], px, py, width,
                            height, t, value);
                }
                for (int c = 0; c < 4; ++c)
                    out[4 * p + c] = value[c];
            }
        if (keys)
            std::copy(item.begin(), item.end(), keys + b * pixels);
    }
}

#if !TANDEM_HAS_CUDA
struct TriangleRaster::Scratch {};
TriangleRaster::TriangleRaster() = default;
TriangleRaster::~TriangleRaster() = default;
void TriangleRaster::rasterize(const float*, const std::uint32_t*, float*, const ClipRasterShape&,
                               void*)
{
    throw Error("render::TriangleRaster: this build has no CUDA");
}
const std::uint64_t* TriangleRaster::drawKeys(const float*, const std::uint32_t*, std::size_t,
                                              std::size_t, int, int, void*)
{
    throw Error("render::TriangleRaster: this build has no CUDA");
}
const std::uint64_t* TriangleRaster::keys() const
{
    return nullptr;
}
#endif

} // namespace tandem::render
