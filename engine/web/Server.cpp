#include "engine/web/Server.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <fmt/format.h>

#include "engine/core/Log.h"

namespace tandem::web {

namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

/// A request's header may be this long; a page request has no body worth more than this.
constexpr std::size_t HeaderLimit = 8 * 1024;
constexpr std::size_t BodyLimit = 1024;
/// An HTTP connection idle this long is closed; a socket that answers no ping this long too.
constexpr auto HttpTimeout = std::chrono::seconds(30);
constexpr auto SocketIdleTimeout = std::chrono::seconds(20);
/// HTTP connections (page loads, refused sockets) open at once; more are closed on accept.
constexpr int MaxHttpConnections = 64;
constexpr const char* CookieName = "tandem_token";
constexpr const char* SocketPath = "/socket";
/// Replies held for a client that is not reading; older ones are dropped beyond.
constexpr std::size_t MaxReplies = 16;

std::string randomToken()
{
    std::random_device device; // the kernel's random source
    std::string token;
    for (int i = 0; i < 4; ++i)
        token += fmt::format("{:08x}", device());
    return token;
}

/// The path of a request target, without its query.
std::string_view pathOf(std::string_view target)
{
    return target.substr(0, target.find('?'));
}

} // namespace

bool isLoopback(const std::string& host)
{
    if (host == "localhost")
        return true;
    boost::system::error_code error;
    const auto address = net::ip::make_address(host, error);
    return !error && address.is_loopback();
}

bool sameToken(const std::string& a, const std::string& b)
{
    // Every byte of the longer is looked at whatever differs first.
    const std::size_t n = std::max(a.size(), b.size());
    unsigned char differ = a.size() == b.size() ? 0 : 1;
    for (std::size_t i = 0; i < n; ++i) {
        const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
        const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
        differ |= static_cast<unsigned char>(x ^ y);
    }
    return differ == 0 && !a.empty();
}

std::string queryValue(const std::string& target, const std::string& name)
{
    const std::size_t question = target.find('?');
    if (question == std::string::npos)
        return {};
    std::string_view query = std::string_view(target).substr(question + 1);
    while (!query.empty()) {
        const std::size_t amp = query.find('&');
        const std::string_view pair = query.substr(0, amp);
        const std::size_t equals = pair.find('=');
        if (pair.substr(0, equals) == name)
            return equals == std::string_view::npos ? std::string()
                                                    : std::string(pair.substr(equals + 1));
        if (amp == std::string_view::npos)
            break;
        query.remove_prefix(amp + 1);
    }
    return {};
}

std::string cookieValue(const std::string& header, const std::string& name)
{
    std::string_view rest = header;
    while (!rest.empty()) {
        const std::size_t semicolon = rest.find(';');
        std::string_view pair = rest.substr(0, semicolon);
        while (!pair.empty() && pair.front() == ' ')
            pair.remove_prefix(1);
        const std::size_t equals = pair.find('=');
        if (equals != std::string_view::npos && pair.substr(0, equals) == name)
            return std::string(pair.substr(equals + 1));
        if (semicolon == std::string_view::npos)
            break;
        rest.remove_prefix(semicolon + 1);
    }
    return {};
}

bool originMatches(const std::string& origin, const std::string& host)
{
    return origin.empty() || (!host.empty() && origin == "http://" + host);
}

class SocketSession;

/// The network thread's state. Everything but the counters, the message queue and the driver
/// is touched on the network thread only.
class Server::Impl {
public:
    explicit Impl(ServerOptions options, std::vector<PageFile> page)
        : options(std::move(options)), page(std::move(page))
    {}

    void accept();
    void onAccepted(tcp::socket socket);
    void addSession(const std::shared_ptr<SocketSession>& session);
    void removeSession(std::uint64_t id);
    void queue(std::uint64_t client, std::string text);
    void updateWanting();
    bool tokenOf(const http::request<http::string_body>& request, bool& fromQuery) const;

