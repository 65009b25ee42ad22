#include "engine/core/ThreadSignalBlock.h"

#include <cerrno>
#include <ctime>

#include <pthread.h>

namespace tandem {

ThreadSignalBlock::ThreadSignalBlock(int signal) : m_signal(signal)
{
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, signal);
    sigset_t pending;
    sigemptyset(&pending);
    if (pthread_sigmask(SIG_BLOCK, &only, &m_previous) != 0)
        return;
    // Already blocked by the caller, or already pending (someone else's signal): not ours to
    // consume, and the caller's mask stays as it was.
    if (sigismember(&m_previous, signal) == 1 ||
        (sigpending(&pending) == 0 && sigismember(&pending, signal) == 1)) {
        if (sigismember(&m_previous, signal) != 1)
            pthread_sigmask(SIG_SETMASK, &m_previous, nullptr);
        return;
    }
    m_active = true;
}

ThreadSignalBlock::~ThreadSignalBlock()
{
    if (!m_active)
        return;
    const int saved = errno; // the failed write's errno is what the caller reports
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, m_signal);
    sigset_t pending;
    sigemptyset(&pending);
    if (sigpending(&pending) == 0 && sigismember(&pending, m_signal) == 1) {
        const timespec now{0, 0};
        while (sigtimedwait(&only, nullptr, &now) < 0 && errno == EINTR) {
        }
    }
    pthread_sigmask(SIG_SETMASK, &m_previous, nullptr);
    errno = saved;
}

} // namespace tandem
