#include "engine/frame/Channel.h"

#include "engine/render/SplatMath.h"

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

bool showsColor(Channel channel)
{
    return channel == Channel::Color || splatDebugOf(channel) != render::splats::SplatDebugNone;
}

int splatDebugOf(Channel channel)
{
    switch (channel) {
    case Channel::SplatAlpha:
        return render::splats::SplatDebugAlpha;
    case Channel::SplatCount:
        return render::splats::SplatDebugCount;
    case Channel::SplatCentres:
        return render::splats::SplatDebugCentres;
    default:
        return render::splats::SplatDebugNone;
    }
}

} // namespace tandem::frame