    ServerOptions options;
    std::vector<PageFile> page;
    std::string hostName;
    int boundPort = 0;

    std::unique_ptr<net::io_context> io = std::make_unique<net::io_context>(1);
    std::optional<tcp::acceptor> acceptor;
    std::thread thread;

    // Network thread only.
    std::map<std::uint64_t, std::weak_ptr<SocketSession>> sessions; ///< oldest first
    std::uint64_t nextId = 1;

    // Any thread.
    std::atomic<int> httpConnections{0};
    std::atomic<int> clients{0};
    std::atomic<int> wanting{0}; ///< clients without a frame waiting to be sent
    std::atomic<std::uint64_t> driverId{0};
    std::atomic<std::uint64_t> frameWriteMicros{0};
    std::atomic<std::uint64_t> framesSent{0}, framesReplaced{0}, refused{0}, closedForAbuse{0},
        messagesReceived{0};
    mutable std::mutex messagesMutex;
    std::vector<ClientMessage> messages;
};

/// One browser's WebSocket: reads its messages into the server's queue and writes the newest
/// frame and text offered to it, one message in flight at a time.
class SocketSession : public std::enable_shared_from_this<SocketSession> {
public:
    SocketSession(Server::Impl& server, beast::tcp_stream stream, std::uint64_t id)
        : m_server(server), m_socket(std::move(stream)), m_id(id)
    {}

    std::uint64_t id() const { return m_id; }

    void start(http::request<http::string_body> request)
    {
        beast::get_lowest_layer(m_socket).expires_never();
        websocket::stream_base::timeout timeout{};
        timeout.handshake_timeout = std::chrono::seconds(10);
        timeout.idle_timeout = SocketIdleTimeout;
        timeout.keep_alive_pings = true;
        m_socket.set_option(timeout);
        m_socket.read_message_max(m_server.options.maxMessageBytes);
        m_socket.set_option(
            websocket::stream_base::decorator([](websocket::response_type& response) {
                response.set(http::field::server, "tandem");
            }));
        m_tokens = 2 * m_server.options.maxMessagesPerSecond;
        m_lastRefill = Clock::now();
        m_socket.async_accept(request, [self = shared_from_this()](beast::error_code error) {
            if (error) {
                self->end();
                return;
            }
            self->m_open = true;
            self->m_server.addSession(self);
            self->read();
        });
    }

    void offerFrame(const std::shared_ptr<const std::string>& message)
    {
        if (!m_open)
            return;
        if (m_frame)
            ++m_server.framesReplaced;
        m_frame = message;
        m_server.updateWanting();
        write();
    }

    void offerText(const std::shared_ptr<const std::string>& message)
    {
        if (!m_open)
            return;
        m_text = message;
        write();
    }

    /// A reply to this client: queued (a few; the oldest dropped beyond), not replaced by
    /// broadcasts.
    void reply(const std::shared_ptr<const std::string>& message)
    {
        if (!m_open)
            return;
        if (m_replies.size() >= MaxReplies)
            m_replies.pop_front();
        m_replies.push_back(message);
        write();
    }

    bool wantsFrame() const { return m_open && !m_frame; }

    /// Ends the connection at once (abuse, or the server stopping): pending reads and writes
    /// are cancelled.
    void drop(const std::string& why)
    {
        if (!why.empty()) {
            ++m_server.closedForAbuse;
            log::warning("web: closed client {}: {}", m_id, why);
        }
        end();
        beast::error_code ignored;
        beast::get_lowest_layer(m_socket).socket().shutdown(tcp::socket::shutdown_both, ignored);
        beast::get_lowest_layer(m_socket).close();
    }

private:
    void read()
    {
        m_socket.async_read(m_buffer,
                            [self = shared_from_this()](beast::error_code error, std::size_t) {
                                self->onRead(error);
                            });
    }

