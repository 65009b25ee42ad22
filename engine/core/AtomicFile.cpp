#include "engine/core/AtomicFile.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <random>
#include <set>
#include <utility>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <fmt/format.h>

#include "engine/core/ThreadSignalBlock.h"

namespace tandem {

namespace fs = std::filesystem;

namespace {

constexpr const char* TemporarySuffix = ".partial";
/// The part of a temporary's name between the output's name and the suffix starts with this.
constexpr const char* TagStart = ".~";

/// This host's name as it goes into temporaries: letters, digits, '-' and '_' only.
const std::string& hostTag()
{
    static const std::string tag = [] {
        char name[256] = {};
        if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0')
            return std::string("host");
        std::string clean;
        for (const char* c = name; *c && clean.size() < 40; ++c)
            clean +=
                (std::isalnum(static_cast<unsigned char>(*c)) || *c == '-' || *c == '_') ? *c : '_';
        return clean;
    }();
    return tag;
}

/// Temporaries this process has open, for removeOpenTemporaries().
std::mutex& openMutex()
{
    static std::mutex mutex;
    return mutex;
}
std::set<std::string>& openTemporaries()
{
    static std::set<std::string> names;
    return names;
}

void track(const fs::path& temporary, bool open)
{
    const std::lock_guard lock(openMutex());
    if (open)
        openTemporaries().insert(temporary.string());
    else
        openTemporaries().erase(temporary.string());
}

/// A name for `path`'s temporary that no other writer (thread, process or host) uses.
fs::path temporaryFor(const fs::path& path)
{
    static std::atomic<std::uint64_t> serial{0};
    thread_local std::mt19937_64 random{std::random_device{}()};
    std::string name = path.filename().string();
    // Room for the tag within a 255-byte name.
    if (name.size() > 160)
        name.resize(160);
    const fs::path folder = path.parent_path();
    return folder / fmt::format(".{}{}{}~{}~{:x}{:08x}{}", name, TagStart, hostTag(),
                                static_cast<long>(::getpid()), serial++,
                                static_cast<std::uint32_t>(random()), TemporarySuffix);
}

std::string reason(int error)
{
    return error == 0 ? std::string("an unknown error") : std::string(std::strerror(error));
}

/// The host and process a temporary's name records; false when it is not a temporary.
bool parseTemporary(const std::string& name, std::string& host, long& pid)
{
    const std::size_t suffix = std::strlen(TemporarySuffix);
    if (name.size() < suffix + 4 || name[0] != '.' ||
        name.compare(name.size() - suffix, suffix, TemporarySuffix) != 0)
        return false;
    const std::string stem = name.substr(0, name.size() - suffix);
    const std::size_t tag = stem.rfind(TagStart);
    if (tag == std::string::npos || tag == 0)
        return false;
    const std::string fields = stem.substr(tag + std::strlen(TagStart));
    const std::size_t first = fields.find('~');
    const std::size_t second = first == std::string::npos ? first : fields.find('~', first + 1);
    if (first == std::string::npos || second == std::string::npos || first == 0)
        return false;
    host = fields.substr(0, first);
    const std::string digits = fields.substr(first + 1, second - first - 1);
    if (digits.empty() || digits.size() > 10 ||
        digits.find_first_not_of("0123456789") != std::string::npos)
        return false;
    pid = std::stol(digits);
    return pid > 0;
}

/// Renames `from` to `to`, refusing atomically to replace a file there unless `replace`:
/// renameat2(RENAME_NOREPLACE), or link() and unlink() where the file system lacks it (NFS).
/// Returns 0, or the errno (EEXIST: a file was there).
int renameIntoPlace(const fs::path& from, const fs::path& to, Replace replace)
{
    if (replace == Replace::Yes)
        return ::rename(from.c_str(), to.c_str()) == 0 ? 0 : errno;
    if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS)
        return errno;
    // No RENAME_NOREPLACE here: link() refuses an existing name just as atomically.
    if (::link(from.c_str(), to.c_str()) != 0)
        return errno;
    ::unlink(from.c_str());
    return 0;
}

std::string alreadyExists(const fs::path& path)
{
    return fmt::format("{}: already exists (pass --overwrite to replace it)", path.string());
}

bool syncFolder(const fs::path& folder)
{
    const int fd =
        ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return false;
    const bool ok = ::fsync(fd) == 0 || errno == EINVAL; // some file systems cannot
    ::close(fd);
    return ok;
}

} // namespace

