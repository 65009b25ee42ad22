// The browser view's messages (web/Protocol.h): what the page sends parsed into window events,
// everything else refused with a reason; frame messages written and read back.
#include "engine/web/Protocol.h"

#include <gtest/gtest.h>

namespace tandem::web {
namespace {

using platform::InputEvent;
using platform::Key;

TEST(WebProtocol, HelloAndViewCarryTheCanvasAndTheEncoding)
{
    auto hello = parseClientMessage(
        R"({"type":"hello","width":1920,"height":1080,"quality":70,"max_fps":144})");
    ASSERT_TRUE(hello) << hello.error();
    EXPECT_EQ(hello.value().type, ClientRequest::Type::Hello);
    EXPECT_EQ(hello.value().view.width, 1920);
    EXPECT_EQ(hello.value().view.height, 1080);
    EXPECT_EQ(hello.value().view.quality, 70);
    EXPECT_EQ(hello.value().view.format, ImageFormat::Jpeg);
    EXPECT_EQ(hello.value().view.maxFps, 144);
    auto view = parseClientMessage(R"({"type":"view","width":0,"height":0,"format":"png"})");
    ASSERT_TRUE(view) << view.error();
    EXPECT_EQ(view.value().type, ClientRequest::Type::View);
    EXPECT_EQ(view.value().view.format, ImageFormat::Png);
    EXPECT_EQ(view.value().view.quality, 80);
    EXPECT_EQ(view.value().view.maxFps, 0); // none said: as fast as the socket takes them
}

TEST(WebProtocol, PressesComeAfterAMoveToWhereTheyHappened)
{
    auto input = parseClientMessage(
        R"({"type":"input","seq":7,"events":[{"kind":"down","x":10,"y":20,"button":0},
            {"kind":"move","x":15.5,"y":22},{"kind":"up","x":15.5,"y":22,"button":1},
            {"kind":"wheel","dy":-2},{"kind":"key","key":"ArrowRight"},{"kind":"key","key":"Z"}]})");
    ASSERT_TRUE(input) << input.error();
    const auto& events = input.value().events;
    EXPECT_EQ(input.value().inputSeq, 7u);
    ASSERT_EQ(events.size(), 8u);
    EXPECT_EQ(events[0].type, InputEvent::Type::MouseMove);
    EXPECT_EQ(events[0].x, 10);
    EXPECT_EQ(events[1].type, InputEvent::Type::MouseButton);
    EXPECT_TRUE(events[1].pressed);
    EXPECT_EQ(events[1].button, 0);
    EXPECT_EQ(events[2].type, InputEvent::Type::MouseMove);
    EXPECT_EQ(events[2].x, 15.5);
    EXPECT_EQ(events[4].type, InputEvent::Type::MouseButton);
    EXPECT_FALSE(events[4].pressed);
    EXPECT_EQ(events[4].button, 1);
    EXPECT_EQ(events[5].type, InputEvent::Type::Scroll);
    EXPECT_EQ(events[5].y, -2);
    EXPECT_EQ(events[6].key, Key::Right);
    EXPECT_EQ(events[7].key, Key::Other);
}

TEST(WebProtocol, KeysByTheBrowsersNames)
{
    EXPECT_EQ(keyNamed(" "), Key::Space);
    EXPECT_EQ(keyNamed("c"), Key::C);
    EXPECT_EQ(keyNamed("C"), Key::C);
    EXPECT_EQ(keyNamed("+"), Key::Plus);
    EXPECT_EQ(keyNamed("="), Key::Plus);
    EXPECT_EQ(keyNamed("Home"), Key::Home);
    EXPECT_EQ(keyNamed("Escape"), Key::Escape);
    EXPECT_EQ(keyNamed("Enter"), Key::Other);
    EXPECT_EQ(keyNamed(""), Key::Other);
}

