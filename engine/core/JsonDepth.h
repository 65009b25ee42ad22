#pragma once

#include <cstddef>
#include <string_view>

namespace tandem {

/// The deepest nesting of arrays and objects in JSON `text` (brackets inside strings, escaped
/// quotes included, do not count), counting no further than `limit` + 1. Parsers that recurse a
/// level of the stack a level of JSON (nlohmann's, tinygltf's) are handed only text this says
/// is within their bound: checked before parsing, since a stack overflow cannot be caught. The
/// text need not be valid JSON; a stray closing bracket does not go below 0.
std::size_t jsonNestingDepth(std::string_view text, std::size_t limit);

} // namespace tandem
