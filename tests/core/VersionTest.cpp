// core: the build's version and commit (core/Version.h) are CMake's project(VERSION) and the
// git commit it was configured at, and --version's line has the form every app prints.
#include "engine/core/Version.h"

#include <gtest/gtest.h>

namespace tandem {
namespace {

TEST(Version, IsTheProjectsVersionAndTheConfiguredCommit)
{
    EXPECT_EQ(version(), TANDEM_EXPECTED_VERSION);
    EXPECT_EQ(commit(), TANDEM_EXPECTED_COMMIT);
    // In a checkout, 12 hex digits; outside one, "unknown".
    const std::string_view c = commit();
    EXPECT_TRUE(c == "unknown" ||
                (c.size() == 12 && c.find_first_not_of("0123456789abcdef") == std::string::npos))
        << c;
    EXPECT_EQ(versionLine("tandem-pack"), std::string("tandem-pack ") + TANDEM_EXPECTED_VERSION +
                                              " (commit " + TANDEM_EXPECTED_COMMIT + ")");
}

} // namespace
} // namespace tandem
