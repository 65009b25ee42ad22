#include "engine/capture/FrameCapture.h"

#include <utility>

#include <fmt/format.h>

#include "engine/capture/RenderDoc.h" // declarations only: no renderdoc_app.h needed
#include "engine/core/AtomicFile.h"
#include "engine/core/Log.h"
#include "engine/gl/Gl.h"

namespace tandem::capture {

namespace fs = std::filesystem;

#ifdef TANDEM_HAS_RENDERDOC

Result<std::unique_ptr<FrameCapture>> FrameCapture::open(const CaptureSettings& settings,
                                                         char** argv)
{
    std::unique_ptr<RenderDoc> renderdoc = RenderDoc::attach();
    // Without RenderDoc the run goes on, capture disabled, said once.
    if (settings.renderdoc && !renderdoc) {
        Result<std::unique_ptr<FrameCapture>> none{std::unique_ptr<FrameCapture>()};
        none.addWarning("--renderdoc: " + RenderDoc::reexecWithRenderDoc(argv).message +
                        "; capture disabled");
        return none;
    }
    if (!renderdoc) {
        Result<std::unique_ptr<FrameCapture>> none{std::unique_ptr<FrameCapture>()};
        if (settings.frame >= 0)
            none.addWarning("--capture-frame needs RenderDoc (add --renderdoc, or run under "
                            "renderdoccmd capture); capture disabled");
        return none;
    }
    if (auto ok = renderdoc->setCaptureDirectory(settings.captureDir); !ok)
        return fail(ok.error());
    return std::unique_ptr<FrameCapture>(new FrameCapture(std::move(renderdoc), settings));
}

FrameCapture::FrameCapture(std::unique_ptr<RenderDoc> renderdoc, CaptureSettings settings)
    : m_renderdoc(std::move(renderdoc)), m_settings(std::move(settings))
{}

FrameCapture::~FrameCapture() = default;

bool FrameCapture::beginFrame(int frame)
{
    if (frame != m_settings.frame && !m_requested)
        return false;
    m_requested = false;
    begin(fmt::format("{}_frame{:04}", m_settings.name, frame));
    return true;
}

void FrameCapture::begin(const std::string& fileStem)
{
    TANDEM_ASSERT(!m_capturing, "FrameCapture::begin: the previous capture was not ended");
    m_stem = fileStem;
    m_renderdoc->startFrame();
    m_capturing = true;
}

std::string FrameCapture::end()
{
    if (!m_capturing)
        return {};
    m_capturing = false;
    const bool written = m_renderdoc->endFrame();
    // RenderDoc 1.24 raises GL_INVALID_FRAMEBUFFER_OPERATION inside EndFrameCapture on a
    // surfaceless EGL context (llvmpipe, Debian 12): not ours, so not left pending.
    if (const int stray = gl::drainErrors(); stray > 0)
        log::debug("discarded {} GL error flags raised by RenderDoc", stray);
    const std::vector<std::string> list = m_renderdoc->captures();
    if (!written || list.size() <= m_renderdocCount) {
        log::error("RenderDoc did not write a capture for {}", m_stem);
        return {};
    }
    m_renderdocCount = list.size();
    // RenderDoc writes every capture to its one template path; each is moved to its own name,
    // synced, never replacing a file (an earlier capture, another process's): a name taken is
    // found by the move itself and the next one tried.
    const fs::path writtenPath = list.back();
    fs::path target = m_settings.captureDir / (m_stem + ".rdc");
    bool existed = true;
    Result<bool> moved = true;
    for (int n = 2; existed && n < 10000; ++n) {
        moved = moveIntoPlace(writtenPath, target, Replace::No, &existed);
        if (existed)
            target = m_settings.captureDir / fmt::format("{}-{}.rdc", m_stem, n);
    }
    if (!moved) {
        log::error("cannot move RenderDoc's capture {}: {}", writtenPath.string(), moved.error());
        return {};
    }
    m_captures.push_back(target.string());
    log::info("captured {}", target.string());
    return target.string();
}

std::string FrameCapture::describe() const
{
    return fmt::format("RenderDoc (API {}) attached: {}, into {}", m_renderdoc->version(),
                       m_settings.frame >= 0 ? fmt::format("captures frame {}", m_settings.frame)
                                             : std::string("captures on request"),
                       m_settings.captureDir.string());
}

#else

Result<std::unique_ptr<FrameCapture>> FrameCapture::open(const CaptureSettings& settings, char**)
{
    Result<std::unique_ptr<FrameCapture>> none{std::unique_ptr<FrameCapture>()};
    if (settings.renderdoc || settings.frame >= 0)
        none.addWarning("this build has no RenderDoc support (built with TANDEM_RENDERDOC=OFF or "
                        "without librenderdoc-dev); capture disabled");
    return none;
}

FrameCapture::FrameCapture(std::unique_ptr<RenderDoc>, CaptureSettings settings)
    : m_settings(std::move(settings))
{}

FrameCapture::~FrameCapture() = default;

bool FrameCapture::beginFrame(int)
{
    return false;
}

void FrameCapture::begin(const std::string&) {}

std::string FrameCapture::end()
{
    return {};
}

std::string FrameCapture::describe() const
{
    return "RenderDoc support not built";
}

#endif

} // namespace tandem::capture
