// A command-line option over an enumerated choice (core/EnumTable.h), for CLI11: the allowed
// names, their help and the default come from the table, and the text is parsed straight into
// the enum (a bad name is a usage error listing the names: "--loop: 'sideways' is not loop,
// ping-pong or once"). Any thread, while parsing.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "engine/core/EnumTable.h"

namespace tandem::app {

namespace detail {

/// "{loop|ping-pong|once}", CLI11's type column.
template <class E, std::size_t N> std::string enumTypeName(const EnumTable<E, N>& table)
{
    std::string text = "{";
    for (const auto& entry : table.entries()) {
        if (text.size() > 1)
            text += '|';
        text += entry.name;
    }
    return text + "}";
}

template <class E, std::size_t N>
CLI::Option* addEnumOptionWith(CLI::App& cli, const std::string& name, const std::string& help,
                               const EnumTable<E, N>& table, std::function<void(E)> set)
{
    CLI::Option* option = cli.add_option_function<std::string>(
        name, [&table, set = std::move(set)](const std::string& text) { set(*table.find(text)); },
        help + " (" + table.describe() + ")");
    option->check(CLI::Validator(
        [&table](std::string& text) {
            auto parsed = table.parse(text);
            return parsed ? std::string() : parsed.error();
        },
        ""));
    option->type_name(enumTypeName(table));
    return option;
}

} // namespace detail

/// Adds option `name` (e.g. "--loop") setting `target` to the value named on the command line;
/// the help lists the names with their help and the default (`target`'s value before parsing).
/// `table` and `target` must outlive parsing.
template <class E, std::size_t N>
CLI::Option* addEnumOption(CLI::App& cli, const std::string& name, E& target,
                           const EnumTable<E, N>& table, const std::string& help)
{
    CLI::Option* option = detail::addEnumOptionWith<E, N>(cli, name, help, table,
                                                          [&target](E value) { target = value; });
    option->default_str(std::string(table.name(target)));
    return option;
}

/// The same for a choice with no fixed default (`target` stays empty unless given).
template <class E, std::size_t N>
CLI::Option* addEnumOption(CLI::App& cli, const std::string& name, std::optional<E>& target,
                           const EnumTable<E, N>& table, const std::string& help)
{
    return detail::addEnumOptionWith<E, N>(cli, name, help, table,
                                           [&target](E value) { target = value; });
}

} // namespace tandem::app