    void onRead(beast::error_code error)
    {
        if (error == websocket::error::message_too_big) {
            drop(fmt::format("a message over {} bytes", m_server.options.maxMessageBytes));
            return;
        }
        if (error) {
            end();
            return;
        }
        if (!m_socket.got_text()) {
            drop("a binary message");
            return;
        }
        // A token bucket: a burst of twice the rate, refilled at the rate.
        const auto now = Clock::now();
        const double rate = m_server.options.maxMessagesPerSecond;
        m_tokens = std::min(
            2 * rate, m_tokens + rate * std::chrono::duration<double>(now - m_lastRefill).count());
        m_lastRefill = now;
        if (m_tokens < 1) {
            drop(fmt::format("more than {:.0f} messages a second", rate));
            return;
        }
        m_tokens -= 1;
        std::string text = beast::buffers_to_string(m_buffer.data());
        m_buffer.consume(m_buffer.size());
        bool queued = false;
        {
            std::lock_guard lock(m_server.messagesMutex);
            if (m_server.messages.size() < m_server.options.maxQueuedMessages) {
                m_server.messages.push_back(
                    {m_id, m_server.driverId.load() == m_id, std::move(text)});
                queued = true;
            }
        }
        if (!queued) { // dropped outside the lock: leaving queues a message too
            drop("messages faster than the render loop takes them");
            return;
        }
        ++m_server.messagesReceived;
        read();
    }

    void write()
    {
        if (m_writing || !m_open)
            return;
        std::shared_ptr<const std::string> message;
        bool binary = false;
        if (!m_replies.empty()) {
            message = std::move(m_replies.front());
            m_replies.pop_front();
        } else if (m_text) {
            message = std::move(m_text);
            m_text.reset();
        } else if (m_frame) {
            message = std::move(m_frame);
            m_frame.reset();
            binary = true;
            m_server.updateWanting();
        } else {
            return;
        }
        m_writing = true;
        m_socket.binary(binary);
        m_socket.async_write(
            net::buffer(*message), [self = shared_from_this(), message, binary,
                                    began = Clock::now()](beast::error_code error, std::size_t) {
                self->m_writing = false;
                if (error) {
                    self->end();
                    return;
                }
                if (binary) {
                    ++self->m_server.framesSent;
                    self->m_server.frameWriteMicros += static_cast<std::uint64_t>(
                        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - began)
                            .count());
                }
                self->write();
            });
    }

    /// Leaves the server's list (once).
    void end()
    {
        if (m_ended)
            return;
        m_ended = true;
        const bool wasOpen = m_open;
        m_open = false;
        m_frame.reset();
        m_text.reset();
        m_replies.clear();
        if (wasOpen)
            m_server.removeSession(m_id);
        else
            --m_server.clients; // counted when its upgrade was accepted
    }

    Server::Impl& m_server;
    websocket::stream<beast::tcp_stream> m_socket;
    std::uint64_t m_id;
    beast::flat_buffer m_buffer;
    std::shared_ptr<const std::string> m_frame; ///< the newest frame not yet sent
    std::shared_ptr<const std::string> m_text;  ///< the newest broadcast text not yet sent
    std::deque<std::shared_ptr<const std::string>> m_replies; ///< to this client only
    bool m_writing = false;
    bool m_open = false;
    bool m_ended = false;
    double m_tokens = 0;
    Clock::time_point m_lastRefill;
};

/// One HTTP connection: serves the page's files and hands a socket upgrade on, answering every
/// request without the token, or any but GET, with a refusal.
class HttpSession : public std::enable_shared_from_this<HttpSession> {
public:
    HttpSession(Server::Impl& server, tcp::socket socket)
        : m_server(server), m_stream(std::move(socket))
    {
        ++m_server.httpConnections;
    }
    ~HttpSession() { --m_server.httpConnections; }

