#include "engine/io/VideoWriter.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/core/Log.h"
#include "engine/core/ThreadSignalBlock.h"

namespace tandem::io {

namespace fs = std::filesystem;

namespace {

constexpr const char* InstallAdvice = "install Debian's ffmpeg package, or set TANDEM_FFMPEG";

bool isExecutableFile(const fs::path& path)
{
    std::error_code ec;
    return fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

bool sendAll(int fd, const std::uint8_t* data, std::size_t size)
{
    // A dead ffmpeg's pipe answers EPIPE; the SIGPIPE that comes with it is consumed here
    // rather than ending the process.
    const ThreadSignalBlock noPipeSignal(SIGPIPE);
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        data += n;
        size -= static_cast<std::size_t>(n);
    }
    return true;
}

/// At most this much of ffmpeg's messages is kept (the end of it).
constexpr std::size_t MessageBytes = 16 * 1024;

std::uint32_t bigEndian32(const std::uint8_t* p)
{
    return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
           p[3];
}

/// "ffmpeg exited with status 1", from a wait status (-1: unknown).
std::string describeStatus(int status)
{
    if (status == -1)
        return "ffmpeg's exit status is unknown";
    if (WIFEXITED(status))
        return fmt::format("ffmpeg exited with status {}", WEXITSTATUS(status));
    if (WIFSIGNALED(status))
        return fmt::format("ffmpeg was killed by signal {} ({})", WTERMSIG(status),
                           strsignal(WTERMSIG(status)));
    return fmt::format("ffmpeg ended with wait status {}", status);
}

/// The last few lines of `text`, joined with " | "; empty when none.
std::string lastLines(std::string_view text)
{
    std::vector<std::string_view> lines;
    while (!text.empty()) {
        const std::size_t end = text.find('\n');
        std::string_view line = text.substr(0, end);
        while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
            line.remove_suffix(1);
        if (!line.empty())
            lines.push_back(line);
        text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    }
    constexpr std::size_t MaxLines = 6;
    std::string tail;
    for (std::size_t i = lines.size() > MaxLines ? lines.size() - MaxLines : 0; i < lines.size();
         ++i)
        tail += fmt::format("{}{}", tail.empty() ? "" : " | ", lines[i]);
    return tail;
}

} // namespace

Result<fs::path> VideoWriter::findFfmpeg()
{
    if (const char* chosen = std::getenv("TANDEM_FFMPEG"); chosen && *chosen) {
        if (isExecutableFile(chosen))
            return fs::path(chosen);
        return fail(fmt::format("--video needs ffmpeg, which was not found "
                                "(TANDEM_FFMPEG={} is not an executable file; {})",
                                chosen, InstallAdvice));
    }
    const char* path = std::getenv("PATH");
    std::string_view rest = path ? path : "/usr/local/bin:/usr/bin:/bin";
    while (!rest.empty()) {
        const std::size_t colon = rest.find(':');
        // An empty entry would mean the current folder: not searched.
        if (const std::string_view folder = rest.substr(0, colon); !folder.empty()) {
            const fs::path candidate = fs::path(folder) / "ffmpeg";
            if (isExecutableFile(candidate))
                return candidate;
        }
        rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    }
    return fail(fmt::format("--video needs ffmpeg, which was not found "
                            "(looked for 'ffmpeg' on PATH; {})",
                            InstallAdvice));
}

Result<bool> checkVideoName(const fs::path& path)
{
    std::string extension = path.extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (extension == VideoExtension)
        return true;
    return fail(
        fmt::format("--video {}: videos are written as H.264 in MP4, so the name must end "
                    "in {} ({})",
                    path.string(), VideoExtension,
                    extension.empty() ? "it has no extension" : fmt::format("not {}", extension)));
}

Result<bool> checkMp4(int fd)
{
    struct stat status {};
    if (::fstat(fd, &status) != 0)
        return fail(fmt::format("cannot check the video: {}", std::strerror(errno)));
    const std::uint64_t size = static_cast<std::uint64_t>(status.st_size);
    bool ftyp = false, moov = false, mdat = false;
    std::uint64_t offset = 0;
    while (offset < size) {
        // A box: a 32-bit big-endian size (1: a 64-bit size follows the type; 0: to the end of
        // the file), then a four-letter type.
        std::array<std::uint8_t, 16> header{};
        const std::uint64_t left = size - offset;
        const std::size_t wanted = static_cast<std::size_t>(std::min<std::uint64_t>(16, left));
        if (left < 8 || ::pread(fd, header.data(), wanted, static_cast<off_t>(offset)) !=
                            static_cast<ssize_t>(wanted))
            return fail(fmt::format("the box header at byte {} is cut short", offset));
        const std::string type(reinterpret_cast<const char*>(header.data() + 4), 4);
        std::uint64_t boxSize = bigEndian32(header.data());
        std::uint64_t headerSize = 8;
        if (boxSize == 1) {
            if (wanted < 16)
                return fail(fmt::format("the box header at byte {} is cut short", offset));
            boxSize = (std::uint64_t{bigEndian32(header.data() + 8)} << 32) |
                      bigEndian32(header.data() + 12);
            headerSize = 16;
        } else if (boxSize == 0) {
            boxSize = left;
        }
        if (boxSize < headerSize || boxSize > left)
            return fail(fmt::format("the {} box at byte {} claims {} bytes, {} are left", type,
                                    offset, boxSize, left));
        ftyp = ftyp || type == "ftyp";
        moov = moov || type == "moov";
        mdat = mdat || type == "mdat";
        offset += boxSize;
    }
    for (const auto& [present, box] : {std::pair{ftyp, "ftyp"}, {moov, "moov"}, {mdat, "mdat"}})
        if (!present)
            return fail(fmt::format("no {} box{}", box,
                                    std::string_view(box) == "moov"
                                        ? " (the index ffmpeg writes at the end of the file)"
                                        : ""));
    return true;
}

Result<std::unique_ptr<VideoWriter>> VideoWriter::open(const fs::path& path, int width, int height,
                                                       double fps, bool overwrite)
{
    if (width <= 0 || height <= 0 || !(fps > 0 && fps < 1e6))
        return fail(fmt::format("{}: invalid video size {}x{} or frame rate {}", path.string(),
                                width, height, fps));
    if (auto name = checkVideoName(path); !name)
        return fail(name.error());
    auto ffmpeg = findFfmpeg();
    if (!ffmpeg)
        return fail(ffmpeg.error());
    const fs::path folder = path.parent_path().empty() ? fs::path(".") : path.parent_path();
    for (const fs::path& stale : removeStaleTemporaries(folder))
        log::debug("removed {}, left by a writer that was killed", stale.string());

    // From here on, a failure returns through the writer's destructor, which removes what was
    // made so far. The temporary exists before ffmpeg starts, so an unwritable destination is
    // reported now, by name, rather than as ffmpeg's exit status after the first frame.
    std::unique_ptr<VideoWriter> writer(new VideoWriter(path, width, height));
    auto file = AtomicFile::create(path, overwrite ? Replace::Yes : Replace::No);
    if (!file)
        return fail(file.error());
    writer->m_file = std::move(file.value());
    if (width % 2 != 0 || height % 2 != 0)
        log::warning("{}: {}x{} frames are padded to {}x{} with black (H.264 in yuv420p needs "
                     "even sizes)",
                     path.string(), width, height, width + width % 2, height + height % 2);

    int input[2], messages[2];
    if (::pipe2(input, O_CLOEXEC) != 0)
        return fail(fmt::format("{}: cannot create a pipe to ffmpeg: {}", path.string(),
                                std::strerror(errno)));
    if (::pipe2(messages, O_CLOEXEC) != 0) {
        const int err = errno;
        ::close(input[0]);
        ::close(input[1]);
        return fail(fmt::format("{}: cannot create a pipe from ffmpeg: {}", path.string(),
                                std::strerror(err)));
    }

    const std::vector<std::string> args = {
        ffmpeg.value().string(), "-nostdin", "-hide_banner", "-loglevel", "error", "-y",
        // input: raw RGBA8 frames on stdin, rows top to bottom
        "-f", "rawvideo", "-pix_fmt", "rgba", "-s", fmt::format("{}x{}", width, height), "-r",
        fmt::format("{}", fps), "-i", "-",
        // x264 with 4:2:0 chroma needs even sizes
        "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-c:v", "libx264", "-preset", "veryfast", "-crf",
        "18", "-pix_fmt", "yuv420p",
        // The format is explicit because the temporary's name ends in .partial; "file:" keeps a
        // name with a colon or a leading dash from reading as a protocol or an option. The file
        // exists (made above, exclusively); -y lets ffmpeg open it.
        "-f", "mp4", "file:" + writer->m_file.temporaryPath().string()};
    std::vector<char*> argv;
    for (const std::string& arg : args)
        argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, input[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, messages[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, messages[1], STDERR_FILENO);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t defaults, noneBlocked;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    sigaddset(&defaults, SIGXFSZ);
    sigemptyset(&noneBlocked);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setsigmask(&attributes, &noneBlocked);
    // Its own process group: a Ctrl-C in the terminal reaches tandem, which finishes the video
    // (closing ffmpeg's input), not ffmpeg, which would stop mid-stream.
    posix_spawnattr_setpgroup(&attributes, 0);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK |
                                              POSIX_SPAWN_SETPGROUP);
    pid_t child = -1;
    const int spawned = posix_spawn(&child, argv[0], &actions, &attributes, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    ::close(input[0]);
    ::close(messages[1]);
    if (spawned != 0) {
        ::close(input[1]);
        ::close(messages[0]);
        return fail(
            fmt::format("{}: cannot start {}: {}", path.string(), argv[0], std::strerror(spawned)));
    }
    writer->m_child = child;
    writer->m_pipe = input[1];
    writer->m_messageReader =
        std::thread([w = writer.get(), fd = messages[0]] { w->readMessages(fd); });
    return writer;
}

VideoWriter::VideoWriter(fs::path path, int width, int height)
    : m_path(std::move(path)), m_width(width), m_height(height)
{}

VideoWriter::~VideoWriter()
{
    if (m_done)
        return;
    // Unfinished: the video is discarded, so ffmpeg (its whole process group) gets no chance
    // to finalize it.
    const bool running = m_child > 0;
    if (running)
        ::kill(-m_child, SIGKILL);
    if (m_pipe >= 0)
        ::close(m_pipe);
    m_pipe = -1;
    reap();
    if (running && m_status == -1)
        log::warning("VideoWriter: could not wait for ffmpeg writing {}", m_path.string());
    m_file.abandon();
}

void VideoWriter::readMessages(int fd)
{
    char chunk[4096];
    for (;;) {
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        const std::lock_guard lock(m_messageMutex);
        m_messages.append(chunk, static_cast<std::size_t>(n));
        if (m_messages.size() > 2 * MessageBytes)
            m_messages.erase(0, m_messages.size() - MessageBytes);
    }
    ::close(fd);
}

std::string VideoWriter::messageTail()
{
    const std::lock_guard lock(m_messageMutex);
    return lastLines(m_messages);
}

Result<bool> VideoWriter::write(const Image& frame)
{
    if (m_done)
        return fail(fmt::format("{}: cannot write a frame: the video is already finished",
                                m_path.string()));
    if (frame.width != m_width || frame.height != m_height ||
        frame.pixels.size() != static_cast<std::size_t>(m_width) * m_height * 4)
        return fail(fmt::format("{}: frame {} is {}x{} ({} bytes), the video is {}x{} RGBA8",
                                m_path.string(), m_frameCount, frame.width, frame.height,
                                frame.pixels.size(), m_width, m_height));
    if (!sendAll(m_pipe, frame.pixels.data(), frame.pixels.size())) {
        const int err = errno;
        if (err == EPIPE)
            return abandon(fmt::format("ffmpeg stopped before taking frame {}", m_frameCount));
        return abandon(
            fmt::format("cannot send frame {} to ffmpeg: {}", m_frameCount, std::strerror(err)));
    }
    ++m_frameCount;
    return true;
}

Result<bool> VideoWriter::finish()
{
    if (m_done)
        return fail(fmt::format("{}: the video is already finished", m_path.string()));
    ::close(m_pipe);
    m_pipe = -1;
    reap();
    if (m_status == -1 || !WIFEXITED(m_status) || WEXITSTATUS(m_status) != 0)
        return abandon("encoding failed");
    if (m_frameCount == 0)
        return abandon("no frames were written");
    if (auto whole = checkMp4(m_file.fd()); !whole)
        return abandon(fmt::format("ffmpeg exited 0 but wrote an incomplete MP4 (a full disk?): "
                                   "{}",
                                   whole.error()));
    m_done = true;
    if (auto committed = m_file.commit(); !committed)
        return fail(committed.error());
    return true;
}

Failure VideoWriter::abandon(const std::string& what)
{
    if (m_pipe >= 0)
        ::close(m_pipe);
    m_pipe = -1;
    reap();
    std::string message = fmt::format("{}: {}", m_path.string(), what);
    const bool exitedCleanly = WIFEXITED(m_status) && WEXITSTATUS(m_status) == 0;
    if (m_status == -1 || !exitedCleanly)
        message += fmt::format(" ({})", describeStatus(m_status));
    if (const std::string tail = messageTail(); !tail.empty())
        message += ": " + tail;
    else if (!exitedCleanly)
        message += "; ffmpeg printed nothing";
    m_file.abandon();
    m_done = true;
    return fail(std::move(message));
}

void VideoWriter::reap()
{
    if (m_child > 0) {
        int status = 0;
        pid_t waited;
        do {
            waited = ::waitpid(m_child, &status, 0);
        } while (waited < 0 && errno == EINTR);
        m_child = -1;
        m_status = waited < 0 ? -1 : status;
    }
    // ffmpeg gone, its messages end (a process it left behind is in its group, killed with it).
    if (m_messageReader.joinable())
        m_messageReader.join();
}

} // namespace tandem::io
