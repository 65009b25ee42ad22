// Minimal leveled logging to stderr, safe to call from any thread. Messages at Warning and
// above always print; Info prints unless quiet; Debug only when verbose.
#pragma once

#include <string_view>

#include <fmt/format.h>

namespace tandem::log {

enum class Level { Debug, Info, Warning, Error };

/// Sets the lowest level that prints (default Info).
void setLevel(Level level);
/// The lowest level that prints.
Level level();

/// Writes one line "tandem: <level>: message" to stderr if `level` is enabled.
void write(Level level, std::string_view message);

template <class... Args> void debug(fmt::format_string<Args...> fmt, Args&&... args)
{
    if (level() <= Level::Debug)
        write(Level::Debug, fmt::format(fmt, std::forward<Args>(args)...));
}
template <class... Args> void info(fmt::format_string<Args...> fmt, Args&&... args)
{
    if (level() <= Level::Info)
        write(Level::Info, fmt::format(fmt, std::forward<Args>(args)...));
}
template <class... Args> void warning(fmt::format_string<Args...> fmt, Args&&... args)
{
    write(Level::Warning, fmt::format(fmt, std::forward<Args>(args)...));
}
template <class... Args> void error(fmt::format_string<Args...> fmt, Args&&... args)
{
    write(Level::Error, fmt::format(fmt, std::forward<Args>(args)...));
}

} // namespace tandem::log
