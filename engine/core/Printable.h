// Text from files (frame names, paths inside a pack) made safe to print on a terminal: control
// characters, which a terminal would obey (an escape sequence clears the screen or retitles
// the window), are shown as escapes instead. Any thread.
#pragma once

#include <string>
#include <string_view>

namespace tandem {

/// `text` with every C0 control (0x00-0x1f), DEL (0x7f), C1 control (U+0080-U+009F, which
/// terminals obey too) and byte that is not UTF-8 shown as \xNN (each of its bytes), and a
/// backslash as \\, so what is printed says which bytes the text holds. Valid UTF-8 otherwise
/// passes through.
std::string printable(std::string_view text);

} // namespace tandem
