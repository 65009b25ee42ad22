#include "FrameFiles.h"

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <draco/compression/encode.h>
#include <draco/point_cloud/point_cloud_builder.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "engine/core/Error.h"

namespace tandem::bench {

namespace fs = std::filesystem;

namespace {

void writeBytes(const fs::path& path, const void* data, std::size_t size)
{
    std::ofstream out(path, std::ios::binary);
    out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out)
        throw Error(fmt::format("could not write {}", path.string()));
}

template <class T> void append(std::vector<std::uint8_t>& bytes, const std::vector<T>& values)
{
    const auto* data = reinterpret_cast<const std::uint8_t*>(values.data());
    bytes.insert(bytes.end(), data, data + values.size() * sizeof(T));
    bytes.resize((bytes.size() + 3) / 4 * 4);
}

} // namespace

void writePly(const fs::path& path, const io::MeshData& mesh, bool ascii)
{
    std::ofstream out(path, std::ios::binary);
    out << "ply\nformat " << (ascii ? "ascii" : "binary_little_endian") << " 1.0\n"
        << "comment tandem-bench stream\nelement vertex " << mesh.positions.size() << "\n"
        << "property float x\nproperty float y\nproperty float z\n"
        << "property float nx\nproperty float ny\nproperty float nz\n"
        << "property uchar red\nproperty uchar green\nproperty uchar blue\nend_header\n";
    for (std::size_t i = 0; i < mesh.positions.size(); ++i) {
        const glm::vec3& p = mesh.positions[i];
        const glm::vec3& n = mesh.normals[i];
        const glm::u8vec4& c = mesh.colors[i];
        if (ascii) {
            out << fmt::format("{} {} {} {} {} {} {} {} {}\n", p.x, p.y, p.z, n.x, n.y, n.z, c.r,
                               c.g, c.b);
        } else {
            const float v[6] = {p.x, p.y, p.z, n.x, n.y, n.z};
            out.write(reinterpret_cast<const char*>(v), sizeof(v));
            out.write(reinterpret_cast<const char*>(&c), 3);
        }
    }
    if (!out)
        throw Error(fmt::format("could not write {}", path.string()));
}

void writeDraco(const fs::path& path, const io::MeshData& mesh)
{
    const auto n = static_cast<std::uint32_t>(mesh.positions.size());
    draco::PointCloudBuilder builder;
    builder.Start(n);
    const int position =
        builder.AddAttribute(draco::GeometryAttribute::POSITION, 3, draco::DT_FLOAT32);
    const int normal = builder.AddAttribute(draco::GeometryAttribute::NORMAL, 3, draco::DT_FLOAT32);
    const int color = builder.AddAttribute(draco::GeometryAttribute::COLOR, 3, draco::DT_UINT8);
    for (std::uint32_t i = 0; i < n; ++i) {
        builder.SetAttributeValueForPoint(position, draco::PointIndex(i), &mesh.positions[i]);
        builder.SetAttributeValueForPoint(normal, draco::PointIndex(i), &mesh.normals[i]);
        builder.SetAttributeValueForPoint(color, draco::PointIndex(i), &mesh.colors[i]);
    }
    const std::unique_ptr<draco::PointCloud> cloud = builder.Finalize(false);
    if (!cloud)
        throw Error(fmt::format("{}: Draco could not build the point cloud", path.string()));
    // draco_encoder's defaults: 11-bit positions, 8-bit normals, compression level 7.
    draco::Encoder encoder;
    encoder.SetAttributeQuantization(draco::GeometryAttribute::POSITION, 11);
    encoder.SetAttributeQuantization(draco::GeometryAttribute::NORMAL, 8);
    encoder.SetSpeedOptions(3, 3);
    draco::EncoderBuffer out;
    if (const draco::Status status = encoder.EncodePointCloudToBuffer(*cloud, &out); !status.ok())
        throw Error(fmt::format("{}: Draco could not encode: {}", path.string(),
                                status.error_msg_string()));
    writeBytes(path, out.data(), out.size());
}

