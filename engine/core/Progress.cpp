#include "engine/core/Progress.h"

#include <unistd.h>

#include <fmt/format.h>

namespace tandem {

Progress::Progress(std::string label, std::uint64_t total, bool enabled, std::FILE* out)
    : m_label(std::move(label)), m_total(total), m_enabled(enabled), m_out(out),
      m_terminal(isatty(fileno(out)) != 0), m_start(std::chrono::steady_clock::now()),
      m_last(m_start)
{}

std::string Progress::line(std::uint64_t done) const
{
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
    const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0.0;
    std::string text =
        m_total ? fmt::format("{}/{} frames", done, m_total) : fmt::format("{} frames", done);
    text += fmt::format("  {:.1f} frames/s", rate);
    if (m_total && rate > 0 && done < m_total)
        text += fmt::format("  ETA {:.1f} s", static_cast<double>(m_total - done) / rate);
    else if (m_total && done >= m_total)
        text += fmt::format("  in {:.1f} s", seconds);
    return text;
}

void Progress::update(std::uint64_t done)
{
    if (!m_enabled)
        return;
    const auto now = std::chrono::steady_clock::now();
    const double since = std::chrono::duration<double>(now - m_last).count();
    // A terminal line refreshes often; a log gets a line every few seconds.
    if (since < (m_terminal ? 0.25 : 5.0))
        return;
    m_last = now;
    if (m_terminal)
        fmt::print(m_out, "\r{}: {}\033[K", m_label, line(done));
    else
        fmt::print(m_out, "{}: {}\n", m_label, line(done));
    std::fflush(m_out);
}

void Progress::finish(std::uint64_t done)
{
    if (!m_enabled)
        return;
    if (m_terminal)
        fmt::print(m_out, "\r{}: {}\033[K\n", m_label, line(done));
    else
        fmt::print(m_out, "{}: {}\n", m_label, line(done));
    std::fflush(m_out);
}

} // namespace tandem
