#include "engine/postfx/Stage.h"

#include "engine/core/Error.h"
#include "engine/postfx/Stages.h"

namespace tandem::postfx {

namespace {

template <class... S> constexpr auto descriptorsOf(StageList<S...>)
{
    return std::array<StageDescriptor, sizeof...(S)>{S::descriptor...};
}

constexpr auto descriptors = descriptorsOf(StageTypes{});

int paramIndex(const StageDescriptor& d, std::string_view name)
{
    for (int i = 0; i < d.paramCount; ++i)
        if (name == d.params[static_cast<std::size_t>(i)].name)
            return i;
    return -1;
}

} // namespace

std::span<const StageDescriptor> stageDescriptors()
{
    return descriptors;
}

int findStage(std::string_view name)
{
    for (std::size_t i = 0; i < descriptors.size(); ++i)
        if (name == descriptors[i].name)
            return static_cast<int>(i);
    return -1;
}

Stage Stage::make(int kind)
{
    TANDEM_ASSERT(kind >= 0 && kind < static_cast<int>(descriptors.size()),
                  "postfx::Stage::make(): no such stage");
    Stage stage;
    stage.kind = kind;
    const StageDescriptor& d = descriptors[static_cast<std::size_t>(kind)];
    for (int i = 0; i < d.paramCount; ++i)
        stage.params[static_cast<std::size_t>(i)] =
            d.params[static_cast<std::size_t>(i)].defaultValue;
    return stage;
}

float Stage::param(std::string_view name) const
{
    const int i = paramIndex(descriptor(), name);
    TANDEM_ASSERT(i >= 0, "postfx::Stage::param(): the stage has no such parameter");
    return i >= 0 ? params[static_cast<std::size_t>(i)] : 0.0f;
}

bool Stage::setParam(std::string_view name, float value)
{
    const int i = paramIndex(descriptor(), name);
    if (i < 0)
        return false;
    const ParamDescriptor& p = descriptor().params[static_cast<std::size_t>(i)];
    if (!(value >= p.min && value <= p.max) ||
        (p.integer && value != static_cast<float>(static_cast<int>(value))))
        return false;
    params[static_cast<std::size_t>(i)] = value;
    return true;
}

} // namespace tandem::postfx
