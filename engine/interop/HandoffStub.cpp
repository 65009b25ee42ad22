// The handoff in builds without CUDA: nothing is ever registered or mapped; creating a handoff
// is an error (the frame never does: the doctor reports the host path).
#include "engine/core/Error.h"
#include "engine/interop/Handoff.h"
#include "engine/interop/Registrations.h"

namespace tandem::interop {

void Registrations::release(Entry&) noexcept {}

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
