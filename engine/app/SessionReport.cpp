// The session's sections of the run report (--report): what ran where, what was shown, the
// output and the profile. Apps add theirs through Session::onReport().
#include "engine/app/Session.h"

#include <algorithm>

#include "engine/app/FrameOutput.h"
#include "engine/app/RemoteView.h"
#include "engine/frame/Frame.h"
#include "engine/render/GpuScene.h"
#include "engine/render/SceneRenderer.h"

namespace tandem::app {

Report Session::makeReport() const
{
    Report report(m_app.name);
    report.setInterop(m_up.doctor, std::string(interop::Paths.name(m_up.residence.path)),
                      m_up.residence.reason);
    report.set("postfx", postfx::formatChain(m_chain));
    report.set("points", {{"path", render::PointPaths.name(m_frame->pointPath())},
                          {"size_pixels", m_geometry.pointSize},
                          {"world_size", m_geometry.pointWorldSize},
                          {"count", m_shown ? m_shown->pointCount() : 0}});
    report.set("splats", {{"path", render::SplatPaths.name(m_frame->splatPass().splatPath())},
                          {"count", m_shown ? m_shown->splats().count() : 0},
                          {"sh_degree_stored", m_shown ? m_shown->splats().shDegree() : 0},
                          {"sh_degree_drawn", std::min(m_geometry.splatShDegree,
                                                       m_shown ? m_shown->splats().shDegree() : 0)},
                          {"scale", m_geometry.splatScale},
                          {"up", UpAxes.name(m_settings.up)}});
    const frame::RasterDecision& raster = m_frame->rasterDecision();
    report.set("raster", {{"path", render::RasterPaths.name(raster.path)},
                          {"reason", raster.reason},
                          {"measured", raster.measured},
                          {"gl_ms", raster.glMs},
                          {"cuda_ms", raster.cudaMs}});
    report.set("memory", {{"last", frame::Memories.name(m_frame->memory())},
                          {"reason", m_frame->memoryReason()},
                          {"resident_frames", m_frame->residentFrames()},
                          {"handoffs", m_frame->handoffs()}});
    report.set("channel", frame::Channels.name(m_channel));
    report.set("resolution", {m_renderer->width(), m_renderer->height()});
    report.set("frames", m_rendered);
    // The render loop's own rate, first frame to last (frames waited for included).
    const double loopSeconds =
        std::chrono::duration<double>(m_lastFrameAt - m_firstFrameAt).count();
    report.set("loop",
               {{"seconds", loopSeconds},
                {"frames_per_second", loopSeconds > 0 ? (m_rendered - 1) / loopSeconds : 0.0}});
    report.set("files", m_files);
    report.set("scene", {{"objects", m_shown ? m_shown->objects().size() : 0},
                         {"vertices", m_shown ? m_shown->vertexCount() : 0},
                         {"triangles", m_shown ? m_shown->triangleCount() : 0}});
    report.set("warmup_frames", m_settings.warmup);
    report.set("camera_path", m_settings.cameraPath ? m_settings.cameraPath->text() : "spin");
    report.set("output", m_output->report());
    if (m_remote)
        report.set("serve", m_remote->report());
    report.setProfile(*m_profiler);
    return report;
}

} // namespace tandem::app
