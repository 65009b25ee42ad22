// Reading whole files and checking output locations, with failures as messages, not throws.
// Thread-agnostic.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "engine/core/Result.h"

namespace tandem {

/// Reads a whole file into memory. Fails with a message naming the file when it is missing, a
/// directory, unreadable or larger than `maxBytes`, and when it is no regular file (a FIFO,
/// /dev/zero or a socket, also through a symbolic link: refused without blocking or reading).
Result<std::vector<std::uint8_t>> readFile(const std::filesystem::path& path,
                                           std::uint64_t maxBytes = std::uint64_t{1} << 34);

/// Same, into `buffer` (resized to the file; its capacity kept, so a buffer read into again
/// is not allocated again): what a loader thread reading frame after frame uses.
Result<std::span<const std::uint8_t>> readFileInto(const std::filesystem::path& path,
                                                   std::vector<std::uint8_t>& buffer,
                                                   std::uint64_t maxBytes = std::uint64_t{1} << 34);

/// A regular file read into a buffer from its start only as far as its reader asks, so a
/// loader decodes bytes just read, still in the cache, not a whole file read first (a binary
/// PLY frame: FolderSource, PlyPoints.cpp), and looks at a header before it reads the rest.
/// Opened as readFileInto() opens; one thread.
class FileReader {
public:
    /// `path` opened as readFileInto() opens it (its failures too), nothing read yet; `buffer`
    /// (which must outlive the reader) is where the bytes go, its capacity kept.
    static Result<FileReader> open(const std::filesystem::path& path,
                                   std::vector<std::uint8_t>& buffer,
                                   std::uint64_t maxBytes = std::uint64_t{1} << 34);
    FileReader(FileReader&& other) noexcept;
    FileReader& operator=(FileReader&&) = delete;
    ~FileReader();

    /// Its size when opened (readAll(): as read).
    std::uint64_t size() const { return m_size; }

    /// The bytes read so far, from the start.
    std::span<const std::uint8_t> start() const;

    /// The file as large as it was when opened, the buffer sized to it; only the bytes read so
    /// far are in. Fails past `maxBytes`, as readFileInto() does.
    Result<std::span<const std::uint8_t>> whole();

    /// Reads on until the first `end` bytes (the file's size at most) are in; false when the
    /// file ended first (it shrank) or a read failed: readAll() then says how.
    bool readTo(std::size_t end);

    /// The rest of the file and whatever it grew by, as readFileInto() reads it: the whole file
    /// as it was read (shorter where it shrank), failing as readFileInto() does.
    Result<std::span<const std::uint8_t>> readAll();

    /// Reads the file's bytes from `offset` into `to` (not into the buffer: a piece read into
    /// the same few cache-held bytes again and again, which the system copies into four times
    /// faster than into a large buffer's); false when the file ended first or a read failed.
    bool readAt(std::uint64_t offset, std::span<std::uint8_t> to) const;

    /// Whether the file holds bytes past its size when opened (a failed read counts: readAll()
    /// then says how).
    bool grew() const;

private:
    FileReader() = default;

    std::filesystem::path m_path;
    std::uint64_t m_maxBytes = 0;
    int m_fd = -1;
    std::uint64_t m_size = 0;
    std::vector<std::uint8_t>* m_buffer = nullptr;
    std::size_t m_read = 0; ///< the bytes in so far
};

/// What a file of `type` is, for messages: "a FIFO (named pipe)", "a character device", "a
/// folder", "a regular file", "missing" (a broken link, when status() followed one), …
const char* fileTypeName(std::filesystem::file_type type);

/// Reads the first `bytes` bytes of a file (all of it when shorter), failing as readFile does.
Result<std::vector<std::uint8_t>> readFileStart(const std::filesystem::path& path,
                                                std::uint64_t bytes);

/// Reads a whole text file.
Result<std::string> readTextFile(const std::filesystem::path& path);

/// Creates `dir` (and parents) if needed and checks that a file can be created in it. Fails with
/// a message naming the folder and the reason.
Result<bool> prepareOutputDirectory(const std::filesystem::path& dir);

/// Checks, before any work, that `path` can be written at the end: it does not exist unless
/// `overwrite`, and its folder exists (made if missing) and is writable. Fails saying which.
Result<bool> prepareOutputFile(const std::filesystem::path& path, bool overwrite);

/// Writes `text` to `path` through AtomicFile (a temporary unique to this writer, synced,
/// renamed into place), so a failure never leaves half a file. Refuses to replace an existing
/// file unless `overwrite` (`existed`, if given, then says so); fails naming the file and the
/// system's reason.
Result<bool> writeTextFile(const std::filesystem::path& path, const std::string& text,
                           bool overwrite, bool* existed = nullptr);

/// The folder holding the running executable (from /proc/self/exe), or empty if unknown.
std::filesystem::path executableDirectory();

/// Where shaders/ and assets/ live: $TANDEM_DATA_DIR if set, else the executable's parent
/// folder when it holds shaders/ (the build copies them beside bin/), else the source tree.
std::filesystem::path dataRoot();

/// Why dataRoot() is where it is, for the start-up log: "$TANDEM_DATA_DIR", "beside the
/// executable", or "the source tree (no shaders/ beside the executable)".
std::string dataRootOrigin();

} // namespace tandem
