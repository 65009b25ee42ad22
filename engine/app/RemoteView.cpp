#include "engine/app/RemoteView.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "engine/core/Log.h"
#include "engine/frame/Frame.h"
#include "engine/frame/OutputRing.h"
#include "engine/gl/Fence.h"
#include "engine/profile/Stats.h"
#include "engine/render/SceneRenderer.h"
#include "engine/web/FrameEncoder.h"
#include "engine/web/JpegBands.h"
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
/// Frames between their read-back's start and their publication at once: two keep the encoders
/// fed while one is read, and no frame is read (GPU and PCIe time) only to be dropped unencoded
/// behind newer ones (measured on an H100 before this bound: 800 reads a second for 575 sent).
constexpr int FramesInPipeline = 2;
/// Frames are read this much faster than a client's display shows them (readAtRate).
constexpr double ReadHeadroom = 1.05;

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
    /// A frame being encoded: its bands, claimed by the encoders one at a time.
    struct Work {
        Job job;
        int rows = 0;  ///< each band's rows (the last: what is left)
        int bands = 1; ///< 1: the frame whole (a PNG, a small frame, one encoder)
        int claimed = 0;
        int done = 0;
        std::vector<std::string> parts;
        std::string error;
        Clock::time_point began;
        double cpuMs = 0.0; ///< the bands' encoding time, summed
    };
    struct Command {
        std::string name;
        std::function<Reply(const nlohmann::json&)> handler;
    };

    Impl(std::unique_ptr<web::Server> server, std::string appName, std::string version,
         int encoders)
        : server(std::move(server)), appName(std::move(appName)), version(std::move(version)),
          ring(encoders + 2), start(Clock::now()), encoderCount(encoders)
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
            --inPipeline;
            return;
        }
        if (pending) {
            ring.release(pending->frame.slot);
            --inPipeline;
            ++replaced;
        }
        pending = std::move(job);
        wake.notify_one();
    }

    /// The oldest frame being encoded with a band nobody took yet. Under `mutex`.
    std::shared_ptr<Work> unclaimed() const
    {
        for (const auto& work : active)
            if (work->claimed < work->bands)
                return work;
        return nullptr;
    }

    /// Band `band` of `work`'s frame as a JPEG (or the frame whole as a PNG).
    static Result<std::string> encodeBand(web::FrameEncoder& encoder, const Work& work, int band)
    {
        const frame::ReadyFrame& f = work.job.frame;
        const int first = band * work.rows;
        const int rows = std::min(work.rows, f.height - first);
        if (f.format == frame::PixelFormat::Yuv420)
            return encoder.jpeg(f.pixels, Yuv420Layout{f.width, f.height}, first, rows,
                                work.job.quality);
        // GL's rows, bottom first: the view's row 0 is the last in memory.
        const auto rowBytes = static_cast<std::ptrdiff_t>(f.rowBytes());
        const io::ImageView whole(f.width, f.height, f.pixels + rowBytes * (f.height - 1),
                                  -rowBytes);
        if (work.job.header.format == web::ImageFormat::Png)
            return encoder.png(whole);
        return encoder.jpeg(io::ImageView(f.width, rows, whole.row(first), -rowBytes),
                            work.job.quality);
    }

    /// An encoder thread: a band of the oldest frame that has one left, else the newest waiting
    /// frame, cut into bands the other encoders help with. Whoever encodes a frame's last band
    /// gives its slot back, joins the bands and publishes the frame, unless a newer frame was
    /// published meanwhile.
    void encode()
    {
        web::FrameEncoder encoder;
        for (;;) {
            std::shared_ptr<Work> work;
            int band = 0;
            {
                std::unique_lock lock(mutex);
                wake.wait(lock, [&] { return stopping || pending || unclaimed(); });
                if (stopping)
                    return;
                work = unclaimed();
                if (!work) {
                    work = std::make_shared<Work>();
                    work->job = std::move(*pending);
                    pending.reset();
                    const frame::ReadyFrame& f = work->job.frame;
                    const bool whole = work->job.header.format == web::ImageFormat::Png;
                    work->rows = whole ? f.height : web::bandRows(f.width, f.height, encoderCount);
                    work->bands = (f.height + work->rows - 1) / work->rows;
                    work->parts.resize(static_cast<std::size_t>(work->bands));
                    work->began = Clock::now();
                    active.push_back(work);
                }
                band = work->claimed++;
                if (work->claimed < work->bands)
                    wake.notify_one(); // another encoder may take the next band
            }
            const auto began = Clock::now();
            auto bytes = encodeBand(encoder, *work, band);
            const double ms = msSince(began);
            bool last = false;
            {
                std::lock_guard lock(mutex);
                if (bytes)
                    work->parts[static_cast<std::size_t>(band)] = std::move(bytes.value());
                else if (work->error.empty())
                    work->error = bytes.error();
                work->cpuMs += ms;
                last = ++work->done == work->bands;
                if (last)
                    std::erase(active, work);
            }
            if (last)
                publish(*work);
        }
    }

    /// A frame whose bands are all encoded: its slot given back, the bands joined, published.
    void publish(Work& work)
    {
        ring.release(work.job.frame.slot);
        --inPipeline;
        web::FrameHeader& header = work.job.header;
        header.encodeMs = msSince(work.began);
        if (!work.error.empty()) {
            log::warning("web: frame {}: {}", header.frame, work.error);
            return;
        }
        Result<std::string> joined =
            work.bands == 1 ? Result<std::string>(std::move(work.parts.front()))
                            : web::joinBands(work.parts, header.width, header.height, work.rows);
        if (!joined) {
            log::warning("web: frame {}: {}", header.frame, joined.error());
            return;
        }
        auto message =
            std::make_shared<const std::string>(web::frameMessage(header, joined.value()));
        std::lock_guard lock(publishMutex);
        encodeMs.add("encode", header.encodeMs);
        encodeCpuMs.add("encode", work.cpuMs);
        bytesPerFrame.add("bytes", static_cast<double>(joined.value().size()));
        bands = work.bands;
        if (published && header.frame <= newestPublished) {
            ++late; // a newer frame was encoded first
            return;
        }
        published = true;
        newestPublished = header.frame;
        server->publishFrame(std::move(message));
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
        // Frames with bands nobody took: their slots back (no encoder runs now).
        for (const auto& work : active)
            ring.release(work->job.frame.slot);
        active.clear();
    }

    /// The driver's view decides the size; the highest quality any client asks decides the
    /// encoding, and a PNG still asked by any client makes the next frames PNG. Frames are read
    /// no faster than the fastest client can show them, unless one sets no bound.
    void updateEncoding()
    {
        int best = 0;
        int fastest = 0;
        bool png = false;
        bool unbounded = views.empty();
        for (const auto& [client, view] : views) {
            best = std::max(best, view.quality);
            png = png || view.format == web::ImageFormat::Png;
            fastest = std::max(fastest, view.maxFps);
            unbounded = unbounded || view.maxFps == 0;
        }
        quality = best > 0 ? best : 80;
        format = png ? web::ImageFormat::Png : web::ImageFormat::Jpeg;
        maxFps = unbounded ? 0 : fastest;
    }

    /// Whether a frame is due at `now` for clients that can show `maxFps` frames a second.
    bool readDue(Clock::time_point now) const { return maxFps == 0 || now >= nextRead; }

    /// A frame read at `now`: the next is due a period after this one was, so the reads keep to
    /// the rate on average (frames end between the due times), without catching up after a pause.
    /// The rate is the display's and a little more (ReadHeadroom): the display's clock and ours
    /// drift apart and a frame's way out varies, so each refresh still finds a new frame.
    void readAtRate(Clock::time_point now)
    {
        if (maxFps == 0)
            return;
        const auto period = std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(1.0 / (maxFps * ReadHeadroom)));
        nextRead = std::max(nextRead + period, now);
    }

    std::unique_ptr<web::Server> server;
    std::string appName, version;
    frame::OutputRing ring;
    Clock::time_point start;
    const int encoderCount;
    Clock::time_point lastStats{};
    Registry<Command> commands;
    // Render thread.
    std::map<std::uint64_t, web::ViewRequest> views;
    /// Frames read back and not yet handed: the driver's input seq and the time of reading.
    std::map<std::uint64_t, std::pair<std::uint64_t, double>> readAt;
    std::uint64_t inputSeq = 0;
    int quality = 80;
    web::ImageFormat format = web::ImageFormat::Jpeg;
    int maxFps = 0; ///< the reads' rate bound: the fastest client's display; 0: none
    Clock::time_point nextRead{};
    std::uint64_t framesRead = 0, framesSkipped = 0, skippedBusy = 0, skippedPipeline = 0;
    std::uint64_t skippedPaced = 0; ///< not due at the clients' display rate
    std::uint64_t framesPlanes = 0; ///< read as YCbCr planes a CUDA pass made
    /// The ends of the frames not yet known finished, oldest first; frames the loop waited.
    std::deque<gl::Fence> frameEnds;
    std::uint64_t throttled = 0;
    std::vector<std::string> warnings;

    // The encoders.
    std::vector<std::thread> workers;
    std::mutex mutex;
    std::condition_variable wake;
    std::optional<Job> pending;
    std::vector<std::shared_ptr<Work>> active; ///< frames with bands not all encoded, oldest first
    bool stopping = false;
    std::uint64_t replaced = 0; ///< frames read back but never encoded: a newer one came
    /// Frames read and not yet published or dropped (FramesInPipeline at most).
    std::atomic<int> inPipeline{0};
    mutable std::mutex publishMutex;
    bool published = false;
    std::uint64_t newestPublished = 0;
    std::uint64_t late = 0;
    profile::Window encodeMs{240}, encodeCpuMs{240}, bytesPerFrame{240};
    int bands = 1; ///< the last frame's
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
        if (message.left) {
            impl.views.erase(message.client);
            continue;
        }
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
    impl.updateEncoding();
}

