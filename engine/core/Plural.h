// Counts in messages: "1 frame", "2 frames", never "1 frames". Any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace tandem {

/// `count` followed by the noun that agrees with it: counted(1, "frame", "frames") is
/// "1 frame", counted(0, "frame", "frames") "0 frames".
inline std::string counted(std::uint64_t count, std::string_view one, std::string_view many)
{
    return fmt::format("{} {}", count, count == 1 ? one : many);
}

} // namespace tandem
