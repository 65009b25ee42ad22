#include "engine/core/File.h"

#include "engine/core/AtomicFile.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <system_error>

#include <fmt/format.h>
#include <unistd.h>

#ifndef TANDEM_SOURCE_DIR
#define TANDEM_SOURCE_DIR "."
#endif

namespace tandem {

namespace fs = std::filesystem;

namespace {

/// Reads `path` into memory: all of it, failing past `maxBytes` (`prefixOnly` false), or its
/// first `maxBytes` bytes (`prefixOnly` true).
Result<std::vector<std::uint8_t>> read(const fs::path& path, std::uint64_t maxBytes,
                                       bool prefixOnly)
{
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (ec || !fs::exists(status))
        return fail(fmt::format("{}: no such file", path.string()));
    if (fs::is_directory(status))
        return fail(fmt::format("{}: is a directory, not a file", path.string()));
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (!file)
        return fail(fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
    std::vector<std::uint8_t> bytes;
    std::uint8_t chunk[1 << 16];
    for (;;) {
        const std::size_t n = std::fread(chunk, 1, sizeof chunk, file);
        if (n > 0) {
            if (prefixOnly && bytes.size() + n >= maxBytes) {
                bytes.insert(bytes.end(), chunk, chunk + (maxBytes - bytes.size()));
                std::fclose(file);
                return bytes;
            }
            if (bytes.size() + n > maxBytes) {
                std::fclose(file);
                return fail(
                    fmt::format("{}: larger than the {} byte limit", path.string(), maxBytes));
            }
            bytes.insert(bytes.end(), chunk, chunk + n);
        }
        if (n < sizeof chunk) {
            const bool failed = std::ferror(file) != 0;
            const int err = errno;
            std::fclose(file);
            if (failed)
                return fail(fmt::format("{}: read error: {}", path.string(), std::strerror(err)));
            break;
        }
    }
    return bytes;
}

} // namespace

Result<std::vector<std::uint8_t>> readFile(const fs::path& path, std::uint64_t maxBytes)
{
    return read(path, maxBytes, false);
}

Result<std::vector<std::uint8_t>> readFileStart(const fs::path& path, std::uint64_t bytes)
{
    return read(path, bytes, true);
}

Result<std::string> readTextFile(const fs::path& path)
{
    auto bytes = readFile(path, std::uint64_t{1} << 28);
    if (!bytes)
        return fail(bytes.error());
    return std::string(bytes.value().begin(), bytes.value().end());
}

Result<bool> prepareOutputDirectory(const fs::path& dir)
{
    std::error_code ec;
    if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
        return fail(fmt::format("{}: exists and is not a folder", dir.string()));
    fs::create_directories(dir, ec);
    if (ec)
        return fail(fmt::format("{}: cannot create folder: {}", dir.string(), ec.message()));
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
        return fail(
            fmt::format("{}: folder is not writable: {}", dir.string(), std::strerror(errno)));
    return true;
}

Result<bool> prepareOutputFile(const fs::path& path, bool overwrite)
{
    std::error_code ec;
    if (fs::is_directory(path, ec))
        return fail(fmt::format("{}: is a folder, not a file", path.string()));
    if (!overwrite && fs::exists(path, ec))
        return fail(
            fmt::format("{}: already exists (pass --overwrite to replace it)", path.string()));
    const fs::path folder = path.parent_path();
    return prepareOutputDirectory(folder.empty() ? fs::path(".") : folder);
}

Result<bool> writeTextFile(const fs::path& path, const std::string& text, bool overwrite,
                           bool* existed)
{
    return writeFileAtomically(
        path, std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()),
        overwrite ? Replace::Yes : Replace::No, existed);
}

fs::path dataRoot()
{
    if (const char* env = std::getenv("TANDEM_DATA_DIR"); env && *env)
        return env;
    const fs::path exeDir = executableDirectory();
    std::error_code ec;
    if (!exeDir.empty() && fs::is_directory(exeDir.parent_path() / "shaders", ec))
        return exeDir.parent_path();
    return TANDEM_SOURCE_DIR;
}

std::string dataRootOrigin()
{
    if (const char* env = std::getenv("TANDEM_DATA_DIR"); env && *env)
        return "$TANDEM_DATA_DIR";
    const fs::path exeDir = executableDirectory();
    std::error_code ec;
    if (!exeDir.empty() && fs::is_directory(exeDir.parent_path() / "shaders", ec))
        return "beside the executable";
    return "the source tree (no shaders/ beside the executable)";
}

fs::path executableDirectory()
{
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path{} : exe.parent_path();
}

} // namespace tandem
