#include "engine/render/Scene.h"

namespace tandem::render {

io::Bounds Scene::bounds() const
{
    io::Bounds b;
    for (const auto& object : objects) {
        const io::Bounds o = object.mesh.bounds();
        if (!o.isEmpty()) {
            b.extend(o.min);
            b.extend(o.max);
        }
    }
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

} // namespace tandem::render
