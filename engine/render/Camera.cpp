#include "engine/render/Camera.h"

#include <glm/gtc/matrix_transform.hpp>

namespace tandem::render {

glm::mat4 Camera::view() const
{
    return glm::lookAt(eye, target, up);
}

glm::mat4 Camera::projection(float aspect) const
{
    return glm::perspective(glm::radians(fovY), aspect > 0.0f ? aspect : 1.0f, nearPlane, farPlane);
}

} // namespace tandem::render
