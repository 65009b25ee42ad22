// tandem-bench: benchmarks that run on the GPU host and write JSON results for bench/results/.
//   tandem-bench interop [--json FILE]   GL↔CUDA handoff variants and post-process stage speed
//   tandem-bench raster  [--json FILE]   geometry pass vs a bare draw, plus the handoff
//   tandem-bench overhead [--json FILE]  the profiler's cost: frame and CPU time on vs off
//   tandem-bench export [--json FILE]    headless frames/s with frame output (none, PAM, PNG)
//   tandem-bench points [--json FILE]    CUDA point pass vs GL_POINTS vs a bare atomicMin
//   tandem-bench stream [--json FILE]    upload paths, source load speeds, the viewer streaming
//   tandem-bench tensor-raster [--json FILE]  tandem.rasterize's engine path vs the geometry pass
//   tandem-bench frame [--json FILE]     whole frames: GL vs CUDA draws, GL's memory vs resident
//   tandem-bench splats [--json FILE]    the CUDA splat pass and its stages on dense scenes
// With --renderdoc (raster, overhead), each drawing variant is also run once, untimed, inside a
// RenderDoc capture at 1080p; its image is written beside the capture.
#include <cstdio>

#include <CLI/CLI.hpp>

#include "BenchCommon.h"
#include "ExportBench.h"
#include "FrameBench.h"
#include "OverheadBench.h"
#include "PointsBench.h"
#include "RasterBench.h"
#include "SplatsBench.h"
#include "StreamBench.h"
#include "engine/app/VersionOption.h"
#include "engine/capture/CaptureOptions.h"
#include "engine/core/Error.h"
#include "engine/cuda/Device.h"
#ifdef TANDEM_HAS_CUDA
#include "InteropBench.h"
#include "TensorRasterBench.h"
#endif

using namespace tandem;

