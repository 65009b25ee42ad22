// Errors for setup failures (throw tandem::Error) and debug-build precondition checks
// (TANDEM_ASSERT). Bad external data is not an exception: see core/Result.h.
// Thread-agnostic.
#pragma once

#include <source_location>
#include <stdexcept>
#include <string>

namespace tandem {

/// A setup failure: a context that cannot be created, a shader that does not compile, a driver
/// call that failed. Carries the failing call, file:line and the driver's text.
class Error : public std::runtime_error {
public:
    /// Builds "what (call at file:line)"; `call` names the API call or operation that failed.
    Error(const std::string& what, const std::string& call = {},
          std::source_location where = std::source_location::current());

    /// The API call or operation that failed, possibly empty.
    const std::string& call() const { return m_call; }

private:
    std::string m_call;
};

/// Prints "assertion failed: message (file:line)" and aborts. Used by TANDEM_ASSERT.
[[noreturn]] void assertionFailed(const char* condition, const char* message,
                                  std::source_location where);

} // namespace tandem

/// Checks a precondition in debug builds; compiled out otherwise. The message names the function
/// and what was expected: TANDEM_ASSERT(id != 0, "gl::Buffer::write(): buffer was moved from").
#ifdef TANDEM_DEBUG
#define TANDEM_ASSERT(condition, message)                                                          \
    do {                                                                                           \
        if (!(condition))                                                                          \
            ::tandem::assertionFailed(#condition, message, std::source_location::current());       \
    } while (false)
#else
#define TANDEM_ASSERT(condition, message)                                                          \
    do {                                                                                           \
    } while (false)
#endif
