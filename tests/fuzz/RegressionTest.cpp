// Every input a fuzz run found a crash or hang with, committed under tests/fuzz/regressions/
// <target>/, goes through its target again in the unit tier (and under the sanitizers in the
// sanitize preset): each must now end in a value or a failure.
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include <gtest/gtest.h>

#include "tests/fuzz/Targets.h"

namespace fs = std::filesystem;

TEST(FuzzRegressions, EveryCommittedInputIsHandled)
{
    const fs::path root = fs::path(TANDEM_SOURCE_DIR) / "tests" / "fuzz" / "regressions";
    int inputs = 0;
    for (const auto& folder : fs::directory_iterator(root)) {
        const auto target = tandem::fuzz::targetNamed(folder.path().filename().string());
        ASSERT_NE(target, nullptr) << "no fuzz target named " << folder.path().filename();
        for (const auto& file : fs::directory_iterator(folder.path())) {
            if (file.path().filename() == ".gitkeep")
                continue;
            SCOPED_TRACE(file.path().string());
            std::ifstream in(file.path(), std::ios::binary);
            const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in),
                                                  std::istreambuf_iterator<char>()};
            EXPECT_EQ(target(bytes.data(), bytes.size()), 0);
            ++inputs;
        }
    }
    RecordProperty("inputs", inputs);
}

TEST(FuzzRegressions, TargetsTakeEmptyAndTinyInputs)
{
    std::vector<const char*> names{"ply",   "obj",       "mtl",   "manifest", "camera_path", "pack",
                                   "chain", "gaussians", "cwipc", "draco",    "gltf"};
#ifdef TANDEM_FUZZ_WEB
    names.push_back("client_message");
#endif
    for (const char* name : names) {
        SCOPED_TRACE(name);
        const auto target = tandem::fuzz::targetNamed(name);
        ASSERT_NE(target, nullptr);
        const std::uint8_t tiny[] = {'p', 'l', 'y', '\n', 0, 0xff};
        EXPECT_EQ(target(tiny, 0), 0);
        EXPECT_EQ(target(tiny, sizeof(tiny)), 0);
    }
}
