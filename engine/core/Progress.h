// The progress line of a long run on stderr (headless renders, tandem-pack): frames done of the
// total, frames per second, time left. On a terminal it rewrites one line (\r) a few times a
// second; into a log it prints a line every few seconds. One thread at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace tandem {

class Progress {
public:
    /// `total` frames (0: unknown); `enabled` false prints nothing (-q). `label` starts each
    /// line ("tandem-raster").
    Progress(std::string label, std::uint64_t total, bool enabled, std::FILE* out = stderr);

    /// `done` frames are finished; prints when it is time to.
    void update(std::uint64_t done);
    /// Prints the final line: frames, rate, total time.
    void finish(std::uint64_t done);

    /// The line as it would print now ("120/400 frames  58.3 frames/s  ETA 4.8 s").
    std::string line(std::uint64_t done) const;

private:
    std::string m_label;
    std::uint64_t m_total;
    bool m_enabled;
    std::FILE* m_out;
    bool m_terminal;
    std::chrono::steady_clock::time_point m_start;
    std::chrono::steady_clock::time_point m_last;
};

} // namespace tandem
