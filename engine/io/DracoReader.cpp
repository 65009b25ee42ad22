#include "engine/io/DracoReader.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <iterator>
#include <memory>
#include <new>

#include <draco/compression/config/compression_shared.h>
#include <draco/compression/decode.h>
#include <draco/compression/point_cloud/point_cloud_decoder.h>
#include <draco/core/decoder_buffer.h>
#include <draco/core/draco_types.h>
#include <draco/core/draco_version.h>
#include <draco/core/varint_decoding.h>
#include <draco/mesh/mesh.h>
#include <draco/metadata/geometry_metadata.h>
#include <draco/metadata/metadata_decoder.h>
#include <draco/point_cloud/point_cloud.h>
#include <fmt/format.h>

#include "engine/core/File.h"
#include "engine/io/detail/PlyVertices.h"

namespace tandem::io {

namespace {

constexpr char Magic[] = "DRACO";
constexpr std::size_t MagicBytes = 5;

/// What a Draco stream declares before its data, read as libdraco 1.5.5 reads it.
struct Declared {
    std::uint8_t major = 0;
    std::uint8_t minor = 0;
    bool counted = false;     ///< points and faces were read (else the bytes end first)
    std::uint64_t points = 0; ///< a point cloud's points, a mesh's encoded vertices
    std::uint64_t faces = 0;  ///< a mesh's faces
    /// A point cloud's bytes of attribute values a point, as far as its attribute descriptors
    /// were read (all of them, or where the bytes end): at least what Draco allocates a point.
    std::uint64_t pointBytes = 0;
    /// A k-d tree point cloud's attributes decoders where its bitstream (before 2.3) has more
    /// than one, which Draco's encoder never writes and whose counts cannot be read ahead.
    std::uint8_t kdDecoders = 0;
};

/// Reads a count as Draco's bitstream `version` stores it: 4 bytes before `fixedBefore`, a
/// varint from it on.
bool decodeCount(draco::DecoderBuffer& buffer, std::uint16_t version, std::uint16_t fixedBefore,
                 std::uint32_t& out)
{
    if (version < fixedBefore)
        return buffer.Decode(&out);
    return draco::DecodeVarint(&out, &buffer);
}

/// The version and counts `bytes` declare, read with Draco's own primitives in the order its
/// decoders read them (PointCloudDecoder::Decode: the header, the metadata, then
/// MeshSequentialDecoder's or MeshEdgebreakerDecoderImpl's connectivity counts, or a point
/// cloud's point count and its attribute descriptors). Not `counted` where the bytes end before
/// the counts or are not what Draco takes: its decoder then fails on them before allocating.
Declared declared(std::span<const std::uint8_t> bytes)
{
    draco::DecoderBuffer buffer;
    buffer.Init(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    draco::DracoHeader header;
    Declared out;
    if (!draco::PointCloudDecoder::DecodeHeader(&buffer, &header).ok())
        return out;
    out.major = header.version_major;
    out.minor = header.version_minor;
    const std::uint16_t version =
        DRACO_BITSTREAM_VERSION(header.version_major, header.version_minor);
    const std::uint16_t newest = header.encoder_type == draco::POINT_CLOUD
                                     ? draco::kDracoPointCloudBitstreamVersion
                                     : draco::kDracoMeshBitstreamVersion;
    if (header.version_major < 1 || version > newest)
        return out; // a version Draco refuses, saying so
    buffer.set_bitstream_version(version);
    if (version >= DRACO_BITSTREAM_VERSION(1, 3) && (header.flags & METADATA_FLAG_MASK)) {
        draco::GeometryMetadata metadata;
        if (!draco::MetadataDecoder().DecodeGeometryMetadata(&buffer, &metadata))
            return out;
    }
    if (header.encoder_type == draco::TRIANGULAR_MESH) {
        std::uint32_t faces = 0, vertices = 0;
        if (header.encoder_method == draco::MESH_SEQUENTIAL_ENCODING) {
            const auto fixed = DRACO_BITSTREAM_VERSION(2, 2);
            if (!decodeCount(buffer, version, fixed, faces) ||
                !decodeCount(buffer, version, fixed, vertices))
                return out;
        } else if (header.encoder_method == draco::MESH_EDGEBREAKER_ENCODING) {
            std::uint8_t traversal = 0;
            std::uint32_t newVertices = 0;
            const auto fixed = DRACO_BITSTREAM_VERSION(2, 0);
            if (!buffer.Decode(&traversal))
                return out;
            if (version < DRACO_BITSTREAM_VERSION(2, 2) &&
                !decodeCount(buffer, version, fixed, newVertices))
                return out;
            if (!decodeCount(buffer, version, fixed, vertices) ||
                !decodeCount(buffer, version, fixed, faces))
                return out;
        } else {
            return out;
        }
        out.points = vertices;
        out.faces = faces;
        out.counted = true;
        return out;
    }
    if (header.encoder_type != draco::POINT_CLOUD)
        return out;
    std::int32_t points = 0;
    std::uint8_t decoders = 0;
    if (!buffer.Decode(&points) || points < 0 || !buffer.Decode(&decoders))
        return out;
    out.points = static_cast<std::uint64_t>(points);
    out.counted = true;
    const bool kdTree = header.encoder_method == draco::POINT_CLOUD_KD_TREE_ENCODING;
    // Draco's k-d tree encoder writes one attributes decoder. A bitstream before 2.3 declares a
    // second point count after the descriptors (read below); a second decoder's would lie past
    // the first one's data, where it cannot be read before decoding.
    if (kdTree && version < DRACO_BITSTREAM_VERSION(2, 3) && decoders > 1) {
        out.kdDecoders = decoders;
        return out;
    }
    // Each attributes decoder's descriptors (AttributesDecoder::DecodeAttributesDecoderData);
    // the sequential one follows them with a byte a attribute (its value decoder's kind). All
    // decoders' descriptors come before any decoder's data.
    for (int d = 0; d < decoders; ++d) {
        std::uint32_t attributes = 0;
        if (!decodeCount(buffer, version, DRACO_BITSTREAM_VERSION(2, 0), attributes) ||
            attributes == 0 || attributes > buffer.remaining_size() / 5)
            return out;
        for (std::uint32_t a = 0; a < attributes; ++a) {
            std::uint8_t type = 0, dataType = 0, components = 0, normalized = 0;
            if (!buffer.Decode(&type) || !buffer.Decode(&dataType) || !buffer.Decode(&components) ||
                !buffer.Decode(&normalized))
                return out;
            const int length = draco::DataTypeLength(static_cast<draco::DataType>(dataType));
            if (length <= 0 || components == 0)
                return out;
            out.pointBytes += static_cast<std::uint64_t>(length) * components;
            std::uint32_t uniqueId = 0;
            if (version < DRACO_BITSTREAM_VERSION(1, 3)) {
                std::uint16_t customId = 0;
                if (!buffer.Decode(&customId))
                    return out;
            } else if (!draco::DecodeVarint(&uniqueId, &buffer)) {
                return out;
            }
        }
        if (!kdTree)
            buffer.Advance(attributes);
    }
    // A k-d tree bitstream before 2.3 starts its data with the method, the compression level
    // and the point count it allocates each attribute for
    // (KdTreeAttributesDecoder::DecodeDataNeededByPortableTransforms).
    if (kdTree && version < DRACO_BITSTREAM_VERSION(2, 3)) {
        std::uint8_t method = 0, level = 0;
        std::uint32_t kdPoints = 0;
        if (buffer.Decode(&method) && buffer.Decode(&level) && buffer.Decode(&kdPoints))
            out.points = std::max<std::uint64_t>(out.points, kdPoints);
    }
    return out;
}

/// Draco's message without its closing full stop, as tandem's messages end.
std::string messageOf(const draco::Status& status)
{
    std::string message = status.error_msg_string();
    if (message.ends_with('.'))
        message.pop_back();
    // (Status::code_string() is declared in 1.5.5's headers but not in its library.)
    return message.empty() ? fmt::format("Draco status {}", static_cast<int>(status.code()))
                           : message;
}

/// Reads attribute `attribute`'s value for each of `count` points into `out` (N components of T
/// a point, through Draco's ConvertValue, which dequantizes and normalizes). False when an
/// index or value is out of what the attribute holds.
template <class T, int N, class Out>
bool readValues(const draco::PointAttribute& attribute, std::size_t count, std::vector<Out>& out)
{
    if (!attribute.is_mapping_identity() && attribute.indices_map_size() < count)
        return false;
    out.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
        const draco::AttributeValueIndex value =
            attribute.mapped_index(draco::PointIndex(static_cast<std::uint32_t>(i)));
        if (value.value() >= attribute.size())
            return false;
        T components[N];
        if (!attribute.template ConvertValue<T>(value, N, components))
            return false;
        for (int c = 0; c < N; ++c)
            out[i][c] = components[c];
    }
    return true;
}

/// Draco's name of an attribute kind, for messages.
const char* kindName(draco::GeometryAttribute::Type type)
{
    switch (type) {
    case draco::GeometryAttribute::POSITION:
        return "POSITION";
    case draco::GeometryAttribute::NORMAL:
        return "NORMAL";
    case draco::GeometryAttribute::COLOR:
        return "COLOR";
    case draco::GeometryAttribute::TEX_COORD:
        return "TEX_COORD";
    default:
        return "GENERIC";
    }
}

/// The name of a Draco value type, for messages.
const char* typeName(draco::DataType type)
{
    constexpr const char* Names[] = {"invalid", "int8",  "uint8",  "int16",   "uint16",  "int32",
                                     "uint32",  "int64", "uint64", "float32", "float64", "bool"};
    const auto index = static_cast<std::size_t>(type);
    return index < std::size(Names) ? Names[index] : "unknown";
}

/// Whether `type` holds numbers readValues() converts: not bool, whose ConvertValue() loads a
/// stored byte as a C++ bool (undefined for any byte but 0 and 1, which a file may hold; found
/// by the draco fuzz target).
bool isNumber(draco::DataType type)
{
    return type >= draco::DT_INT8 && type <= draco::DT_FLOAT64;
}

/// Whether readColors() takes colours of `type`.
bool isColorType(draco::DataType type)
{
    return type == draco::DT_UINT8 || type == draco::DT_UINT16 || type == draco::DT_FLOAT32 ||
           type == draco::DT_FLOAT64;
}

/// The colours of `attribute` (3 or 4 components of an isColorType() type) as bytes: see
/// readDraco(). False on an index or value out of what the attribute holds.
bool readColors(const draco::PointAttribute& attribute, std::size_t count,
                std::vector<glm::u8vec4>& out)
{
    using detail::Scalar;
    const bool alpha = attribute.num_components() == 4;
    switch (attribute.data_type()) {
    case draco::DT_UINT8:
    case draco::DT_UINT16: {
        // Integer to integer: Draco converts the values as stored, normalized or not.
        std::vector<glm::u16vec4> values;
        if (!readValues<std::uint16_t, 4>(attribute, count, values))
            return false;
        const Scalar type =
            attribute.data_type() == draco::DT_UINT8 ? Scalar::UInt8 : Scalar::UInt16;
        out.resize(count);
        for (std::size_t i = 0; i < count; ++i)
            for (int c = 0; c < 4; ++c)
                out[i][c] = c == 3 && !alpha ? 255 : detail::toColorByte(values[i][c], type);
        return true;
    }
    case draco::DT_FLOAT32:
    case draco::DT_FLOAT64: {
        std::vector<glm::dvec4> values;
        if (!readValues<double, 4>(attribute, count, values))
            return false;
        out.resize(count);
        for (std::size_t i = 0; i < count; ++i)
            for (int c = 0; c < 4; ++c)
                out[i][c] =
                    c == 3 && !alpha ? 255 : detail::toColorByte(values[i][c], Scalar::Float64);
        return true;
    }
    default:
        return false;
    }
}

/// MeshData of the decoded `geometry` (`mesh` when it is a mesh), or what is wrong with it.
Result<MeshData> meshOf(const draco::PointCloud& geometry, const draco::Mesh* mesh,
                        const std::string& name)
{
    const auto count = static_cast<std::size_t>(geometry.num_points());
    if (geometry.num_points() <= 0)
        return fail(fmt::format("{}: no points", name));
    const draco::PointAttribute* position =
        geometry.GetNamedAttribute(draco::GeometryAttribute::POSITION);
    if (!position)
        return fail(fmt::format("{}: no POSITION attribute (its points have no positions)", name));
    if (position->num_components() != 3)
        return fail(fmt::format("{}: POSITION has {} components; 3 expected", name,
                                position->num_components()));
    if (!isNumber(position->data_type()))
        return fail(fmt::format("{}: POSITION holds {} values; numbers expected", name,
                                typeName(position->data_type())));
    const auto corrupt = [&](const char* what) {
        return fail(
            fmt::format("{}: corrupt Draco data: a {} value that cannot be read", name, what));
    };
    MeshData out;
    std::vector<std::string> warnings;
    if (!readValues<float, 3>(*position, count, out.positions))
        return corrupt("POSITION");
    const auto unexpected = [&](const draco::PointAttribute& attribute, const char* expected) {
        warnings.push_back(fmt::format("{}: its {} attribute ({} components of {}) is not read: {} "
                                       "expected",
                                       name, kindName(attribute.attribute_type()),
                                       attribute.num_components(), typeName(attribute.data_type()),
                                       expected));
    };
    if (const auto* normal = geometry.GetNamedAttribute(draco::GeometryAttribute::NORMAL)) {
        if (normal->num_components() != 3 || !isNumber(normal->data_type())) {
            unexpected(*normal, "3 numbers");
        } else {
            if (!readValues<float, 3>(*normal, count, out.normals))
                return corrupt("NORMAL");
            for (glm::vec3& n : out.normals)
                n = detail::unitNormal(n);
        }
    }
    if (const auto* color = geometry.GetNamedAttribute(draco::GeometryAttribute::COLOR)) {
        if (color->num_components() != 3 && color->num_components() != 4)
            unexpected(*color, "3 or 4 components");
        else if (!isColorType(color->data_type()))
            unexpected(*color, "8 or 16-bit unsigned integers or floats");
        else if (!readColors(*color, count, out.colors))
            return corrupt("COLOR");
    }
    if (const auto* uv = geometry.GetNamedAttribute(draco::GeometryAttribute::TEX_COORD)) {
        if (uv->num_components() != 2 || !isNumber(uv->data_type())) {
            unexpected(*uv, "2 numbers");
        } else if (!readValues<float, 2>(*uv, count, out.texcoords)) {
            return corrupt("TEX_COORD");
        }
    }
    if (mesh && mesh->num_faces() > 0) {
        out.indices.reserve(std::size_t{3} * mesh->num_faces());
        for (draco::FaceIndex f(0); f < mesh->num_faces(); ++f)
            for (const draco::PointIndex& corner : mesh->face(f)) {
                if (corner.value() >= count)
                    return fail(fmt::format("{}: corrupt Draco data: face {} uses point {} of {}",
                                            name, f.value(), corner.value(), count));
                out.indices.push_back(corner.value());
            }
    }
    const DroppedVertices dropped = dropUnusableVertices(out);
    Result<MeshData> result(std::move(out));
    for (std::string& warning : warnings)
        result.addWarning(std::move(warning));
    if (dropped.any())
        result.addWarning(droppedWarning(name, dropped));
    return result;
}

/// readDraco() once the bytes are known to start as Draco's do; Draco's exceptions (it
/// allocates with new and std::vector) still escape from here.
Result<MeshData> decode(std::span<const std::uint8_t> bytes, const std::string& name)
{
    draco::DecoderBuffer buffer;
    buffer.Init(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    // The header (GetEncodedGeometryType() takes only the two kinds readDraco() reads).
    auto type = draco::Decoder::GetEncodedGeometryType(&buffer);
    if (!type.ok())
        return fail(fmt::format("{}: not a Draco file: {}", name, messageOf(type.status())));
    // Refused before Draco allocates for what the file declares.
    const Declared counts = declared(bytes);
    if (counts.kdDecoders > 1)
        return fail(fmt::format("{}: corrupt Draco data: a k-d tree point cloud of bitstream "
                                "{}.{} with {} attributes decoders (Draco writes one)",
                                name, counts.major, counts.minor, counts.kdDecoders));
    if (counts.counted) {
        const std::uint64_t elements = std::max(counts.points, counts.faces);
        if (elements > MaxDracoElementsPerByte * bytes.size())
            return fail(fmt::format("{}: corrupt Draco data: it declares {} {} in {} bytes (more "
                                    "than {} a byte, which no Draco encoding of real geometry "
                                    "reaches)",
                                    name, elements,
                                    counts.faces > counts.points ? "faces" : "points", bytes.size(),
                                    MaxDracoElementsPerByte));
        if (counts.pointBytes > 0 &&
            counts.points > MaxDracoExpansion * bytes.size() / counts.pointBytes)
            return fail(fmt::format("{}: corrupt Draco data: it declares {} points of {} bytes "
                                    "each in {} bytes (more than {} times its size)",
                                    name, counts.points, counts.pointBytes, bytes.size(),
                                    MaxDracoExpansion));
    }
    draco::Decoder decoder;
    std::unique_ptr<draco::PointCloud> geometry;
    const draco::Mesh* mesh = nullptr;
    draco::Status status;
    if (type.value() == draco::TRIANGULAR_MESH) {
        auto decoded = decoder.DecodeMeshFromBuffer(&buffer);
        status = decoded.status();
        if (decoded.ok()) {
            std::unique_ptr<draco::Mesh> owned = std::move(decoded).value();
            mesh = owned.get();
            geometry = std::move(owned);
        }
    } else {
        auto decoded = decoder.DecodePointCloudFromBuffer(&buffer);
        status = decoded.status();
        if (decoded.ok())
            geometry = std::move(decoded).value();
    }
    if (!status.ok()) {
        if (status.code() == draco::Status::UNKNOWN_VERSION ||
            status.code() == draco::Status::UNSUPPORTED_VERSION)
            return fail(fmt::format("{}: Draco bitstream version {}.{}, which libdraco {} does "
                                    "not read: {}",
                                    name, counts.major, counts.minor, draco::kDracoVersion,
                                    messageOf(status)));
        return fail(fmt::format("{}: corrupt Draco data: {}", name, messageOf(status)));
    }
    if (!geometry)
        return fail(fmt::format("{}: corrupt Draco data: Draco decoded nothing", name));
    return meshOf(*geometry, mesh, name);
}

} // namespace

bool isDraco(std::span<const std::uint8_t> bytes)
{
    return bytes.size() >= MagicBytes && std::memcmp(bytes.data(), Magic, MagicBytes) == 0;
}

Result<MeshData> readDraco(std::span<const std::uint8_t> bytes, const std::string& name)
{
    if (bytes.empty())
        return fail(fmt::format("{}: not a Draco file: it is empty", name));
    if (!isDraco(bytes))
        return fail(fmt::format("{}: not a Draco file: it does not start with \"DRACO\"", name));
    try {
        return decode(bytes, name);
    } catch (const std::bad_alloc&) {
        return fail(fmt::format("{}: corrupt Draco data: Draco ran out of memory decoding its {} "
                                "bytes",
                                name, bytes.size()));
    } catch (const std::exception& e) {
        return fail(fmt::format("{}: corrupt Draco data: Draco failed: {}", name, e.what()));
    }
}

Result<MeshData> readDraco(const std::filesystem::path& path)
{
    auto bytes = readFile(path);
    if (!bytes)
        return fail(bytes.error());
    return readDraco(bytes.value(), path.string());
}

} // namespace tandem::io
