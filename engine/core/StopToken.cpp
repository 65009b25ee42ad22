#include "engine/core/StopToken.h"

#include <signal.h>

#include <atomic>
#include <cstring>

#include <fmt/format.h>

#include "engine/core/Error.h"

namespace tandem {

struct StopSignals::Saved {
    std::atomic<int> signal{0};
    struct sigaction interrupt {};
    struct sigaction terminate {};
    struct sigaction fileSize {};
};

namespace {

/// The flag of the live StopSignals; a signal handler can reach nothing but a global.
std::atomic<std::atomic<int>*> g_flag{nullptr};

extern "C" void onStopSignal(int signal)
{
    std::atomic<int>* flag = g_flag.load();
    int none = 0;
    if (flag && flag->compare_exchange_strong(none, signal))
        return;
    // A second stop signal (of either kind), or one after the owner died: end now, as the
    // signal's default action would have (async-signal-safe calls only).
    struct sigaction fallback {};
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    sigaction(signal, &fallback, nullptr);
    raise(signal);
}

} // namespace

StopSignals::StopSignals() : m_saved(std::make_shared<Saved>())
{
    std::atomic<int>* before = g_flag.exchange(&m_saved->signal);
    TANDEM_ASSERT(before == nullptr, "StopSignals: another one is alive");
    (void)before;
    struct sigaction action {};
    action.sa_handler = onStopSignal;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &m_saved->interrupt);
    sigaction(SIGTERM, &action, &m_saved->terminate);
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGXFSZ, &ignore, &m_saved->fileSize);
}

StopSignals::~StopSignals()
{
    sigaction(SIGINT, &m_saved->interrupt, nullptr);
    sigaction(SIGTERM, &m_saved->terminate, nullptr);
    sigaction(SIGXFSZ, &m_saved->fileSize, nullptr);
    g_flag.store(nullptr);
}

StopToken StopSignals::token() const
{
    return StopToken([saved = m_saved] { return saved->signal.load(); });
}

int StopSignals::signal() const
{
    return m_saved->signal.load();
}

std::string stoppedWhile(int signal, std::string_view doing)
{
    return fmt::format("{}: stopped during set-up, while {}", strsignal(signal), doing);
}

} // namespace tandem
