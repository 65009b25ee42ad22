#include "engine/app/RemoteView.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "engine/core/Log.h"
#include "engine/frame/OutputRing.h"
#include "engine/gl/Fence.h"
#include "engine/profile/Stats.h"
#include "engine/web/FrameEncoder.h"
#include "engine/web/PageFiles.h"
#include "engine/web/Protocol.h"
#include "engine/web/Server.h"

namespace tandem::app {

namespace {

using Clock = std::chrono::steady_clock;
using platform::InputEvent;
using platform::Key;

/// Stats go out this often.
constexpr auto StatsPeriod = std::chrono::milliseconds(250);
/// Frames the loop may run ahead of the GPU while serving. Nothing else paces a headless loop
/// that presents into GL: the driver queues frames by the hundred, and a read-back (so the
/// browser's view of an input) would wait behind all of them (measured on an H100: 95 ms).
constexpr std::size_t FramesAhead = 3;

/// Keys the page may press: not those that end the run (Esc, Q) or write on this machine's
/// disk (S and F2 screenshots, F12 captures, P the camera path); the page saves its own stills.
bool isRemoteKey(Key key)
{
    switch (key) {
    case Key::Escape:
    case Key::Q:
    case Key::S:
    case Key::F2:
    case Key::F12:
    case Key::P:
    case Key::Other:
        return false;
    default:
        return true;
    }
}

double msSince(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

} // namespace

class RemoteView::Impl {
public:
    struct Job {
        frame::ReadyFrame frame;
        web::FrameHeader header;
        int quality = 80;
    };
    struct Command {
        std::string name;
        std::function<Reply(const nlohmann::json&)> handler;
    };

    Impl(std::unique_ptr<web::Server> server, std::string appName, std::string version,
         int encoders)
        : server(std::move(server)), appName(std::move(appName)), version(std::move(version)),
          ring(encoders + 2), start(Clock::now())
    {
        for (int i = 0; i < encoders; ++i)
            workers.emplace_back([this] { encode(); });
    }

    ~Impl() { stopEncoders(); }

    /// The ring's sink: a finished read-back replaces any frame still waiting for an encoder.
    void hand(const frame::ReadyFrame& ready)
    {
        Job job;
        job.frame = ready;
        job.header.frame = ready.index;
        job.header.width = ready.width;
        job.header.height = ready.height;
        job.quality = quality;
        job.header.format = format;
        if (auto it = readAt.find(ready.index); it != readAt.end()) {
            job.header.inputSeq = it->second.first;
            job.header.renderedMs = it->second.second;
            readAt.erase(it);
        }
        std::unique_lock lock(mutex);
        if (stopping) {
            lock.unlock();
            ring.release(ready.slot);
            return;
        }
        if (pending) {
            ring.release(pending->frame.slot);
            ++replaced;
        }
        pending = std::move(job);
        wake.notify_one();
    }

    /// An encoder thread: the newest waiting frame, encoded, its slot given back, published
    /// unless a newer frame was published meanwhile.
    void encode()
    {
        web::FrameEncoder encoder;
        for (;;) {
            Job job;
            {
                std::unique_lock lock(mutex);
                wake.wait(lock, [&] { return stopping || pending.has_value(); });
                if (stopping)
                    return;
                job = std::move(*pending);
                pending.reset();
            }
            const frame::ReadyFrame& f = job.frame;
            const auto rowBytes = static_cast<std::ptrdiff_t>(f.rowBytes());
            const io::ImageView image(f.width, f.height, f.pixels + rowBytes * (f.height - 1),
                                      -rowBytes);
            const auto began = Clock::now();
            auto bytes = job.header.format == web::ImageFormat::Png
                             ? encoder.png(image)
                             : encoder.jpeg(image, job.quality);
            ring.release(f.slot);
            job.header.encodeMs = msSince(began);
            if (!bytes) {
                log::warning("web: frame {}: {}", f.index, bytes.error());
                continue;
            }
            auto message =
                std::make_shared<const std::string>(web::frameMessage(job.header, bytes.value()));
            std::lock_guard lock(publishMutex);
            encodeMs.add("encode", job.header.encodeMs);
            bytesPerFrame.add("bytes", static_cast<double>(bytes.value().size()));
            if (published && job.header.frame <= newestPublished) {
                ++late; // a newer frame was encoded first
                continue;
            }
            published = true;
            newestPublished = job.header.frame;
            server->publishFrame(std::move(message));
        }
    }

    void stopEncoders()
    {
        {
            std::lock_guard lock(mutex);
            if (stopping)
                return;
            stopping = true;
            if (pending) {
                ring.release(pending->frame.slot);
                pending.reset();
            }
        }
        wake.notify_all();
        for (auto& worker : workers)
            worker.join();
        workers.clear();
    }

