#include "engine/frame/OutputRing.h"

#include <algorithm>

#include <fmt/format.h>

#include "engine/core/Error.h"
#include "engine/core/Stall.h"
#include "engine/cuda/PinnedMemory.h"
#include "engine/gl/Debug.h"
#include "engine/gl/Texture.h"
#include "engine/interop/ResidentReadback.h"

namespace tandem::frame {

OutputRing::OutputRing(int depth) : m_slots(static_cast<std::size_t>(std::max(2, depth))) {}

OutputRing::~OutputRing()
{
    {
        std::unique_lock lock(m_mutex);
        m_released.wait(lock, [&] {
            return std::none_of(m_slots.begin(), m_slots.end(),
                                [](const Slot& s) { return s.state == State::Handed; });
        });
    }
    m_resident.reset(); // waits for copies still going into the pinned slots
    for (Slot& slot : m_slots)
        cuda::freePinned(slot.pinned);
}

bool OutputRing::isDone(const Slot& slot) const
{
    return slot.resident ? m_resident->isDone(static_cast<int>(&slot - m_slots.data()))
                         : slot.fence.isSignaled();
}

void OutputRing::wait(Slot& slot, StallCause cause)
{
    if (!slot.resident) {
        slot.fence.wait(cause);
        return;
    }
    const int index = static_cast<int>(&slot - m_slots.data());
    if (m_resident->isDone(index))
        return;
    recordStall(cause);
    m_resident->wait(index);
}

void OutputRing::prepare(Slot& slot, std::size_t bytes)
{
    if (slot.buffer.size() >= bytes)
        return;
    // Client storage, mapped once for good: the driver keeps it in host memory the CPU reads
    // fast, and a fence orders the GPU's writes before the reads (coherent: no flush needed).
    const GLbitfield flags =
        GL_MAP_READ_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT | GL_CLIENT_STORAGE_BIT;
    slot.buffer = gl::Buffer(bytes, nullptr, flags, "output.ring");
    slot.buffer.map(0, bytes, GL_MAP_READ_BIT | GL_MAP_PERSISTENT_BIT | GL_MAP_COHERENT_BIT);
}

void OutputRing::hand(Slot& slot, const Sink& sink)
{
    {
        std::lock_guard lock(m_mutex);
        slot.state = State::Handed;
    }
    slot.fence = gl::Fence();
    sink(slot.frame);
}

void OutputRing::collect(const Sink& sink)
{
    // In order: stop at the first read-back that has not finished.
    for (std::size_t n = 0; n < m_slots.size(); ++n) {
        Slot& slot = m_slots[m_oldest];
        if (slot.state != State::Reading || !isDone(slot))
            return;
        hand(slot, sink);
        m_oldest = (m_oldest + 1) % m_slots.size();
    }
}

bool OutputRing::hasFreeSlot(const Sink& sink)
{
    collect(sink);
    std::lock_guard lock(m_mutex);
    return m_slots[m_next].state == State::Free;
}

OutputRing::Slot& OutputRing::acquire(const Sink& sink)
{
    collect(sink);
    Slot& slot = m_slots[m_next];
    if (slot.state == State::Reading) {
        // A full ring still reading: the CPU is depth() frames ahead. Wait for the oldest (this
        // one): the GPU keeps working on the newer frames meanwhile.
        wait(slot, StallCause::Throttle);
        collect(sink);
    }
    std::unique_lock lock(m_mutex);
    if (slot.state == State::Handed) {
        ++m_consumerWaits;
        m_released.wait(lock, [&] { return slot.state == State::Free; });
    }
    return slot;
}

void OutputRing::readFramebuffer(GLuint framebuffer, int width, int height, std::uint64_t index,
                                 const Sink& sink)
{
    Slot& slot = acquire(sink);
    gl::DebugGroup group("readback");
    slot.frame = ReadyFrame{index,   width,
                            height,  PixelFormat::Rgba8,
                            nullptr, static_cast<int>(&slot - m_slots.data())};
    const std::size_t bytes = slot.frame.rowBytes() * static_cast<std::size_t>(height);
    prepare(slot, bytes);
    slot.frame.pixels = slot.buffer.mapped();
    glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer);
    glReadBuffer(framebuffer == 0 ? GL_BACK : GL_COLOR_ATTACHMENT0);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, slot.buffer.id());
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
    slot.resident = false;
    slot.fence = gl::Fence::insert();
    slot.state = State::Reading;
    m_next = (m_next + 1) % m_slots.size();
    ++m_read;
}