Result<AtomicFile> AtomicFile::create(const fs::path& path, Replace replace, bool* existed)
{
    if (existed)
        *existed = false;
    if (path.filename().empty())
        return fail(fmt::format("{}: not a file name", path.string()));
    struct stat status {};
    if (::lstat(path.c_str(), &status) == 0) {
        if (S_ISDIR(status.st_mode))
            return fail(fmt::format("{}: is a folder, not a file", path.string()));
        if (replace == Replace::No) {
            if (existed)
                *existed = true;
            return fail(alreadyExists(path));
        }
    }
    for (int attempt = 0; attempt < 16; ++attempt) {
        fs::path temporary = temporaryFor(path);
        // Read and write: what another program wrote to it (ffmpeg) is checked through it.
        const int fd =
            ::open(temporary.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && errno == EEXIST)
            continue;
        if (fd < 0) {
            const int error = errno;
            const fs::path folder = path.parent_path().empty() ? fs::path(".") : path.parent_path();
            if (error == ENOENT)
                return fail(fmt::format("{}: cannot write: the folder {} does not exist",
                                        path.string(), folder.string()));
            return fail(fmt::format("{}: cannot write in {}: {}", path.string(), folder.string(),
                                    reason(error)));
        }
        track(temporary, true);
        return AtomicFile(path, std::move(temporary), fd, replace);
    }
    return fail(fmt::format("{}: cannot make a temporary file beside it", path.string()));
}

AtomicFile::AtomicFile(fs::path path, fs::path temporary, int fd, Replace replace)
    : m_path(std::move(path)), m_temporary(std::move(temporary)), m_fd(fd), m_replace(replace)
{}

AtomicFile::AtomicFile(AtomicFile&& other) noexcept
    : m_path(std::move(other.m_path)), m_temporary(std::move(other.m_temporary)),
      m_fd(std::exchange(other.m_fd, -1)), m_replace(other.m_replace), m_existed(other.m_existed),
      m_end(other.m_end)
{}

AtomicFile& AtomicFile::operator=(AtomicFile&& other) noexcept
{
    if (this != &other) {
        abandon();
        m_path = std::move(other.m_path);
        m_temporary = std::move(other.m_temporary);
        m_fd = std::exchange(other.m_fd, -1);
        m_replace = other.m_replace;
        m_existed = other.m_existed;
        m_end = other.m_end;
    }
    return *this;
}

AtomicFile::~AtomicFile()
{
    abandon();
}

void AtomicFile::abandon()
{
    if (m_fd < 0)
        return;
    ::close(std::exchange(m_fd, -1));
    ::unlink(m_temporary.c_str());
    track(m_temporary, false);
}

Result<bool> AtomicFile::write(std::span<const std::uint8_t> bytes)
{
    return writeAt(m_end, bytes);
}

