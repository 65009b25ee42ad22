// The run report (--report FILE.json): what ran where — the build (version, commit), device,
// driver, GL renderer, the interop path and its measured handoff cost, the post-process
// chain — written at exit.
// Render thread (reads GL strings at construction).
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/core/Result.h"
#include "engine/interop/Doctor.h"
#include "engine/profile/Profiler.h"

namespace tandem::app {

class Report {
public:
    /// Starts a report for `app`.
    explicit Report(std::string app);

    /// Records the interop doctor's findings and the backend in use.
    void setInterop(const interop::InteropStatus& status, const std::string& backend,
                    const std::string& backendDescription);
    /// Records per-stage statistics (GPU and CPU: last, mean, min, max, p50, p95, p99, share of
    /// the frame), handoffs and stalls by cause per frame, frames measured and dropped.
    void setProfile(const profile::Profiler& profiler);
    /// Sets any other top-level field.
    void set(const std::string& key, nlohmann::json value) { m_json[key] = std::move(value); }
    nlohmann::json& json() { return m_json; }

    /// Writes the report as JSON. Refuses to replace an existing file unless `overwrite`.
    Result<bool> write(const std::filesystem::path& path, bool overwrite) const;

private:
    nlohmann::json m_json;
};

} // namespace tandem::app
