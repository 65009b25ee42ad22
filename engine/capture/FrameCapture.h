// What an app needs to capture frames with RenderDoc: the --renderdoc/--capture-frame/
// --capture-dir settings, getting RenderDoc into the process before any GL library loads, and
// the bracket around a captured frame. Builds without renderdoc_app.h answer every request with
// a clear error. Render thread.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/Result.h"

namespace tandem::capture {

class RenderDoc;

struct CaptureSettings {
    bool renderdoc = false;                        ///< get RenderDoc into the process
    int frame = -1;                                ///< capture this frame (0-based), or none
    std::filesystem::path captureDir = "captures"; ///< where captures go
    std::string name = "tandem";                   ///< captures are NAME_frameNNNN.rdc
};

class FrameCapture {
public:
    /// Call before any GL library loads. With RenderDoc already in the process (preloaded or
    /// started under `renderdoccmd capture`), attaches and returns a session. With
    /// `settings.renderdoc`, re-executes this process with RenderDoc preloaded (returns only on
    /// failure). Returns null when nothing was asked and RenderDoc is absent; fails when a
    /// capture was asked for and cannot be had, or the capture folder cannot be made.
    static Result<std::unique_ptr<FrameCapture>> open(const CaptureSettings& settings, char** argv);
    ~FrameCapture();
    FrameCapture(const FrameCapture&) = delete;
    FrameCapture& operator=(const FrameCapture&) = delete;

    /// Captures the next frame that begins (F12, an overlay button).
    void request() { m_requested = true; }
    /// The flag request() sets, for widgets that set it themselves.
    bool* requestFlag() { return &m_requested; }
    /// Starts a capture if `frame` is the one asked for or one was requested; returns whether
    /// this frame is captured (into NAME_frameNNNN.rdc).
    bool beginFrame(int frame);
    /// Starts a capture into `fileStem`.rdc, unconditionally.
    void begin(const std::string& fileStem);
    /// Ends the capture begun (nothing if none) and logs the file. An existing file of the same
    /// name is never replaced: the new one gets a -2, -3... suffix. Returns the path written, or
    /// empty.
    std::string end();
    /// The captures written so far, oldest first.
    const std::vector<std::string>& captures() const { return m_captures; }
    /// A line for logs: RenderDoc's version, what is captured, where.
    std::string describe() const;

private:
    FrameCapture(std::unique_ptr<RenderDoc> renderdoc, CaptureSettings settings);
    std::unique_ptr<RenderDoc> m_renderdoc;
    CaptureSettings m_settings;
    bool m_requested = false;
    bool m_capturing = false;
    std::string m_stem;               ///< of the capture in progress
    std::size_t m_renderdocCount = 0; ///< captures RenderDoc has listed
    std::vector<std::string> m_captures;
};

} // namespace tandem::capture
