#include "engine/app/Report.h"

#include <algorithm>
#include <chrono>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <glad/gl.h>

#include "engine/core/File.h"
#include "engine/core/Version.h"
#include "engine/cuda/Device.h"

namespace tandem::app {

Report::Report(std::string app)
{
    m_json["app"] = std::move(app);
    // Which build wrote it: reports of two builds compared side by side say which is which.
    m_json["version"] = std::string(version());
    m_json["commit"] = std::string(commit());
    m_json["date"] = fmt::format(
        "{:%Y-%m-%dT%H:%M:%SZ}",
        fmt::gmtime(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now())));
    m_json["cuda_versions"] = cuda::versionString();
    // GL_VERSION carries the driver's version ("4.5.0 NVIDIA 580.159.04", "4.5 (Core Profile)
    // Mesa 22.3.6").
    const auto* version = reinterpret_cast<const char*>(glGetString(GL_VERSION));
    m_json["driver"] = version ? version : "unknown";
}

void Report::setInterop(const interop::InteropStatus& s, const std::string& backend,
                        const std::string& backendDescription)
{
    nlohmann::json j;
    j["path"] = interop::Paths.name(s.path);
    j["reason"] = s.reason;
    j["cuda_device"] = s.cudaDevice;
    j["cuda_device_name"] = s.cudaDeviceName;
    j["gl_vendor"] = s.glVendor;
    j["gl_renderer"] = s.glRenderer;
    j["egl_cuda_device"] = s.eglCudaDevice;
    j["gl_cuda_devices"] = s.glCudaDevices;
    if (s.handoffMicroseconds >= 0)
        j["handoff_us"] = s.handoffMicroseconds;
    else
        j["handoff_us"] = nullptr;
    m_json["interop"] = j;
    m_json["backend"] = backend;
    m_json["backend_description"] = backendDescription;
    m_json["gl_renderer"] = s.glRenderer;
    m_json["device"] = s.cudaDeviceName.empty() ? s.glRenderer : s.cudaDeviceName;
}

namespace {

nlohmann::json summaryJson(const profile::Summary& s, double frameMean)
{
    return {{"samples", s.count},
            {"last_ms", s.last},
            {"mean_ms", s.mean},
            {"min_ms", s.min},
            {"max_ms", s.max},
            {"p50_ms", s.p50},
            {"p95_ms", s.p95},
            {"p99_ms", s.p99},
            {"share", frameMean > 0 ? s.mean / frameMean : 0.0}};
}

nlohmann::json countJson(const profile::Summary& s)
{
    return {{"samples", s.count}, {"last", s.last}, {"mean", s.mean}, {"min", s.min},
            {"max", s.max},       {"p50", s.p50},   {"p95", s.p95},   {"p99", s.p99}};
}

} // namespace

void Report::setProfile(const profile::Profiler& profiler)
{
    nlohmann::json gpu = nlohmann::json::object();
    const double gpuFrame = profiler.gpuStats().summary("frame").mean;
    for (const auto& name : profiler.gpuStats().names())
        gpu[name] = summaryJson(profiler.gpuStats().summary(name), gpuFrame);
    nlohmann::json cpu = nlohmann::json::object();
    const double cpuFrame = profiler.cpuStats().summary("frame").mean;
    for (const auto& name : profiler.cpuStats().names())
        cpu[name] = summaryJson(profiler.cpuStats().summary(name), cpuFrame);
    nlohmann::json stalls = nlohmann::json::object();
    const double frames = std::max<double>(1.0, static_cast<double>(profiler.framesMeasured()));
    for (std::size_t i = 0; i < StallCauseCount; ++i)
        stalls[std::string(StallCauses.name(static_cast<StallCause>(i)))] = {
            {"total", profiler.stallTotals()[i]},
            {"per_frame", static_cast<double>(profiler.stallTotals()[i]) / frames}};
    // "compiled out": built with TANDEM_PROFILER=OFF, nothing below was measured.
    const char* state = !profile::CompiledIn ? "compiled out" : profiler.isEnabled() ? "on" : "off";
    m_json["profile"] = {
        {"profiler", state},
        {"gpu_stages", gpu},
        {"cpu_stages", cpu},
        {"handoffs_per_frame", countJson(profiler.counters().summary("handoffs"))},
        {"stalls_per_frame", countJson(profiler.counters().summary("stalls"))},
        {"throttles_per_frame", countJson(profiler.counters().summary("throttles"))},
        {"stalls_by_cause", stalls},
        {"frames_measured", profiler.framesMeasured()},
        {"frames_dropped", profiler.framesDropped()},
        {"clock_calibrations", profiler.calibrations()},
        {"window_frames", profiler.gpuStats().capacity()}};
}

Result<bool> Report::write(const std::filesystem::path& path, bool overwrite) const
{
    // A file or sequence name that is not UTF-8 is written with U+FFFD, not lost with the
    // report.
    return writeTextFile(
        path, m_json.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n",
        overwrite);
}

} // namespace tandem::app
