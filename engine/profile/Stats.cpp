#include "engine/profile/Stats.h"

#include <algorithm>
#include <cmath>

namespace tandem::profile {

double percentile(const std::vector<double>& sorted, double p)
{
    if (sorted.empty())
        return 0;
    const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(sorted.size() - 1);
    const auto low = static_cast<std::size_t>(std::floor(rank));
    const std::size_t high = std::min(low + 1, sorted.size() - 1);
    const double t = rank - static_cast<double>(low);
    return sorted[low] + (sorted[high] - sorted[low]) * t;
}

Summary summarize(const std::deque<double>& samples)
{
    Summary s;
    s.count = samples.size();
    if (samples.empty())
        return s;
    std::vector<double> sorted(samples.begin(), samples.end());
    std::sort(sorted.begin(), sorted.end());
    double sum = 0;
    for (double v : sorted)
        sum += v;
    s.last = samples.back();
    s.mean = sum / static_cast<double>(sorted.size());
    s.min = sorted.front();
    s.max = sorted.back();
    s.p50 = percentile(sorted, 50);
    s.p95 = percentile(sorted, 95);
    s.p99 = percentile(sorted, 99);
    return s;
}

void Window::add(std::string_view series, double value)
{
    auto it = m_samples.find(series);
    if (it == m_samples.end()) {
        it = m_samples.emplace(std::string(series), std::deque<double>{}).first;
        m_order.emplace_back(series);
    }
    it->second.push_back(value);
    while (it->second.size() > m_capacity)
        it->second.pop_front();
}

Summary Window::summary(std::string_view series) const
{
    const auto it = m_samples.find(series);
    return it == m_samples.end() ? Summary{} : summarize(it->second);
}

} // namespace tandem::profile
