// What a post-process backend reports while it runs, so a profiler can time it without
// postfx depending on one: the handoff's edges, and each stage's start and end (with the CUDA
// stream it ran on, or null for host stages). Render thread.
#pragma once

namespace tandem::postfx {

class StageHooks {
public:
    virtual ~StageHooks() = default;
    /// GL side, just before the resources are mapped (or read back, on the host path).
    virtual void beginHandoff() = 0;
    /// Right after the map, on the post-process stream (CUDA path only).
    virtual void anchorHandoff(void* stream) = 0;
    /// GL side, just after the unmap (or upload).
    virtual void endHandoff() = 0;
    /// A stage (or the final "encode") starts; `stream` is its cudaStream_t, null on the host.
    /// `name` is a string literal (stageName()'s), so a profiler may keep the pointer.
    virtual void beginStage(const char* name, void* stream) = 0;
    virtual void endStage(const char* name, void* stream) = 0;
};

} // namespace tandem::postfx
