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
