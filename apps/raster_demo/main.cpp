// tandem-raster: rasterizes meshes, point clouds and Gaussian splats (PLY, OBJ, splat files;
// several files make one scene)
// into the G-buffer, post-processes and shows it, in a window or headless. Wiring only: the
// session (engine/app) does the rest.
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "engine/app/Controls.h"
#include "engine/app/EnumOption.h"
#include "engine/app/Options.h"
#include "engine/app/Session.h"

using namespace tandem;

int main(int argc, char** argv)
{
    app::SessionSettings settings;
    std::vector<std::string> files;
    CLI::App cli{
        "tandem-raster: rasterize meshes, point clouds (PLY, OBJ) and Gaussian splats (3DGS or "
        "compressed PLY, SPZ, .splat) into a G-buffer, "
        "post-process it, and show one of its channels, in a window or headless. Several files "
        "are drawn together as one scene.\nWindow controls: " +
        ui::controlsHelp(app::WindowControls) + "."};
    cli.add_option("FILES", files,
                   "meshes, point clouds (.ply, .obj) or splats; default: built-in sample");
    app::addCommonOptions(cli, settings);
    app::addEnumOption(cli, "--up", settings.up, app::UpAxes,
                       "which axis of the files points up (the scene is turned to show it up)");
    return app::runApp(cli, settings, {"tandem-raster", ""}, argc, argv, [&](const auto& info) {
        app::OpenFailure failure;
        auto session = app::Session::open(info, settings, failure);
        if (!session)
            return app::exitWith(failure.exitCode, failure.message);
        if (auto loaded = session->load(files); !loaded)
            return app::exitWith(app::ExitInput, loaded.error());
        while (session->nextFrame())
            session->renderFrame();
        return session->finish();
    });
}
