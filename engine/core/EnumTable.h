// One definition of an enumerated choice: each value's name (what command lines, Python, JSON
// reports and the overlay say) and a line of help, in one constexpr table beside the enum. Parsing,
// naming, the allowed list a command line shows, cycling (a key that steps through the values)
// and an overlay combo's items all read the same table, so they cannot disagree. Command-line
// and ImGui glue live in app/ and ui/ (app/EnumOption.h, ui/EnumCombo.h). Any thread.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "engine/core/Result.h"

namespace tandem {

/// One value of an enumerated choice.
template <class E> struct EnumEntry {
    E value;
    /// As typed, usually lower case: "ping-pong". A string literal, so name.data() is
    /// null-terminated (printf, ImGui).
    std::string_view name;
    std::string_view help; ///< a phrase for --help and tooltips; may be empty
};

template <class E, std::size_t N> class EnumTable {
public:
    static_assert(N > 0, "an enumerated choice has values");

    /// `what` names the choice in messages ("loop mode").
    constexpr EnumTable(std::string_view what, const std::array<EnumEntry<E>, N>& entries)
        : m_what(what), m_entries(entries)
    {}

    /// The name of `value`; "?" for a value the table lacks (a bug: every value is listed).
    constexpr std::string_view name(E value) const
    {
        for (const auto& entry : m_entries)
            if (entry.value == value)
                return entry.name;
        return "?";
    }
    /// The value named `text` (exactly), or none.
    constexpr std::optional<E> find(std::string_view text) const
    {
        for (const auto& entry : m_entries)
            if (entry.name == text)
                return entry.value;
        return std::nullopt;
    }
    /// The value named `text`, or a failure listing the names: "'sideways' is not loop,
    /// ping-pong or once". Callers put the option's name in front ("--loop: ").
    Result<E> parse(std::string_view text) const
    {
        if (auto value = find(text))
            return *value;
        return fail("'" + std::string(text) + "' is not " + list());
    }
    /// The names as a sentence's list: "loop, ping-pong or once".
    std::string list() const
    {
        std::string text;
        for (std::size_t i = 0; i < N; ++i) {
            if (i > 0)
                text += i + 1 == N ? " or " : ", ";
            text += m_entries[i].name;
        }
        return text;
    }
    /// "loop: play again from the start; ping-pong: ...", for --help.
    std::string describe() const
    {
        std::string text;
        for (std::size_t i = 0; i < N; ++i) {
            if (i > 0)
                text += "; ";
            text += m_entries[i].name;
            if (!m_entries[i].help.empty()) {
                text += ": ";
                text += m_entries[i].help;
            }
        }
        return text;
    }
    /// The value after `value`, the first after the last (a key cycling through them).
    constexpr E next(E value) const { return m_entries[(index(value) + 1) % N].value; }
    /// Where `value` is in the table (0 for a value it lacks).
    constexpr std::size_t index(E value) const
    {
        for (std::size_t i = 0; i < N; ++i)
            if (m_entries[i].value == value)
                return i;
        return 0;
    }
    constexpr std::string_view what() const { return m_what; }
    constexpr const std::array<EnumEntry<E>, N>& entries() const { return m_entries; }
    static constexpr std::size_t size() { return N; }

private:
    std::string_view m_what;
    std::array<EnumEntry<E>, N> m_entries;
};

} // namespace tandem
