// A PLY point cloud read a chunk of points at a time into memory the caller owns (a streamed
// frame's block), so the whole cloud is never held as MeshData first. It gives the points
// readPly() gives, unusable ones dropped as it drops them (depth sensors' NaN points), and hands
// the files it cannot read so back to readPly(). Any thread; one reader per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "engine/io/MeshData.h"

namespace tandem::io {

namespace detail {
struct Header;
class VertexDecoder;
} // namespace detail

class PlyPointReader {
public:
    /// A reader of the point cloud in `bytes` (which must outlive it), or null where readPly()
    /// must read the file: a header it refuses, faces, an element the reader cannot pass over
    /// (one with lists, or any beside the vertex element in an ascii file), a list among the
    /// vertex's properties, a texture named in a comment, or no vertices. `name` goes into
    /// messages.
    static std::unique_ptr<PlyPointReader> open(std::span<const std::uint8_t> bytes,
                                                const std::string& name);

    /// The same from the first bytes of a file of `fileBytes` bytes (its header in them), for
    /// a reader whose vertices come from wherever their bytes were read to (readFrom(); read()
    /// then reads only those of them in `start`). Null also for an ascii file.
    static std::unique_ptr<PlyPointReader> openBinary(std::span<const std::uint8_t> start,
                                                      std::uint64_t fileBytes,
                                                      const std::string& name);
    ~PlyPointReader();

    std::size_t pointCount() const { return m_count; }
    bool hasNormals() const { return m_hasNormals; }
    bool hasColors() const { return m_hasColors; }

    /// Reads the next positions.size() points of the file, as readPly() gives them (placed as
    /// the header's comments say, unit normals, colours as bytes); `normals` and `colors` as
    /// long as `positions`, or empty where the file has none. Points whose position is not
    /// usable (isUsablePosition()) are dropped, as readPly() drops them: the kept ones are moved
    /// to the front of the spans, and their number is returned. Nothing when a value cannot be
    /// read: the caller then reads the file with readPly(), which names the problem.
    std::optional<std::size_t> read(std::span<glm::vec3> positions, std::span<glm::vec3> normals,
                                    std::span<glm::u8vec4> colors);

    /// read() of a binary file's next positions.size() points from `vertices`, their bytes
    /// (the file's from bytesThrough(points read so far) on) wherever they were read to;
    /// nothing when it holds fewer or more.
    std::optional<std::size_t> readFrom(std::span<const std::uint8_t> vertices,
                                        std::span<glm::vec3> positions,
                                        std::span<glm::vec3> normals,
                                        std::span<glm::u8vec4> colors);

    /// The bytes of the file read() needs to read its first `points` points: a binary file's
    /// up to their end, an ascii file's all (a reader of the file as it arrives reads that far
    /// before each read()).
    std::size_t bytesThrough(std::size_t points) const
    {
        return m_stride == 0 ? m_fileBytes : m_vertexStart + points * m_stride;
    }

    /// What read() has dropped so far, counted as dropUnusableVertices() counts.
    const DroppedVertices& dropped() const { return m_dropped; }

    /// The warnings readPly() gives the file (its header's, an ignored packed colour, the points
    /// dropped, bytes after the last element), once every point has been read.
    std::vector<std::string> warnings() const;

private:
    PlyPointReader() = default;
    static std::unique_ptr<PlyPointReader> open(std::span<const std::uint8_t> bytes,
                                                std::uint64_t fileBytes, const std::string& name);
    /// Drops the unusable points of the `count` just decoded, returning how many are kept.
    std::size_t keepUsable(std::size_t count, std::span<glm::vec3> positions,
                           std::span<glm::vec3> normals, std::span<glm::u8vec4> colors);

    std::unique_ptr<detail::Header> m_header;
    std::unique_ptr<detail::VertexDecoder> m_decoder;
    std::string m_name;
    std::size_t m_count = 0;
    std::size_t m_read = 0;
    std::size_t m_fileBytes = 0;   ///< the whole file's
    std::size_t m_vertexStart = 0; ///< where the vertices start in it
    std::size_t m_stride = 0;      ///< a binary vertex's bytes; 0: ascii
    bool m_hasNormals = false;
    bool m_hasColors = false;
    DroppedVertices m_dropped;
    std::vector<std::string> m_warnings; ///< the header's and its fields'
    std::string m_trailing;              ///< bytes after the last element, if any
};

} // namespace tandem::io
