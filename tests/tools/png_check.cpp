// Test helper: checks that PNG files exist, have the expected size and are not blank (more than
// a given fraction of pixels differ from the top-left pixel). Exit 0 when all pass.
// Usage: tandem-png-check [--size WxH] [--min-fraction F] FILE...
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "engine/io/Image.h"
#include "tests/support/ImageCompare.h"

int main(int argc, char** argv)
{
    int width = 0, height = 0;
    double minFraction = 0.01;
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--size" && i + 1 < argc)
            std::sscanf(argv[++i], "%dx%d", &width, &height);
        else if (arg == "--min-fraction" && i + 1 < argc)
            minFraction = std::atof(argv[++i]);
        else
            files.push_back(arg);
    }
    if (files.empty()) {
        std::fprintf(stderr, "usage: tandem-png-check [--size WxH] [--min-fraction F] FILE...\n");
        return 2;
    }
    int failures = 0;
    for (const auto& file : files) {
        auto image = tandem::io::readPng(file);
        if (!image) {
            std::printf("FAIL %s: %s\n", file.c_str(), image.error().c_str());
            ++failures;
            continue;
        }
        const auto& img = image.value();
        const double fraction = tandem::test::nonBackgroundFraction(img);
        const bool sizeOk = width == 0 || (img.width == width && img.height == height);
        const bool ok = sizeOk && fraction > minFraction;
        std::printf("%s %s: %dx%d, %.1f%% non-background\n", ok ? "ok  " : "FAIL", file.c_str(),
                    img.width, img.height, fraction * 100.0);
        failures += ok ? 0 : 1;
    }
    return failures == 0 ? 0 : 1;
}
