#include "engine/core/StopSignal.h"

#include <signal.h>

#include <atomic>
#include <csignal>

namespace tandem {

namespace {

std::atomic<int> g_stopSignal{0};

extern "C" void onStopSignal(int signal)
{
    g_stopSignal.store(signal);
}

} // namespace

void installStopSignals()
{
    struct sigaction action {};
    action.sa_handler = onStopSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);
    std::signal(SIGXFSZ, SIG_IGN);
}

int stopSignal()
{
    return g_stopSignal.load();
}

} // namespace tandem