int main(int argc, char** argv)
{
    CLI::App app{"tandem-bench: GPU benchmarks (run them on the GPU host; results are medians)"};
    app.require_subcommand(1);
    bench::Settings settings;
    int triangles = 2'000'000;
    auto common = [&](CLI::App* sub) {
        sub->add_option("--json", settings.jsonPath, "write results as JSON to this file");
        sub->add_option("--frames", settings.frames, "timed frames per variant")
            ->check(CLI::Range(3, 100000))
            ->capture_default_str();
        sub->add_option("--warmup", settings.warmup, "untimed frames first")
            ->check(CLI::Range(0, 100000))
            ->capture_default_str();
        sub->add_option("--device", settings.device, "CUDA device index");
        sub->add_option("--commit", settings.commit, "commit recorded in the JSON");
        sub->add_flag("--overwrite", settings.overwrite, "replace an existing JSON file");
    };
    CLI::App* interop = app.add_subcommand(
        "interop", "GL<->CUDA handoff per frame (per-resource, batched, pixel-pack, readPixels + "
                   "memcpy) at 1080p and 4K with 1, 2, 4 resources; stage kernels vs a copy");
    common(interop);
    CLI::App* raster = app.add_subcommand(
        "raster", "geometry pass (+ handoff) vs a bare draw of a generated mesh at 1080p and 4K");
    common(raster);
    CLI::App* overhead = app.add_subcommand(
        "overhead", "frame time and CPU time per frame with the profiler on vs off (1080p, "
                    "sample mesh, tonemap+fxaa)");
    common(overhead);
    CLI::App* exporting = app.add_subcommand(
        "export", "headless frames/s of a generated mesh with frame output (none, raw PAM, PNG) "
                  "at 1080p and 4K, with the GPU frame time and stalls per frame; PNG encoders "
                  "compared on one frame");
    common(exporting);
    bench::ExportSettings exportSettings;
    exporting->add_option("--triangles", exportSettings.triangles, "triangles in the mesh")
        ->check(CLI::Range(1000, 100'000'000))
        ->capture_default_str();
    exporting
        ->add_option("--sizes", exportSettings.sizes, "sizes: 1080p, 4K or WxH, comma separated")
        ->capture_default_str();
    exporting
        ->add_option("--formats", exportSettings.formats,
                     "output formats, comma separated: none, pam, png")
        ->capture_default_str();
    exporting->add_option("--out", exportSettings.outDir,
                          "folder for the frames (default: a temporary folder, removed after)");
    exporting->add_flag("--keep", exportSettings.keep, "keep the frames written");
    exporting->add_option("--output-threads", exportSettings.threads,
                          "writer threads (default: one per core but one)");
    CLI::App* pointsBench = app.add_subcommand(
        "points", "a generated point cloud through the CUDA point pass and GL_POINTS, with a bare "
                  "atomicMin kernel as the floor (1M, 10M, 100M points; 1080p, 4K; 1, 3, 8 px), "
                  "and the whole frame of a 1M-point cloud with tonemap,fxaa");
    common(pointsBench);
    bench::PointsSettings pointsSettings;
    pointsBench->add_option("--counts", pointsSettings.counts, "cloud sizes, comma separated")
        ->capture_default_str();
    pointsBench->add_option("--sizes", pointsSettings.sizes, "1080p, 4K or WxH, comma separated")
        ->capture_default_str();
    pointsBench->add_option("--splats", pointsSettings.splats, "splat diameters in px")
        ->capture_default_str();
    pointsBench->add_option("--gl-frames", pointsSettings.glFrames, "timed GL_POINTS frames")
        ->check(CLI::Range(1, 10000))
        ->capture_default_str();
    CLI::App* tensorRaster = app.add_subcommand(
        "tensor-raster", "tandem.rasterize's engine path (clip-space positions in CUDA memory, "
                         "batch 1 and 8) vs the geometry pass + one handoff on the same wavy "
                         "grid at 1080p and 4K (CUDA builds)");
    common(tensorRaster);
    int grid = 1024;
    tensorRaster->add_option("--grid", grid, "quads per side of the grid (1024: 2.10 M triangles)")
        ->check(CLI::Range(1, 4096))
        ->capture_default_str();
    CLI::App* streamBench = app.add_subcommand(
        "stream", "streaming 1M-point frames: pinned bandwidth, each upload path, loading a frame "
                  "from PLY and packs per core, tandem-pack conversion, and the viewer end to end "
                  "(streamed vs preloaded pack, PLY) at 1080p and 4K");
    common(streamBench);
    bench::StreamBenchSettings streamSettings;
    streamBench->add_option("--points", streamSettings.points, "points a frame")
        ->capture_default_str();
    streamBench
        ->add_option("--sequence-frames", streamSettings.sequenceFrames,
                     "frames of the generated pack")
        ->check(CLI::Range(2, 100000))
        ->capture_default_str();
    streamBench
        ->add_option("--load-frames", streamSettings.loadFrames,
                     "frames per source kind in the load table")
        ->check(CLI::Range(1, 1000))
        ->capture_default_str();
    streamBench
        ->add_option("--ply-frames", streamSettings.plyFrames,
                     "distinct binary PLY files of the streamed PLY row, played four times (more "
                     "than the staging slots a folder gets, two a loader thread, so each loop "
                     "decodes them again)")
        ->check(CLI::Range(1, 100000))
        ->capture_default_str();
    streamBench->add_option("--sizes", streamSettings.sizes, "1080p, 4K or WxH, comma separated")
        ->capture_default_str();
    streamBench->add_option("--work", streamSettings.workDir,
                            "folder for the generated packs and PLY files (kept; default: a "
                            "temporary folder, removed after)");
    streamBench->add_flag("--keep", streamSettings.keep, "keep the temporary folder");
    streamBench->add_flag("!--no-preloaded", streamSettings.preloaded,
                          "leave out the preloaded end-to-end rows");
    CLI::App* frameBench = app.add_subcommand(
        "frame", "whole frames (tonemap,fxaa) of a 2.09 M-triangle sheet, a 1 M-point cloud and "
                 "both, at 1080p and 4K: GL vs CUDA draws, GL's memory vs resident on CUDA, "
                 "headless and presented (one handoff vs one copy); CUDA builds");
    common(frameBench);
    bench::FrameBenchSettings frameSettings;
    frameBench->add_option("--grid", frameSettings.grid, "vertices per side of the sheet")
        ->check(CLI::Range(2, 8192))
        ->capture_default_str();
    frameBench->add_option("--points", frameSettings.points, "points of the cloud")
        ->capture_default_str();
    frameBench->add_option("--sizes", frameSettings.sizes, "1080p, 4K or WxH, comma separated")
        ->capture_default_str();
    frameBench
        ->add_option("--scenes", frameSettings.scenes,
                     "scenes, comma separated: mesh, points, mesh+points")
        ->capture_default_str();
    CLI::App* splatsBench = app.add_subcommand(
        "splats", "the CUDA splat pass (project, sort, blend) on a dense generated scene: 1M and "
                  "6M Gaussians, SH 0 and 3, at 1080p and 4K (CUDA builds)");
    common(splatsBench);
    bench::SplatsSettings splatsSettings;
    splatsBench->add_option("--counts", splatsSettings.counts, "Gaussians, comma separated")
        ->capture_default_str();
    splatsBench->add_option("--degrees", splatsSettings.degrees, "SH degrees, comma separated")
        ->capture_default_str();
    splatsBench->add_option("--sizes", splatsSettings.sizes, "1080p, 4K or WxH, comma separated")
        ->capture_default_str();
    splatsBench
        ->add_option("--streamed", splatsSettings.streamed,
                     "Gaussians a frame of the sequences streamed from a pack, comma separated "
                     "(\"\": none)")
        ->capture_default_str();
    splatsBench
        ->add_option("--streamed-frames", splatsSettings.streamedFrames,
                     "frames of each streamed pack")
        ->check(CLI::Range(2, 10000))
        ->capture_default_str();
    splatsBench->add_option("--work", splatsSettings.workDir,
                            "where the packs go (default: a temporary folder, removed)");
    splatsBench->add_flag("--keep", splatsSettings.keep, "keep the packs");
    // Captures: one extra, untimed repetition of each drawing variant at the first size.
    capture::CaptureSettings captureSettings;
    for (CLI::App* sub : {raster, overhead})
        capture::addCaptureOptions(*sub, captureSettings, "");
    raster->add_option("--triangles", triangles, "triangles in the generated mesh")
        ->check(CLI::Range(1000, 100'000'000))
        ->capture_default_str();
    tandem::app::addVersionOption(app, "tandem-bench");
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        std::printf("%s", app.help().c_str());
        return 0;
    } catch (const CLI::CallForVersion& call) {
        return tandem::app::printVersion(call);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) {
            std::printf("%s", app.help(e.what()).c_str());
            return 0;
        }
        std::fprintf(stderr, "error: %s\nRun with --help for usage.\n", e.what());
        return 2;
    }
    // RenderDoc must be in the process before any GL library loads.
    auto capture = capture::FrameCapture::open(captureSettings, argv);
    if (!capture) {
        std::fprintf(stderr, "error: %s\n", capture.error().c_str());
        return 1;
    }
    settings.capture = capture.value().get();
    settings.argv = argv;
    try {
        if (raster->parsed())
            return bench::runRasterBench(settings, triangles);
        if (overhead->parsed())
            return bench::runOverheadBench(settings);
        if (exporting->parsed())
            return bench::runExportBench(settings, exportSettings);
        if (pointsBench->parsed())
            return bench::runPointsBench(settings, pointsSettings);
        if (streamBench->parsed())
            return bench::runStreamBench(settings, streamSettings);
#ifdef TANDEM_HAS_CUDA
        if (splatsBench->parsed()) {
            if (auto device = cuda::selectDevice(settings.device); !device) {
                std::fprintf(stderr, "error: tandem-bench splats needs a GPU: %s\n",
                             device.error().c_str());
                return 1;
            }
            return bench::runSplatsBench(settings, splatsSettings);
        }
        if (frameBench->parsed()) {
            if (auto device = cuda::selectDevice(settings.device); !device) {
                std::fprintf(stderr, "error: tandem-bench frame needs a GPU: %s\n",
                             device.error().c_str());
                return 1;
            }
            return bench::runFrameBench(settings, frameSettings);
        }
        if (tensorRaster->parsed())
            return bench::runTensorRasterBench(settings, grid);
        if (auto device = cuda::selectDevice(settings.device); !device) {
            std::fprintf(stderr, "error: tandem-bench interop needs a GPU: %s\n",
                         device.error().c_str());
            return 1;
        }
        return bench::runInteropBench(settings);
#else
        (void)grid;
        (void)frameSettings;
        (void)splatsSettings;
        std::fprintf(stderr, "error: tandem-bench %s needs a build with CUDA\n",
                     frameBench->parsed()     ? "frame"
                     : splatsBench->parsed()  ? "splats"
                     : tensorRaster->parsed() ? "tensor-raster"
                                              : "interop");
        return 1;
#endif
    } catch (const Error& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: unexpected failure: %s\n", e.what());
        return 1;
    }
}
