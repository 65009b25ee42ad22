#include "engine/cuda/CudaCheck.h"

#include <cstdlib>
#include <string_view>

#include "engine/core/Log.h"
#include "engine/core/Stall.h"

namespace tandem::cuda {

namespace {

std::string describe(cudaError_t code)
{
    return std::string(cudaGetErrorName(code)) + ": " + cudaGetErrorString(code);
}

bool syncAfterLaunch()
{
#ifdef TANDEM_DEBUG
    return true;
#else
    static const bool enabled = [] {
        const char* env = std::getenv("TANDEM_CUDA_SYNC");
        return env && *env && std::string_view(env) != "0";
    }();
    return enabled;
#endif
}

} // namespace

CudaError::CudaError(cudaError_t code, const std::string& call, std::source_location where)
    : Error(describe(code), call, where), m_code(code)
{}

void check(cudaError_t result, const char* call, std::source_location where)
{
    if (result == cudaSuccess)
        return;
    clearError(call, result); // a non-sticky error: later calls start clean
    throw CudaError(result, call, where);
}

void clearError(const char* where, cudaError_t handled)
{
    const cudaError_t pending = cudaGetLastError();
    if (pending == cudaSuccess || pending == handled || pending == cudaErrorCudartUnloading ||
        pending == cudaErrorContextIsDestroyed)
        return;
    log::warning("{}: CUDA error {} was pending ({}); cleared", where, cudaGetErrorName(pending),
                 cudaGetErrorString(pending));
}

void logFailure(cudaError_t result, const char* call) noexcept
{
    if (result != cudaSuccess && result != cudaErrorCudartUnloading &&
        result != cudaErrorContextIsDestroyed)
        log::warning("{} failed: {} ({})", call, cudaGetErrorString(result),
                     cudaGetErrorName(result));
    clearError(call, result);
}

void checkLaunch(const char* kernel, std::source_location where)
{
    check(cudaGetLastError(), kernel, where);
    if (syncAfterLaunch()) {
        recordStall(StallCause::DeviceSync);
        check(cudaDeviceSynchronize(), kernel, where);
    }
}

} // namespace tandem::cuda
