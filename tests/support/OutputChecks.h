// Helpers for tests of outputs: the names in a folder, the AtomicFile temporaries among them,
// and running a write in a child process under a file-size limit (what a full disk looks like
// to write(): EFBIG), so a writer that lets SIGXFSZ end the process fails the test instead of
// ending the test program.
#pragma once

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/core/AtomicFile.h"

namespace tandem::test {

/// The names in `folder`, sorted.
inline std::vector<std::string> namesIn(const std::filesystem::path& folder)
{
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(folder))
        names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

/// The AtomicFile temporaries in `folder`.
inline std::vector<std::string> temporariesIn(const std::filesystem::path& folder)
{
    std::vector<std::string> found;
    for (const std::string& name : namesIn(folder))
        if (isTemporaryName(name))
            found.push_back(name);
    return found;
}

/// Runs `body` in a forked child whose file-size limit is `bytes` and returns what it returned
/// (up to 4 KiB), or "killed by signal N" when the child died of a signal.
inline std::string inChildWithFileSizeLimit(rlim_t bytes, const std::function<std::string()>& body)
{
    int ends[2];
    if (::pipe(ends) != 0)
        return "pipe failed";
    const pid_t pid = ::fork();
    if (pid < 0)
        return "fork failed";
    if (pid == 0) {
        ::close(ends[0]);
        // As a process starts: SIGXFSZ ends it unless the writer holds it off.
        ::signal(SIGXFSZ, SIG_DFL);
        rlimit limit{bytes, bytes};
        ::setrlimit(RLIMIT_FSIZE, &limit);
        const std::string text = body();
        [[maybe_unused]] const ssize_t n = ::write(ends[1], text.data(), text.size());
        ::_exit(0);
    }
    ::close(ends[1]);
    std::string text;
    char chunk[4096];
    for (ssize_t n; (n = ::read(ends[0], chunk, sizeof chunk)) > 0;)
        text.append(chunk, static_cast<std::size_t>(n));
    ::close(ends[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (WIFSIGNALED(status))
        return "killed by signal " + std::to_string(WTERMSIG(status));
    return text;
}

} // namespace tandem::test