void writeGlb(const fs::path& path, const io::MeshData& mesh)
{
    std::vector<std::uint8_t> bin;
    nlohmann::json views = nlohmann::json::array(), accessors = nlohmann::json::array();
    const auto add = [&](const auto& values, int componentType, const char* type,
                         bool normalized = false) {
        const std::size_t offset = bin.size();
        append(bin, values);
        views.push_back({{"buffer", 0},
                         {"byteOffset", offset},
                         {"byteLength", values.size() * sizeof(values[0])}});
        nlohmann::json accessor = {{"bufferView", views.size() - 1},
                                   {"componentType", componentType},
                                   {"count", values.size()},
                                   {"type", type}};
        if (normalized)
            accessor["normalized"] = true;
        accessors.push_back(accessor);
        return accessors.size() - 1;
    };
    nlohmann::json primitive = {{"mode", mesh.isPointCloud() ? 0 : 4}};
    primitive["attributes"]["POSITION"] = add(mesh.positions, 5126, "VEC3");
    if (!mesh.normals.empty())
        primitive["attributes"]["NORMAL"] = add(mesh.normals, 5126, "VEC3");
    if (!mesh.colors.empty())
        primitive["attributes"]["COLOR_0"] = add(mesh.colors, 5121, "VEC4", true);
    if (!mesh.isPointCloud())
        primitive["indices"] = add(mesh.indices, 5125, "SCALAR");
    const nlohmann::json gltf = {{"asset", {{"version", "2.0"}, {"generator", "tandem-bench"}}},
                                 {"buffers", {{{"byteLength", bin.size()}}}},
                                 {"bufferViews", views},
                                 {"accessors", accessors},
                                 {"meshes", {{{"primitives", {primitive}}}}},
                                 {"nodes", {{{"mesh", 0}}}},
                                 {"scenes", {{{"nodes", {0}}}}},
                                 {"scene", 0}};
    std::string text = gltf.dump();
    text.resize((text.size() + 3) / 4 * 4, ' ');
    std::vector<std::uint8_t> glb(12);
    const auto word = [&](std::uint32_t v) {
        const auto* b = reinterpret_cast<const std::uint8_t*>(&v);
        glb.insert(glb.end(), b, b + 4);
    };
    word(static_cast<std::uint32_t>(text.size()));
    word(0x4E4F534A); // JSON
    glb.insert(glb.end(), text.begin(), text.end());
    word(static_cast<std::uint32_t>(bin.size()));
    word(0x004E4942); // BIN
    glb.insert(glb.end(), bin.begin(), bin.end());
    const std::uint32_t header[3] = {0x46546C67, 2, static_cast<std::uint32_t>(glb.size())};
    std::memcpy(glb.data(), header, sizeof header);
    writeBytes(path, glb.data(), glb.size());
}

void writeObj(const fs::path& path, const io::MeshData& mesh)
{
    std::string text;
    text.reserve(mesh.positions.size() * 80 + mesh.indices.size() * 12);
    for (std::size_t i = 0; i < mesh.positions.size(); ++i) {
        const glm::vec3& p = mesh.positions[i];
        if (mesh.colors.empty()) {
            fmt::format_to(std::back_inserter(text), "v {} {} {}\n", p.x, p.y, p.z);
            continue;
        }
        const glm::u8vec4& c = mesh.colors[i];
        fmt::format_to(std::back_inserter(text), "v {} {} {} {:.4f} {:.4f} {:.4f}\n", p.x, p.y, p.z,
                       c.r / 255.0, c.g / 255.0, c.b / 255.0);
    }
    for (const glm::vec3& n : mesh.normals)
        fmt::format_to(std::back_inserter(text), "vn {} {} {}\n", n.x, n.y, n.z);
    const bool normals = !mesh.normals.empty();
    for (std::size_t i = 0; i + 2 < mesh.indices.size(); i += 3) {
        const std::uint32_t a = mesh.indices[i] + 1, b = mesh.indices[i + 1] + 1,
                            c = mesh.indices[i + 2] + 1;
        if (normals)
            fmt::format_to(std::back_inserter(text), "f {}//{} {}//{} {}//{}\n", a, a, b, b, c, c);
        else
            fmt::format_to(std::back_inserter(text), "f {} {} {}\n", a, b, c);
    }
    writeBytes(path, text.data(), text.size());
}

} // namespace tandem::bench
