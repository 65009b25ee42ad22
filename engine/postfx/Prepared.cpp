#include "engine/postfx/Prepared.h"

#include "engine/postfx/Stages.h"

namespace tandem::postfx {

void PreparedChain::prepare(const Chain& chain, const FrameInfo& frame)
{
    m_entries.clear();
    for (const Stage& stage : chain.stages) {
        if (!stage.enabled)
            continue;
        Entry entry;
        entry.kind = stage.kind;
        visitStage(stage.kind, [&]<class S>() {
            const typename S::K k = S::prepare(stage.params.data(), frame);
            static_assert(sizeof k <= MaxParamBlockBytes, "grow MaxParamBlockBytes");
            std::memcpy(entry.block.data(), &k, sizeof k);
        });
        m_entries.push_back(entry);
    }
}

} // namespace tandem::postfx
