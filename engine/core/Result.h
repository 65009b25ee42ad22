// A value or a message saying what is wrong with external data (a file, a frame). Used where a
// failure is an ordinary outcome, not a bug: loaders return it, apps print "error: ...".
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/Error.h"

namespace tandem {

/// What went wrong with a piece of external data, in one human sentence.
struct Failure {
    std::string message;
};

/// Makes a Failure from a message.
inline Failure fail(std::string message)
{
    return Failure{std::move(message)};
}

/// Either a T or a Failure, plus warnings gathered on the way (a missing .mtl, say).
template <class T> class Result {
public:
    Result(T value) : m_value(std::move(value)) {}
    Result(Failure failure) : m_error(std::move(failure.message)) {}

    /// Whether a value is held.
    bool isOk() const { return m_value.has_value(); }
    explicit operator bool() const { return isOk(); }

    /// The value. Expects isOk().
    T& value()
    {
        TANDEM_ASSERT(isOk(), "Result::value(): holds an error");
        return *m_value;
    }
    const T& value() const
    {
        TANDEM_ASSERT(isOk(), "Result::value(): holds an error");
        return *m_value;
    }

    /// The error message; empty when isOk().
    const std::string& error() const { return m_error; }

    /// Non-fatal remarks about the input.
    const std::vector<std::string>& warnings() const { return m_warnings; }
    void addWarning(std::string warning) { m_warnings.push_back(std::move(warning)); }

private:
    std::optional<T> m_value;
    std::string m_error;
    std::vector<std::string> m_warnings;
};

} // namespace tandem
