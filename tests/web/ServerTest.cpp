// The browser view's server (web/Server.h) over real loopback sockets, spoken to byte by byte as
// a browser would: the token and the Origin guard the page and the socket, a socket's messages
// reach takeMessages(), frames published reach it, bounds close only the offender. Also the
// helpers (tokens, queries, cookies, origins) and the JPEG encoder. No GL.
#include "engine/web/Server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <turbojpeg.h>

#include "engine/web/FrameEncoder.h"

namespace tandem::web {
namespace {

const std::string Token = "0123456789abcdef0123456789abcdef";

/// A TCP connection to the server on loopback.
class Connection {
public:
    explicit Connection(int port)
    {
        m_fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(static_cast<std::uint16_t>(port));
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        m_connected = ::connect(m_fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    }
    ~Connection() { ::close(m_fd); }
    bool connected() const { return m_connected; }

    void send(const std::string& bytes)
    {
        std::size_t sent = 0;
        while (sent < bytes.size()) {
            const ssize_t n = ::send(m_fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
            if (n <= 0)
                return;
            sent += static_cast<std::size_t>(n);
        }
    }

    /// Reads until `until` is in what was read, or the server closes (then returns what came).
    std::string readUntil(const std::string& until)
    {
        while (m_buffer.find(until) == std::string::npos && receive()) {
        }
        return m_buffer;
    }
    /// Reads exactly `count` more bytes (fewer when the server closes).
    std::string read(std::size_t count)
    {
        while (m_buffer.size() < count && receive()) {
        }
        std::string out = m_buffer.substr(0, count);
        m_buffer.erase(0, out.size());
        return out;
    }
    /// Whether the server closed the connection (reads until it does).
    bool closedByServer()
    {
        for (;;) {
            char chunk[65536];
            const ssize_t n = ::recv(m_fd, chunk, sizeof chunk, 0);
            if (n <= 0)
                return true;
        }
    }
    void consume(std::size_t count) { m_buffer.erase(0, count); }

private:
    /// Appends what arrives next; false once the server has closed.
    bool receive()
    {
        char chunk[4096];
        const ssize_t n = ::recv(m_fd, chunk, sizeof chunk, 0);
        if (n <= 0)
            return false;
        m_buffer.append(chunk, static_cast<std::size_t>(n));
        return true;
    }

    int m_fd = -1;
    bool m_connected = false;
    std::string m_buffer;
};

std::string get(int port, const std::string& target, const std::string& headers = {})
{
    Connection c(port);
    c.send("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
           "\r\nConnection: close\r\n" + headers + "\r\n");
    return c.readUntil("\r\n\r\n<never>");
}

std::string upgradeRequest(int port, const std::string& token, const std::string& origin)
{
    return "GET /socket?token=" + token + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
           "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
           "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" +
           (origin.empty() ? "" : "Origin: " + origin + "\r\n") + "\r\n";
}

/// A client's text frame: masked, as RFC 6455 asks of clients.
std::string clientText(const std::string& text, unsigned char opcode = 0x1)
{
    std::string frame(1, static_cast<char>(0x80 | opcode));
    const std::size_t n = text.size();
    if (n < 126) {
        frame += static_cast<char>(0x80 | n);
    } else if (n < 65536) {
        frame += static_cast<char>(0x80 | 126);
        frame += static_cast<char>(n >> 8);
        frame += static_cast<char>(n & 0xff);
    } else {
        frame += static_cast<char>(0x80 | 127);
        for (int i = 7; i >= 0; --i)
            frame += static_cast<char>((static_cast<std::uint64_t>(n) >> (8 * i)) & 0xff);
    }
    const char mask[4] = {0x12, 0x34, 0x56, 0x78};
    frame.append(mask, 4);
    for (std::size_t i = 0; i < n; ++i)
        frame += static_cast<char>(text[i] ^ mask[i % 4]);
    return frame;
}

std::unique_ptr<Server> startServer(ServerOptions options = {})
{
    options.token = Token;
    auto server = Server::start(
        options, {{"/", "text/html", "<p>page</p>"}, {"/viewer.js", "text/javascript", "// js"}});
    EXPECT_TRUE(server) << server.error();
    return server ? std::move(server.value()) : nullptr;
}

template <class F> bool eventually(F&& done)
{
    // A guard against a hang, not a speed requirement.
    for (int i = 0; i < 6000 && !done(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return done();
}

TEST(WebServer, HelpersReadTokensQueriesCookiesAndOrigins)
{
    EXPECT_TRUE(sameToken("abc", "abc"));
    EXPECT_FALSE(sameToken("abc", "abd"));
    EXPECT_FALSE(sameToken("abc", "abcd"));
    EXPECT_FALSE(sameToken("", ""));
    EXPECT_EQ(queryValue("/?token=abc&x=1", "token"), "abc");
    EXPECT_EQ(queryValue("/socket?x=1&token=abc", "token"), "abc");
    EXPECT_EQ(queryValue("/?tokens=abc", "token"), "");
    EXPECT_EQ(queryValue("/", "token"), "");
    EXPECT_EQ(cookieValue("a=1; tandem_token=xyz; b=2", "tandem_token"), "xyz");
    EXPECT_EQ(cookieValue("tandem_tokenx=1", "tandem_token"), "");
    EXPECT_TRUE(originMatches("http://127.0.0.1:8080", "127.0.0.1:8080"));
    EXPECT_TRUE(originMatches("", "127.0.0.1:8080"));
    EXPECT_FALSE(originMatches("http://evil.example", "127.0.0.1:8080"));
    EXPECT_FALSE(originMatches("https://127.0.0.1:8080", "127.0.0.1:8080"));
    EXPECT_TRUE(isLoopback("127.0.0.1"));
    EXPECT_TRUE(isLoopback("127.1.2.3"));
    EXPECT_TRUE(isLoopback("::1"));
    EXPECT_TRUE(isLoopback("localhost"));
    EXPECT_FALSE(isLoopback("0.0.0.0"));
    EXPECT_FALSE(isLoopback("10.0.0.1"));
}

TEST(WebServer, ListensOnLoopbackWithARandomToken)
{
    auto a = Server::start({}, {});
    auto b = Server::start({}, {});
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a.value()->host(), "127.0.0.1");
    EXPECT_EQ(a.value()->token().size(), 32u);
    EXPECT_NE(a.value()->token(), b.value()->token());
    EXPECT_NE(a.value()->port(), b.value()->port());
    EXPECT_EQ(a.value()->url(), "http://127.0.0.1:" + std::to_string(a.value()->port()) +
                                    "/?token=" + a.value()->token());
    ServerOptions taken;
    taken.port = a.value()->port();
    auto clash = Server::start(taken, {});
    ASSERT_FALSE(clash);
    EXPECT_NE(clash.error().find("cannot listen on 127.0.0.1:"), std::string::npos)
        << clash.error();
    ServerOptions nonsense;
    nonsense.host = "not-an-address";
    EXPECT_FALSE(Server::start(nonsense, {}));
}

TEST(WebServer, ThePageNeedsTheToken)
{
    auto server = startServer();
    ASSERT_TRUE(server);
    const int port = server->port();
    const std::string page = get(port, "/?token=" + Token);
    EXPECT_EQ(page.rfind("HTTP/1.1 200", 0), 0u) << page;
    EXPECT_NE(
        page.find("Set-Cookie: tandem_token=" + Token + "; Path=/; HttpOnly; SameSite=Strict"),
        std::string::npos);
    EXPECT_NE(page.find("<p>page</p>"), std::string::npos);
    const std::string byCookie = get(port, "/viewer.js", "Cookie: tandem_token=" + Token + "\r\n");
    EXPECT_EQ(byCookie.rfind("HTTP/1.1 200", 0), 0u) << byCookie;
    EXPECT_EQ(byCookie.find("Set-Cookie"), std::string::npos);
    for (const std::string& target :
         {std::string("/"), "/?token=" + Token.substr(1), std::string("/viewer.js?token=nope"),
          std::string("/?token=")}) {
        const std::string refused = get(port, target);
        EXPECT_EQ(refused.rfind("HTTP/1.1 403", 0), 0u) << target << ": " << refused;
        EXPECT_EQ(refused.find("<p>page</p>"), std::string::npos);
    }
    EXPECT_EQ(get(port, "/missing?token=" + Token).rfind("HTTP/1.1 404", 0), 0u);
    Connection post(port);
    post.send("POST /?token=" + Token + " HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");
    EXPECT_EQ(post.readUntil("\r\n\r\n").rfind("HTTP/1.1 405", 0), 0u);
    // A header over the limit: the connection ends unanswered.
    Connection huge(port);
    huge.send("GET /?token=" + Token + " HTTP/1.1\r\nX-Big: " + std::string(20000, 'a') +
              "\r\n\r\n");
    EXPECT_EQ(huge.readUntil("\r\n\r\n").find("200"), std::string::npos);
    EXPECT_GE(server->counts().refused, 5u);
}

TEST(WebServer, SocketsNeedTheTokenAndTheirOwnOrigin)
{
    auto server = startServer();
    ASSERT_TRUE(server);
    const int port = server->port();
    const std::string origin = "http://127.0.0.1:" + std::to_string(port);
    for (const auto& [token, from] : {std::pair{std::string("nope"), origin},
                                      std::pair{Token, std::string("http://evil.example")}}) {
        Connection c(port);
        c.send(upgradeRequest(port, token, from));
        EXPECT_EQ(c.readUntil("\r\n\r\n").rfind("HTTP/1.1 403", 0), 0u) << token << " " << from;
    }
    EXPECT_FALSE(server->hasClients());
}

TEST(WebServer, MessagesInFramesOutNewestWins)
{
    auto server = startServer();
    ASSERT_TRUE(server);
    const int port = server->port();
    Connection c(port);
    c.send(upgradeRequest(port, Token, "http://127.0.0.1:" + std::to_string(port)));
    const std::string head = c.readUntil("\r\n\r\n");
    ASSERT_EQ(head.rfind("HTTP/1.1 101", 0), 0u) << head;
    c.consume(head.find("\r\n\r\n") + 4);
    // The first client to connect drives.
    ASSERT_TRUE(eventually([&] { return server->driver() != 0; }));
    const std::uint64_t client = server->driver();

    c.send(clientText(R"({"type":"ping","sent":1})"));
    std::vector<ClientMessage> messages;
    ASSERT_TRUE(eventually([&] {
        for (auto& m : server->takeMessages())
            messages.push_back(std::move(m));
        return !messages.empty();
    }));
    EXPECT_EQ(messages[0].text, R"({"type":"ping","sent":1})");
    EXPECT_EQ(messages[0].client, client);
    EXPECT_TRUE(messages[0].fromDriver);

    server->publishFrame(std::make_shared<const std::string>("frame-1"));
    const std::string frame = c.read(2 + 7);
    ASSERT_EQ(frame.size(), 9u);
    EXPECT_EQ(static_cast<unsigned char>(frame[0]), 0x82); // a final binary frame
    EXPECT_EQ(frame[1], 7);
    EXPECT_EQ(frame.substr(2), "frame-1");
    server->sendTo(client, std::make_shared<const std::string>("reply"));
    const std::string reply = c.read(2 + 5);
    EXPECT_EQ(static_cast<unsigned char>(reply[0]), 0x81);
    EXPECT_EQ(reply.substr(2), "reply");
    EXPECT_TRUE(eventually([&] { return server->counts().framesSent == 1; }));

    // A binary message from a client is not the page's: that connection ends.
    c.send(clientText("\x01\x02", 0x2));
    EXPECT_TRUE(c.closedByServer());
    EXPECT_TRUE(eventually([&] { return !server->hasClients(); }));
    EXPECT_EQ(server->counts().closedForAbuse, 1u);
    EXPECT_EQ(server->driver(), 0u);
    // Its leaving reaches the render thread as a message (the app forgets the client's view).
    std::vector<ClientMessage> after;
    ASSERT_TRUE(eventually([&] {
        for (auto& m : server->takeMessages())
            after.push_back(std::move(m));
        return !after.empty();
    }));
    ASSERT_EQ(after.size(), 1u);
    EXPECT_TRUE(after[0].left);
    EXPECT_EQ(after[0].client, client);
    EXPECT_TRUE(after[0].text.empty());
}

TEST(WebServer, OversizedAndFloodingClientsLoseTheirConnectionOnly)
{
    ServerOptions options;
    options.maxMessageBytes = 1024;
    options.maxMessagesPerSecond = 50;
    auto server = startServer(options);
    ASSERT_TRUE(server);
    const int port = server->port();
    const std::string origin = "http://127.0.0.1:" + std::to_string(port);
    auto open = [&](Connection& c) {
        c.send(upgradeRequest(port, Token, origin));
        const std::string head = c.readUntil("\r\n\r\n");
        c.consume(head.find("\r\n\r\n") + 4);
        return head.rfind("HTTP/1.1 101", 0) == 0;
    };
    Connection watcher(port), big(port), flood(port);
    ASSERT_TRUE(open(watcher) && open(big) && open(flood));
    big.send(clientText(std::string(2000, 'x')));
    EXPECT_TRUE(big.closedByServer());
    std::string burst;
    for (int i = 0; i < 500; ++i)
        burst += clientText("{}");
    flood.send(burst);
    EXPECT_TRUE(flood.closedByServer());
    EXPECT_TRUE(eventually([&] { return server->counts().clients == 1; }));
    EXPECT_EQ(server->counts().closedForAbuse, 2u);
    // The watcher is still served.
    server->publishFrame(std::make_shared<const std::string>("still here"));
    EXPECT_EQ(watcher.read(2 + 10).substr(2), "still here");
}

TEST(WebServer, ClientsBeyondTheLimitAreRefused)
{
    ServerOptions options;
    options.maxClients = 2;
    auto server = startServer(options);
    ASSERT_TRUE(server);
    const int port = server->port();
    const std::string origin = "http://127.0.0.1:" + std::to_string(port);
    Connection a(port), b(port), c(port);
    a.send(upgradeRequest(port, Token, origin));
    b.send(upgradeRequest(port, Token, origin));
    EXPECT_EQ(a.readUntil("\r\n\r\n").rfind("HTTP/1.1 101", 0), 0u);
    EXPECT_EQ(b.readUntil("\r\n\r\n").rfind("HTTP/1.1 101", 0), 0u);
    c.send(upgradeRequest(port, Token, origin));
    EXPECT_EQ(c.readUntil("\r\n\r\n").rfind("HTTP/1.1 503", 0), 0u);
}

TEST(WebFrameEncoder, JpegOfRowsStoredEitherWay)
{
    // A vertical gradient: rows top to bottom, and the same rows stored bottom first.
    const int width = 64, height = 32;
    std::vector<std::uint8_t> topDown(static_cast<std::size_t>(width) * height * 4);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            std::uint8_t* p = &topDown[(static_cast<std::size_t>(y) * width + x) * 4];
            p[0] = static_cast<std::uint8_t>(y * 8);
            p[1] = 128;
            p[2] = static_cast<std::uint8_t>(255 - y * 8);
            p[3] = 255;
        }
    std::vector<std::uint8_t> bottomUp(topDown.size());
    for (int y = 0; y < height; ++y)
        std::copy_n(&topDown[static_cast<std::size_t>(y) * width * 4], width * 4,
                    &bottomUp[static_cast<std::size_t>(height - 1 - y) * width * 4]);
    FrameEncoder encoder;
    auto a = encoder.jpeg(io::ImageView(width, height, topDown.data(), width * 4), 95);
    auto b = encoder.jpeg(
        io::ImageView(width, height,
                      bottomUp.data() + static_cast<std::size_t>(height - 1) * width * 4,
                      -width * 4),
        95);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a.value(), b.value());
    // Decoded, it is the gradient (within JPEG's loss).
    tjhandle decoder = tjInitDecompress();
    std::vector<std::uint8_t> decoded(topDown.size());
    ASSERT_EQ(tjDecompress2(decoder, reinterpret_cast<const unsigned char*>(a.value().data()),
                            a.value().size(), decoded.data(), width, 0, height, TJPF_RGBA, 0),
              0);
    tjDestroy(decoder);
    int worst = 0;
    for (std::size_t i = 0; i < decoded.size(); ++i)
        worst = std::max(worst, std::abs(int(decoded[i]) - int(topDown[i])));
    EXPECT_LE(worst, 12);
    auto png = encoder.png(io::ImageView(width, height, topDown.data(), width * 4));
    ASSERT_TRUE(png);
    EXPECT_EQ(png.value().substr(1, 3), "PNG");
}

} // namespace
} // namespace tandem::web
