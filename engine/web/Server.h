// The browser viewer's server: HTTP for the page and one WebSocket per browser for frames,
// input and stats (Boost.Beast on one network thread of its own). It guards what a browser on
// another site or a stranger on the network could do: a token made at start is required for the
// page and the socket, the Origin of a socket must be the page's own, messages are bounded in
// size and rate, a client that breaks the rules loses its connection only, and the number of
// clients is capped. Frames are "newest wins" per client: a client still receiving one frame is
// offered only the newest next, so a slow client gets fewer frames and never holds anyone up.
// It knows nothing of GL, frames or sessions (web/Remote.h joins it to a session). Any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/Result.h"

namespace tandem::web {

/// Where and how the server listens, and its bounds.
struct ServerOptions {
    /// The address to bind: 127.0.0.1 unless a user names another (then a warning is logged).
    std::string host = "127.0.0.1";
    /// The port; 0: any free one (port() says which).
    int port = 0;
    /// The token the page and the socket need; empty: 32 random hex digits.
    std::string token;
    /// Browsers connected at once; one more is refused (HTTP 503).
    int maxClients = 16;
    /// The largest message a client may send; a larger one closes its connection.
    std::size_t maxMessageBytes = 64 * 1024;
    /// Messages a client may send per second (a burst of twice that is allowed).
    double maxMessagesPerSecond = 1000;
    /// Messages held for the render thread at once; beyond that the oldest client to flood
    /// loses its connection.
    std::size_t maxQueuedMessages = 4096;
};

/// A page file served at `path` ("/", "/viewer.js").
struct PageFile {
    std::string path;
    std::string contentType;
    std::string body;
};

/// A message a client sent (a WebSocket text message), with who sent it.
struct ClientMessage {
    std::uint64_t client = 0; ///< the client's number (clientNumbers())
    bool fromDriver = false;  ///< sent by the client driving at the time it arrived
    std::string text;
    bool left = false; ///< not a message: the client left (its connection ended), no text
};

/// What the server has seen, for the stats and the report.
struct ServerCounts {
    int clients = 0;
    std::uint64_t framesSent = 0;     ///< frame messages handed to sockets
    std::uint64_t framesReplaced = 0; ///< frames a client never got: a newer one came first
    std::uint64_t refused = 0;        ///< page or socket requests refused (token, origin, full)
    std::uint64_t closedForAbuse = 0; ///< connections closed: too big, too fast, malformed
    std::uint64_t messagesReceived = 0;
    /// Time from a frame's write starting until the socket took all of it, summed over the
    /// frames sent (a slow reader, or the network, shows here).
    double frameWriteMs = 0;
};

class Server {
public:
    /// Binds and starts listening. Fails naming the address when it cannot (in use, no such
    /// address, no permission).
    static Result<std::unique_ptr<Server>> start(const ServerOptions& options,
                                                 std::vector<PageFile> page);
    /// Closes every connection and stops the network thread (waits for it).
    ~Server();
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    /// The port listened on.
    int port() const;
    /// The address listened on.
    const std::string& host() const;
    /// The token the page and socket need.
    const std::string& token() const;
    /// The URL to open: http://HOST:PORT/?token=...
    std::string url() const;

    /// Offers `message` (a binary WebSocket message: a frame) to every client: one that is
    /// still sending an earlier frame gets this one after it, in place of any waiting. Never
    /// waits.
    void publishFrame(std::shared_ptr<const std::string> message);
    /// Offers `message` (a text message: stats) to every client, newest wins as for frames.
    void publishText(std::shared_ptr<const std::string> message);
    /// Sends `message` (text) to client `client` only (a reply): replies are queued, a few.
    void sendTo(std::uint64_t client, std::shared_ptr<const std::string> message);
    /// Closes client `client`'s connection (it sent something malformed); counted as abuse.
    void closeClient(std::uint64_t client, const std::string& why);
    /// Makes `client` the driver (one that asked to drive); false if it is not connected.
    bool passControl(std::uint64_t client);

    /// The messages received since the last call, oldest first. The render thread calls it
    /// once a frame.
    std::vector<ClientMessage> takeMessages();
    /// Whether any client is connected (a frame is worth reading back).
    bool hasClients() const;
    /// Whether every client is still busy sending its last frame (reading back another would
    /// only replace it).
    bool allClientsBusy() const;
    /// The client driving now, or 0 when none is connected.
    std::uint64_t driver() const;
    ServerCounts counts() const;

    class Impl;

private:
    explicit Server(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

/// Whether `host` is a loopback address (127.0.0.0/8, ::1, "localhost").
bool isLoopback(const std::string& host);
/// Compares two strings in time independent of where they differ (tokens).
bool sameToken(const std::string& a, const std::string& b);
/// The value of `name` in a URL's query ("/?token=abc&x=1"), or empty.
std::string queryValue(const std::string& target, const std::string& name);
/// The value of cookie `name` in a Cookie header, or empty.
std::string cookieValue(const std::string& header, const std::string& name);
/// Whether a socket's Origin header is the page's own for a request to `host` (its Host
/// header): "http://" + host. An absent Origin (a non-browser client) is allowed.
bool originMatches(const std::string& origin, const std::string& host);

} // namespace tandem::web
