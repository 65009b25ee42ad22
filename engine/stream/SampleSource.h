// The built-in sample: a deterministic procedural volumetric sequence made in memory (no file),
// a deforming, swirling blob whose surface ripples and twists over time, coloured by latitude
// and phase. As points (600 k a frame by default) or as a triangle mesh; 180 frames at 30 fps.
// The same index gives the same bytes on every machine and thread. Any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "engine/core/Result.h"
#include "engine/stream/Source.h"

namespace tandem::stream {

struct SampleSettings {
    bool mesh = false;             ///< a triangle mesh instead of points
    std::uint32_t points = 600000; ///< points a frame (mesh: about as many vertices)
    int frames = 180;
    double fps = 30.0;
};

/// Parses "sample", "sample:mesh", "sample:points=1000000", "sample:frames=300,fps=60" (keys
/// mesh, points, frames, fps, comma separated). Fails naming the bad part.
Result<SampleSettings> parseSample(const std::string& spec);
/// Whether `spec` names the sample ("sample" or "sample:…").
bool isSampleSpec(const std::string& spec);

/// The sample's frame `index` as a scene of one object.
render::Scene sampleFrame(const SampleSettings& settings, int index);

std::unique_ptr<Source> makeSampleSource(const SampleSettings& settings);

} // namespace tandem::stream
