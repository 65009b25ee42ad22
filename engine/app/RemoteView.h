// A session's browser view (--serve): the web server and its page (engine/web), frames read
// back through a ring of its own that never waits (a frame is read only when a client can take
// one and a slot is free; otherwise it is skipped), JPEG-encoded on workers with the newest
// frame winning, the driving client's input turned into window events, and stats a few times a
// second. Commands the page sends (seek...) go to handlers an app registers. Render thread with
// the GL context current, but the encoders (their own threads).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/app/Settings.h"
#include "engine/core/Registration.h"
#include "engine/core/Result.h"
#include "engine/platform/Input.h"

namespace tandem::frame {
class Frame;
}
namespace tandem::render {
class SceneRenderer;
}

namespace tandem::app {

class RemoteView {
public:
    /// Starts the server at `address` for app `appName` (`version` in the page's title), with
    /// `encoders` encoding threads (at least 1). Prints the URL to open. Fails naming the
    /// address when it cannot listen, or when this build has no web server.
    static Result<std::unique_ptr<RemoteView>> open(const ServeAddress& address,
                                                    const std::string& appName,
                                                    const std::string& version, int encoders);
    /// Stops the server: clients are disconnected, frames being encoded are dropped.
    ~RemoteView();
    RemoteView(const RemoteView&) = delete;
    RemoteView& operator=(const RemoteView&) = delete;

    /// Takes the clients' messages in order: the driver's input goes to `route` as window
    /// events (keys that would write on this machine's disk or end the run are not among them:
    /// the page saves its stills itself), views are noted, commands run their handlers (after
    /// the input sent before them), a malformed message closes its client. Once a frame.
    void takeMessages(const std::function<void(const std::vector<platform::InputEvent>&)>& route);
    /// The size the driving client's canvas asks for, in device pixels; none before it said.
    std::optional<Size> wantedSize() const;
    /// Reads `frame`'s output back as frame `index` when a client wants a frame and a slot is
    /// free (else skips it), and hands finished read-backs to the encoders: from CUDA memory
    /// when the frame ran there unpresented (as YCbCr planes for JPEG), else `renderer`'s
    /// present target. Never waits for the GPU (but to keep the loop a few frames ahead).
    void readBack(const render::SceneRenderer& renderer, frame::Frame& frame, std::uint64_t index);
    /// Whether stats are due (a few times a second, and only with clients).
    bool statsDue();
    /// Sends `stats` (the session's: stages, frame times, the app's sections) to every client,
    /// with the server's own counts and who drives added.
    void publishStats(nlohmann::json stats);
    /// What a command's handler may answer its client with (a text message: a download).
    using Reply = std::optional<nlohmann::json>;
    /// Calls `handler` with the args of each "command" message named `name` from the driver;
    /// what it returns goes back to that client.
    Registration onCommand(const std::string& name,
                           std::function<Reply(const nlohmann::json& args)> handler);
    /// Waits for the read-backs in flight and the encoders, then closes every connection.
    void finish();

    /// The URL to open (with the token).
    std::string url() const;
    /// The report's "serve" section (no token in it).
    nlohmann::json report() const;

    class Impl;

private:
    explicit RemoteView(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

} // namespace tandem::app
