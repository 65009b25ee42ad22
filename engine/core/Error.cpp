#include "engine/core/Error.h"

#include <cstdio>
#include <cstdlib>

namespace tandem {

namespace {

std::string describe(const std::string& what, const std::string& call,
                     const std::source_location& where)
{
    std::string text = what;
    text += " (";
    if (!call.empty()) {
        text += call;
        text += " at ";
    }
    text += where.file_name();
    text += ':';
    text += std::to_string(where.line());
    text += ')';
    return text;
}

} // namespace

Error::Error(const std::string& what, const std::string& call, std::source_location where)
    : std::runtime_error(describe(what, call, where)), m_call(call)
{}

void assertionFailed(const char* condition, const char* message, std::source_location where)
{
    std::fprintf(stderr, "assertion failed: %s [%s] (%s:%u)\n", message, condition,
                 where.file_name(), static_cast<unsigned>(where.line()));
    std::fflush(stderr);
    std::abort();
}

} // namespace tandem
