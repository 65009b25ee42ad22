// A CLI11 range check that writes its bounds as they are typed: "Value 1 not in range 16 to
// 1048576" where CLI::Range says "16.000000 to 1048576.000000" (std::to_string) and its help
// "[16 - 1.04858e+06]" (a stream's six digits); NaN is out of every range. Header-only, so
// apps that do not link tandem_app (tandem-pack) check their options the same way.
#pragma once

#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

namespace tandem::app {

/// Accepts a value of type T from `min` to `max`, both included; drop-in for CLI::Range.
class CliRange : public CLI::Validator {
public:
    template <class T> CliRange(T min, T max)
    {
        description(fmt::format("{} in [{} - {}]", CLI::detail::type_name<T>(), min, max));
        func_ = [min, max](std::string& input) {
            T value{};
            if (!CLI::detail::lexical_cast(input, value) || !(value >= min && value <= max))
                return fmt::format("Value {} not in range {} to {}", input, min, max);
            return std::string();
        };
    }
};

} // namespace tandem::app