    /// The driver's view decides the size; the highest quality any client asks decides the
    /// encoding, and a PNG still asked by any client makes the next frames PNG.
    void updateEncoding()
    {
        int best = 0;
        bool png = false;
        for (const auto& [client, view] : views) {
            best = std::max(best, view.quality);
            png = png || view.format == web::ImageFormat::Png;
        }
        quality = best > 0 ? best : 80;
        format = png ? web::ImageFormat::Png : web::ImageFormat::Jpeg;
    }

    std::unique_ptr<web::Server> server;
    std::string appName, version;
    frame::OutputRing ring;
    Clock::time_point start;
    Clock::time_point lastStats{};
    Registry<Command> commands;
    // Render thread.
    std::map<std::uint64_t, web::ViewRequest> views;
    /// Frames read back and not yet handed: the driver's input seq and the time of reading.
    std::map<std::uint64_t, std::pair<std::uint64_t, double>> readAt;
    std::uint64_t inputSeq = 0;
    int quality = 80;
    web::ImageFormat format = web::ImageFormat::Jpeg;
    std::uint64_t framesRead = 0, framesSkipped = 0, skippedBusy = 0;
    /// The ends of the frames not yet known finished, oldest first; frames the loop waited.
    std::deque<gl::Fence> frameEnds;
    std::uint64_t throttled = 0;
    std::vector<std::string> warnings;

