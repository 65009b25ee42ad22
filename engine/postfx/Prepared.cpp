#include "engine/postfx/Prepared.h"

#include <algorithm>
#include <cstring>

#include "engine/postfx/Stages.h"

namespace tandem::postfx {

void PreparedChain::prepare(const Chain& chain, const FrameInfo& frame)
{
    m_entries.clear();
    for (auto& cached : m_tables)
        cached.used = false;
    for (const Stage& stage : chain.stages) {
        if (!stage.enabled)
            continue;
        Entry entry;
        entry.kind = stage.kind;
        visitStage(stage.kind, [&]<class S>() {
            const typename S::K k = S::prepare(stage.params.data(), frame);
            static_assert(sizeof k <= MaxParamBlockBytes, "grow MaxParamBlockBytes");
            std::memcpy(entry.block.data(), &k, sizeof k);
            if constexpr (hasTable<S>) {
                auto found = std::find_if(m_tables.begin(), m_tables.end(), [&](const auto& c) {
                    return c.kind == stage.kind && c.params == stage.params;
                });
                if (found == m_tables.end()) {
                    CachedTable cached;
                    cached.kind = stage.kind;
                    cached.params = stage.params;
                    cached.table = std::make_unique<Table>();
                    cached.table->values = S::table(stage.params.data());
                    cached.table->version = ++m_version;
                    m_tables.push_back(std::move(cached));
                    found = m_tables.end() - 1;
                }
                found->used = true;
                entry.table = found->table.get();
            }
        });
        m_entries.push_back(entry);
    }
    // Tables no stage used this frame go (the overlay's slider leaves many behind).
    std::erase_if(m_tables, [](const CachedTable& c) { return !c.used; });
}

} // namespace tandem::postfx