    void read()
    {
        m_parser.emplace();
        m_parser->header_limit(HeaderLimit);
        m_parser->body_limit(BodyLimit);
        m_stream.expires_after(HttpTimeout);
        http::async_read(m_stream, m_buffer, *m_parser,
                         [self = shared_from_this()](beast::error_code error, std::size_t) {
                             self->onRead(error);
                         });
    }

private:
    void onRead(beast::error_code error)
    {
        if (error) {
            // A closed connection, a timeout, or a request over the limits: nothing to answer.
            if (error != http::error::end_of_stream && error != beast::error::timeout &&
                error != net::error::operation_aborted)
                ++m_server.refused;
            close();
            return;
        }
        http::request<http::string_body> request = m_parser->release();
        const std::string target(request.target());
        const std::string path(pathOf(target));
        if (request.method() != http::verb::get) {
            respond(request, http::status::method_not_allowed, "only GET\n");
            return;
        }
        bool fromQuery = false;
        if (!m_server.tokenOf(request, fromQuery)) {
            ++m_server.refused;
            respond(request, http::status::forbidden,
                    "tandem: open the URL the app printed (it carries the token)\n");
            return;
        }
        if (path == SocketPath) {
            upgrade(std::move(request));
            return;
        }
        const auto file = std::find_if(m_server.page.begin(), m_server.page.end(),
                                       [&](const PageFile& f) { return f.path == path; });
        if (file == m_server.page.end()) {
            respond(request, http::status::not_found, "not found\n");
            return;
        }
        auto response = makeResponse(request, http::status::ok, file->body, file->contentType);
        if (fromQuery)
            response->set(http::field::set_cookie,
                          fmt::format("{}={}; Path=/; HttpOnly; SameSite=Strict", CookieName,
                                      m_server.options.token));
        send(response);
    }

    void upgrade(http::request<http::string_body> request)
    {
        if (!websocket::is_upgrade(request)) {
            respond(request, http::status::bad_request, "a WebSocket upgrade expected\n");
            return;
        }
        const std::string origin(request[http::field::origin]);
        const std::string host(request[http::field::host]);
        if (!originMatches(origin, host)) {
            ++m_server.refused;
            log::warning("web: refused a socket from origin {} (the page is at http://{})", origin,
                         host);
            respond(request, http::status::forbidden, "origin refused\n");
            return;
        }
        if (m_server.clients.load() >= m_server.options.maxClients) {
            ++m_server.refused;
            respond(request, http::status::service_unavailable,
                    fmt::format("tandem: {} clients already\n", m_server.options.maxClients));
            return;
        }
        const std::uint64_t id = m_server.nextId++;
        // Counted now so that sockets accepted together cannot pass the limit.
        ++m_server.clients;
        auto session = std::make_shared<SocketSession>(m_server, std::move(m_stream), id);
        session->start(std::move(request));
    }

    std::shared_ptr<http::response<http::string_body>>
    makeResponse(const http::request<http::string_body>& request, http::status status,
                 std::string body, const std::string& contentType)
    {
        auto response =
            std::make_shared<http::response<http::string_body>>(status, request.version());
        response->set(http::field::server, "tandem");
        response->set(http::field::content_type, contentType);
        response->set(http::field::cache_control, "no-store");
        response->set("X-Content-Type-Options", "nosniff");
        response->set("Content-Security-Policy",
                      "default-src 'self'; img-src 'self' blob: data:; connect-src 'self'; "
                      "frame-ancestors 'none'");
        response->keep_alive(request.keep_alive());
        response->body() = std::move(body);
        response->prepare_payload();
        return response;
    }

    void respond(const http::request<http::string_body>& request, http::status status,
                 std::string body)
    {
        auto response = makeResponse(request, status, std::move(body), "text/plain");
        response->keep_alive(false);
        send(response);
    }

    void send(const std::shared_ptr<http::response<http::string_body>>& response)
    {
        http::async_write(
            m_stream, *response,
            [self = shared_from_this(), response](beast::error_code error, std::size_t) {
                if (error || !response->keep_alive()) {
                    self->close();
                    return;
                }
                self->read();
            });
    }

    void close()
    {
        beast::error_code ignored;
        m_stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
        m_stream.close();
    }

