// Keeps a signal that a write raises in the calling thread (SIGPIPE on a pipe whose reader is
// gone, SIGXFSZ past the file-size limit) from ending the process: the signal is blocked in this
// thread only, for one scope, and consumed if it arrived meanwhile, so the write fails with its
// errno (EPIPE, EFBIG) instead. Nothing outside the thread changes: no process-wide SIG_IGN.
// The thread that made it, for the scope's lifetime.
#pragma once

#include <signal.h>

namespace tandem {

class ThreadSignalBlock {
public:
    /// Blocks `signal` in the calling thread (pthread_sigmask). A signal already blocked or
    /// already pending when the scope starts is left alone.
    explicit ThreadSignalBlock(int signal);
    /// Consumes the signal if it became pending during the scope (sigtimedwait, no wait) and
    /// restores the thread's mask. Never throws.
    ~ThreadSignalBlock();
    ThreadSignalBlock(const ThreadSignalBlock&) = delete;
    ThreadSignalBlock& operator=(const ThreadSignalBlock&) = delete;

private:
    int m_signal;
    sigset_t m_previous{};
    bool m_active = false; ///< false: the signal was blocked or pending before; nothing to undo
};

} // namespace tandem
