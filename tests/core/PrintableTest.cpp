// core: text from files is printed as escapes where a terminal would obey it
// (engine/core/Printable.h).
#include "engine/core/Printable.h"

#include <gtest/gtest.h>

namespace tandem {
namespace {

TEST(Printable, ShowsControlCharactersAsEscapes)
{
    EXPECT_EQ(printable("frame_0001.ply"), "frame_0001.ply");
    // An ANSI sequence that would clear the screen, a bell, a newline, DEL.
    EXPECT_EQ(printable("\x1b[2J\x07"
                        "a\nb\x7f"),
              "\\x1b[2J\\x07a\\x0ab\\x7f");
    EXPECT_EQ(printable(std::string("nul\0x", 5)), "nul\\x00x");
    EXPECT_EQ(printable("back\\slash"), "back\\\\slash");
}

TEST(Printable, KeepsUtf8ButNotItsControlsOrBrokenBytes)
{
    EXPECT_EQ(printable("sc\xc3\xa8ne \xe2\x82\xac \xf0\x9f\x98\x80"),
              "sc\xc3\xa8ne \xe2\x82\xac \xf0\x9f\x98\x80");
    // U+009B is a CSI to terminals that read C1 controls.
    EXPECT_EQ(printable("\xc2\x9b"
                        "31m"),
              "\\xc2\\x9b31m");
    // A lone continuation byte, a truncated sequence, an overlong '/', a surrogate.
    EXPECT_EQ(printable("\x80"), "\\x80");
    EXPECT_EQ(printable("a\xe2\x82"), "a\\xe2\\x82");
    EXPECT_EQ(printable("\xc0\xaf"), "\\xc0\\xaf");
    EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");
}

} // namespace
} // namespace tandem
