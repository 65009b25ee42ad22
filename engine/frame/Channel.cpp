#include "engine/frame/Channel.h"

namespace tandem::frame {

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
