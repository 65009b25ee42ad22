#include "engine/web/Protocol.h"

#include <array>
#include <cmath>
#include <cstring>
#include <utility>

#include <fmt/format.h>

namespace tandem::web {

namespace {

using json = nlohmann::json;
using platform::InputEvent;
using platform::Key;

/// Events one input message may carry (a frame's worth of pointer moves is a handful).
constexpr std::size_t MaxEventsPerMessage = 256;
/// Pointer coordinates beyond this are not a canvas's.
constexpr double MaxCoordinate = 1 << 20;

struct KeyName {
    std::string_view name;
    Key key;
};
// KeyboardEvent.key values; letters either case.
constexpr std::array<KeyName, 27> KeyNames{{
    {"Escape", Key::Escape},
    {" ", Key::Space},
    {"Space", Key::Space},
    {"c", Key::C},
    {"s", Key::S},
    {"r", Key::R},
    {"q", Key::Q},
    {"l", Key::L},
    {"k", Key::K},
    {"p", Key::P},
    {"F1", Key::F1},
    {"F2", Key::F2},
    {"F12", Key::F12},
    {"ArrowLeft", Key::Left},
    {"ArrowRight", Key::Right},
    {"ArrowUp", Key::Up},
    {"ArrowDown", Key::Down},
    {"Home", Key::Home},
    {"End", Key::End},
    {"+", Key::Plus},
    {"=", Key::Plus},
    {"-", Key::Minus},
    {"Left", Key::Left},
    {"Right", Key::Right},
    {"Up", Key::Up},
    {"Down", Key::Down},
    {"Esc", Key::Escape},
}};

/// A number field of `object` within [lo, hi]; fails naming it.
Result<double> number(const json& object, const char* name, double lo, double hi)
{
    const auto it = object.find(name);
    if (it == object.end() || !it->is_number())
        return fail(fmt::format("'{}' is missing or not a number", name));
    const double value = it->get<double>();
    if (!std::isfinite(value) || value < lo || value > hi)
        return fail(fmt::format("'{}' is {} (expected {}..{})", name, value, lo, hi));
    return value;
}

Result<bool> readView(const json& object, ViewRequest& view)
{
    for (const char* side : {"width", "height"}) {
        auto value = number(object, side, 0, MaxViewSide);
        if (!value)
            return fail(value.error());
        (side[0] == 'w' ? view.width : view.height) = static_cast<int>(value.value());
    }
    if (object.contains("quality")) {
        auto quality = number(object, "quality", 1, 100);
        if (!quality)
            return fail(quality.error());
        view.quality = static_cast<int>(quality.value());
    }
    if (object.contains("max_fps")) {
        auto rate = number(object, "max_fps", 0, MaxFramesPerSecond);
        if (!rate)
            return fail(rate.error());
        view.maxFps = static_cast<int>(rate.value());
    }
    if (const auto it = object.find("format"); it != object.end()) {
        if (*it == "jpeg")
            view.format = ImageFormat::Jpeg;
        else if (*it == "png")
            view.format = ImageFormat::Png;
        else
            return fail("'format' is neither \"jpeg\" nor \"png\"");
    }
    return true;
}

/// One event of the page as window events: a press or release also moves the cursor there
/// first (a window reports where the cursor is by moves alone).
Result<std::vector<InputEvent>> readEvent(const json& object)
{
    if (!object.is_object())
        return fail("an input event is not an object");
    const auto kind = object.find("kind");
    if (kind == object.end() || !kind->is_string())
        return fail("an input event has no 'kind'");
    InputEvent event;
    const std::string name = kind->get<std::string>();
    if (name == "move" || name == "down" || name == "up") {
        auto x = number(object, "x", -MaxCoordinate, MaxCoordinate);
        auto y = number(object, "y", -MaxCoordinate, MaxCoordinate);
        if (!x || !y)
            return fail(!x ? x.error() : y.error());
        if (name == "move") {
            event.type = InputEvent::Type::MouseMove;
            event.x = x.value();
            event.y = y.value();
            return std::vector{event};
        }
        auto button = number(object, "button", 0, 2);
        if (!button)
            return fail(button.error());
        InputEvent move;
        move.type = InputEvent::Type::MouseMove;
        move.x = x.value();
        move.y = y.value();
        event.type = InputEvent::Type::MouseButton;
        event.x = x.value();
        event.y = y.value();
        event.button = static_cast<int>(button.value());
        event.pressed = name == "down";
        return std::vector{move, event};
    }
    if (name == "wheel") {
        auto dy = number(object, "dy", -1000, 1000);
        if (!dy)
            return fail(dy.error());
        event.type = InputEvent::Type::Scroll;
        event.y = dy.value();
        return std::vector{event};
    }
    if (name == "key") {
        const auto key = object.find("key");
        if (key == object.end() || !key->is_string() ||
            key->get_ref<const std::string&>().size() > 32)
            return fail("a key event's 'key' is missing or not a key name");
        event.type = InputEvent::Type::Key;
        event.key = keyNamed(key->get_ref<const std::string&>());
        event.pressed = true;
        return std::vector{event};
    }
    return fail(fmt::format("unknown input kind '{}'", name.substr(0, 32)));
}

void putLe32(std::string& out, std::uint32_t value)
{
    for (int i = 0; i < 4; ++i)
        out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

constexpr std::string_view formatName(ImageFormat format)
{
    return format == ImageFormat::Png ? "png" : "jpeg";
}

} // namespace

Key keyNamed(std::string_view name)
{
    for (const auto& entry : KeyNames)
        if (entry.name == name)
            return entry.key;
    // Upper-case letters are the same keys.
    if (name.size() == 1 && name[0] >= 'A' && name[0] <= 'Z') {
        const char lower[2] = {static_cast<char>(name[0] - 'A' + 'a'), 0};
        return keyNamed(std::string_view(lower, 1));
    }
    return Key::Other;
}

Result<ClientRequest> parseClientMessage(std::string_view text)
{
    json message = json::parse(text, nullptr, false);
    if (message.is_discarded())
        return fail("not JSON");
    if (!message.is_object())
        return fail("not a JSON object");
    const auto type = message.find("type");
    if (type == message.end() || !type->is_string())
        return fail("no 'type'");
    const std::string name = type->get<std::string>();
    ClientRequest request;
    if (name == "hello" || name == "view") {
        request.type = name == "hello" ? ClientRequest::Type::Hello : ClientRequest::Type::View;
        if (auto read = readView(message, request.view); !read)
            return fail(read.error());
        return request;
    }
    if (name == "input") {
        request.type = ClientRequest::Type::Input;
        auto seq = number(message, "seq", 0, 9007199254740991.0);
        if (!seq)
            return fail(seq.error());
        request.inputSeq = static_cast<std::uint64_t>(seq.value());
        const auto events = message.find("events");
        if (events == message.end() || !events->is_array())
            return fail("'events' is missing or not an array");
        if (events->size() > MaxEventsPerMessage)
            return fail(fmt::format("{} events in one message (at most {})", events->size(),
                                    MaxEventsPerMessage));
        for (const auto& object : *events) {
            auto event = readEvent(object);
            if (!event)
                return fail(event.error());
            for (InputEvent& e : event.value())
                request.events.push_back(std::move(e));
        }
        return request;
    }
    if (name == "drive") {
        request.type = ClientRequest::Type::Drive;
        return request;
    }
    if (name == "ping") {
        request.type = ClientRequest::Type::Ping;
        auto sent = number(message, "sent", -1e15, 1e15);
        if (!sent)
            return fail(sent.error());
        request.sent = sent.value();
        return request;
    }
    if (name == "command") {
        request.type = ClientRequest::Type::Command;
        const auto command = message.find("name");
        if (command == message.end() || !command->is_string() ||
            command->get_ref<const std::string&>().empty() ||
            command->get_ref<const std::string&>().size() > 64)
            return fail("a command's 'name' is missing or not a name");
        request.command = command->get<std::string>();
        const auto args = message.find("args");
        request.args = args == message.end() ? json::object() : *args;
        if (!request.args.is_object())
            return fail("a command's 'args' is not an object");
        return request;
    }
    return fail(fmt::format("unknown message type '{}'", name.substr(0, 32)));
}

std::string frameMessage(const FrameHeader& header, std::string_view image)
{
    const std::string head = json{
        {"type", "frame"},
        {"frame", header.frame},
        {"width", header.width},
        {"height", header.height},
        {"format", formatName(header.format)},
        {"input_seq", header.inputSeq},
        {"rendered_ms", header.renderedMs},
        {"encode_ms",
         header.encodeMs}}.dump();
    std::string message;
    message.reserve(4 + head.size() + image.size());
    putLe32(message, static_cast<std::uint32_t>(head.size()));
    message += head;
    message.append(image.data(), image.size());
    return message;
}

Result<std::pair<FrameHeader, std::string>> readFrameMessage(std::string_view message)
{
    if (message.size() < 4)
        return fail("a frame message shorter than its length field");
    std::uint32_t length = 0;
    for (int i = 0; i < 4; ++i)
        length |= static_cast<std::uint32_t>(static_cast<unsigned char>(message[i])) << (8 * i);
    if (length > message.size() - 4)
        return fail("a frame message's header runs past its end");
    const json head = json::parse(message.substr(4, length), nullptr, false);
    if (head.is_discarded() || !head.is_object() || head.value("type", "") != "frame")
        return fail("a frame message's header is not a frame's");
    FrameHeader header;
    try {
        header.frame = head.at("frame").get<std::uint64_t>();
        header.width = head.at("width").get<int>();
        header.height = head.at("height").get<int>();
        header.format = head.at("format") == "png" ? ImageFormat::Png : ImageFormat::Jpeg;
        header.inputSeq = head.at("input_seq").get<std::uint64_t>();
        header.renderedMs = head.at("rendered_ms").get<double>();
        header.encodeMs = head.at("encode_ms").get<double>();
    } catch (const json::exception& e) {
        return fail(fmt::format("a frame message's header: {}", e.what()));
    }
    return std::pair{header, std::string(message.substr(4 + length))};
}

} // namespace tandem::web
