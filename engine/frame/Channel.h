// Which image a frame shows: the G-buffer's colour, a debug view of its depth, normals or ids,
// or the post-process output. The debug views are the post-process stages view-depth,
// view-normal and view-id (one definition, both backends): a frame showing one runs that stage
// instead of the chain. Plain data, any thread.
#pragma once

#include <optional>
#include <string_view>

namespace tandem::frame {

enum class Channel { Color, Depth, Normal, Id, Output };

/// "color", "depth", "normal", "id", "output".
std::string_view channelName(Channel channel);
/// Parses a channel name; nullopt when unknown.
std::optional<Channel> parseChannel(std::string_view name);
/// The next channel in the cycle color → depth → normal → id → output → color.
Channel nextChannel(Channel channel);
/// The post-process stage that draws a debug channel ("view-depth"...), or null for colour and
/// output.
const char* debugStageOf(Channel channel);

} // namespace tandem::frame
