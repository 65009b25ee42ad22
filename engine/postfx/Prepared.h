// A chain prepared for one frame on the host: for each enabled stage its kind and the parameter
// block its pixel function reads. Prepared once, read by whichever backend runs the frame, so
// both read the same numbers. Render thread.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/postfx/Chain.h"
#include "engine/postfx/PixelStages.h"

namespace tandem::postfx {

/// Room for the largest parameter block (SsaoK).
inline constexpr std::size_t MaxParamBlockBytes = 512;

class PreparedChain {
public:
    struct Entry {
        int kind = 0;
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

    /// Prepares the enabled stages of `chain` for `frame`.
    void prepare(const Chain& chain, const FrameInfo& frame);
    const std::vector<Entry>& entries() const { return m_entries; }

private:
    std::vector<Entry> m_entries;
};

} // namespace tandem::postfx