void OutputRing::readTexture(const gl::Texture& texture, int width, int height, PixelFormat format,
                             std::uint64_t index, const Sink& sink)
{
    Slot& slot = acquire(sink);
    gl::DebugGroup group("readback");
    slot.frame =
        ReadyFrame{index, width, height, format, nullptr, static_cast<int>(&slot - m_slots.data())};
    const std::size_t bytes = slot.frame.rowBytes() * static_cast<std::size_t>(height);
    prepare(slot, bytes);
    slot.frame.pixels = slot.buffer.mapped();
    glBindBuffer(GL_PIXEL_PACK_BUFFER, slot.buffer.id());
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glGetTextureSubImage(texture.id(), 0, 0, 0, 0, width, height, 1, GL_RGBA,
                         format == PixelFormat::Rgba8 ? GL_UNSIGNED_BYTE : GL_UNSIGNED_SHORT,
                         static_cast<GLsizei>(bytes), nullptr);
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glBindBuffer(GL_PIXEL_PACK_BUFFER, 0);
    slot.resident = false;
    slot.fence = gl::Fence::insert();
    slot.state = State::Reading;
    m_next = (m_next + 1) % m_slots.size();
    ++m_read;
}

void OutputRing::readResident(const interop::ResidentImage& image, void* stream, int width,
                              int height, std::uint64_t index, const Sink& sink, PixelFormat format)
{
    TANDEM_ASSERT(format != PixelFormat::Rgba16,
                  "frame::OutputRing::readResident(): RGBA8 or YCbCr planes only");
    if (!m_resident)
        m_resident = std::make_unique<interop::ResidentReadback>(depth());
    Slot& slot = acquire(sink);
    const int number = static_cast<int>(&slot - m_slots.data());
    slot.frame = ReadyFrame{index, width, height, format, nullptr, number};
    const std::size_t bytes = slot.frame.bytes();
    if (slot.pinnedBytes < bytes) {
        cuda::freePinned(slot.pinned);
        slot.pinned = cuda::allocatePinned(bytes);
        slot.pinnedBytes = slot.pinned ? bytes : 0;
        if (!slot.pinned)
            throw Error(fmt::format("{} bytes of pinned memory for frame output", bytes),
                        "frame::OutputRing");
    }
    m_resident->copy(number, image, width, height, slot.pinned, stream,
                     format == PixelFormat::Yuv420);
    slot.frame.pixels = static_cast<const std::uint8_t*>(slot.pinned);
    slot.fence = gl::Fence();
    slot.resident = true;
    slot.state = State::Reading;
    m_next = (m_next + 1) % m_slots.size();
    ++m_read;
}

void* OutputRing::copyStream() const
{
    return m_resident ? m_resident->stream() : nullptr;
}

void OutputRing::drain(const Sink& sink)
{
    // The slots still reading follow each other from the oldest on.
    for (std::size_t n = 0; n < m_slots.size(); ++n) {
        Slot& slot = m_slots[m_oldest];
        if (slot.state != State::Reading)
            return;
        wait(slot, StallCause::Finish);
        hand(slot, sink);
        m_oldest = (m_oldest + 1) % m_slots.size();
    }
}

void OutputRing::release(int index)
{
    {
        std::lock_guard lock(m_mutex);
        m_slots[static_cast<std::size_t>(index)].state = State::Free;
    }
    m_released.notify_all();
}

} // namespace tandem::frame
