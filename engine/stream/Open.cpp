#include "engine/stream/Open.h"

#include <filesystem>

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
    if (std::filesystem::is_regular_file(spec, error) && isPackFile(spec))
        return openPack(spec);
    return openFileSequence(spec, options, stop);
}

} // namespace tandem::stream
