// A chain prepared for one frame on the host: for each enabled stage its kind, passes and the
// parameter block its pixel function reads, plus the stage's table (the tonemap curve) kept
// across frames while its settings stay the same. Prepared once, read by whichever backend runs
// the frame, so both read the same numbers. Render thread.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "engine/postfx/Chain.h"
#include "engine/postfx/PixelStages.h"

namespace tandem::postfx {

/// Room for the largest parameter block (SsaoK).
inline constexpr std::size_t MaxParamBlockBytes = 512;

class PreparedChain {
public:
    /// A stage's table, with a version that changes whenever it is rebuilt (the CUDA backend
    /// uploads it again only then).
    struct Table {
        std::vector<float> values;
        std::uint64_t version = 0;
    };
    struct Entry {
        int kind = 0;
        const Table* table = nullptr; ///< null unless the stage has one
        alignas(16) std::array<std::byte, MaxParamBlockBytes> block{};

        /// The parameter block as stage type S's K. Expects S to be this entry's stage.
        template <class S> typename S::K k() const
        {
            static_assert(sizeof(typename S::K) <= MaxParamBlockBytes);
            typename S::K value;
            std::memcpy(&value, block.data(), sizeof value);
            return value;
        }
    };

    /// Prepares the enabled stages of `chain` for `frame`; a table is rebuilt only when its
    /// stage's settings differ from every table of the last frame.
    void prepare(const Chain& chain, const FrameInfo& frame);
    const std::vector<Entry>& entries() const { return m_entries; }
    /// Tables built since construction (for tests: settings that do not change build none).
    std::uint64_t tablesBuilt() const { return m_version; }

private:
    struct CachedTable {
        int kind = 0;
        std::array<float, MaxStageParams> params{};
        std::unique_ptr<Table> table;
        bool used = false;
    };

    std::vector<Entry> m_entries;
    std::vector<CachedTable> m_tables;
    std::uint64_t m_version = 0;
};

} // namespace tandem::postfx
