#include "engine/interop/Pass.h"

#include "engine/core/Error.h"

namespace tandem::interop {

namespace {

Intent unite(Intent a, Intent b)
{
    return a == b ? a : Intent::ReadWrite;
}

} // namespace

int Uses::find(const void* object) const
{
    for (std::size_t i = 0; i < m_uses.size(); ++i)
        if (m_uses[i].texture == object || m_uses[i].buffer == object)
            return static_cast<int>(i);
    return -1;
}

ImageRef Uses::image(const gl::Texture& texture, Registrations& owner, Intent intent)
{
    if (const int i = find(&texture); i >= 0) {
        TANDEM_ASSERT(m_uses[static_cast<std::size_t>(i)].owner == &owner,
                      "interop::Uses::image(): one texture declared with two owners");
        auto& use = m_uses[static_cast<std::size_t>(i)];
        use.intent = unite(use.intent, intent);
        return {i};
    }
    m_uses.push_back({&texture, nullptr, &owner, intent});
    return {static_cast<int>(m_uses.size()) - 1};
}

BufferRef Uses::buffer(const gl::Buffer& buffer, Registrations& owner, Intent intent)
{
    if (const int i = find(&buffer); i >= 0) {
        TANDEM_ASSERT(m_uses[static_cast<std::size_t>(i)].owner == &owner,
                      "interop::Uses::buffer(): one buffer declared with two owners");
        auto& use = m_uses[static_cast<std::size_t>(i)];
        use.intent = unite(use.intent, intent);
        return {i};
    }
    m_uses.push_back({nullptr, &buffer, &owner, intent});
    return {static_cast<int>(m_uses.size()) - 1};
}

std::uint64_t MappedView::surface(ImageRef image) const
{
    TANDEM_ASSERT(image.index >= 0 && static_cast<std::size_t>(image.index) < m_surfaces.size(),
                  "interop::MappedView::surface(): not declared this frame");
    return m_surfaces[static_cast<std::size_t>(image.index)];
}

void* MappedView::pointer(BufferRef buffer) const
{
    TANDEM_ASSERT(buffer.index >= 0 && static_cast<std::size_t>(buffer.index) < m_pointers.size(),
                  "interop::MappedView::pointer(): not declared this frame");
    return m_pointers[static_cast<std::size_t>(buffer.index)];
}

std::size_t MappedView::bytes(BufferRef buffer) const
{
    TANDEM_ASSERT(buffer.index >= 0 && static_cast<std::size_t>(buffer.index) < m_bytes.size(),
                  "interop::MappedView::bytes(): not declared this frame");
    return m_bytes[static_cast<std::size_t>(buffer.index)];
}

} // namespace tandem::interop
