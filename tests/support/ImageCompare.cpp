#include "tests/support/ImageCompare.h"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

namespace tandem::test {

namespace fs = std::filesystem;

std::string compareWithReference(const io::Image& actual, const fs::path& reference,
                                 const Tolerance& tolerance)
{
    const char* update = std::getenv("TANDEM_UPDATE_REFERENCES");
    if (update && std::string(update) == "1") {
        fs::create_directories(reference.parent_path());
        auto written = io::writePng(reference, actual, true);
        return written ? std::string{} : written.error();
    }
    const fs::path outDir = fs::path(TANDEM_TEST_OUTPUT_DIR);
    fs::create_directories(outDir);
    const fs::path actualPath = outDir / (reference.stem().string() + ".actual.png");
    auto expected = io::readPng(reference);
    if (!expected) {
        (void)io::writePng(actualPath, actual, true);
        return fmt::format("{} (actual image written to {}; regenerate references with "
                           "scripts/update-references.sh)",
                           expected.error(), actualPath.string());
    }
    const io::Image& ref = expected.value();
    if (ref.width != actual.width || ref.height != actual.height)
        return fmt::format("size {}x{} differs from reference {}x{}", actual.width, actual.height,
                           ref.width, ref.height);
    io::Image diff = actual;
    std::size_t differing = 0;
    int maxDelta = 0;
    for (std::size_t i = 0; i < actual.pixels.size(); i += 4) {
        int delta = 0;
        for (int c = 0; c < 3; ++c)
            delta = std::max(delta, std::abs(int(actual.pixels[i + c]) - int(ref.pixels[i + c])));
        maxDelta = std::max(maxDelta, delta);
        const bool differs = delta > tolerance.channel;
        differing += differs ? 1 : 0;
        const auto v = static_cast<std::uint8_t>(std::min(255, delta * 4));
        diff.pixels[i] = differs ? 255 : v;
        diff.pixels[i + 1] = differs ? 0 : v;
        diff.pixels[i + 2] = differs ? 0 : v;
        diff.pixels[i + 3] = 255;
    }
    const double fraction = double(differing) / double(actual.width * actual.height);
    if (fraction <= tolerance.differingFraction)
        return {};
    const fs::path diffPath = outDir / (reference.stem().string() + ".diff.png");
    (void)io::writePng(actualPath, actual, true);
    (void)io::writePng(diffPath, diff, true);
    return fmt::format("{:.3f}% of pixels differ by more than {} (max {}), allowed {:.3f}%; "
                       "actual: {}, diff: {}",
                       fraction * 100.0, tolerance.channel, maxDelta,
                       tolerance.differingFraction * 100.0, actualPath.string(), diffPath.string());
}

double nonBackgroundFraction(const io::Image& image)
{
    if (image.pixels.empty())
        return 0.0;
    std::size_t count = 0;
    for (std::size_t i = 0; i < image.pixels.size(); i += 4) {
        int delta = 0;
        for (int c = 0; c < 3; ++c)
            delta = std::max(delta, std::abs(int(image.pixels[i + c]) - int(image.pixels[c])));
        count += delta > 16 ? 1 : 0;
    }
    return double(count) / double(image.width * image.height);
}

double psnrRgb8(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b)
{
    double squared = 0.0;
    std::size_t n = 0;
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
        if (i % 4 == 3)
            continue;
        const double d = (a[i] - b[i]) / 255.0;
        squared += d * d;
        ++n;
    }
    return squared == 0.0 ? 99.0 : 10.0 * std::log10(static_cast<double>(n) / squared);
}

} // namespace tandem::test
