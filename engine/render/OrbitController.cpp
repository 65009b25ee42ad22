#include "engine/render/OrbitController.h"

#include <algorithm>
#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

namespace tandem::render {

void OrbitController::fit(const io::Bounds& bounds)
{
    m_sceneRadius = bounds.isEmpty() || bounds.radius() <= 0.0f ? 1.0f : bounds.radius();
    m_target = bounds.isEmpty() ? glm::vec3(0.0f) : bounds.center();
    m_sceneCenter = m_target;
    const float halfFov = glm::radians(m_fovY) * 0.5f;
    m_distance = m_sceneRadius / std::sin(halfFov) * 1.05f;
    m_fittedDistance = m_distance;
    m_yaw = 30.0f;
    m_pitch = 20.0f;
}

void OrbitController::orbit(float yawDegrees, float pitchDegrees)
{
    m_yaw = std::fmod(m_yaw + yawDegrees, 360.0f);
    m_pitch = std::clamp(m_pitch + pitchDegrees, -89.0f, 89.0f);
}

void OrbitController::setPose(float yawDegrees, float pitchDegrees, float distanceScale,
                              glm::vec3 targetOffset)
{
    m_yaw = std::fmod(yawDegrees, 360.0f);
    m_pitch = std::clamp(pitchDegrees, -89.0f, 89.0f);
    m_distance = m_fittedDistance * distanceScale;
    m_target = m_sceneCenter + targetOffset * m_sceneRadius;
}

void OrbitController::zoom(float factor)
{
    m_distance = std::clamp(m_distance * factor, m_sceneRadius * 0.01f, m_sceneRadius * 100.0f);
}

void OrbitController::pan(float dxFraction, float dyFraction)
{
    const glm::mat4 v = camera().view();
    const glm::vec3 right(v[0][0], v[1][0], v[2][0]);
    const glm::vec3 up(v[0][1], v[1][1], v[2][1]);
    const float viewHeight = 2.0f * m_distance * std::tan(glm::radians(m_fovY) * 0.5f);
    m_target += (-dxFraction * right + dyFraction * up) * viewHeight;
}

glm::vec3 OrbitController::eye() const
{
    const float yaw = glm::radians(m_yaw);
    const float pitch = glm::radians(m_pitch);
    const glm::vec3 offset(std::cos(pitch) * std::sin(yaw), std::sin(pitch),
                           std::cos(pitch) * std::cos(yaw));
    return m_target + offset * m_distance;
}

Camera OrbitController::camera() const
{
    Camera camera;
    camera.eye = eye();
    camera.target = m_target;
    camera.up = glm::vec3(0.0f, 1.0f, 0.0f);
    camera.fovY = m_fovY;
    // Enclose the scene sphere (wherever panning moved the target) with some margin, but never
    // closer than a thousandth of the scene size, to keep depth precision.
    const float toScene = glm::length(camera.eye - m_sceneCenter);
    camera.nearPlane = std::max(toScene - 1.05f * m_sceneRadius, 1e-3f * m_sceneRadius);
    camera.farPlane = toScene + 1.05f * m_sceneRadius;
    return camera;
}

} // namespace tandem::render
