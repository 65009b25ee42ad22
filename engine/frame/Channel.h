// Which image a frame shows: the G-buffer's colour, a debug view of its depth, normals or ids,
// the post-process output, or a debug view of the Gaussian splats. The G-buffer views are the
// post-process stages view-depth, view-normal and view-id (one definition, both backends): a
// frame showing one runs that stage instead of the chain. The splat views are drawn by the splat
// pass itself into the colour it writes (render/SplatMath.h's SplatDebug), shown as the colour
// channel is. Plain data, any thread.
#pragma once

#include "engine/core/EnumTable.h"

namespace tandem::frame {

enum class Channel { Color, Depth, Normal, Id, Output, SplatAlpha, SplatCount, SplatCentres };

/// The channels' names (--channel, the overlay, reports); C cycles through them in this order.
inline constexpr EnumTable<Channel, 8> Channels{
    "channel",
    {{{Channel::Color, "color", "the G-buffer colour"},
      {Channel::Depth, "depth", "linear view depth, near bright (splats: their median depth)"},
      {Channel::Normal, "normal", "world normals as colours"},
      {Channel::Id, "id", "primitive ids as colours"},
      {Channel::Output, "output", "the post-processed output (the default with --postfx)"},
      {Channel::SplatAlpha, "splat-alpha", "the Gaussians' own opacity as grey"},
      {Channel::SplatCount, "splat-count",
       "Gaussians blended at each pixel, a heat map (black 0, yellow-white 255 and more)"},
      {Channel::SplatCentres, "splat-centres",
       "each Gaussian as a dot of its colour at its centre, over the scene"}}}};

/// Whether `channel` shows the G-buffer's colour as it is (no chain runs): the colour and the
/// splat views.
bool showsColor(Channel channel);

/// The splat pass's debug view for `channel` (render::splats::SplatDebug: 0 none, 1 alpha,
/// 2 count, 3 centres).
int splatDebugOf(Channel channel);
/// The post-process stage that draws a debug channel ("view-depth"...), or null for colour and
/// output.
const char* debugStageOf(Channel channel);

} // namespace tandem::frame
