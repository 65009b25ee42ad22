// The one definition of a post-process stage as the rest of the engine sees it: a descriptor
// (name, help, what it reads, its parameters with defaults, ranges and help) that the command
// line parser, the overlay, the run report and both backends read, and a configured stage of a
// chain (which stage, on or off, its parameter values). The stages themselves, each a
// descriptor plus its pixel function, are listed in Stages.h. Plain data, any thread.
#pragma once

#include <array>
#include <span>
#include <string_view>

namespace tandem::postfx {

/// Most parameters a stage has.
inline constexpr int MaxStageParams = 4;

/// One parameter: name on the command line and in the overlay, default, the inclusive range
/// values must lie in (out of range is an error, not clamped), whether it is an integer, help.
struct ParamDescriptor {
    const char* name = nullptr;
    float defaultValue = 0.0f;
    float min = 0.0f;
    float max = 0.0f;
    bool integer = false;
    const char* help = "";
};

/// What a stage reads besides its source (the previous stage's result, or the G-buffer colour).
enum StageInput : unsigned {
    ReadsSource = 1u,
    ReadsDepth = 2u,  ///< linear depth, R32F
    ReadsNormal = 4u, ///< world normal, RGBA16F
    ReadsId = 8u,     ///< primitive id, R32UI
};

struct StageDescriptor {
    const char* name; ///< "tonemap", "view-depth": the command line's and the timings' name
    const char* help; ///< one line
    unsigned reads;   ///< StageInput bits
    int paramCount;   ///< entries of `params` in use
    std::array<ParamDescriptor, MaxStageParams> params;
    /// The stage writes data shown as colour (depth, normals, ids), not linear colour: a chain
    /// holding one stores its result as it is instead of sRGB-encoding it.
    bool writesData = false;
};

/// Every stage's descriptor, in the order --help lists them; a stage's kind is its index here.
std::span<const StageDescriptor> stageDescriptors();
/// The kind of the stage named `name`, or -1.
int findStage(std::string_view name);

/// One configured stage of a chain.
struct Stage {
    int kind = 0; ///< index into stageDescriptors()
    bool enabled = true;
    std::array<float, MaxStageParams> params{}; ///< values in descriptor order

    /// A stage of `kind` with every parameter at its default.
    static Stage make(int kind);
    const StageDescriptor& descriptor() const { return stageDescriptors()[kind]; }
    const char* name() const { return descriptor().name; }
    /// The value of the parameter called `name`. Expects the stage to have it.
    float param(std::string_view name) const;
    /// Sets the parameter called `name`; false when it has none or `value` is out of range
    /// (or not an integer where one is expected).
    bool setParam(std::string_view name, float value);
};

} // namespace tandem::postfx