std::optional<Size> RemoteView::wantedSize() const
{
    const auto it = m_impl->views.find(m_impl->server->driver());
    if (it == m_impl->views.end() || it->second.width < 1 || it->second.height < 1)
        return std::nullopt;
    return Size{std::min(it->second.width, MaxSide), std::min(it->second.height, MaxSide)};
}

void RemoteView::readBack(const render::SceneRenderer& renderer, frame::Frame& frame,
                          std::uint64_t index)
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
    // Read-backs that finished go to the encoders at once, whether or not this frame is read.
    impl.ring.collect(sink);
    if (!impl.server->hasClients())
        return;
    // Skipped, and why: not due at the rate the clients can show, every client still has a
    // frame waiting for its socket, or every slot of the ring is being read back or encoded.
    const auto now = Clock::now();
    if (!impl.readDue(now)) {
        ++impl.framesSkipped;
        ++impl.skippedPaced;
        return;
    }
    if (impl.server->allClientsBusy()) {
        ++impl.framesSkipped;
        ++impl.skippedBusy;
        return;
    }
    if (impl.inPipeline.load() >= FramesInPipeline) {
        ++impl.framesSkipped;
        ++impl.skippedPipeline;
        return;
    }
    if (!impl.ring.hasFreeSlot(sink)) {
        ++impl.framesSkipped;
        return;
    }
    impl.readAtRate(now);
    ++impl.inPipeline;
    impl.readAt[index] = {impl.inputSeq, msSince(impl.start)};
    if (const auto resident = frame.residentOutput()) {
        // A frame all on CUDA, not presented: copied out on the ring's copy stream, as the
        // YCbCr planes the JPEG encoder takes (a CUDA pass converts), RGBA for a PNG still.
        const bool planes = impl.format == web::ImageFormat::Jpeg;
        impl.ring.readResident(resident->image, resident->stream, renderer.width(),
                               renderer.height(), index, sink,
                               planes ? frame::PixelFormat::Yuv420 : frame::PixelFormat::Rgba8);
        impl.framesPlanes += planes ? 1 : 0;
    } else {
        impl.ring.readFramebuffer(renderer.presentFramebuffer(), renderer.width(),
                                  renderer.height(), index, sink);
    }
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
        {"frames_read_as_planes", impl.framesPlanes},
        {"frames_skipped", impl.framesSkipped},
        {"frames_skipped_clients_busy", impl.skippedBusy},
        {"frames_skipped_pipeline_full", impl.skippedPipeline},
        {"frames_skipped_not_due", impl.skippedPaced},
        {"max_fps", impl.maxFps},
        {"frames_throttled", impl.throttled},
        {"frames_sent", counts.framesSent},
        {"frames_replaced", counts.framesReplaced},
        {"refused", counts.refused},
        {"closed_for_abuse", counts.closedForAbuse},
        {"messages", counts.messagesReceived}};
    std::lock_guard lock(impl.publishMutex);
    const profile::Summary encode = impl.encodeMs.summary("encode");
    const profile::Summary bytes = impl.bytesPerFrame.summary("bytes");
    section["frames_not_encoded"] = impl.replaced;
    section["frames_encoded_late"] = impl.late;
    section["encode_ms_p50"] = encode.p50;
    section["encode_ms_p95"] = encode.p95;
    section["encode_cpu_ms_p50"] = impl.encodeCpuMs.summary("encode").p50;
    section["encode_bands"] = impl.bands;
    section["encoders"] = impl.encoderCount;
    section["bytes_per_frame_p50"] = bytes.p50;
    section["frame_write_ms_mean"] =
        counts.framesSent > 0 ? counts.frameWriteMs / static_cast<double>(counts.framesSent) : 0.0;
    return section;
}

} // namespace tandem::app
