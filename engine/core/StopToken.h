// A request to stop, polled by whatever runs long (a session's frame loop, a pack being
// written): a StopToken asks a function the owner of the request chose — the flag an app's
// signal handlers set, Python's PyErr_CheckSignals, a test's own flag. StopSignals is that
// owner for a command-line app: only an entry point makes one (a library object never touches
// the process's signals), and each one has its own flag, so one run's signal never stops the
// next. Tokens may be polled from any thread when their function may.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace tandem {

class StopToken {
public:
    /// A token that never asks to stop.
    StopToken() = default;
    /// A token asking `poll`: it returns the reason to stop (a signal number; any non-zero
    /// value), or 0 to go on.
    explicit StopToken(std::function<int()> poll) : m_poll(std::move(poll)) {}

    /// The reason to stop (a signal number: 128 + it is the exit code), or 0.
    int stopRequested() const { return m_poll ? m_poll() : 0; }

private:
    std::function<int()> m_poll;
};

/// How often a long loop of cheap steps (names checked, files listed) polls its token: every
/// this many steps, so a stop ends it within microseconds and the poll costs nothing.
inline constexpr std::size_t StopPollSteps = 1024;

/// What a step of set-up cut short by `signal` says, as the failure it returns:
/// "Interrupt: stopped during set-up, while DOING".
std::string stoppedWhile(int signal, std::string_view doing);

/// For an app's entry point: while it lives, SIGINT and SIGTERM ask its tokens to stop (the
/// app finishes what it writes and exits 128 + the signal), and a second stop signal of either
/// kind ends the process at once with that signal. SIGXFSZ is ignored meanwhile, so a write
/// past the file-size limit fails with EFBIG (a "disk full" the writers report) instead of
/// ending the process. The handlers before it are restored when it dies. One at a time per
/// process (Expects no other live StopSignals). Render (main) thread.
class StopSignals {
public:
    StopSignals();
    ~StopSignals();
    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;

    /// A token reporting this object's signal (it stays valid after the object dies, and
    /// keeps the signal that came).
    StopToken token() const;
    /// The signal that came (SIGINT, SIGTERM), or 0.
    int signal() const;

    struct Saved;

private:
    std::shared_ptr<Saved> m_saved;
};

} // namespace tandem