    Server::Impl& m_server;
    beast::tcp_stream m_stream;
    beast::flat_buffer m_buffer;
    std::optional<http::request_parser<http::string_body>> m_parser;
};

bool Server::Impl::tokenOf(const http::request<http::string_body>& request, bool& fromQuery) const
{
    const std::string target(request.target());
    const std::string query = queryValue(target, "token");
    if (!query.empty()) {
        fromQuery = true;
        return sameToken(query, options.token);
    }
    const std::string cookie = cookieValue(std::string(request[http::field::cookie]), CookieName);
    return sameToken(cookie, options.token);
}

void Server::Impl::accept()
{
    acceptor->async_accept([this](beast::error_code error, tcp::socket socket) {
        if (error == net::error::operation_aborted)
            return;
        if (!error)
            onAccepted(std::move(socket));
        accept();
    });
}

void Server::Impl::onAccepted(tcp::socket socket)
{
    if (httpConnections.load() >= MaxHttpConnections) {
        ++refused;
        beast::error_code ignored;
        socket.close(ignored);
        return;
    }
    // Frames and replies go out as they are written: Nagle's algorithm would hold a message's
    // last segment until the previous one is acknowledged (a delayed ACK: tens of ms).
    beast::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    std::make_shared<HttpSession>(*this, std::move(socket))->read();
}

void Server::Impl::addSession(const std::shared_ptr<SocketSession>& session)
{
    sessions[session->id()] = session;
    if (driverId.load() == 0)
        driverId = session->id();
    log::info("web: client {} connected ({} watching; client {} drives)", session->id(),
              clients.load(), driverId.load());
    updateWanting();
}

void Server::Impl::removeSession(std::uint64_t id)
{
    sessions.erase(id);
    --clients;
    if (driverId.load() == id) {
        // The longest connected client drives next.
        driverId = sessions.empty() ? 0 : sessions.begin()->first;
    }
    log::info("web: client {} left ({} watching)", id, clients.load());
    updateWanting();
    // The render thread forgets its view. Past the queue's bound too: one a client at most.
    std::lock_guard lock(messagesMutex);
    messages.push_back({id, false, {}, true});
}

void Server::Impl::updateWanting()
{
    int count = 0;
    for (const auto& [id, weak] : sessions)
        if (auto session = weak.lock(); session && session->wantsFrame())
            ++count;
    wanting = count;
}

Server::Server(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}

Server::~Server()
{
    Impl& impl = *m_impl;
    net::post(*impl.io, [&impl] {
        beast::error_code ignored;
        if (impl.acceptor)
            impl.acceptor->close(ignored);
        for (auto& [id, weak] : std::map(impl.sessions))
            if (auto session = weak.lock())
                session->drop({});
    });
    // Whatever is still pending (a half-read page request) ends with the loop.
    impl.io->stop();
    if (impl.thread.joinable())
        impl.thread.join();
    impl.acceptor.reset();
    impl.io.reset(); // destroys the handlers left, and with them the connections
}

Result<std::unique_ptr<Server>> Server::start(const ServerOptions& options,
                                              std::vector<PageFile> page)
{
    auto impl = std::make_unique<Impl>(options, std::move(page));
    if (impl->options.token.empty())
        impl->options.token = randomToken();
    const std::string bindHost = options.host == "localhost" ? "127.0.0.1" : options.host;
    boost::system::error_code error;
    const auto address = net::ip::make_address(bindHost, error);
    if (error)
        return fail(fmt::format("--serve: '{}' is not an IP address to listen on", options.host));
    if (options.port < 0 || options.port > 65535)
        return fail(fmt::format("--serve: port {} is not in 0..65535", options.port));
    const tcp::endpoint endpoint(address, static_cast<unsigned short>(options.port));
    auto& acceptor = impl->acceptor.emplace(*impl->io);
    const auto failed = [&](const char* what) {
        return fail(fmt::format("--serve: cannot {} {}:{}: {}", what, options.host, options.port,
                                error.message()));
    };
    if (acceptor.open(endpoint.protocol(), error); error)
        return failed("open a socket for");
    if (acceptor.set_option(net::socket_base::reuse_address(true), error); error)
        return failed("set up");
    if (acceptor.bind(endpoint, error); error)
        return failed("listen on");
    if (acceptor.listen(net::socket_base::max_listen_connections, error); error)
        return failed("listen on");
    impl->boundPort = acceptor.local_endpoint().port();
    impl->hostName = options.host;
    if (!isLoopback(options.host))
        log::warning("web: listening on {} (not loopback): anyone who can reach it and has the "
                     "token can watch and drive; prefer 127.0.0.1 and ssh -L",
                     options.host);
    impl->accept();
    Impl* raw = impl.get();
    impl->thread = std::thread([raw] {
        try {
            raw->io->run();
        } catch (const std::exception& e) {
            log::error("web: the network thread stopped: {}", e.what());
        }
    });
    return std::unique_ptr<Server>(new Server(std::move(impl)));
}

