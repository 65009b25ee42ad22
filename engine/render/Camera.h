// A camera as the frame sees it: a view (where the eye is, what it looks at, which way is up)
// and a lens (vertical field of view, depth range). Plain data with the matrices derived from
// it; controllers (OrbitController, camera paths) produce one per frame. No GL, any thread.
#pragma once

#include <glm/glm.hpp>

namespace tandem::render {

struct Camera {
    glm::vec3 eye{0.0f, 0.0f, 3.0f}; ///< world position
    glm::vec3 target{0.0f};          ///< the point looked at
    glm::vec3 up{0.0f, 1.0f, 0.0f};  ///< world up (not parallel to target - eye)
    float fovY = 45.0f;              ///< vertical field of view, degrees
    float nearPlane = 0.1f;          ///< view distance of the near plane, world units
    float farPlane = 100.0f;         ///< view distance of the far plane, world units

    /// World → view (right-handed, looking down -z).
    glm::mat4 view() const;
    /// Perspective projection for `aspect` = width / height (GL clip space, z in [-w, w]).
    glm::mat4 projection(float aspect) const;
};

} // namespace tandem::render
