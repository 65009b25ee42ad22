// Per-stage timing statistics over a sliding window of recent frames: last, mean, min, max,
// p50, p95, p99. Plain math, any thread (not synchronised: one owner).
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tandem::profile {

/// Summary of one series of samples (milliseconds).
struct Summary {
    std::size_t count = 0;
    double last = 0, mean = 0, min = 0, max = 0, p50 = 0, p95 = 0, p99 = 0;
};

/// Percentile `p` (0..100) of `sorted` by linear interpolation between closest ranks; 0 if
/// empty. Expects ascending order.
double percentile(const std::vector<double>& sorted, double p);

/// Summarises `samples` (in arrival order: the last one is `last`).
Summary summarize(const std::deque<double>& samples);

/// A window of the most recent `capacity` samples for each named series.
class Window {
public:
    explicit Window(std::size_t capacity = 240) : m_capacity(capacity) {}

    /// Adds a sample; allocates only for a series not seen before (and as the window fills).
    void add(std::string_view series, double value);
    Summary summary(std::string_view series) const;
    /// Series names in first-seen order.
    const std::vector<std::string>& names() const { return m_order; }
    std::size_t capacity() const { return m_capacity; }

private:
    std::size_t m_capacity;
    std::map<std::string, std::deque<double>, std::less<>> m_samples;
    std::vector<std::string> m_order;
};

} // namespace tandem::profile