Result<bool> AtomicFile::write(const std::string& text)
{
    return write(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

Result<bool> AtomicFile::writePieces(std::span<const std::span<const std::uint8_t>> pieces)
{
    TANDEM_ASSERT(m_fd >= 0, "AtomicFile::writePieces(): not open");
    const ThreadSignalBlock noSizeSignal(SIGXFSZ);
    std::vector<iovec> left;
    left.reserve(pieces.size());
    for (const auto piece : pieces)
        if (!piece.empty())
            left.push_back({const_cast<std::uint8_t*>(piece.data()), piece.size()});
    std::size_t first = 0; // the first piece not written whole
    while (first < left.size()) {
        const int count = static_cast<int>(std::min<std::size_t>(left.size() - first, IOV_MAX));
        const ssize_t n = ::pwritev(m_fd, &left[first], count, static_cast<off_t>(m_end));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return fail(fmt::format("{}: cannot write: {}", m_path.string(),
                                    n < 0 ? reason(errno) : "no progress"));
        m_end += static_cast<std::uint64_t>(n);
        auto written = static_cast<std::size_t>(n);
        while (first < left.size() && written >= left[first].iov_len)
            written -= left[first++].iov_len;
        if (written > 0) { // a piece written in part: its rest goes next
            left[first].iov_base = static_cast<std::uint8_t*>(left[first].iov_base) + written;
            left[first].iov_len -= written;
        }
    }
    return true;
}

Result<bool> AtomicFile::writeAt(std::uint64_t offset, std::span<const std::uint8_t> bytes)
{
    TANDEM_ASSERT(m_fd >= 0, "AtomicFile::writeAt(): not open");
    m_end = std::max(m_end, offset + bytes.size());
    // Past the file-size limit the write fails with EFBIG, reported, rather than SIGXFSZ ending
    // the process.
    const ThreadSignalBlock noSizeSignal(SIGXFSZ);
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::pwrite(m_fd, bytes.data() + done, bytes.size() - done,
                                   static_cast<off_t>(offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return fail(fmt::format("{}: cannot write: {}", m_path.string(),
                                    n < 0 ? reason(errno) : "no progress"));
        done += static_cast<std::size_t>(n);
    }
    return true;
}

Result<bool> AtomicFile::commit()
{
    TANDEM_ASSERT(m_fd >= 0, "AtomicFile::commit(): not open (committed or abandoned)");
    auto failWith = [this](std::string message) -> Result<bool> {
        abandon();
        return fail(std::move(message));
    };
    if (::fsync(m_fd) != 0)
        return failWith(fmt::format("{}: cannot write: {}", m_path.string(), reason(errno)));
    if (::close(std::exchange(m_fd, -1)) != 0) {
        const int error = errno;
        ::unlink(m_temporary.c_str());
        track(m_temporary, false);
        return fail(fmt::format("{}: cannot write: {}", m_path.string(), reason(error)));
    }
    const int error = renameIntoPlace(m_temporary, m_path, m_replace);
    if (error != 0)
        ::unlink(m_temporary.c_str());
    track(m_temporary, false);
    if (error == EEXIST) {
        m_existed = true;
        return fail(alreadyExists(m_path));
    }
    if (error != 0)
        return fail(fmt::format("{}: cannot rename the finished file into place: {}",
                                m_path.string(), reason(error)));
    if (!syncFolder(m_path.parent_path()))
        return fail(fmt::format("{}: written, but its folder could not be synced: {}",
                                m_path.string(), reason(errno)));
    return true;
}

Result<bool> writeFileAtomically(const fs::path& path, std::span<const std::uint8_t> bytes,
                                 Replace replace, bool* existed)
{
    auto file = AtomicFile::create(path, replace, existed);
    if (!file)
        return fail(file.error());
    if (auto written = file.value().write(bytes); !written)
        return written;
    auto committed = file.value().commit();
    if (existed)
        *existed = file.value().existed();
    return committed;
}

Result<bool> moveIntoPlace(const fs::path& written, const fs::path& path, Replace replace,
                           bool* existed)
{
    if (existed)
        *existed = false;
    const int fd = ::open(written.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return fail(fmt::format("{}: cannot open: {}", written.string(), reason(errno)));
    const bool synced = ::fsync(fd) == 0;
    const int syncError = errno;
    ::close(fd);
    if (!synced)
        return fail(fmt::format("{}: cannot write: {}", written.string(), reason(syncError)));
    if (const int error = renameIntoPlace(written, path, replace); error != 0) {
        if (error == EEXIST && existed)
            *existed = true;
        return fail(error == EEXIST ? alreadyExists(path)
                                    : fmt::format("{}: cannot move {} there: {}", path.string(),
                                                  written.string(), reason(error)));
    }
    if (!syncFolder(path.parent_path()))
        return fail(fmt::format("{}: written, but its folder could not be synced: {}",
                                path.string(), reason(errno)));
    return true;
}

bool isTemporaryName(const std::string& name)
{
    std::string host;
    long pid = 0;
    return parseTemporary(name, host, pid);
}

std::vector<fs::path> removeStaleTemporaries(const fs::path& folder)
{
    std::vector<fs::path> removed;
    std::error_code ec;
    for (fs::directory_iterator it(folder.empty() ? fs::path(".") : folder, ec), end;
         !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        std::string host;
        long pid = 0;
        if (!parseTemporary(name, host, pid) || host != hostTag())
            continue;
        if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM)
            continue; // that writer still runs
        std::error_code statError;
        if (!it->is_regular_file(statError) || it->is_symlink(statError))
            continue;
        if (::unlink(it->path().c_str()) == 0)
            removed.push_back(it->path());
    }
    return removed;
}

void removeOpenTemporaries()
{
    const std::lock_guard lock(openMutex());
    for (const std::string& name : openTemporaries())
        ::unlink(name.c_str());
    openTemporaries().clear();
}

} // namespace tandem
