#include "engine/core/ThreadPool.h"

#include <algorithm>

namespace tandem {

ThreadPool::ThreadPool(unsigned threads)
{
    if (threads == 0)
        threads = std::max(1u, std::thread::hardware_concurrency());
    for (unsigned i = 1; i < threads; ++i)
        m_workers.emplace_back([this] { work(); });
}

ThreadPool::~ThreadPool()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    for (auto& worker : m_workers)
        worker.join();
}

void ThreadPool::parallelFor(int count, const std::function<void(int, int)>& body)
{
    if (count <= 0)
        return;
    std::unique_lock lock(m_mutex);
    m_body = &body;
    m_count = count;
    // A few chunks per thread balances uneven rows without much locking.
    m_chunk = std::max(1, count / static_cast<int>(size() * 4));
    m_next = 0;
    ++m_round;
    m_wake.notify_all();
    for (;;) {
        if (m_next >= m_count)
            break;
        const int begin = m_next;
        const int end = std::min(m_count, begin + m_chunk);
        m_next = end;
        ++m_busy;
        lock.unlock();
        body(begin, end);
        lock.lock();
        --m_busy;
    }
    m_done.wait(lock, [this] { return m_busy == 0 && m_next >= m_count; });
    m_body = nullptr;
}

void ThreadPool::work()
{
    unsigned seen = 0;
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_wake.wait(lock,
                    [&] { return m_stop || (m_round != seen && m_body && m_next < m_count); });
        if (m_stop)
            return;
        seen = m_round;
        while (m_body && m_next < m_count) {
            const int begin = m_next;
            const int end = std::min(m_count, begin + m_chunk);
            m_next = end;
            ++m_busy;
            const auto* body = m_body;
            lock.unlock();
            (*body)(begin, end);
            lock.lock();
            --m_busy;
        }
        m_done.notify_all();
    }
}

} // namespace tandem