    // The encoders.
    std::vector<std::thread> workers;
    std::mutex mutex;
    std::condition_variable wake;
    std::optional<Job> pending;
    bool stopping = false;
    std::uint64_t replaced = 0; ///< frames read back but never encoded: a newer one came
    mutable std::mutex publishMutex;
    bool published = false;
    std::uint64_t newestPublished = 0;
    std::uint64_t late = 0;
    profile::Window encodeMs{240}, bytesPerFrame{240};
};

Result<std::unique_ptr<RemoteView>> RemoteView::open(const ServeAddress& address,
                                                     const std::string& appName,
                                                     const std::string& version, int encoders)
{
    web::ServerOptions options;
    options.host = address.host;
    options.port = address.port;
    auto server = web::Server::start(options, web::pageFiles());
    if (!server)
        return fail(server.error());
    auto impl =
        std::make_unique<Impl>(std::move(server.value()), appName, version, std::max(1, encoders));
    // The URL is what the user came for: printed even with --quiet.
    std::fprintf(stderr, "%s: watch and drive it at %s\n", appName.c_str(),
                 impl->server->url().c_str());
    if (web::isLoopback(address.host))
        std::fprintf(stderr,
                     "%s: from another machine: ssh -L %d:127.0.0.1:%d THIS-HOST, then open the "
                     "URL there\n",
                     appName.c_str(), impl->server->port(), impl->server->port());
    return std::unique_ptr<RemoteView>(new RemoteView(std::move(impl)));
}

RemoteView::RemoteView(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}

RemoteView::~RemoteView()
{
    m_impl->stopEncoders();
    m_impl->server.reset();
    // The ring waits for slots still held: the encoders gave theirs back when they stopped.
}

void RemoteView::takeMessages(const std::function<void(const std::vector<InputEvent>&)>& route)
{
    Impl& impl = *m_impl;
    std::vector<InputEvent> events;
    const std::uint64_t driver = impl.server->driver();
    for (auto& message : impl.server->takeMessages()) {
        auto request = web::parseClientMessage(message.text);
        if (!request) {
            impl.server->closeClient(message.client, request.error());
            continue;
        }
        using Type = web::ClientRequest::Type;
        web::ClientRequest& r = request.value();
        switch (r.type) {
        case Type::Hello:
            impl.server->sendTo(message.client, std::make_shared<const std::string>(nlohmann::json{
                                                    {"type", "welcome"},
                                                    {"client", message.client},
                                                    {"app", impl.appName},
                                                    {"version", impl.version}}.dump()));
            [[fallthrough]];
        case Type::View:
            impl.views[message.client] = r.view;
            break;
        case Type::Input:
            if (message.client != driver)
                break; // a watcher's input moves nothing
            events.clear();
            for (auto& event : r.events)
                if (event.type != InputEvent::Type::Key || isRemoteKey(event.key))
                    events.push_back(std::move(event));
            route(events);
            impl.inputSeq = std::max(impl.inputSeq, r.inputSeq);
            break;
        case Type::Drive:
            impl.server->passControl(message.client);
            log::info("web: client {} drives", message.client);
            break;
        case Type::Ping:
            impl.server->sendTo(message.client, std::make_shared<const std::string>(nlohmann::json{
                                                    {"type", "pong"}, {"sent", r.sent}}.dump()));
            break;
        case Type::Command: {
            if (message.client != driver)
                break;
            bool known = false;
            impl.commands.forEach([&](Impl::Command& command) {
                if (command.name != r.command)
                    return;
                known = true;
                if (Reply reply = command.handler(r.args))
                    impl.server->sendTo(message.client,
                                        std::make_shared<const std::string>(reply->dump()));
            });
            if (!known)
                impl.server->sendTo(
                    message.client,
                    std::make_shared<const std::string>(nlohmann::json{
                        {"type", "error"},
                        {"message", fmt::format("{} has no command '{}'", impl.appName,
                                                r.command)}}.dump()));
            break;
        }
        }
    }
    // Clients that left keep no view.
    if (!impl.server->hasClients())
        impl.views.clear();
    impl.updateEncoding();
}

std::optional<Size> RemoteView::wantedSize() const
{
    const auto it = m_impl->views.find(m_impl->server->driver());
    if (it == m_impl->views.end() || it->second.width < 1 || it->second.height < 1)
        return std::nullopt;
    return Size{std::min(it->second.width, MaxSide), std::min(it->second.height, MaxSide)};
}

void RemoteView::readBack(GLuint framebuffer, int width, int height, std::uint64_t index)
{
    Impl& impl = *m_impl;
    // The loop paced, clients or not, so watching changes its rate by no more than the read.
    impl.frameEnds.push_back(gl::Fence::insert());
    if (impl.frameEnds.size() > FramesAhead) {
        if (!impl.frameEnds.front().isSignaled()) {
            impl.frameEnds.front().wait(StallCause::Throttle);
            ++impl.throttled;
        }
        impl.frameEnds.pop_front();
    }
    const auto sink = [&impl](const frame::ReadyFrame& ready) {
        impl.hand(ready);
    };
    if (!impl.server->hasClients())
        return;
    // Skipped, and why: every client still has a frame waiting for its socket, or every slot
    // of the ring is being read back or encoded.
    if (impl.server->allClientsBusy()) {
        ++impl.framesSkipped;
        ++impl.skippedBusy;
        return;
    }
    if (!impl.ring.hasFreeSlot(sink)) {
        ++impl.framesSkipped;
        return;
    }
    impl.readAt[index] = {impl.inputSeq, msSince(impl.start)};
    impl.ring.readFramebuffer(framebuffer, width, height, index, sink);
    ++impl.framesRead;
}

bool RemoteView::statsDue()
{
    const auto now = Clock::now();
    if (!m_impl->server->hasClients() || now - m_impl->lastStats < StatsPeriod)
        return false;
    m_impl->lastStats = now;
    return true;
}

void RemoteView::publishStats(nlohmann::json stats)
{
    Impl& impl = *m_impl;
    stats["type"] = "stats";
    stats["driver"] = impl.server->driver();
    stats["serve"] = report();
    impl.server->publishText(std::make_shared<const std::string>(stats.dump()));
}

Registration RemoteView::onCommand(const std::string& name,
                                   std::function<Reply(const nlohmann::json&)> handler)
{
    return m_impl->commands.add({name, std::move(handler)});
}

void RemoteView::finish()
{
    Impl& impl = *m_impl;
    impl.ring.drain([&impl](const frame::ReadyFrame& ready) { impl.hand(ready); });
    impl.stopEncoders();
    impl.frameEnds.clear(); // while the context is current
}

std::string RemoteView::url() const
{
    return m_impl->server->url();
}

nlohmann::json RemoteView::report() const
{
    const Impl& impl = *m_impl;
    const web::ServerCounts counts = impl.server->counts();
    nlohmann::json section{
        {"address", fmt::format("{}:{}", impl.server->host(), impl.server->port())},
        {"clients", counts.clients},
        {"frames_read", impl.framesRead},
        {"frames_skipped", impl.framesSkipped},
        {"frames_skipped_clients_busy", impl.skippedBusy},
        {"frames_throttled", impl.throttled},
        {"frames_sent", counts.framesSent},
        {"frames_replaced", counts.framesReplaced},
        {"refused", counts.refused},
        {"closed_for_abuse", counts.closedForAbuse},
        {"messages", counts.messagesReceived}};
    std::lock_guard lock(impl.publishMutex);
    const profile::Summary encode = impl.encodeMs.summary("encode");
    const profile::Summary bytes = impl.bytesPerFrame.summary("bytes");
    section["encode_ms_p50"] = encode.p50;
    section["bytes_per_frame_p50"] = bytes.p50;
    section["frame_write_ms_mean"] =
        counts.framesSent > 0 ? counts.frameWriteMs / static_cast<double>(counts.framesSent) : 0.0;
    return section;
}

} // namespace tandem::app
