// The order a person expects of numbered file names: "frame_2" before "frame_10". Used to sort
// the frames of folders and glob patterns. Pure string comparison (no locale, no file system),
// any thread.
#pragma once

#include <string_view>

namespace tandem::stream {

/// Whether `a` comes before `b` in natural order, a strict total order on byte strings:
/// 1. Both are read as runs of digits and single other bytes. A digit run compares with a digit
///    run by value (any length, leading zeros ignored: "007" = "7" < "10"); other bytes compare
///    ASCII case-insensitively ("B" = "b"), bytes as unsigned; a digit run meets another byte
///    as a digit would ("a1" < "a_": '1' < '_'). A string that is a prefix of the other comes
///    first.
/// 2. Equal so far: at the first pair of equal-valued digit runs with different numbers of
///    leading zeros, the one with fewer comes first ("f7" < "f07").
/// 3. Still equal: plain byte comparison ("Frame" < "frame").
bool naturalLess(std::string_view a, std::string_view b);

} // namespace tandem::stream
