#include "engine/render/OrbitCamera.h"

#include <algorithm>
#include <cmath>

#include <glm/gtc/matrix_transform.hpp>

namespace tandem::render {

void OrbitCamera::fit(const io::Bounds& bounds)
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

void OrbitCamera::orbit(float yawDegrees, float pitchDegrees)
{
    m_yaw = std::fmod(m_yaw + yawDegrees, 360.0f);
    m_pitch = std::clamp(m_pitch + pitchDegrees, -89.0f, 89.0f);
}

void OrbitCamera::setPose(float yawDegrees, float pitchDegrees, float distanceScale)
{
    m_yaw = std::fmod(yawDegrees, 360.0f);
    m_pitch = std::clamp(pitchDegrees, -89.0f, 89.0f);
    m_distance = m_fittedDistance * distanceScale;
}

void OrbitCamera::zoom(float factor)
{
    m_distance = std::clamp(m_distance * factor, m_sceneRadius * 0.01f, m_sceneRadius * 100.0f);
}

void OrbitCamera::pan(float dxFraction, float dyFraction)
{
    const glm::mat4 v = view();
    const glm::vec3 right(v[0][0], v[1][0], v[2][0]);
    const glm::vec3 up(v[0][1], v[1][1], v[2][1]);
    const float viewHeight = 2.0f * m_distance * std::tan(glm::radians(m_fovY) * 0.5f);
    m_target += (-dxFraction * right + dyFraction * up) * viewHeight;
}

glm::vec3 OrbitCamera::eye() const
{
    const float yaw = glm::radians(m_yaw);
    const float pitch = glm::radians(m_pitch);
    const glm::vec3 offset(std::cos(pitch) * std::sin(yaw), std::sin(pitch),
                           std::cos(pitch) * std::cos(yaw));
    return m_target + offset * m_distance;
}

glm::mat4 OrbitCamera::view() const
{
    return glm::lookAt(eye(), m_target, glm::vec3(0.0f, 1.0f, 0.0f));
}

float OrbitCamera::nearPlane() const
{
    // Enclose the scene sphere (wherever panning moved the target) with some margin, but never
    // closer than a thousandth of the scene size, to keep depth precision.
    const float toScene = glm::length(eye() - m_sceneCenter);
    return std::max(toScene - 1.05f * m_sceneRadius, 1e-3f * m_sceneRadius);
}

float OrbitCamera::farPlane() const
{
    return glm::length(eye() - m_sceneCenter) + 1.05f * m_sceneRadius;
}

glm::mat4 OrbitCamera::projection(float aspect) const
{
    return glm::perspective(glm::radians(m_fovY), aspect > 0.0f ? aspect : 1.0f, nearPlane(),
                            farPlane());
}

} // namespace tandem::render
