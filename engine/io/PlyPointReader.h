// A PLY point cloud read a chunk of points at a time into memory the caller owns (a streamed
// frame's block), so the whole cloud is never held as MeshData first. It takes the files whose
// points readPly() would keep as they are and hands the others back to readPly(), which gives
// the same points. Any thread; one reader per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <glm/glm.hpp>

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
    ~PlyPointReader();

    std::size_t pointCount() const { return m_count; }
    bool hasNormals() const { return m_hasNormals; }
    bool hasColors() const { return m_hasColors; }

    /// Reads the next positions.size() points, as readPly() gives them (placed as the header's
    /// comments say, unit normals, colours as bytes); `normals` and `colors` as long as
    /// `positions`, or empty where the file has none. False when a value cannot be read or a
    /// point is not usable (isUsablePosition()): the caller then reads the file with readPly(),
    /// which names the problem or drops the points with its warning.
    bool read(std::span<glm::vec3> positions, std::span<glm::vec3> normals,
              std::span<glm::u8vec4> colors);

    /// The warnings readPly() gives the file (its header's, an ignored packed colour, bytes after
    /// the last element), once every point has been read.
    const std::vector<std::string>& warnings() const { return m_warnings; }

private:
    PlyPointReader() = default;

    std::unique_ptr<detail::Header> m_header;
    std::unique_ptr<detail::VertexDecoder> m_decoder;
    std::size_t m_count = 0;
    std::size_t m_read = 0;
    bool m_hasNormals = false;
    bool m_hasColors = false;
    std::vector<std::string> m_warnings;
};

} // namespace tandem::io
