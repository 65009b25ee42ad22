#include "engine/stream/Open.h"

#include <filesystem>

#include <fmt/format.h>

#include "engine/stream/Pack.h"
#include "engine/stream/SampleSource.h"

namespace tandem::stream {

Result<std::unique_ptr<Source>> openSource(const std::string& spec, const SequenceOptions& options,
                                           const StopToken& stop)
{
    if (isSampleSpec(spec)) {
        auto settings = parseSample(spec);
        if (!settings)
            return fail(settings.error());
        if (options.fpsGiven)
            settings.value().fps = options.fps;
        return makeSampleSource(settings.value());
    }
    std::error_code error;
    if (std::filesystem::is_regular_file(spec, error) && isPackFile(spec)) {
        if (options.turn != glm::dmat3(1.0))
            return fail(
                fmt::format("{}: a pack's frames are as they were packed and cannot be "
                            "turned (--up): pack the source files again with tandem-pack --up",
                            spec));
        return openPack(spec);
    }
    return openFileSequence(spec, options, stop);
}

} // namespace tandem::stream
