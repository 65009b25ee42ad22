#include "engine/core/Log.h"

#include <atomic>
#include <cstdio>
#include <mutex>

namespace tandem::log {

namespace {

std::atomic<Level> g_level{Level::Info};
std::mutex g_writeMutex;

const char* name(Level level)
{
    switch (level) {
    case Level::Debug:
        return "debug";
    case Level::Info:
        return "info";
    case Level::Warning:
        return "warning";
    case Level::Error:
        return "error";
    }
    return "?";
}

} // namespace

void setLevel(Level level)
{
    g_level.store(level, std::memory_order_relaxed);
}

Level level()
{
    return g_level.load(std::memory_order_relaxed);
}

void write(Level messageLevel, std::string_view message)
{
    if (messageLevel < level())
        return;
    std::lock_guard lock(g_writeMutex);
    std::fprintf(stderr, "tandem: %s: %.*s\n", name(messageLevel), static_cast<int>(message.size()),
                 message.data());
    std::fflush(stderr);
}

} // namespace tandem::log
