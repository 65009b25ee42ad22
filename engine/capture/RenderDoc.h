// Frame capture through RenderDoc's in-application API (renderdoc_app.h, Debian's
// librenderdoc-dev). RenderDoc must be in the process before the GL context exists: started
// under `renderdoccmd capture`, or re-executed with LD_PRELOAD (a plain dlopen after libEGL is
// loaded captures nothing — seen on Debian 12 with llvmpipe). Render thread for captures.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/Result.h"

namespace tandem::capture {

class RenderDoc {
public:
    /// Attaches to RenderDoc if its library is already loaded in this process; null otherwise.
    static std::unique_ptr<RenderDoc> attach();
    /// Where RenderDoc's library is: $TANDEM_RENDERDOC_LIBRARY when set (and only there), else
    /// librenderdoc.so on LD_LIBRARY_PATH, in /usr/lib (Debian) or /usr/local/lib.
    static std::optional<std::filesystem::path> findLibrary();
    /// Replaces this process with itself, RenderDoc preloaded (LD_PRELOAD) and
    /// TANDEM_RENDERDOC_CHILD=1 set. Returns only on failure, with the reason; refuses to loop
    /// when already the re-executed child.
    static Failure reexecWithRenderDoc(char** argv);
    /// Whether this process is the re-executed child.
    static bool isReexecutedChild();

    /// Captures go to `dir`/.tandem-capture-in-progress_capture.rdc (FrameCapture renames each
    /// one). Creates `dir`; fails naming it.
    Result<bool> setCaptureDirectory(const std::filesystem::path& dir);
    /// Brackets one frame (any device and window: tandem has one context).
    void startFrame();
    /// Ends the bracket; returns whether RenderDoc wrote a capture.
    bool endFrame();
    /// The captures written so far, oldest first.
    std::vector<std::string> captures() const;
    /// "1.24.0"-style API version.
    std::string version() const;

private:
    explicit RenderDoc(void* api) : m_api(api) {}
    void* m_api; ///< RENDERDOC_API_1_4_1 (a typedef, so not forward-declarable)
};

} // namespace tandem::capture
