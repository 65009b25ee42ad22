// A streamed source for tests whose frames load only once the test releases them, one failing.
// Any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>

#include <fmt/format.h>

#include "engine/stream/Source.h"

namespace tandem::test {

/// The sample, but a frame loads only once the test releases it (a loader stuck on a slow disk),
/// and frame `broken` fails. A load waits at most a minute for its release, so a player that
/// waited for a loader would come back only after that: `update` returning while the frame is
/// still held shows it did not wait.
class GatedSource : public stream::Source {
public:
    GatedSource(std::unique_ptr<stream::Source> inner, int broken)
        : m_inner(std::move(inner)), m_broken(broken)
    {}
    ~GatedSource() override { releaseAll(); }

    void release(int index)
    {
        std::lock_guard lock(m_mutex);
        m_released.insert(index);
        m_changed.notify_all();
    }
    void releaseAll()
    {
        std::lock_guard lock(m_mutex);
        m_all = true;
        m_changed.notify_all();
    }
    bool held(int index) const
    {
        std::lock_guard lock(m_mutex);
        return !m_all && !m_released.contains(index);
    }

    std::string description() const override { return "gated " + m_inner->description(); }
    int frameCount() const override { return m_inner->frameCount(); }
    double fps() const override { return m_inner->fps(); }
    std::string frameName(int index) const override { return m_inner->frameName(index); }
    std::optional<render::SceneCounts> largestFrame() const override
    {
        return m_inner->largestFrame();
    }
    std::optional<io::Bounds> bounds() const override { return m_inner->bounds(); }
    Result<std::span<const std::uint8_t>> load(int index,
                                               const stream::BlockSink& sink) const override
    {
        {
            std::unique_lock lock(m_mutex);
            m_changed.wait_for(lock, std::chrono::minutes(1),
                               [&] { return m_all || m_released.contains(index); });
        }
        if (index == m_broken)
            return fail(fmt::format("frame {}: corrupt (the test's)", index));
        return m_inner->load(index, sink);
    }

private:
    std::unique_ptr<stream::Source> m_inner;
    int m_broken;
    mutable std::mutex m_mutex;
    mutable std::condition_variable m_changed;
    std::set<int> m_released;
    bool m_all = false;
};

} // namespace tandem::test
