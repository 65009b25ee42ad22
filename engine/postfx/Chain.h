// The post-process chain as configured: an ordered list of stages, each enabled or not, with
// its parameters; parsed from and printed as "--postfx" text through the stages' descriptors.
// Plain data, no GL or CUDA, any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/core/Result.h"
#include "engine/postfx/Stage.h"

namespace tandem::postfx {

/// The chain: stages in order.
struct Chain {
    std::vector<Stage> stages;

    /// Stages that are enabled.
    std::size_t enabledCount() const;
};

/// Parses "none", or stages separated by commas, each "name" or "name:key=value:key=value"
/// ("tonemap:exposure=1,blur:radius=4"). Fails naming the bad stage, key or value and listing
/// what is valid; values out of range are errors, not clamped.
Result<Chain> parseChain(std::string_view text);

/// Prints a chain in the form parseChain() reads (all parameters spelled out).
std::string formatChain(const Chain& chain);

/// For --help: every stage with its parameters, ranges and defaults, one per line.
std::string describeStages();

} // namespace tandem::postfx
