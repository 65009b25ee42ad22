// Which image a frame shows: the G-buffer's colour, a debug view of its depth, normals or ids,
// or the post-process output. The debug views are the post-process stages view-depth,
// view-normal and view-id (one definition, both backends): a frame showing one runs that stage
// instead of the chain. Plain data, any thread.
#pragma once

#include "engine/core/EnumTable.h"

namespace tandem::frame {

enum class Channel { Color, Depth, Normal, Id, Output };

/// The channels' names (--channel, the overlay, reports); C cycles through them in this order.
inline constexpr EnumTable<Channel, 5> Channels{
    "channel",
    {{{Channel::Color, "color", "the G-buffer colour"},
      {Channel::Depth, "depth", "linear view depth, near bright"},
      {Channel::Normal, "normal", "world normals as colours"},
      {Channel::Id, "id", "primitive ids as colours"},
      {Channel::Output, "output", "the post-processed output (the default with --postfx)"}}}};
/// The post-process stage that draws a debug channel ("view-depth"...), or null for colour and
/// output.
const char* debugStageOf(Channel channel);

} // namespace tandem::frame
