// Error checking for CUDA runtime calls: every call goes through TANDEM_CUDA_CHECK, which throws
// cuda::CudaError naming the call, file:line and the runtime's text. Include only from .cpp/.cu
// files of cuda/, interop/ and postfx/ (it pulls in cuda_runtime_api.h).
#pragma once

#include <source_location>
#include <string>

#include <cuda_runtime_api.h>

#include "engine/core/Error.h"

namespace tandem::cuda {

/// A failed CUDA runtime call.
class CudaError : public Error {
public:
    CudaError(cudaError_t code, const std::string& call,
              std::source_location where = std::source_location::current());
    cudaError_t code() const { return m_code; }

private:
    cudaError_t m_code;
};

/// Throws CudaError if `result` is not cudaSuccess (and clears the runtime's last error).
void check(cudaError_t result, const char* call,
           std::source_location where = std::source_location::current());

/// Clears the runtime's last-error state after a call whose failure `handled` was already dealt
/// with (reported, or an expected answer of a capability probe). Any other error found pending is
/// logged as a warning naming `where` before it is cleared: an error is never dropped unseen.
/// Errors of a driver shutting down at exit stay quiet.
void clearError(const char* where, cudaError_t handled = cudaSuccess);

/// For code that cannot throw (destructors, frees, a fallback's probe): logs `call`'s failed
/// `result` as a warning and clears the runtime's last-error state. Success, and the errors of
/// a driver shutting down at exit, stay quiet. The one way an error is dropped: seen in the log.
void logFailure(cudaError_t result, const char* call) noexcept;

/// After a kernel launch: checks cudaGetLastError(), and in debug builds (or with
/// TANDEM_CUDA_SYNC=1) synchronizes the device to pin asynchronous faults to the launch.
void checkLaunch(const char* kernel, std::source_location where = std::source_location::current());

} // namespace tandem::cuda

#define TANDEM_CUDA_CHECK(call) ::tandem::cuda::check((call), #call)
