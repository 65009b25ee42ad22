#include "engine/io/CameraPath.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "engine/core/File.h"

namespace tandem::io {

CameraPath CameraPath::orbit()
{
    CameraPath path;
    path.keys = {{0, 30, 20, 1}, {360, 390, 20, 1}};
    return path;
}

CameraKey CameraPath::at(float frame) const
{
    if (keys.empty())
        return {};
    if (keys.size() == 1 || frame <= keys.front().frame)
        return keys.front();
    const bool isOrbit = keys.size() == 2 && keys.back().yaw - keys.front().yaw == 360.0f;
    if (isOrbit) {
        // The default orbit repeats.
        const float period = keys.back().frame - keys.front().frame;
        frame = keys.front().frame + std::fmod(frame - keys.front().frame, period);
    }
    for (std::size_t i = 1; i < keys.size(); ++i) {
        if (frame <= keys[i].frame) {
            const CameraKey& a = keys[i - 1];
            const CameraKey& b = keys[i];
            const float t = (frame - a.frame) / std::max(1e-6f, b.frame - a.frame);
            return {frame, a.yaw + (b.yaw - a.yaw) * t, a.pitch + (b.pitch - a.pitch) * t,
                    a.distanceScale + (b.distanceScale - a.distanceScale) * t,
                    a.target + (b.target - a.target) * t};
        }
    }
    return keys.back();
}

void CameraPath::addKey(const CameraKey& key)
{
    auto at = std::lower_bound(keys.begin(), keys.end(), key.frame,
                               [](const CameraKey& k, float frame) { return k.frame < frame; });
    if (at != keys.end() && at->frame == key.frame)
        *at = key;
    else
        keys.insert(at, key);
}

std::string formatCameraPath(const CameraPath& path)
{
    nlohmann::json keys = nlohmann::json::array();
    for (const CameraKey& key : path.keys) {
        nlohmann::json entry = {{"frame", key.frame},
                                {"yaw", key.yaw},
                                {"pitch", key.pitch},
                                {"distance", key.distanceScale}};
        if (key.target != glm::vec3(0.0f))
            entry["target"] = {key.target.x, key.target.y, key.target.z};
        keys.push_back(entry);
    }
    return nlohmann::json{{"keyframes", keys}}.dump(1) + "\n";
}

Result<CameraPath> readCameraPath(const std::filesystem::path& path)
{
    auto text = readTextFile(path);
    if (!text)
        return fail(text.error());
    const auto json = nlohmann::json::parse(text.value(), nullptr, false);
    if (json.is_discarded())
        return fail(fmt::format("{}: not valid JSON", path.string()));
    if (!json.is_object() || !json.contains("keyframes") || !json["keyframes"].is_array() ||
        json["keyframes"].empty())
        return fail(fmt::format("{}: expected {{\"keyframes\": [{{\"frame\": 0, ...}}, ...]}}",
                                path.string()));
    CameraPath result;
    float last = -1e30f;
    for (const auto& entry : json["keyframes"]) {
        if (!entry.is_object())
            return fail(fmt::format("{}: each keyframe must be an object", path.string()));
        CameraKey key;
        auto number = [&](const char* name, float& out) -> bool {
            if (!entry.contains(name))
                return true;
            if (!entry[name].is_number())
                return false;
            // Through double: a number beyond float would overflow the conversion.
            const double value = entry[name].get<double>();
            if (!(std::abs(value) <= std::numeric_limits<float>::max()))
                return false;
            out = static_cast<float>(value);
            return true;
        };
        if (!number("frame", key.frame) || !number("yaw", key.yaw) || !number("pitch", key.pitch) ||
            !number("distance", key.distanceScale))
            return fail(
                fmt::format("{}: keyframe {}: frame, yaw, pitch and distance must be finite "
                            "numbers",
                            path.string(), result.keys.size()));
        if (entry.contains("target")) {
            const auto& t = entry["target"];
            bool good = t.is_array() && t.size() == 3;
            for (std::size_t i = 0; good && i < 3; ++i) {
                good = t[i].is_number() &&
                       std::abs(t[i].get<double>()) <= std::numeric_limits<float>::max();
                if (good)
                    key.target[static_cast<int>(i)] = static_cast<float>(t[i].get<double>());
            }
            if (!good)
                return fail(fmt::format("{}: keyframe {}: target must be three finite numbers",
                                        path.string(), result.keys.size()));
        }
        if (key.frame <= last)
            return fail(fmt::format("{}: keyframe {}: frames must increase", path.string(),
                                    result.keys.size()));
        if (key.distanceScale <= 0)
            return fail(fmt::format("{}: keyframe {}: distance must be positive", path.string(),
                                    result.keys.size()));
        last = key.frame;
        result.keys.push_back(key);
    }
    return result;
}

} // namespace tandem::io
