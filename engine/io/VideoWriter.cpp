#include "engine/io/VideoWriter.h"

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
#include <sys/wait.h>
#include <unistd.h>

#include "engine/core/File.h"
#include "engine/core/Log.h"

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

/// The last few lines ffmpeg wrote to its log, joined with " | "; empty when none.
std::string logTail(const fs::path& log)
{
    auto text = readTextFile(log);
    if (!text)
        return {};
    std::vector<std::string_view> lines;
    std::string_view rest = text.value();
    while (!rest.empty()) {
        const std::size_t end = rest.find('\n');
        std::string_view line = rest.substr(0, end);
        while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
            line.remove_suffix(1);
        if (!line.empty())
            lines.push_back(line);
        rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
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

Result<std::unique_ptr<VideoWriter>> VideoWriter::open(const fs::path& path, int width, int height,
                                                       double fps, bool overwrite)
{
    if (width <= 0 || height <= 0 || !(fps > 0 && fps < 1e6))
        return fail(fmt::format("{}: invalid video size {}x{} or frame rate {}", path.string(),
                                width, height, fps));
    std::error_code ec;
    if (!overwrite && fs::exists(path, ec))
        return fail(
            fmt::format("{}: already exists (pass --overwrite to replace it)", path.string()));
    auto ffmpeg = findFfmpeg();
    if (!ffmpeg)
        return fail(ffmpeg.error());

    // From here on, a failure returns through the writer's destructor, which removes what was
    // made so far.
    std::unique_ptr<VideoWriter> writer(new VideoWriter(path, width, height));
    // Create the partial file here, so an unwritable destination is reported now, by name,
    // rather than as ffmpeg's exit status after the first frame.
    const int probe =
        ::open(writer->m_partial.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (probe < 0)
        return fail(fmt::format("{}: cannot write video: {}", path.string(), std::strerror(errno)));
    ::close(probe);

    std::string logTemplate = (fs::temp_directory_path(ec) / "tandem-ffmpeg-XXXXXX.log").string();
    const int logFd = ::mkostemps(logTemplate.data(), 4, O_CLOEXEC);
    if (logFd < 0)
        return fail(fmt::format("{}: cannot create a log file for ffmpeg ({}): {}", path.string(),
                                logTemplate, std::strerror(errno)));
    writer->m_log = logTemplate;

    int pipeEnds[2];
    if (::pipe2(pipeEnds, O_CLOEXEC) != 0) {
        const int err = errno;
        ::close(logFd);
        return fail(fmt::format("{}: cannot create a pipe to ffmpeg: {}", path.string(),
                                std::strerror(err)));
    }
    // A write to a dead ffmpeg must come back as EPIPE, not end the process.
    std::signal(SIGPIPE, SIG_IGN);

    const std::vector<std::string> args = {
        ffmpeg.value().string(), "-nostdin", "-hide_banner", "-loglevel", "error", "-y",
        // input: raw RGBA8 frames on stdin, rows top to bottom
        "-f", "rawvideo", "-pix_fmt", "rgba", "-s", fmt::format("{}x{}", width, height), "-r",
        fmt::format("{}", fps), "-i", "-",
        // x264 with 4:2:0 chroma needs even sizes
        "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-c:v", "libx264", "-preset", "veryfast", "-crf",
        "18", "-pix_fmt", "yuv420p",
        // The format is explicit because the name ends in .partial; "file:" keeps a name with a
        // colon or a leading dash from reading as a protocol or an option.
        "-f", "mp4", "file:" + writer->m_partial.string()};
    std::vector<char*> argv;
    for (const std::string& arg : args)
        argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipeEnds[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, logFd, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, logFd, STDERR_FILENO);
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
    ::close(pipeEnds[0]);
    ::close(logFd);
    if (spawned != 0) {
        ::close(pipeEnds[1]);
        return fail(
            fmt::format("{}: cannot start {}: {}", path.string(), argv[0], std::strerror(spawned)));
    }
    writer->m_child = child;
    writer->m_pipe = pipeEnds[1];
    return writer;
}

VideoWriter::VideoWriter(fs::path path, int width, int height)
    : m_path(std::move(path)), m_partial(m_path.string() + ".partial"), m_width(width),
      m_height(height)
{}

VideoWriter::~VideoWriter()
{
    if (m_done)
        return;
    // Unfinished: the video is discarded, so ffmpeg gets no chance to finalize it.
    if (m_child > 0)
        ::kill(m_child, SIGKILL);
    if (m_pipe >= 0)
        ::close(m_pipe);
    m_pipe = -1;
    if (m_child > 0) {
        reap();
        if (m_status == -1)
            log::warning("VideoWriter: could not wait for ffmpeg writing {}", m_partial.string());
    }
    std::error_code ec;
    fs::remove(m_partial, ec);
    if (!m_log.empty())
        fs::remove(m_log, ec);
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
    std::error_code ec;
    fs::rename(m_partial, m_path, ec);
    if (ec)
        return abandon(fmt::format("cannot rename {}: {}", m_partial.string(), ec.message()));
    fs::remove(m_log, ec);
    m_done = true;
    return true;
}

Failure VideoWriter::abandon(const std::string& what)
{
    if (m_pipe >= 0)
        ::close(m_pipe);
    m_pipe = -1;
    if (m_child > 0)
        reap();
    std::string message = fmt::format("{}: {}", m_path.string(), what);
    const bool exitedCleanly = WIFEXITED(m_status) && WEXITSTATUS(m_status) == 0;
    if (m_status == -1 || !exitedCleanly)
        message += fmt::format(" ({})", describeStatus(m_status));
    if (const std::string tail = logTail(m_log); !tail.empty())
        message += ": " + tail;
    else if (!exitedCleanly)
        message += "; ffmpeg printed nothing";
    std::error_code ec;
    fs::remove(m_partial, ec);
    fs::remove(m_log, ec);
    m_done = true;
    return fail(std::move(message));
}

void VideoWriter::reap()
{
    int status = 0;
    pid_t waited;
    do {
        waited = ::waitpid(m_child, &status, 0);
    } while (waited < 0 && errno == EINTR);
    m_child = -1;
    m_status = waited < 0 ? -1 : status;
}

} // namespace tandem::io
