// What a window's keys and mouse do, as tables of (input, action): the help text, the start-up
// "controls:" line and the overlay's list of controls are all made from one table, so they
// cannot disagree. The tables live beside what binds them (app/Controls.h); this file only
// formats one. controlsTable() draws with ImGui, inside Overlay::draw(); controlsHelp() needs
// no context.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace tandem::ui {

/// One control: the input ("left drag", "S or F2") and what it does ("orbit").
struct Control {
    std::string_view input;
    std::string_view action;
};

/// The controls as one line of help, in table order: "left drag orbit, wheel zoom".
std::string controlsHelp(std::span<const Control> controls);

/// The controls as a two-column table (input, action; long actions wrap to the column).
void controlsTable(std::span<const Control> controls);

} // namespace tandem::ui
