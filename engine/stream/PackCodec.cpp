#include "engine/stream/detail/PackCodec.h"

#include <limits>

#include <fmt/format.h>
#include <lz4.h>
#include <zstd.h>

namespace tandem::stream::detail {

namespace {

// Compression contexts are reused per thread (loader and encoder threads live long).
struct ZstdContexts {
    ZSTD_CCtx* compress = nullptr;
    ZSTD_DCtx* decompress = nullptr;
    ~ZstdContexts()
    {
        ZSTD_freeCCtx(compress);
        ZSTD_freeDCtx(decompress);
    }
};
thread_local ZstdContexts t_zstd;

} // namespace

Result<std::vector<std::uint8_t>> compress(std::span<const std::uint8_t> in, Codec codec,
                                           int zstdLevel, const std::string& name)
{
    std::vector<std::uint8_t> out;
    if (codec == Codec::Lz4) {
        if (in.size() > static_cast<std::size_t>(LZ4_MAX_INPUT_SIZE))
            return fail(fmt::format("{}: {} bytes, more than lz4 compresses at once ({}); use "
                                    "zstd or none",
                                    name, in.size(), LZ4_MAX_INPUT_SIZE));
        out.resize(static_cast<std::size_t>(LZ4_compressBound(static_cast<int>(in.size()))));
        const int n = LZ4_compress_default(
            reinterpret_cast<const char*>(in.data()), reinterpret_cast<char*>(out.data()),
            static_cast<int>(in.size()), static_cast<int>(out.size()));
        if (n <= 0)
            return fail(fmt::format("{}: lz4 compression failed", name));
        out.resize(static_cast<std::size_t>(n));
        return out;
    }
    if (!t_zstd.compress)
        t_zstd.compress = ZSTD_createCCtx();
    out.resize(ZSTD_compressBound(in.size()));
    const std::size_t n =
        ZSTD_compressCCtx(t_zstd.compress, out.data(), out.size(), in.data(), in.size(), zstdLevel);
    if (ZSTD_isError(n))
        return fail(fmt::format("{}: zstd compression failed: {}", name, ZSTD_getErrorName(n)));
    out.resize(n);
    return out;
}

Result<bool> decompress(std::span<const std::uint8_t> in, Codec codec, std::span<std::uint8_t> out,
                        const std::string& name)
{
    if (codec == Codec::Lz4) {
        if (in.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()) ||
            out.size() > static_cast<std::size_t>(std::numeric_limits<int>::max()))
            return fail(fmt::format("{}: too large for lz4", name));
        const int n = LZ4_decompress_safe(
            reinterpret_cast<const char*>(in.data()), reinterpret_cast<char*>(out.data()),
            static_cast<int>(in.size()), static_cast<int>(out.size()));
        if (n < 0 || static_cast<std::size_t>(n) != out.size())
            return fail(fmt::format("{}: lz4 data does not decompress to the {} bytes the index "
                                    "states (damaged)",
                                    name, out.size()));
        return true;
    }
    if (!t_zstd.decompress)
        t_zstd.decompress = ZSTD_createDCtx();
    const std::size_t n =
        ZSTD_decompressDCtx(t_zstd.decompress, out.data(), out.size(), in.data(), in.size());
    if (ZSTD_isError(n) || n != out.size())
        return fail(fmt::format("{}: zstd data does not decompress to the {} bytes the index "
                                "states (damaged)",
                                name, out.size()));
    return true;
}

} // namespace tandem::stream::detail
