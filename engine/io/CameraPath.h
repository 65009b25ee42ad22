// Deterministic camera paths for benchmark runs: the default orbit, or keyframes from a JSON
// file, sampled by frame number so two runs see the same frames. Any thread.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "engine/core/Result.h"

namespace tandem::io {

/// One pose of the orbit camera, relative to the fitted view.
struct CameraKey {
    float frame = 0;         ///< frame number at which this pose holds
    float yaw = 30;          ///< degrees
    float pitch = 20;        ///< degrees
    float distanceScale = 1; ///< multiple of the fitted distance
    /// Where the camera looks: the fitted centre plus this, in multiples of the fitted radius
    /// (what panning moves).
    glm::vec3 target{0.0f};
};

/// A camera path: poses interpolated linearly between keyframes, held after the last.
struct CameraPath {
    std::vector<CameraKey> keys; ///< ascending frame numbers, at least one

    /// The default benchmark path: a full orbit every 360 frames at the fitted distance.
    static CameraPath orbit();
    /// The pose at `frame`.
    CameraKey at(float frame) const;
    /// Adds `key` in frame order, replacing a key at the same frame.
    void addKey(const CameraKey& key);
};

/// Reads {"keyframes": [{"frame": 0, "yaw": 0, "pitch": 20, "distance": 1, "target": [0, 0, 0]},
/// ...]} (distance is the multiple of the fitted distance, target the offset from the fitted
/// centre in fitted radii; missing fields keep the defaults). Fails naming the file and the
/// problem.
Result<CameraPath> readCameraPath(const std::filesystem::path& path);

/// The JSON readCameraPath() reads.
std::string formatCameraPath(const CameraPath& path);

} // namespace tandem::io
