// A call made from outside the frame loop (tandem.rasterize, tandem.render) timed as one
// profiler frame: the frame begun and ended, a CPU span for the call, GL spans inside. Does
// nothing without a profiler. Private to engine/frame. Render thread.
#pragma once
#include <cstddef>

#include "engine/profile/Profiler.h"

namespace tandem::frame::detail {

class CallFrame {
public:
    /// Begins a frame and the CPU span `name` (static storage) on `profiler`, if any.
    CallFrame(profile::Profiler* profiler, const char* name) : m_profiler(profiler)
    {
        if (!m_profiler)
            return;
        m_profiler->beginFrame();
        m_cpu = m_profiler->beginCpu(name);
    }
    ~CallFrame()
    {
        if (!m_profiler)
            return;
        m_profiler->endCpu(m_cpu);
        m_profiler->endFrame();
    }
    CallFrame(const CallFrame&) = delete;
    CallFrame& operator=(const CallFrame&) = delete;

    /// A GL span `name` around `work`.
    template <class Work> void gl(const char* name, Work&& work)
    {
        const std::size_t token = m_profiler ? m_profiler->beginGl(name) : 0;
        work();
        if (m_profiler)
            m_profiler->endGl(token);
    }

private:
    profile::Profiler* m_profiler;
    std::size_t m_cpu = 0;
};

} // namespace tandem::frame::detail
