// What the browser page and the app say to each other over the socket, as plain data: a
// client's text messages parsed and checked (a view size and quality, input events in the
// frame's pixels, commands an app handles, asking to drive), and the header that goes before
// each frame's image. A message that is not what the page sends is a failure naming why (the
// server then closes that connection). No sockets, no GL. Any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/core/Result.h"
#include "engine/platform/Input.h"

namespace tandem::web {

/// The largest frame a client may ask for, a side.
constexpr int MaxViewSide = 8192;

/// How a client wants its frames.
enum class ImageFormat { Jpeg, Png };

/// The frames a client wants: its canvas in device pixels, and the encoding.
struct ViewRequest {
    int width = 0;                          ///< 0: the app's own size
    int height = 0;                         ///< 0: the app's own size
    int quality = 80;                       ///< JPEG quality 1..100
    ImageFormat format = ImageFormat::Jpeg; ///< Png: lossless stills (a screenshot)
    /// The most frames a second the client can show (a page: its display's refresh rate); 0:
    /// as many as its socket takes.
    int maxFps = 0;
};

/// The highest `max_fps` a client may ask.
constexpr int MaxFramesPerSecond = 1000;

/// A client message, parsed.
struct ClientRequest {
    enum class Type {
        Hello,   ///< a client's first message: its view (below)
        View,    ///< the canvas changed size, or the quality slider moved
        Input,   ///< pointer, wheel or key input (events)
        Drive,   ///< asks to drive
        Command, ///< something an app handles: "seek" to a frame, a post-process parameter...
        Ping,    ///< answered with a pong carrying `sent` (the page measures round trips)
    };
    Type type = Type::Hello;
    ViewRequest view; ///< Hello, View
    /// Input: as window events (a press or release comes after a move to where it happened)
    std::vector<platform::InputEvent> events;
    std::uint64_t inputSeq = 0; ///< Input: the page's number for it
    std::string command;        ///< Command: its name
    nlohmann::json args;        ///< Command: its arguments (an object)
    double sent = 0;            ///< Ping: the page's clock
};

/// Parses one text message from a client. Fails, saying why, on anything the page would not
/// send: not JSON, not an object, an unknown type, a missing or out-of-range field.
Result<ClientRequest> parseClientMessage(std::string_view text);

/// The key named `name` as the page sends it ("Space", "ArrowLeft", "c", "F2"...), Key::Other
/// when tandem binds nothing to it.
platform::Key keyNamed(std::string_view name);

/// What goes before a frame's image in its binary message.
struct FrameHeader {
    std::uint64_t frame = 0; ///< the session's frame index
    int width = 0;
    int height = 0;
    ImageFormat format = ImageFormat::Jpeg;
    std::uint64_t inputSeq = 0; ///< the newest input from the driver this frame reflects
    double renderedMs = 0;      ///< when it was read back, ms on the app's steady clock
    double encodeMs = 0;        ///< the encode's CPU time
};

/// A frame message: a 4-byte little-endian length, a JSON header of that length, the image.
std::string frameMessage(const FrameHeader& header, std::string_view image);
/// Reads a frame message back (the tests'); fails when it is not one.
Result<std::pair<FrameHeader, std::string>> readFrameMessage(std::string_view message);

} // namespace tandem::web
