#include "engine/io/PlyPointReader.h"

#include "engine/io/MeshData.h"
#include "engine/io/detail/PlyFormat.h"
#include "engine/io/detail/PlyVertices.h"

namespace tandem::io {

using namespace detail;

PlyPointReader::~PlyPointReader() = default;

std::unique_ptr<PlyPointReader> PlyPointReader::open(std::span<const std::uint8_t> bytes,
                                                     const std::string& name)
{
    auto parsed = parseCheckedHeader(bytes, name);
    if (!parsed || !parsed.value().textureFile.empty())
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
    const std::size_t body = bytes.size() - header.bodyOffset;
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
            warnings.push_back(trailingBytesWarning(name, body - at));
    }
    VertexFields taken = fields.value();
    taken.u = taken.v = -1; // points are not textured
    reader->m_decoder = std::make_unique<VertexDecoder>(header, *vertex, taken,
                                                        bytes.subspan(header.bodyOffset + start));
    reader->m_count = static_cast<std::size_t>(vertex->count);
    reader->m_hasNormals = taken.hasNormals();
    reader->m_hasColors = taken.hasColors();
    reader->m_warnings = std::move(warnings);
    return reader;
}

bool PlyPointReader::read(std::span<glm::vec3> positions, std::span<glm::vec3> normals,
                          std::span<glm::u8vec4> colors)
{
    const std::size_t count = positions.size();
    if (count > m_count - m_read ||
        !m_decoder->decode(count, {positions.data(), m_hasNormals ? normals.data() : nullptr,
                                   m_hasColors ? colors.data() : nullptr, nullptr}))
        return false;
    m_read += count;
    for (const glm::vec3& p : positions)
        if (!isUsablePosition(p))
            return false;
    return true;
}

} // namespace tandem::io
