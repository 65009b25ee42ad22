#include "engine/render/Scene.h"

namespace tandem::render {

io::Bounds Scene::bounds() const
{
    io::Bounds b;
    const auto add = [&](const io::Bounds& o) {
        if (!o.isEmpty()) {
            b.extend(o.min);
            b.extend(o.max);
        }
    };
    for (const auto& object : objects)
        add(object.mesh.bounds());
    for (const auto& splat : splats)
        add(splat.gaussians.bounds());
    return b;
}

std::size_t Scene::vertexCount() const
{
    std::size_t n = 0;
    for (const auto& object : objects)
        n += object.mesh.vertexCount();
    return n;
}

std::size_t Scene::triangleCount() const
{
    std::size_t n = 0;
    for (const auto& object : objects)
        n += object.mesh.triangleCount();
    return n;
}

std::size_t Scene::gaussianCount() const
{
    std::size_t n = 0;
    for (const auto& splat : splats)
        n += splat.gaussians.count();
    return n;
}

} // namespace tandem::render
