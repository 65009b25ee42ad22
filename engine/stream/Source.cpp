#include "engine/stream/Source.h"

#include <fmt/format.h>

#include "engine/stream/Block.h"

namespace tandem::stream {

std::optional<std::size_t> Source::largestBlockBytes() const
{
    if (const auto largest = largestFrame())
        return blockBytes(*largest);
    return std::nullopt;
}

bool isFrameRate(double fps)
{
    return fps >= MinFps && fps <= MaxFps;
}

Result<std::span<std::uint8_t>> blockMemory(const BlockSink& sink, std::size_t bytes,
                                            const std::string& name)
{
    std::span<std::uint8_t> out = sink(bytes);
    if (out.size() < bytes)
        return fail(fmt::format("{}: the frame ({:.1f} MiB) does not fit in the streaming memory "
                                "budget (--cache-mb)",
                                name, static_cast<double>(bytes) / (1024.0 * 1024.0)));
    return out;
}

Result<std::span<const std::uint8_t>> blockFromScene(const render::Scene& scene,
                                                     const BlockSink& sink, const std::string& name)
{
    auto out = blockMemory(sink, blockBytes(render::sceneCounts(scene)), name);
    if (!out)
        return fail(out.error());
    const std::size_t written = writeBlock(scene, out.value());
    return std::span<const std::uint8_t>(out.value().data(), written);
}

} // namespace tandem::stream
