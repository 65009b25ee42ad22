#include "engine/ui/Report.h"

#include <chrono>
#include <fstream>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "engine/cuda/Device.h"

namespace tandem::ui {

Report::Report(std::string app)
{
    m_json["app"] = std::move(app);
    m_json["date"] = fmt::format(
        "{:%Y-%m-%dT%H:%M:%SZ}",
        fmt::gmtime(std::chrono::system_clock::to_time_t(std::chrono::system_clock::now())));
    m_json["cuda_versions"] = cuda::versionString();
}

void Report::setInterop(const interop::InteropStatus& s, const std::string& backend,
                        const std::string& backendDescription)
{
    nlohmann::json j;
    j["path"] = interop::pathName(s.path);
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

Result<bool> Report::write(const std::filesystem::path& path, bool overwrite) const
{
    std::error_code ec;
    if (!overwrite && std::filesystem::exists(path, ec))
        return fail(
            fmt::format("{}: already exists (pass --overwrite to replace it)", path.string()));
    const std::filesystem::path temporary = path.string() + ".partial";
    {
        std::ofstream out(temporary);
        out << m_json.dump(2) << '\n';
        if (!out)
            return fail(fmt::format("{}: cannot write the report", path.string()));
    }
    std::filesystem::rename(temporary, path, ec);
    if (ec)
        return fail(fmt::format("{}: cannot write the report: {}", path.string(), ec.message()));
    return true;
}

} // namespace tandem::ui
