// A fixed set of worker threads running index ranges in parallel (the host backend's per-row
// loops). parallelFor blocks the caller until every range is done. Not re-entrant: call from
// one thread at a time.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tandem {

class ThreadPool {
public:
    /// Starts `threads` workers (0: one per hardware thread).
    explicit ThreadPool(unsigned threads = 0);
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    /// Calls body(begin, end) over [0, count) split into chunks, on the workers and the caller.
    void parallelFor(int count, const std::function<void(int begin, int end)>& body);

    unsigned size() const { return static_cast<unsigned>(m_workers.size()) + 1; }

private:
    void work();

    std::vector<std::thread> m_workers;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    std::condition_variable m_done;
    const std::function<void(int, int)>* m_body = nullptr;
    int m_count = 0;
    int m_chunk = 1;
    int m_next = 0;
    int m_busy = 0;
    unsigned m_round = 0;
    bool m_stop = false;
};

} // namespace tandem