TEST(WebProtocol, CommandsDriveAndPing)
{
    auto seek = parseClientMessage(R"({"type":"command","name":"seek","args":{"frame":12}})");
    ASSERT_TRUE(seek) << seek.error();
    EXPECT_EQ(seek.value().command, "seek");
    EXPECT_EQ(seek.value().args["frame"], 12);
    auto bare = parseClientMessage(R"({"type":"command","name":"still"})");
    ASSERT_TRUE(bare) << bare.error();
    EXPECT_TRUE(bare.value().args.is_object());
    EXPECT_EQ(parseClientMessage(R"({"type":"drive"})").value().type, ClientRequest::Type::Drive);
    EXPECT_EQ(parseClientMessage(R"({"type":"ping","sent":12.5})").value().sent, 12.5);
}

TEST(WebProtocol, AnythingElseIsRefusedWithAReason)
{
    const std::pair<const char*, const char*> cases[] = {
        {"{not json", "not JSON"},
        {"[1,2]", "not a JSON object"},
        {R"({"kind":"hello"})", "no 'type'"},
        {R"({"type":"exec"})", "unknown message type 'exec'"},
        {R"({"type":"hello","width":-1,"height":10})", "'width' is -1"},
        {R"({"type":"hello","width":10})", "'height' is missing"},
        {R"({"type":"hello","width":9000,"height":10})", "'width' is 9000"},
        {R"({"type":"view","width":1,"height":1,"quality":0})", "'quality' is 0"},
        {R"({"type":"view","width":1,"height":1,"format":"gif"})", "'format'"},
        {R"({"type":"view","width":1,"height":1,"max_fps":1001})", "'max_fps' is 1001"},
        {R"({"type":"view","width":1,"height":1,"max_fps":"60"})", "'max_fps' is missing or not"},
        {R"({"type":"input","events":[]})", "'seq'"},
        {R"({"type":"input","seq":1})", "'events'"},
        {R"({"type":"input","seq":1,"events":[{"kind":"teleport"}]})", "unknown input kind"},
        {R"({"type":"input","seq":1,"events":[{"kind":"down","x":1,"y":1,"button":5}]})",
         "'button' is 5"},
        {R"({"type":"input","seq":1,"events":[{"kind":"move","x":1e300,"y":1}]})", "'x'"},
        {R"({"type":"input","seq":1,"events":[{"kind":"key"}]})", "'key'"},
        {R"({"type":"command","args":{}})", "'name'"},
        {R"({"type":"command","name":"seek","args":[1]})", "'args' is not an object"},
        {R"({"type":"ping"})", "'sent'"},
    };
    for (const auto& [text, reason] : cases) {
        auto parsed = parseClientMessage(text);
        ASSERT_FALSE(parsed) << text;
        EXPECT_NE(parsed.error().find(reason), std::string::npos)
            << text << " -> " << parsed.error();
    }
    std::string many = R"({"type":"input","seq":1,"events":[)";
    for (int i = 0; i < 257; ++i)
        many += std::string(i ? "," : "") + R"({"kind":"wheel","dy":1})";
    many += "]}";
    auto flood = parseClientMessage(many);
    ASSERT_FALSE(flood);
    EXPECT_NE(flood.error().find("257 events"), std::string::npos) << flood.error();
}

TEST(WebProtocol, FrameMessagesReadBack)
{
    FrameHeader header;
    header.frame = 42;
    header.width = 640;
    header.height = 360;
    header.format = ImageFormat::Png;
    header.inputSeq = 9;
    header.renderedMs = 1.5;
    header.encodeMs = 0.25;
    const std::string image("\x89PNG\0\1\2", 7);
    const std::string message = frameMessage(header, image);
    auto read = readFrameMessage(message);
    ASSERT_TRUE(read) << read.error();
    EXPECT_EQ(read.value().first.frame, 42u);
    EXPECT_EQ(read.value().first.width, 640);
    EXPECT_EQ(read.value().first.height, 360);
    EXPECT_EQ(read.value().first.format, ImageFormat::Png);
    EXPECT_EQ(read.value().first.inputSeq, 9u);
    EXPECT_EQ(read.value().first.encodeMs, 0.25);
    EXPECT_EQ(read.value().second, image);
    EXPECT_FALSE(readFrameMessage("ab"));
    EXPECT_FALSE(readFrameMessage(std::string("\xff\0\0\0{}", 6)));
    EXPECT_FALSE(readFrameMessage(std::string("\2\0\0\0{}", 6)));
}

} // namespace
} // namespace tandem::web
