// What registering something returns: a move-only handle that unregisters it when destroyed (or
// reset()), so nothing registered outlives what it calls and no teardown order is written by
// hand. A registry (core::Registry here, or any owner that hands out registrations) may die
// first: the handle then does nothing. Not thread-safe: registry and handles live on one thread
// (the render thread for the frame's passes, the overlay's panels and the session's callbacks).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

namespace tandem {

class [[nodiscard]] Registration {
public:
    /// Holds nothing (a moved-from handle is one).
    Registration() = default;
    /// Runs `undo` once, when this handle dies or is reset, unless `owner` (the registry's
    /// lifetime token) has expired by then.
    Registration(std::weak_ptr<const void> owner, std::function<void()> undo)
        : m_owner(std::move(owner)), m_undo(std::move(undo))
    {}
    ~Registration() { reset(); }
    Registration(const Registration&) = delete;
    Registration& operator=(const Registration&) = delete;
    Registration(Registration&& other) noexcept
        : m_owner(std::move(other.m_owner)), m_undo(std::exchange(other.m_undo, nullptr))
    {}
    Registration& operator=(Registration&& other) noexcept
    {
        if (this != &other) {
            reset();
            m_owner = std::move(other.m_owner);
            m_undo = std::exchange(other.m_undo, nullptr);
        }
        return *this;
    }

    /// Unregisters now (nothing if already done, or if the registry is gone).
    void reset()
    {
        if (auto undo = std::exchange(m_undo, nullptr); undo && !m_owner.expired())
            undo();
        m_owner.reset();
    }
    /// Whether it still holds a registration whose registry lives.
    bool isActive() const { return m_undo && !m_owner.expired(); }

private:
    std::weak_ptr<const void> m_owner;
    std::function<void()> m_undo;
};

/// An ordered list of registered values (callbacks, panels): add() returns the handle that
/// removes the value again. Values removed while forEach() runs are not visited after that.
template <class T> class Registry {
public:
    Registry() = default;
    Registry(const Registry&) = delete;
    Registry& operator=(const Registry&) = delete;

    /// Appends `value`; the handle removes it.
    Registration add(T value)
    {
        const std::uint64_t id = m_nextId++;
        m_entries.push_back({id, std::move(value)});
        return Registration(m_token, [this, id] { remove(id); });
    }

    /// Calls `visit(value)` for each value in order of registration, on a copy (so a callback
    /// may unregister itself or others while it runs). A value added during the walk is visited
    /// from the next walk on; one removed during it is not visited.
    template <class F> void forEach(F&& visit) const
    {
        std::vector<std::uint64_t> ids;
        ids.reserve(m_entries.size());
        for (const Entry& entry : m_entries)
            ids.push_back(entry.id);
        for (std::uint64_t id : ids)
            if (const T* value = find(id)) {
                T copy = *value;
                visit(copy);
            }
    }
    std::size_t size() const { return m_entries.size(); }
    bool isEmpty() const { return m_entries.empty(); }

private:
    struct Entry {
        std::uint64_t id;
        T value;
    };
    const T* find(std::uint64_t id) const
    {
        for (const Entry& entry : m_entries)
            if (entry.id == id)
                return &entry.value;
        return nullptr;
    }
    void remove(std::uint64_t id)
    {
        m_entries.erase(std::remove_if(m_entries.begin(), m_entries.end(),
                                       [id](const Entry& entry) { return entry.id == id; }),
                        m_entries.end());
    }

    std::vector<Entry> m_entries;
    std::uint64_t m_nextId = 1;
    /// Expires with the registry: handles that outlive it do nothing.
    std::shared_ptr<const void> m_token = std::make_shared<char>(0);
};

/// The lifetime token of an owner that hands out its own registrations (the frame's passes):
/// make() ties an undo to it.
class RegistrationOwner {
public:
    RegistrationOwner() = default;
    RegistrationOwner(const RegistrationOwner&) = delete;
    RegistrationOwner& operator=(const RegistrationOwner&) = delete;
    /// A handle running `undo` when it dies, unless this owner died first.
    Registration make(std::function<void()> undo) const
    {
        return Registration(m_token, std::move(undo));
    }

private:
    std::shared_ptr<const void> m_token = std::make_shared<char>(0);
};

} // namespace tandem
