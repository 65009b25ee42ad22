#include "engine/frame/Channel.h"

namespace tandem::frame {

std::string_view channelName(Channel channel)
{
    switch (channel) {
    case Channel::Color:
        return "color";
    case Channel::Depth:
        return "depth";
    case Channel::Normal:
        return "normal";
    case Channel::Id:
        return "id";
    case Channel::Output:
        return "output";
    }
    return "color";
}

std::optional<Channel> parseChannel(std::string_view name)
{
    for (Channel c :
         {Channel::Color, Channel::Depth, Channel::Normal, Channel::Id, Channel::Output})
        if (channelName(c) == name)
            return c;
    return std::nullopt;
}

Channel nextChannel(Channel channel)
{
    switch (channel) {
    case Channel::Color:
        return Channel::Depth;
    case Channel::Depth:
        return Channel::Normal;
    case Channel::Normal:
        return Channel::Id;
    case Channel::Id:
        return Channel::Output;
    case Channel::Output:
        return Channel::Color;
    }
    return Channel::Color;
}

const char* debugStageOf(Channel channel)
{
    switch (channel) {
    case Channel::Depth:
        return "view-depth";
    case Channel::Normal:
        return "view-normal";
    case Channel::Id:
        return "view-id";
    default:
        return nullptr;
    }
}

} // namespace tandem::frame
