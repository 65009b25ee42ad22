#include "engine/core/File.h"

#include "engine/core/AtomicFile.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef TANDEM_SOURCE_DIR
#define TANDEM_SOURCE_DIR "."
#endif

namespace tandem {

namespace fs = std::filesystem;

namespace {

/// The type of a file from its stat() mode.
fs::file_type typeOf(mode_t mode)
{
    if (S_ISREG(mode))
        return fs::file_type::regular;
    if (S_ISDIR(mode))
        return fs::file_type::directory;
    if (S_ISFIFO(mode))
        return fs::file_type::fifo;
    if (S_ISCHR(mode))
        return fs::file_type::character;
    if (S_ISBLK(mode))
        return fs::file_type::block;
    if (S_ISSOCK(mode))
        return fs::file_type::socket;
    return fs::file_type::unknown;
}

/// An open regular file: the descriptor, closed with the object, and its size.
struct OpenFile {
    int fd = -1;
    std::uint64_t size = 0;
    OpenFile() = default;
    OpenFile(const OpenFile&) = delete;
    OpenFile& operator=(const OpenFile&) = delete;
    OpenFile(OpenFile&& other) noexcept : fd(std::exchange(other.fd, -1)), size(other.size) {}
    ~OpenFile()
    {
        if (fd >= 0)
            ::close(fd);
    }
};

/// Opens `path` for reading, regular files only: the descriptor is opened without blocking (a
/// FIFO with no writer would block open() forever) and checked with fstat before anything is
/// read, so a FIFO, /dev/zero or a socket named like a frame is refused instead of hanging the
/// reader or filling memory.
Result<OpenFile> openRegular(const fs::path& path)
{
    OpenFile file;
    file.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (file.fd < 0) {
        const int err = errno;
        if (err == ENOENT)
            return fail(fmt::format("{}: no such file", path.string()));
        return fail(fmt::format("{}: cannot open: {}", path.string(), std::strerror(err)));
    }
    struct stat info {};
    if (::fstat(file.fd, &info) != 0)
        return fail(fmt::format("{}: cannot stat: {}", path.string(), std::strerror(errno)));
    if (S_ISDIR(info.st_mode))
        return fail(fmt::format("{}: is a directory, not a file", path.string()));
    if (!S_ISREG(info.st_mode))
        return fail(fmt::format("{}: is {}, not a regular file: refused", path.string(),
                                fileTypeName(typeOf(info.st_mode))));
    // Blocking reads from here: a regular file never blocks for long.
    ::fcntl(file.fd, F_SETFL, ::fcntl(file.fd, F_GETFL) & ~O_NONBLOCK);
    file.size = static_cast<std::uint64_t>(info.st_size);
    return file;
}

/// Reads from `fd` into `to` until it is full or the file ends; the bytes read, or -1 (errno).
ssize_t readFully(int fd, std::uint8_t* to, std::size_t bytes)
{
    std::size_t got = 0;
    while (got < bytes) {
        const ssize_t n = ::read(fd, to + got, bytes - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        got += static_cast<std::size_t>(n);
    }
    return static_cast<ssize_t>(got);
}

/// After the bytes fstat gave were read into `bytes` (fewer where the file shrank), what the file
/// grew by meanwhile, as readOpen() says.
Result<bool> readGrowth(int fd, const fs::path& path, std::uint64_t maxBytes, bool prefixOnly,
                        std::vector<std::uint8_t>& bytes);

/// Reads the open `file` (`path`) into `bytes` from its start: all of it, failing past
/// `maxBytes` (`prefixOnly` false; the file may grow while it is read), or its first `maxBytes`
/// bytes (`prefixOnly` true). `bytes` keeps its capacity, so a buffer used again is not
/// allocated again.
Result<bool> readOpen(const OpenFile& file, const fs::path& path, std::uint64_t maxBytes,
                      bool prefixOnly, std::vector<std::uint8_t>& bytes)
{
    if (!prefixOnly && file.size > maxBytes)
        return fail(fmt::format("{}: larger than the {} byte limit", path.string(), maxBytes));
    const auto readError = [&] {
        return fail(fmt::format("{}: read error: {}", path.string(), std::strerror(errno)));
    };
    // The size fstat gave, read straight into place; then whatever the file grew by.
    bytes.resize(static_cast<std::size_t>(std::min(file.size, maxBytes)));
    const ssize_t got = readFully(file.fd, bytes.data(), bytes.size());
    if (got < 0)
        return readError();
    bytes.resize(static_cast<std::size_t>(got));
    return readGrowth(file.fd, path, maxBytes, prefixOnly, bytes);
}

Result<bool> readGrowth(int fd, const fs::path& path, std::uint64_t maxBytes, bool prefixOnly,
                        std::vector<std::uint8_t>& bytes)
{
    const auto readError = [&] {
        return fail(fmt::format("{}: read error: {}", path.string(), std::strerror(errno)));
    };
    if (prefixOnly && bytes.size() == maxBytes)
        return true;
    std::uint8_t chunk[1 << 16];
    for (;;) {
        const ssize_t n = readFully(fd, chunk, sizeof chunk);
        if (n < 0)
            return readError();
        if (n == 0)
            return true;
        const auto more = static_cast<std::size_t>(n);
        if (prefixOnly && bytes.size() + more >= maxBytes) {
            bytes.insert(bytes.end(), chunk, chunk + (maxBytes - bytes.size()));
            return true;
        }
        if (bytes.size() + more > maxBytes)
            return fail(fmt::format("{}: larger than the {} byte limit", path.string(), maxBytes));
        bytes.insert(bytes.end(), chunk, chunk + more);
    }
}

Result<std::vector<std::uint8_t>> read(const fs::path& path, std::uint64_t maxBytes,
                                       bool prefixOnly)
{
    auto file = openRegular(path);
    if (!file)
        return fail(file.error());
    std::vector<std::uint8_t> bytes;
    if (auto done = readOpen(file.value(), path, maxBytes, prefixOnly, bytes); !done)
        return fail(done.error());
    return bytes;
}

} // namespace

const char* fileTypeName(fs::file_type type)
{
    switch (type) {
    case fs::file_type::regular:
        return "a regular file";
    case fs::file_type::directory:
        return "a folder";
    case fs::file_type::fifo:
        return "a FIFO (named pipe)";
    case fs::file_type::character:
        return "a character device";
    case fs::file_type::block:
        return "a block device";
    case fs::file_type::socket:
        return "a socket";
    case fs::file_type::symlink:
        return "a symbolic link";
    case fs::file_type::not_found:
        return "missing (a broken link?)";
    default:
        return "not a regular file";
    }
}

Result<std::vector<std::uint8_t>> readFile(const fs::path& path, std::uint64_t maxBytes)
{
    return read(path, maxBytes, false);
}

Result<std::vector<std::uint8_t>> readFileStart(const fs::path& path, std::uint64_t bytes)
{
    return read(path, bytes, true);
}

Result<std::span<const std::uint8_t>>
readFileInto(const fs::path& path, std::vector<std::uint8_t>& buffer, std::uint64_t maxBytes)
{
    auto file = openRegular(path);
    if (!file)
        return fail(file.error());
    if (auto done = readOpen(file.value(), path, maxBytes, false, buffer); !done)
        return fail(done.error());
    return std::span<const std::uint8_t>(buffer);
}

Result<FileReader> FileReader::open(const fs::path& path, std::vector<std::uint8_t>& buffer,
                                    std::uint64_t maxBytes)
{
    auto file = openRegular(path);
    if (!file)
        return fail(file.error());
    FileReader reader;
    reader.m_path = path;
    reader.m_maxBytes = maxBytes;
    reader.m_fd = std::exchange(file.value().fd, -1);
    reader.m_size = file.value().size;
    reader.m_buffer = &buffer;
    return reader;
}

FileReader::FileReader(FileReader&& other) noexcept
    : m_path(std::move(other.m_path)), m_maxBytes(other.m_maxBytes),
      m_fd(std::exchange(other.m_fd, -1)), m_size(other.m_size), m_buffer(other.m_buffer),
      m_read(other.m_read)
{}

FileReader::~FileReader()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

std::span<const std::uint8_t> FileReader::start() const
{
    return std::span<const std::uint8_t>(*m_buffer).first(m_read);
}

Result<std::span<const std::uint8_t>> FileReader::whole()
{
    if (m_size > m_maxBytes)
        return fail(fmt::format("{}: larger than the {} byte limit", m_path.string(), m_maxBytes));
    // Grown only: a buffer that holds as much already is not written again.
    if (m_buffer->size() < m_size)
        m_buffer->resize(static_cast<std::size_t>(m_size));
    return std::span<const std::uint8_t>(*m_buffer).first(static_cast<std::size_t>(m_size));
}

bool FileReader::readTo(std::size_t end)
{
    end = static_cast<std::size_t>(std::min<std::uint64_t>(end, m_size));
    if (end <= m_read)
        return true;
    if (m_buffer->size() < end)
        m_buffer->resize(end);
    const ssize_t got = readFully(m_fd, m_buffer->data() + m_read, end - m_read);
    if (got < 0)
        return false;
    m_read += static_cast<std::size_t>(got);
    return m_read == end;
}

Result<std::span<const std::uint8_t>> FileReader::readAll()
{
    if (auto sized = whole(); !sized)
        return fail(sized.error());
    std::vector<std::uint8_t>& bytes = *m_buffer;
    if (m_read < m_size) {
        const ssize_t got = readFully(m_fd, bytes.data() + m_read, m_size - m_read);
        if (got < 0)
            return fail(fmt::format("{}: read error: {}", m_path.string(), std::strerror(errno)));
        m_read += static_cast<std::size_t>(got); // fewer where it shrank
    }
    bytes.resize(m_read);
    if (auto done = readGrowth(m_fd, m_path, m_maxBytes, false, bytes); !done)
        return fail(done.error());
    m_read = bytes.size();
    m_size = bytes.size();
    return std::span<const std::uint8_t>(bytes);
}

bool FileReader::readAt(std::uint64_t offset, std::span<std::uint8_t> to) const
{
    std::size_t got = 0;
    while (got < to.size()) {
        const ssize_t n =
            ::pread(m_fd, to.data() + got, to.size() - got, static_cast<off_t>(offset + got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        got += static_cast<std::size_t>(n);
    }
    return true;
}

bool FileReader::grew() const
{
    std::uint8_t byte = 0;
    ssize_t n = 0;
    do
        n = ::pread(m_fd, &byte, 1, static_cast<off_t>(m_size));
    while (n < 0 && errno == EINTR);
    return n != 0; // a byte past the size, or a failed read
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
