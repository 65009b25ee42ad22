// The handoff in builds without CUDA: nothing is ever registered or mapped; creating a handoff
// is an error (the frame never does: the doctor reports the host path).
#include "engine/core/Error.h"
#include "engine/interop/Handoff.h"
#include "engine/interop/Registrations.h"

namespace tandem::interop {

void Registrations::release(Entry&) noexcept {}

void Registrations::release(Twin&) noexcept {}

Registrations::Twin* Registrations::findTwin(std::uint32_t, bool) noexcept
{
    return nullptr;
}

void Registrations::wroteByGl() noexcept {}

bool Registrations::cudaIsNewer() const noexcept
{
    return false;
}

bool Registrations::cudaIsNewer(const gl::Buffer&) const noexcept
{
    return false;
}

void Registrations::wroteFromHost(const gl::Buffer&, std::size_t, const void*, std::size_t) {}

Registrations::~Registrations() = default;

Registrations::Registrations(Registrations&& other) noexcept
    : m_entries(std::move(other.m_entries)), m_made(other.m_made)
{}

Registrations& Registrations::operator=(Registrations&& other) noexcept
{
    m_entries = std::move(other.m_entries);
    m_made = other.m_made;
    return *this;
}

void Registrations::clear() noexcept
{
    m_entries.clear();
}

bool Registrations::isMapped() const noexcept
{
    return false;
}

struct Handoff::State {};

Handoff::Handoff()
{
    throw Error("this build has no CUDA", "interop::Handoff");
}

Handoff::~Handoff() = default;

const MappedView& Handoff::map(const Uses&)
{
    throw Error("this build has no CUDA", "interop::Handoff::map");
}

void Handoff::copyToHost(const Uses&, ImageRef, std::vector<std::uint8_t>&) {}

const MappedView& Handoff::map(const Uses& uses, void*)
{
    return map(uses);
}

void Handoff::unmap() noexcept {}

void Handoff::unmap(void*) noexcept {}

const MappedView& Handoff::resident(const Uses& uses)
{
    return map(uses);
}

void Handoff::pace(int) {}

bool Handoff::needsGlContents(const Uses&) const
{
    return false;
}

void Handoff::publish(const Uses& uses)
{
    map(uses);
}

ResidentImage Handoff::residentImage(const gl::Texture&, Registrations&)
{
    return {};
}

std::uint64_t Handoff::syncMaps() const
{
    return 0;
}

bool Handoff::isMapped() const
{
    return false;
}

void* Handoff::stream() const
{
    return nullptr;
}

void Handoff::synchronize() {}

std::uint64_t Handoff::registrationsMade() const
{
    return 0;
}

} // namespace tandem::interop

#include "engine/interop/ResidentReadback.h"

namespace tandem::interop {

struct ResidentReadback::State {};

ResidentReadback::ResidentReadback(int)
{
    throw Error("this build has no CUDA", "interop::ResidentReadback");
}

ResidentReadback::~ResidentReadback() = default;

void ResidentReadback::copy(int, const ResidentImage&, int, int, void*, void*, bool) {}

bool ResidentReadback::isDone(int) const
{
    return true;
}

void ResidentReadback::wait(int) const {}

void* ResidentReadback::stream() const
{
    return nullptr;
}

} // namespace tandem::interop