int Server::port() const
{
    return m_impl->boundPort;
}

const std::string& Server::host() const
{
    return m_impl->hostName;
}

const std::string& Server::token() const
{
    return m_impl->options.token;
}

std::string Server::url() const
{
    const std::string& host = m_impl->hostName;
    const bool v6 = host.find(':') != std::string::npos;
    return fmt::format("http://{}{}{}:{}/?token={}", v6 ? "[" : "", host, v6 ? "]" : "",
                       m_impl->boundPort, m_impl->options.token);
}

void Server::publishFrame(std::shared_ptr<const std::string> message)
{
    Impl& impl = *m_impl;
    net::post(*impl.io, [&impl, message = std::move(message)] {
        for (const auto& [id, weak] : impl.sessions)
            if (auto session = weak.lock())
                session->offerFrame(message);
    });
}

void Server::publishText(std::shared_ptr<const std::string> message)
{
    Impl& impl = *m_impl;
    net::post(*impl.io, [&impl, message = std::move(message)] {
        for (const auto& [id, weak] : impl.sessions)
            if (auto session = weak.lock())
                session->offerText(message);
    });
}

void Server::sendTo(std::uint64_t client, std::shared_ptr<const std::string> message)
{
    Impl& impl = *m_impl;
    net::post(*impl.io, [&impl, client, message = std::move(message)] {
        if (auto it = impl.sessions.find(client); it != impl.sessions.end())
            if (auto session = it->second.lock())
                session->reply(message);
    });
}

void Server::closeClient(std::uint64_t client, const std::string& why)
{
    Impl& impl = *m_impl;
    net::post(*impl.io, [&impl, client, why] {
        if (auto it = impl.sessions.find(client); it != impl.sessions.end())
            if (auto session = it->second.lock())
                session->drop(why);
    });
}

bool Server::passControl(std::uint64_t client)
{
    Impl& impl = *m_impl;
    std::promise<bool> done;
    auto passed = done.get_future();
    net::post(*impl.io, [&impl, client, &done] {
        const bool known = impl.sessions.count(client) != 0;
        if (known)
            impl.driverId = client;
        done.set_value(known);
    });
    return passed.get();
}

std::vector<ClientMessage> Server::takeMessages()
{
    std::lock_guard lock(m_impl->messagesMutex);
    return std::exchange(m_impl->messages, {});
}

bool Server::hasClients() const
{
    return m_impl->clients.load() > 0;
}

bool Server::allClientsBusy() const
{
    return m_impl->wanting.load() == 0;
}

std::uint64_t Server::driver() const
{
    return m_impl->driverId.load();
}

ServerCounts Server::counts() const
{
    const Impl& impl = *m_impl;
    return {impl.clients.load(),
            impl.framesSent.load(),
            impl.framesReplaced.load(),
            impl.refused.load(),
            impl.closedForAbuse.load(),
            impl.messagesReceived.load(),
            static_cast<double>(impl.frameWriteMicros.load()) / 1e3};
}

} // namespace tandem::web
