// Counts and lists in messages: "1 frame", "2 frames", never "1 frames"; "a, b, c, …", never
// a thousand names on one line. Any thread.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tandem {

/// `count` followed by the noun that agrees with it: counted(1, "frame", "frames") is
/// "1 frame", counted(0, "frame", "frames") "0 frames".
inline std::string counted(std::uint64_t count, std::string_view one, std::string_view many)
{
    return fmt::format("{} {}", count, count == 1 ? one : many);
}

/// The first `most` of `names`, comma separated, then ", …" when there are more: a list whose
/// length the message bounds (say the count beside it).
inline std::string boundedList(const std::vector<std::string>& names, std::size_t most = 5)
{
    const std::size_t shown = std::min(names.size(), most);
    return fmt::format("{}{}", fmt::join(names.begin(), names.begin() + shown, ", "),
                       names.size() > shown ? ", …" : "");
}

} // namespace tandem
