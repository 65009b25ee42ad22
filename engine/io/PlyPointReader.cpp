#include "engine/io/PlyPointReader.h"

#include <cmath>

#include "engine/io/MeshData.h"
#include "engine/io/detail/PlyFormat.h"
#include "engine/io/detail/PlyVertices.h"

namespace tandem::io {

using namespace detail;

PlyPointReader::~PlyPointReader() = default;

std::unique_ptr<PlyPointReader> PlyPointReader::open(std::span<const std::uint8_t> bytes,
                                                     const std::string& name)
{
    return open(bytes, bytes.size(), name);
}

std::unique_ptr<PlyPointReader> PlyPointReader::openBinary(std::span<const std::uint8_t> start,
                                                           std::uint64_t fileBytes,
                                                           const std::string& name)
{
    if (start.size() > fileBytes)
        return nullptr;
    auto reader = open(start, fileBytes, name);
    if (!reader || reader->m_stride == 0)
        return nullptr;
    return reader;
}

std::unique_ptr<PlyPointReader> PlyPointReader::open(std::span<const std::uint8_t> bytes,
                                                     std::uint64_t fileBytes,
                                                     const std::string& name)
{
    auto parsed = parseHeader(bytes, name);
    if (!parsed || !parsed.value().textureFile.empty() ||
        !checkCounts(parsed.value(),
                     static_cast<std::size_t>(fileBytes) - parsed.value().bodyOffset, name))
        return nullptr;
    std::unique_ptr<PlyPointReader> reader(new PlyPointReader);
    reader->m_header = std::make_unique<Header>(std::move(parsed.value()));
    const Header& header = *reader->m_header;
    const Element* vertex = findElement(header, "vertex");
    if (!vertex || vertex->count == 0 || !VertexDecoder::supports(*vertex))
        return nullptr;
    std::vector<std::string> warnings(header.warnings);
    auto fields = vertexFields(*vertex, name, warnings);
    if (!fields)
        return nullptr;
    // Where the vertices start and the elements end: every other element is passed over, as
    // readPly reads it (no bytes when it has no properties or no items).
    const std::size_t body = static_cast<std::size_t>(fileBytes) - header.bodyOffset;
    std::size_t at = 0, start = 0;
    for (const Element& element : header.elements) {
        if (&element == vertex) {
            start = at;
            at += static_cast<std::size_t>(element.count) *
                  minimumElementBytes(element, header.format);
            continue;
        }
        if (element.count == 0 || element.properties.empty())
            continue;
        if (header.format == Format::Ascii || !VertexDecoder::supports(element))
            return nullptr;
        const std::uint64_t bytesOf = element.count * minimumElementBytes(element, header.format);
        if (bytesOf > body - std::min(at, body))
            return nullptr;
        at += static_cast<std::size_t>(bytesOf);
    }
    if (header.format != Format::Ascii) {
        if (at > body)
            return nullptr;
        if (body > at)
            reader->m_trailing = trailingBytesWarning(name, body - at);
    }
    VertexFields taken = fields.value();
    taken.u = taken.v = -1; // points are not textured
    // (Of a file's first bytes, those of its vertices among them.)
    reader->m_decoder = std::make_unique<VertexDecoder>(
        header, *vertex, taken, bytes.subspan(std::min(bytes.size(), header.bodyOffset + start)));
    reader->m_fileBytes = static_cast<std::size_t>(fileBytes);
    reader->m_vertexStart = header.bodyOffset + start;
    if (header.format != Format::Ascii)
        reader->m_stride = static_cast<std::size_t>(minimumElementBytes(*vertex, header.format));
    reader->m_count = static_cast<std::size_t>(vertex->count);
    reader->m_hasNormals = taken.hasNormals();
    reader->m_hasColors = taken.hasColors();
    reader->m_warnings = std::move(warnings);
    reader->m_name = name;
    reader->m_dropped.before = reader->m_count;
    reader->m_dropped.pointCloud = true;
    return reader;
}

std::optional<std::size_t> PlyPointReader::read(std::span<glm::vec3> positions,
                                                std::span<glm::vec3> normals,
                                                std::span<glm::u8vec4> colors)
{
    const std::size_t count = positions.size();
    if (count > m_count - m_read ||
        !m_decoder->decode(count, {positions.data(), m_hasNormals ? normals.data() : nullptr,
                                   m_hasColors ? colors.data() : nullptr, nullptr}))
        return std::nullopt;
    return keepUsable(count, positions, normals, colors);
}

std::optional<std::size_t> PlyPointReader::readFrom(std::span<const std::uint8_t> vertices,
                                                    std::span<glm::vec3> positions,
                                                    std::span<glm::vec3> normals,
                                                    std::span<glm::u8vec4> colors)
{
    const std::size_t count = positions.size();
    if (m_stride == 0 || count > m_count - m_read || vertices.size() != count * m_stride)
        return std::nullopt;
    m_decoder->decodeFrom(vertices.data(), count,
                          {positions.data(), m_hasNormals ? normals.data() : nullptr,
                           m_hasColors ? colors.data() : nullptr, nullptr});
    return keepUsable(count, positions, normals, colors);
}

std::size_t PlyPointReader::keepUsable(std::size_t count, std::span<glm::vec3> positions,
                                       std::span<glm::vec3> normals, std::span<glm::u8vec4> colors)
{
    m_read += count;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const glm::vec3 p = positions[i];
        if (!isUsablePosition(p)) {
            ++m_dropped.vertices;
            m_dropped.nonFinite +=
                !(std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z));
            continue;
        }
        if (kept != i) {
            positions[kept] = p;
            if (m_hasNormals)
                normals[kept] = normals[i];
            if (m_hasColors)
                colors[kept] = colors[i];
        }
        ++kept;
    }
    return kept;
}

std::vector<std::string> PlyPointReader::warnings() const
{
    // In readPly()'s order.
    std::vector<std::string> out = m_warnings;
    if (m_dropped.any()) {
        DroppedVertices dropped = m_dropped;
        dropped.emptied = dropped.vertices == m_count;
        out.push_back(droppedWarning(m_name, dropped));
    }
    if (!m_trailing.empty())
        out.push_back(m_trailing);
    return out;
}

} // namespace tandem::io
