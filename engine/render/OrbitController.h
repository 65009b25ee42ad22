// Moves a camera around a target point: yaw/pitch/distance, fitted to a scene's bounds, with
// mouse-style orbit, zoom and pan, and a depth range that encloses the scene. Produces a Camera
// (a view) each frame; it is not one. Pure math, no GL, any thread.
#pragma once

#include <glm/glm.hpp>

#include "engine/io/MeshData.h"
#include "engine/render/Camera.h"

namespace tandem::render {

/// Orbits `target`. Y is up.
class OrbitController {
public:
    /// Frames `bounds`: targets its centre from a distance where the bounding sphere fills the
    /// view, looking from the front and slightly above. Empty bounds frame the unit sphere.
    void fit(const io::Bounds& bounds);

    /// Rotates by `yawDegrees` around the up axis and `pitchDegrees` up/down (pitch clamped
    /// short of the poles).
    void orbit(float yawDegrees, float pitchDegrees);
    /// Sets yaw and pitch (degrees), the distance as a multiple of the fitted one, and the
    /// target as the fitted centre plus `targetOffset` fitted radii.
    void setPose(float yawDegrees, float pitchDegrees, float distanceScale,
                 glm::vec3 targetOffset = glm::vec3(0.0f));
    /// Multiplies the distance by `factor` (< 1 moves closer), kept within sensible limits.
    void zoom(float factor);
    /// Moves the target in the view plane by a fraction of the view height.
    void pan(float dxFraction, float dyFraction);

    /// The camera for the current pose: eye, target, lens, and near/far planes that enclose the
    /// fitted scene (never nearer than a thousandth of its size, to keep depth precision).
    Camera camera() const;

    glm::vec3 eye() const;
    glm::vec3 target() const { return m_target; }
    float distance() const { return m_distance; }
    float yaw() const { return m_yaw; }
    float pitch() const { return m_pitch; }
    float fovY() const { return m_fovY; }
    /// The distance as a multiple of the fitted one (what setPose() takes).
    float distanceScale() const { return m_distance / m_fittedDistance; }
    /// The target's offset from the fitted centre in fitted radii (what setPose() takes).
    glm::vec3 targetOffset() const { return (m_target - m_sceneCenter) / m_sceneRadius; }

private:
    glm::vec3 m_target{0.0f};
    float m_distance = 3.0f;
    float m_yaw = 30.0f;   ///< degrees
    float m_pitch = 20.0f; ///< degrees
    float m_fovY = 45.0f;  ///< degrees
    float m_sceneRadius = 1.0f;
    glm::vec3 m_sceneCenter{0.0f};
    float m_fittedDistance = 3.0f;
};

} // namespace tandem::render
