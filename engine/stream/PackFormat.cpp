#include "engine/stream/PackFormat.h"

#include <libdeflate.h>

namespace tandem::stream {

std::uint32_t packCrc32(std::span<const std::uint8_t> bytes)
{
    return libdeflate_crc32(0, bytes.data(), bytes.size());
}

std::uint32_t packCrc32(std::uint32_t crc, std::span<const std::uint8_t> bytes)
{
    return libdeflate_crc32(crc, bytes.data(), bytes.size());
}

std::uint64_t PackInfo::storedBytes() const
{
    std::uint64_t total = 0;
    for (const PackFrame& f : frames)
        total += f.storedBytes;
    return total;
}

std::uint64_t PackInfo::blockBytes() const
{
    std::uint64_t total = 0;
    for (const PackFrame& f : frames)
        total += f.blockBytes;
    return total;
}

} // namespace tandem::stream
