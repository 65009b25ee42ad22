// The one way every output reaches its name: written under a temporary name unique to the
// writer (hidden, in the same folder, naming the host and process), synced, and renamed into
// place only when complete, never replacing a file unless asked and never following a link
// planted at either name. An abandoned or failed write removes its temporary; temporaries of
// processes that died (SIGKILL, a power loss) are found by name and removed by later writers.
// Any thread; one AtomicFile is used by one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "engine/core/Result.h"

namespace tandem {

/// Whether an output may replace a file already at its name.
enum class Replace { No, Yes };

class AtomicFile {
public:
    /// Starts writing `path`: creates the temporary beside it (O_CREAT | O_EXCL | O_NOFOLLOW,
    /// read and write, mode 0666 less the umask). Fails, naming `path`, when it is a folder,
    /// when it exists and `replace` is No (checked again, atomically, by commit(); `existed`,
    /// if given, is then set), or when its folder is missing or not writable. The folder is not
    /// created (prepareOutputDirectory() does that).
    static Result<AtomicFile> create(const std::filesystem::path& path, Replace replace,
                                     bool* existed = nullptr);

    /// An object that writes nothing (for members filled later); only destruction, assignment
    /// and isOpen() are allowed.
    AtomicFile() = default;
    AtomicFile(AtomicFile&& other) noexcept;
    AtomicFile& operator=(AtomicFile&& other) noexcept;
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;
    /// Abandons an uncommitted write: closes and removes the temporary. Never throws.
    ~AtomicFile();

    /// Appends `bytes` (after the furthest byte written so far). Fails naming the file and the
    /// system's reason (a full disk: "No space left on device"; past the file-size limit "File
    /// too large", SIGXFSZ held off in this thread, so the process goes on).
    Result<bool> write(std::span<const std::uint8_t> bytes);
    Result<bool> write(const std::string& text);
    /// Appends `pieces` one after another in one gathered write (pwritev, IOV_MAX pieces a call):
    /// rows of an image in another order than memory's, with no copy. Fails as write().
    Result<bool> writePieces(std::span<const std::span<const std::uint8_t>> pieces);
    /// Writes `bytes` at `offset` of the temporary (a header filled in at the end).
    Result<bool> writeAt(std::uint64_t offset, std::span<const std::uint8_t> bytes);

    /// Makes the file the output: syncs it, renames it to path() (refusing to replace a file
    /// there unless Replace::Yes, atomically: renameat2(RENAME_NOREPLACE), or link() where the
    /// file system lacks it) and syncs the folder, so after a power loss the name holds either
    /// nothing or the whole file. On failure the temporary is removed; existed() says whether
    /// the failure was a file already at the name (another writer won). Call once.
    Result<bool> commit();
    /// Removes the temporary without making the output (what the destructor does).
    void abandon();

    /// Whether a temporary is open (create() succeeded, neither commit() nor abandon() ran).
    bool isOpen() const { return m_fd >= 0; }
    /// Whether commit() failed because a file was already at the output's name.
    bool existed() const { return m_existed; }
    /// The output's name.
    const std::filesystem::path& path() const { return m_path; }
    /// The temporary's name, for a program that writes the file itself (ffmpeg): it exists,
    /// created by this object, so that program opens it without creating anything.
    const std::filesystem::path& temporaryPath() const { return m_temporary; }
    /// The temporary's descriptor (read and write), for libraries that write to one and for
    /// checking what another program wrote to the temporary; stays owned here.
    int fd() const { return m_fd; }

private:
    AtomicFile(std::filesystem::path path, std::filesystem::path temporary, int fd,
               Replace replace);

    std::filesystem::path m_path;
    std::filesystem::path m_temporary;
    int m_fd = -1;
    Replace m_replace = Replace::No;
    bool m_existed = false;
    std::uint64_t m_end = 0; ///< one past the furthest byte written
};

/// Writes `bytes` to `path` atomically (AtomicFile: create, write, commit). Fails naming the
/// file and the reason; no file appears at `path` unless all of it was written. `existed`, if
/// given, says whether the failure was a file already at `path` (Replace::No): another writer's
/// output, which a caller that resumes counts as done.
Result<bool> writeFileAtomically(const std::filesystem::path& path,
                                 std::span<const std::uint8_t> bytes, Replace replace,
                                 bool* existed = nullptr);

/// Gives a file another program wrote whole (RenderDoc's capture) the name `path` in the same
/// folder, as commit() does: synced, renamed without replacing unless asked (`existed` set when
/// a file was there), the folder synced. On failure `written` is left where it is.
Result<bool> moveIntoPlace(const std::filesystem::path& written, const std::filesystem::path& path,
                           Replace replace, bool* existed = nullptr);

/// Whether `name` (a file name, no folder) is an AtomicFile temporary.
bool isTemporaryName(const std::string& name);

/// Removes the temporaries in `folder` left by writers that died: those made on this host by a
/// process that no longer runs (a live writer's, or another host's on a shared folder, are
/// kept). Returns the names removed. Never throws; a folder that cannot be read gives none.
std::vector<std::filesystem::path> removeStaleTemporaries(const std::filesystem::path& folder);

/// Removes the temporaries of this process's writers that are still open. For the app's entry
/// point on its way out (its destructors may not run, std::exit for one); not for library code.
void removeOpenTemporaries();

} // namespace tandem
