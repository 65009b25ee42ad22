// Move-only owner of a GL fence sync object (glFenceSync): marks a point in the GL command
// stream so the CPU can ask, without waiting, whether the GPU has passed it, e.g. before reading
// a persistent-mapped pixel-pack buffer. Needs the owning context current.
#pragma once

#include "engine/core/Stall.h"
#include "engine/gl/Gl.h"

namespace tandem::gl {

class Fence {
public:
    /// No fence (isSignaled() is true: nothing to wait for).
    Fence() noexcept = default;
    /// Inserts a fence after the commands issued so far (glFenceSync) and flushes them, so the
    /// fence is sure to signal. Throws GlError on failure.
    static Fence insert();
    ~Fence();
    Fence(Fence&& other) noexcept;
    Fence& operator=(Fence&& other) noexcept;
    Fence(const Fence&) = delete;
    Fence& operator=(const Fence&) = delete;

    /// Whether there is a fence to wait for.
    bool isPending() const noexcept { return m_sync != nullptr; }
    /// Whether the GPU has passed the fence. Never blocks (glClientWaitSync with timeout 0).
    bool isSignaled() const;
    /// Waits until the GPU has passed the fence. Blocks: counts one wait of `cause` (core/Stall.h)
    /// if it had not signalled yet.
    void wait(StallCause cause) const;

private:
    GLsync m_sync = nullptr;
};

} // namespace tandem::gl
