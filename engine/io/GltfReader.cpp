#include "engine/io/GltfReader.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <glm/gtc/matrix_transform.hpp>
#include <glm/gtc/quaternion.hpp>

#include "engine/core/File.h"
#include "engine/core/JsonDepth.h"
#include "engine/core/Srgb.h"
#include "engine/io/DracoReader.h"
#include "engine/io/detail/TinyGltf.h"

namespace tandem::io {

namespace {

namespace fs = std::filesystem;
using tinygltf::Model;

static_assert(std::endian::native == std::endian::little,
              "glTF's buffers are little-endian and are read in place");

/// The extensions a file may require: the ones this reader applies.
constexpr std::array<std::string_view, 2> ReadExtensions{"KHR_draco_mesh_compression",
                                                         "KHR_mesh_quantization"};
constexpr const char* DracoExtension = "KHR_draco_mesh_compression";

/// tinygltf's messages (lines, each ending in a line feed) as one line.
std::string oneLine(const std::string& text)
{
    std::string out;
    for (char c : text) {
        if (c == '\n' || c == '\r') {
            if (!out.empty() && !out.ends_with("; "))
                out += "; ";
        } else {
            out += c;
        }
    }
    while (out.ends_with("; "))
        out.resize(out.size() - 2);
    return out;
}

// ---- files tinygltf reads for a .gltf (its buffers), only within the glTF's folder

/// The folder relative URIs resolve against, with a trailing '/'.
struct FileAccess {
    std::string folder;
};

/// Whether `relative` stays within the folder it is relative to: not absolute, no ".." part.
bool staysInFolder(const fs::path& relative)
{
    if (relative.is_absolute())
        return false;
    for (const fs::path& part : relative)
        if (part == "..")
            return false;
    return true;
}

bool fileExists(const std::string& path, void* user)
{
    // tinygltf also tries each URI relative to the working directory: only the folder counts,
    // and what lies below it.
    const auto* access = static_cast<const FileAccess*>(user);
    std::error_code ec;
    return path.starts_with(access->folder) &&
           staysInFolder(fs::path(path.substr(access->folder.size()))) &&
           fs::is_regular_file(path, ec);
}

std::string expandFilePath(const std::string& path, void*)
{
    return path; // no ~ or $VARIABLE expansion
}

bool readWholeFile(std::vector<unsigned char>* out, std::string* error, const std::string& path,
                   void*)
{
    auto bytes = readFile(path);
    if (!bytes) {
        *error = bytes.error();
        return false;
    }
    out->swap(bytes.value());
    return true;
}

bool writeWholeFile(std::string* error, const std::string&, const std::vector<unsigned char>&,
                    void*)
{
    *error = "tandem writes no glTF";
    return false;
}

/// tinygltf's image callback: decodes nothing. A data: URI's bytes are kept as they are; an
/// image in a buffer view is read by textureOf() once the view is checked (tinygltf hands its
/// bytes over without checking that the view lies within its buffer).
bool keepImageBytes(tinygltf::Image* image, int, std::string*, std::string*, int, int,
                    const unsigned char* bytes, int size, void*)
{
    image->as_is = true;
    if (image->bufferView < 0 && bytes && size > 0)
        image->image.assign(bytes, bytes + size);
    return true;
}

// ---- accessors, checked

/// An accessor's elements, checked to lie within their buffer.
struct Elements {
    const std::uint8_t* data = nullptr;
    std::size_t count = 0;
    std::size_t stride = 0;
    int componentType = 0;
    int components = 0;
    bool normalized = false;
};

/// The bytes of buffer view `index`, checked to lie within its buffer.
Result<std::span<const std::uint8_t>> viewBytes(const Model& model, int index,
                                                const std::string& what)
{
    if (index < 0 || static_cast<std::size_t>(index) >= model.bufferViews.size())
        return fail(fmt::format("{} names buffer view {}; the file has {}", what, index,
                                model.bufferViews.size()));
    const tinygltf::BufferView& view = model.bufferViews[static_cast<std::size_t>(index)];
    if (view.buffer < 0 || static_cast<std::size_t>(view.buffer) >= model.buffers.size())
        return fail(fmt::format("{}: buffer view {} names buffer {}; the file has {}", what, index,
                                view.buffer, model.buffers.size()));
    const std::vector<unsigned char>& data =
        model.buffers[static_cast<std::size_t>(view.buffer)].data;
    if (view.byteOffset > data.size() || view.byteLength > data.size() - view.byteOffset)
        return fail(fmt::format("{}: buffer view {} (bytes {} to {}) reaches past its buffer's {} "
                                "bytes",
                                what, index, view.byteOffset,
                                static_cast<double>(view.byteOffset) + view.byteLength,
                                data.size()));
    return std::span<const std::uint8_t>(data.data() + view.byteOffset, view.byteLength);
}

/// Accessor `index` as `what` ("mesh 0 primitive 1 POSITION"): its components one of `counts`
/// (VEC3 only: {3}; colours {3, 4}), its type a glTF scalar type no wider than 4 bytes, every
/// element within its buffer view. Sparse accessors are refused.
Result<Elements> elementsOf(const Model& model, int index, const std::string& what,
                            std::initializer_list<int> counts)
{
    if (index < 0 || static_cast<std::size_t>(index) >= model.accessors.size())
        return fail(fmt::format("{} names accessor {}; the file has {}", what, index,
                                model.accessors.size()));
    const tinygltf::Accessor& accessor = model.accessors[static_cast<std::size_t>(index)];
    const std::string where = fmt::format("{} (accessor {})", what, index);
    if (accessor.sparse.isSparse)
        return fail(fmt::format("{}: sparse accessors are not read", where));
    Elements e;
    e.components = tinygltf::GetNumComponentsInType(static_cast<std::uint32_t>(accessor.type));
    if (std::find(counts.begin(), counts.end(), e.components) == counts.end())
        return fail(fmt::format("{}: {} components an element, expected {}", where, e.components,
                                fmt::join(counts, " or ")));
    e.componentType = accessor.componentType;
    const int componentBytes =
        tinygltf::GetComponentSizeInBytes(static_cast<std::uint32_t>(accessor.componentType));
    if (componentBytes < 1 || componentBytes > 4)
        return fail(fmt::format("{}: component type {} is none glTF 2.0 has", where,
                                accessor.componentType));
    e.normalized = accessor.normalized;
    e.count = accessor.count;
    if (accessor.bufferView < 0)
        return fail(fmt::format("{}: no buffer view (its values would all be zero)", where));
    auto view = viewBytes(model, accessor.bufferView, where);
    if (!view)
        return fail(view.error());
    const std::size_t elementBytes =
        static_cast<std::size_t>(componentBytes) * static_cast<std::size_t>(e.components);
    const std::size_t byteStride =
        model.bufferViews[static_cast<std::size_t>(accessor.bufferView)].byteStride;
    e.stride = byteStride != 0 ? byteStride : elementBytes;
    if (e.stride < elementBytes)
        return fail(fmt::format("{}: a stride of {} bytes is less than its {}-byte elements", where,
                                e.stride, elementBytes));
    const std::size_t size = view.value().size();
    if (e.count > 0 && (accessor.byteOffset > size || elementBytes > size - accessor.byteOffset ||
                        (e.count - 1) > (size - accessor.byteOffset - elementBytes) / e.stride))
        return fail(fmt::format("{}: {} elements from byte {} reach past its buffer view's {} "
                                "bytes",
                                where, e.count, accessor.byteOffset, size));
    e.data = view.value().data() + accessor.byteOffset;
    return e;
}

/// A component as a float: normalized integers mapped to 0..1 (signed: -1..1), others as their
/// value.
template <class T> float componentValue(const std::uint8_t* at, bool normalized)
{
    T raw;
    std::memcpy(&raw, at, sizeof(T));
    if constexpr (std::is_floating_point_v<T>) {
        return raw;
    } else {
        const float value = static_cast<float>(raw);
        if (!normalized)
            return value;
        if constexpr (std::is_signed_v<T>)
            return std::max(value / static_cast<float>(std::numeric_limits<T>::max()), -1.0f);
        else
            return value / static_cast<float>(std::numeric_limits<T>::max());
    }
}

template <int N, class T, class F> void forEachOf(const Elements& e, F& f)
{
    const int n = std::min(N, e.components);
    for (std::size_t i = 0; i < e.count; ++i) {
        const std::uint8_t* at = e.data + i * e.stride;
        glm::vec<N, float> v(0.0f);
        if constexpr (N == 4)
            v[3] = 1.0f; // RGB colours are opaque
        for (int c = 0; c < n; ++c)
            v[c] = componentValue<T>(at + c * sizeof(T), e.normalized);
        f(i, v);
    }
}

/// Calls f(i, v) for each element, v its first N components as floats (a missing fourth is 1).
template <int N, class F> void forEach(const Elements& e, F&& f)
{
    switch (e.componentType) {
    case TINYGLTF_COMPONENT_TYPE_FLOAT:
        forEachOf<N, float>(e, f);
        break;
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE:
        forEachOf<N, std::uint8_t>(e, f);
        break;
    case TINYGLTF_COMPONENT_TYPE_BYTE:
        forEachOf<N, std::int8_t>(e, f);
        break;
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT:
        forEachOf<N, std::uint16_t>(e, f);
        break;
    case TINYGLTF_COMPONENT_TYPE_SHORT:
        forEachOf<N, std::int16_t>(e, f);
        break;
    case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT:
        forEachOf<N, std::uint32_t>(e, f);
        break;
    default:
        forEachOf<N, std::int32_t>(e, f);
        break;
    }
}

// ---- the primitives the scene draws

/// Where one primitive's values come from: accessors checked in place, or its Draco mesh.
struct Source {
    std::size_t vertices = 0;
    bool triangles = true; ///< else points
    int mode = TINYGLTF_MODE_TRIANGLES;
    std::optional<Elements> position, normal, color, texcoord, indices;
    std::shared_ptr<const MeshData> draco; ///< KHR_draco_mesh_compression
    glm::vec4 factor{1.0f};                ///< the material's baseColorFactor
    int image = -1;                        ///< its base colour texture's image, or -1
    int texCoord = 0;                      ///< the TEXCOORD_n that texture uses

    bool hasNormals() const { return draco ? !draco->normals.empty() : normal.has_value(); }
    bool hasColors() const { return draco ? !draco->colors.empty() : color.has_value(); }
    bool hasTexcoords() const { return draco ? !draco->texcoords.empty() : texcoord.has_value(); }
    /// Its triangles once strips and fans are lists.
    std::size_t triangleCount() const
    {
        const std::size_t n = draco ? draco->indices.size() : (indices ? indices->count : vertices);
        if (draco || mode == TINYGLTF_MODE_TRIANGLES)
            return n / 3;
        return n >= 3 ? n - 2 : 0;
    }
};

/// A node's mesh placed in the scene.
struct Instance {
    std::size_t mesh = 0;
    glm::dmat4 transform{1.0};
};

/// Node `node`'s transform: its matrix, or its translation × rotation × scale.
glm::dmat4 localTransform(const tinygltf::Node& node)
{
    if (node.matrix.size() == 16) {
        glm::dmat4 m;
        for (int c = 0; c < 4; ++c)
            for (int r = 0; r < 4; ++r)
                m[c][r] = node.matrix[static_cast<std::size_t>(4 * c + r)];
        return m;
    }
    glm::dmat4 m(1.0);
    if (node.translation.size() == 3)
        m = glm::translate(
            m, glm::dvec3(node.translation[0], node.translation[1], node.translation[2]));
    if (node.rotation.size() == 4) // x, y, z, w
        m *= glm::mat4_cast(
            glm::dquat(node.rotation[3], node.rotation[0], node.rotation[1], node.rotation[2]));
    if (node.scale.size() == 3)
        m = glm::scale(m, glm::dvec3(node.scale[0], node.scale[1], node.scale[2]));
    return m;
}

/// The meshes the scene draws, each with its node's transform in the world: the default scene
/// (else the first), walked from its root nodes without recursion. A node reached a second time
/// (the node "tree" has a cycle, or a node with two parents, which glTF forbids) is skipped with
/// a warning. A file with meshes but no scene draws each mesh once.
Result<std::vector<Instance>> instancesOf(const Model& model, const std::string& name,
                                          std::vector<std::string>& warnings)
{
    std::vector<Instance> instances;
    std::vector<int> roots;
    if (model.scenes.empty()) {
        if (model.nodes.empty()) {
            for (std::size_t m = 0; m < model.meshes.size(); ++m)
                instances.push_back({m, glm::dmat4(1.0)});
            return instances;
        }
        // Nodes but no scene: every node no other names as a child is a root.
        std::vector<bool> child(model.nodes.size(), false);
        for (const tinygltf::Node& node : model.nodes)
            for (int c : node.children)
                if (c >= 0 && static_cast<std::size_t>(c) < child.size())
                    child[static_cast<std::size_t>(c)] = true;
        for (std::size_t n = 0; n < child.size(); ++n)
            if (!child[n])
                roots.push_back(static_cast<int>(n));
    } else {
        const std::size_t scene =
            model.defaultScene >= 0 &&
                    static_cast<std::size_t>(model.defaultScene) < model.scenes.size()
                ? static_cast<std::size_t>(model.defaultScene)
                : 0;
        roots = model.scenes[scene].nodes;
    }
    std::vector<bool> visited(model.nodes.size(), false);
    std::vector<std::pair<int, glm::dmat4>> stack;
    for (auto it = roots.rbegin(); it != roots.rend(); ++it)
        stack.emplace_back(*it, glm::dmat4(1.0));
    std::size_t revisits = 0;
    bool skinned = false;
    while (!stack.empty()) {
        auto [index, parent] = stack.back();
        stack.pop_back();
        if (index < 0 || static_cast<std::size_t>(index) >= model.nodes.size())
            return fail(fmt::format("{}: the scene names node {}; the file has {}", name, index,
                                    model.nodes.size()));
        if (visited[static_cast<std::size_t>(index)]) {
            ++revisits;
            continue;
        }
        visited[static_cast<std::size_t>(index)] = true;
        const tinygltf::Node& node = model.nodes[static_cast<std::size_t>(index)];
        const glm::dmat4 world = parent * localTransform(node);
        if (node.mesh >= 0) {
            if (static_cast<std::size_t>(node.mesh) >= model.meshes.size())
                return fail(fmt::format("{}: node {} names mesh {}; the file has {}", name, index,
                                        node.mesh, model.meshes.size()));
            instances.push_back({static_cast<std::size_t>(node.mesh), world});
            skinned = skinned || node.skin >= 0;
        }
        for (auto it = node.children.rbegin(); it != node.children.rend(); ++it)
            stack.emplace_back(*it, world);
    }
    if (revisits > 0)
        warnings.push_back(fmt::format("{}: {} nodes reached more than once (a node with two "
                                       "parents, or a cycle) drawn once",
                                       name, revisits));
    if (skinned)
        warnings.push_back(fmt::format("{}: skins are not applied: skinned meshes are drawn as "
                                       "their vertices lie",
                                       name));
    return instances;
}

/// The base colour texture's image for `material`, or -1 (no material, no texture).
int baseColorImage(const Model& model, int material, int* texCoord)
{
    *texCoord = 0;
    if (material < 0 || static_cast<std::size_t>(material) >= model.materials.size())
        return -1;
    const tinygltf::TextureInfo& info =
        model.materials[static_cast<std::size_t>(material)].pbrMetallicRoughness.baseColorTexture;
    if (info.index < 0 || static_cast<std::size_t>(info.index) >= model.textures.size())
        return -1;
    const int image = model.textures[static_cast<std::size_t>(info.index)].source;
    if (image < 0 || static_cast<std::size_t>(image) >= model.images.size())
        return -1;
    *texCoord = info.texCoord;
    return image;
}

/// Primitive `p` of mesh `m`, checked: its accessors (or its Draco data, decoded), its mode and
/// its material's colour and texture. Lines give an empty Source (vertices 0).
Result<Source> sourceOf(const Model& model, std::size_t m, std::size_t p, const std::string& name)
{
    const tinygltf::Primitive& primitive = model.meshes[m].primitives[p];
    const std::string what = fmt::format("{}: mesh {} primitive {}", name, m, p);
    Source s;
    s.mode = primitive.mode;
    switch (primitive.mode) {
    case TINYGLTF_MODE_POINTS:
        s.triangles = false;
        break;
    case TINYGLTF_MODE_TRIANGLES:
    case TINYGLTF_MODE_TRIANGLE_STRIP:
    case TINYGLTF_MODE_TRIANGLE_FAN:
        break;
    case TINYGLTF_MODE_LINE:
    case TINYGLTF_MODE_LINE_LOOP:
    case TINYGLTF_MODE_LINE_STRIP:
        return s;
    default:
        return fail(fmt::format("{}: mode {} is none glTF 2.0 has", what, primitive.mode));
    }
    if (primitive.material >= 0) {
        if (static_cast<std::size_t>(primitive.material) >= model.materials.size())
            return fail(fmt::format("{} names material {}; the file has {}", what,
                                    primitive.material, model.materials.size()));
        const auto& factor = model.materials[static_cast<std::size_t>(primitive.material)]
                                 .pbrMetallicRoughness.baseColorFactor;
        if (factor.size() == 4)
            for (int c = 0; c < 4; ++c)
                s.factor[c] =
                    std::clamp(static_cast<float>(factor[static_cast<std::size_t>(c)]), 0.0f, 1.0f);
        s.image = baseColorImage(model, primitive.material, &s.texCoord);
    }
    if (const auto draco = primitive.extensions.find(DracoExtension);
        draco != primitive.extensions.end()) {
        const tinygltf::Value& view = draco->second.Get("bufferView");
        if (!view.IsInt())
            return fail(fmt::format("{}: {} without a buffer view", what, DracoExtension));
        auto bytes = viewBytes(model, view.Get<int>(), what);
        if (!bytes)
            return fail(bytes.error());
        auto mesh = readDraco(bytes.value(), fmt::format("{} (Draco)", what));
        if (!mesh)
            return fail(mesh.error());
        if (s.triangles && primitive.mode != TINYGLTF_MODE_TRIANGLES)
            return fail(fmt::format("{}: Draco data for mode {}", what, primitive.mode));
        s.vertices = mesh.value().positions.size();
        s.draco = std::make_shared<const MeshData>(std::move(mesh.value()));
        if (s.triangles && s.draco->isPointCloud())
            return fail(fmt::format("{}: Draco data holds points where triangles are drawn", what));
        return s;
    }
    const auto attribute = [&](const char* semantic) {
        const auto it = primitive.attributes.find(semantic);
        return it == primitive.attributes.end() ? -1 : it->second;
    };
    const int position = attribute("POSITION");
    if (position < 0)
        return fail(fmt::format("{}: no POSITION", what));
    auto positions = elementsOf(model, position, what + " POSITION", {3});
    if (!positions)
        return fail(positions.error());
    s.position = positions.value();
    s.vertices = s.position->count;
    // The other attributes must give every vertex a value.
    const auto optional = [&](const char* semantic, std::initializer_list<int> counts,
                              std::optional<Elements>& out) -> Result<bool> {
        const int index = attribute(semantic);
        if (index < 0)
            return true;
        auto e = elementsOf(model, index, fmt::format("{} {}", what, semantic), counts);
        if (!e)
            return fail(e.error());
        if (e.value().count != s.vertices)
            return fail(fmt::format("{} {}: {} values for {} vertices", what, semantic,
                                    e.value().count, s.vertices));
        out = e.value();
        return true;
    };
    if (auto result = optional("NORMAL", {3}, s.normal); !result)
        return fail(result.error());
    if (auto result = optional("COLOR_0", {3, 4}, s.color); !result)
        return fail(result.error());
    const std::string texcoord = fmt::format("TEXCOORD_{}", s.texCoord);
    if (s.image >= 0)
        if (auto result = optional(texcoord.c_str(), {2}, s.texcoord); !result)
            return fail(result.error());
    if (primitive.indices >= 0) {
        auto indices = elementsOf(model, primitive.indices, what + " indices", {1});
        if (!indices)
            return fail(indices.error());
        const int type = indices.value().componentType;
        if (type != TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE &&
            type != TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT &&
            type != TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT)
            return fail(
                fmt::format("{} indices: component type {}, not an unsigned integer", what, type));
        s.indices = indices.value();
    }
    return s;
}

/// Source `s`'s triangles as a list of its own vertex indices (strips and fans unrolled), into
/// `out`. Fails on an index past its vertices.
Result<bool> triangleList(const Source& s, std::span<std::uint32_t> out, const std::string& what)
{
    if (s.draco) {
        std::copy_n(s.draco->indices.begin(), out.size(), out.begin());
        return true;
    }
    std::vector<std::uint32_t> given;
    if (s.indices) {
        const Elements& e = *s.indices;
        given.resize(e.count);
        for (std::size_t i = 0; i < e.count; ++i) {
            const std::uint8_t* at = e.data + i * e.stride;
            std::uint32_t index = 0;
            if (e.componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE)
                index = *at;
            else if (e.componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT)
                index = static_cast<std::uint32_t>(componentValue<std::uint16_t>(at, false));
            else
                std::memcpy(&index, at, sizeof index);
            if (index >= s.vertices)
                return fail(fmt::format("{}: index {} (number {}) past its {} vertices", what,
                                        index, i, s.vertices));
            given[i] = index;
        }
    }
    const auto at = [&](std::size_t i) {
        return s.indices ? given[i] : static_cast<std::uint32_t>(i);
    };
    const std::size_t triangles = s.triangleCount();
    for (std::size_t t = 0; t < triangles; ++t) {
        std::uint32_t* tri = out.data() + 3 * t;
        if (s.mode == TINYGLTF_MODE_TRIANGLE_STRIP) {
            // glTF 2.0 §3.7.2.1: {v_i, v_(i+1+i%2), v_(i+2-i%2)}, so every triangle turns one way.
            tri[0] = at(t);
            tri[1] = at(t + 1 + t % 2);
            tri[2] = at(t + 2 - t % 2);
        } else if (s.mode == TINYGLTF_MODE_TRIANGLE_FAN) {
            tri[0] = at(t + 1);
            tri[1] = at(t + 2);
            tri[2] = at(0);
        } else {
            tri[0] = at(3 * t);
            tri[1] = at(3 * t + 1);
            tri[2] = at(3 * t + 2);
        }
    }
    return true;
}

/// A linear colour in 0..1 as an sRGB byte (alpha stays linear).
glm::u8vec4 colorByte(const glm::vec4& linear)
{
    const auto alpha = [](float a) {
        return static_cast<std::uint8_t>(std::lround(std::clamp(a, 0.0f, 1.0f) * 255.0f));
    };
    return {linearToSrgb8(linear.r), linearToSrgb8(linear.g), linearToSrgb8(linear.b),
            alpha(linear.a)};
}

/// A URI's path with its percent escapes decoded ("texture%20one.png" is "texture one.png"); an
/// escape that is not two hex digits stays as it is.
std::string percentDecoded(const std::string& uri)
{
    const auto hex = [](char c) {
        return c >= '0' && c <= '9'   ? c - '0'
               : c >= 'a' && c <= 'f' ? c - 'a' + 10
               : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                      : -1;
    };
    std::string out;
    for (std::size_t i = 0; i < uri.size(); ++i) {
        if (uri[i] == '%' && i + 2 < uri.size() && hex(uri[i + 1]) >= 0 && hex(uri[i + 2]) >= 0) {
            out += static_cast<char>(16 * hex(uri[i + 1]) + hex(uri[i + 2]));
            i += 2;
        } else {
            out += uri[i];
        }
    }
    return out;
}

/// Byte colours (normalized: 0..255 is 0..1, linear) times a colour factor, as sRGB bytes (alpha
/// stays linear): one table a channel, so a frame's colours cost a lookup each, not a power.
class ByteColours {
public:
    explicit ByteColours(const glm::vec4& factor)
    {
        for (int v = 0; v < 256; ++v) {
            const glm::u8vec4 c = colorByte(factor * (static_cast<float>(v) / 255.0f));
            for (int k = 0; k < 4; ++k)
                m_table[static_cast<std::size_t>(k)][static_cast<std::size_t>(v)] = c[k];
        }
    }
    /// The colour of `components` (3 or 4; opaque with 3) bytes at `at`.
    glm::u8vec4 operator()(const std::uint8_t* at, int components) const
    {
        return {m_table[0][at[0]], m_table[1][at[1]], m_table[2][at[2]],
                m_table[3][components > 3 ? at[3] : 255]};
    }

private:
    std::array<std::array<std::uint8_t, 256>, 4> m_table;
};

/// The image `index` as pixels: from its (checked) buffer view or its data: URI's bytes; an
/// external file is left to io::loadMesh (`file` set).
Result<Image> textureOf(const Model& model, int index, const fs::path& folder,
                        const std::string& name, fs::path* file)
{
    const tinygltf::Image& image = model.images[static_cast<std::size_t>(index)];
    const std::string what = fmt::format("{}: image {}", name, index);
    if (image.bufferView >= 0) {
        auto bytes = viewBytes(model, image.bufferView, what);
        if (!bytes)
            return fail(bytes.error());
        return decodeImage(bytes.value(), what);
    }
    if (!image.image.empty())
        return decodeImage(image.image, what);
    if (image.uri.empty() || image.uri.starts_with("data:"))
        return fail(fmt::format("{}: no image data", what));
    const fs::path uri(percentDecoded(image.uri));
    if (!staysInFolder(uri) || image.uri.find("://") != std::string::npos)
        return fail(fmt::format("{}: '{}' is not a file in the glTF's folder", what, image.uri));
    *file = folder / uri;
    return Image{};
}

Result<MeshData> readModel(const Model& model, const std::string& name, const fs::path& folder,
                           std::uint64_t fileBytes)
{
    for (const std::string& extension : model.extensionsRequired)
        if (std::find(ReadExtensions.begin(), ReadExtensions.end(), extension) ==
            ReadExtensions.end())
            return fail(fmt::format("{}: requires the glTF extension {}, which tandem does not "
                                    "read",
                                    name, extension));
    std::vector<std::string> warnings;
    auto instances = instancesOf(model, name, warnings);
    if (!instances)
        return fail(instances.error());

    // Each primitive of each mesh the scene draws, checked once.
    std::vector<std::vector<std::optional<Source>>> sources(model.meshes.size());
    for (const Instance& instance : instances.value()) {
        auto& mesh = sources[instance.mesh];
        if (!mesh.empty())
            continue;
        mesh.resize(model.meshes[instance.mesh].primitives.size());
        for (std::size_t p = 0; p < mesh.size(); ++p) {
            auto source = sourceOf(model, instance.mesh, p, name);
            if (!source)
                return fail(source.error());
            mesh[p] = std::move(source.value());
        }
    }

    // What the one MeshData holds: triangles if any primitive has them, else points.
    std::size_t lines = 0, points = 0, triangles = 0, morphs = 0;
    for (std::size_t m = 0; m < sources.size(); ++m)
        for (std::size_t p = 0; p < sources[m].size(); ++p) {
            const Source& s = *sources[m][p];
            if (s.vertices == 0 && !s.draco)
                ++lines;
            else if (s.triangles)
                ++triangles;
            else
                ++points;
            morphs += model.meshes[m].primitives[p].targets.empty() ? 0 : 1;
        }
    const bool mesh = triangles > 0;
    if (lines > 0)
        warnings.push_back(fmt::format("{}: {} line primitives are not drawn", name, lines));
    if (mesh && points > 0)
        warnings.push_back(
            fmt::format("{}: {} point primitives are not drawn beside triangles", name, points));
    if (morphs > 0)
        warnings.push_back(fmt::format("{}: morph targets are not applied: {} primitives are "
                                       "drawn as their base vertices lie",
                                       name, morphs));
    const auto drawn = [&](const Source& s) {
        return (s.vertices > 0 || s.draco) && s.triangles == mesh;
    };

    // Counts, and which attributes the MeshData carries.
    std::uint64_t vertexCount = 0, indexCount = 0;
    bool normals = mesh, colors = false, textured = mesh;
    std::vector<int> images;
    std::uint64_t bufferBytes = fileBytes;
    for (const tinygltf::Buffer& buffer : model.buffers)
        bufferBytes += buffer.data.size();
    for (const Instance& instance : instances.value())
        for (const auto& source : sources[instance.mesh]) {
            const Source& s = *source;
            if (!drawn(s))
                continue;
            vertexCount += s.vertices;
            indexCount += 3 * static_cast<std::uint64_t>(mesh ? s.triangleCount() : 0);
            normals = normals || s.hasNormals();
            colors = colors || s.hasColors() || s.factor != glm::vec4(1.0f);
            if (std::find(images.begin(), images.end(), s.image) == images.end())
                images.push_back(s.image);
            textured = textured && s.image >= 0 && s.hasTexcoords();
        }
    if (vertexCount > MaxGltfVerticesPerByte * bufferBytes)
        return fail(fmt::format("{}: its scene draws {} vertices from {} bytes (at most {} a "
                                "byte are read)",
                                name, vertexCount, bufferBytes, MaxGltfVerticesPerByte));
    if (indexCount > 3 * MaxGltfVerticesPerByte * bufferBytes)
        return fail(fmt::format("{}: its scene draws {} triangles from {} bytes (at most {} a "
                                "byte are read)",
                                name, indexCount / 3, bufferBytes, MaxGltfVerticesPerByte));
    if (vertexCount > std::numeric_limits<std::uint32_t>::max() ||
        indexCount > std::numeric_limits<std::uint32_t>::max() * std::uint64_t{3})
        return fail(fmt::format("{}: {} vertices is more than one mesh holds", name, vertexCount));
    if (vertexCount == 0)
        return fail(fmt::format("{}: nothing to draw (no triangles or points in its scene)", name));
    if (mesh && images.size() > 1)
        warnings.push_back(fmt::format("{}: its base colour textures are not drawn: tandem draws "
                                       "one texture a mesh, and its triangles use {} (untextured "
                                       "counted as one)",
                                       name, images.size()));
    else if (mesh && !textured && images[0] >= 0)
        warnings.push_back(fmt::format("{}: its base colour texture is not drawn: some of its "
                                       "triangles have no texture coordinates for it",
                                       name));
    textured = textured && images.size() == 1;

    MeshData out;
    out.positions.resize(vertexCount);
    if (normals)
        out.normals.resize(vertexCount);
    if (colors)
        out.colors.resize(vertexCount);
    if (textured)
        out.texcoords.resize(vertexCount);
    out.indices.resize(indexCount);
    std::size_t base = 0, indexBase = 0;
    for (const Instance& instance : instances.value())
        for (std::size_t p = 0; p < sources[instance.mesh].size(); ++p) {
            const Source& s = *sources[instance.mesh][p];
            if (!drawn(s))
                continue;
            const std::string what =
                fmt::format("{}: mesh {} primitive {}", name, instance.mesh, p);
            const glm::mat4 transform(instance.transform);
            const bool identity = instance.transform == glm::dmat4(1.0);
            const glm::mat3 normalTransform(
                glm::transpose(glm::inverse(glm::dmat3(instance.transform))));
            glm::vec3* positions = out.positions.data() + base;
            if (s.draco && identity) {
                std::copy_n(s.draco->positions.begin(), s.vertices, positions);
            } else if (s.draco) {
                for (std::size_t i = 0; i < s.vertices; ++i)
                    positions[i] = glm::vec3(transform * glm::vec4(s.draco->positions[i], 1.0f));
            } else if (identity) {
                forEach<3>(*s.position,
                           [&](std::size_t i, const glm::vec3& v) { positions[i] = v; });
            } else {
                forEach<3>(*s.position, [&](std::size_t i, const glm::vec3& v) {
                    positions[i] = glm::vec3(transform * glm::vec4(v, 1.0f));
                });
            }
            if (normals && s.hasNormals()) {
                glm::vec3* n = out.normals.data() + base;
                const auto place = [&](std::size_t i, const glm::vec3& v) {
                    const glm::vec3 t = normalTransform * v;
                    const float length = glm::length(t);
                    n[i] = std::isfinite(length) && length > 0 ? t / length : glm::vec3(0, 0, 1);
                };
                if (s.draco)
                    for (std::size_t i = 0; i < s.vertices; ++i)
                        place(i, s.draco->normals[i]);
                else
                    forEach<3>(*s.normal, place);
            } else if (normals && !mesh) {
                std::fill_n(out.normals.data() + base, s.vertices, glm::vec3(0, 0, 1));
            }
            if (colors) {
                glm::u8vec4* c = out.colors.data() + base;
                if (!s.hasColors()) {
                    std::fill_n(c, s.vertices, colorByte(s.factor));
                } else if (s.draco) {
                    const ByteColours table(s.factor);
                    for (std::size_t i = 0; i < s.vertices; ++i)
                        c[i] = table(&s.draco->colors[i][0], 4);
                } else if (s.color->componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE) {
                    const ByteColours table(s.factor);
                    for (std::size_t i = 0; i < s.vertices; ++i)
                        c[i] = table(s.color->data + i * s.color->stride, s.color->components);
                } else {
                    forEach<4>(*s.color, [&](std::size_t i, const glm::vec4& v) {
                        c[i] = colorByte(s.factor * v);
                    });
                }
            }
            if (textured) {
                glm::vec2* t = out.texcoords.data() + base;
                // glTF's (0, 0) is the image's top left; tandem's, as OBJ's, its bottom left.
                if (s.draco)
                    for (std::size_t i = 0; i < s.vertices; ++i)
                        t[i] = {s.draco->texcoords[i].x, 1.0f - s.draco->texcoords[i].y};
                else
                    forEach<2>(*s.texcoord, [&](std::size_t i, const glm::vec2& v) {
                        t[i] = {v.x, 1.0f - v.y};
                    });
            }
            if (mesh) {
                const std::size_t count = 3 * s.triangleCount();
                const std::span<std::uint32_t> tris(out.indices.data() + indexBase, count);
                if (auto listed = triangleList(s, tris, what); !listed)
                    return fail(listed.error());
                // A mirroring transform turns triangles inside out: wind them back (before
                // normals are made from them, so those face out too).
                if (glm::determinant(glm::dmat3(instance.transform)) < 0.0)
                    for (std::size_t i = 0; i < count; i += 3)
                        std::swap(tris[i + 1], tris[i + 2]);
                if (!s.hasNormals())
                    computeVertexNormals(
                        std::span<const glm::vec3>(positions, s.vertices), tris,
                        std::span<glm::vec3>(out.normals.data() + base, s.vertices));
                for (std::uint32_t& index : tris)
                    index += static_cast<std::uint32_t>(base);
                indexBase += count;
            }
            base += s.vertices;
        }

    if (textured) {
        fs::path file;
        auto texture = textureOf(model, images[0], folder, name, &file);
        if (!texture) {
            warnings.push_back(
                fmt::format("{}: its texture is not drawn: {}", name, texture.error()));
            out.texcoords.clear();
        } else {
            out.texture = std::move(texture.value());
            out.textureFile = file;
        }
    }
    const DroppedVertices dropped = dropUnusableVertices(out);
    if (dropped.any())
        warnings.push_back(droppedWarning(name, dropped));
    if (out.positions.empty())
        return fail(fmt::format("{}: nothing left to draw: every point is unusable", name));
    Result<MeshData> result(std::move(out));
    for (std::string& warning : warnings)
        result.addWarning(std::move(warning));
    return result;
}

} // namespace

namespace {

/// The JSON of a glTF: a GLB's first chunk (when its header says where it lies), else all of it.
std::string_view jsonOf(std::span<const std::uint8_t> bytes)
{
    const auto* text = reinterpret_cast<const char*>(bytes.data());
    if (!isGlb(bytes))
        return {text, bytes.size()};
    if (bytes.size() < 20)
        return {};
    std::uint32_t length = 0;
    std::memcpy(&length, bytes.data() + 12, sizeof length);
    return {text + 20, std::min<std::size_t>(length, bytes.size() - 20)};
}

} // namespace

bool isGlb(std::span<const std::uint8_t> bytes)
{
    return bytes.size() >= 4 && std::memcmp(bytes.data(), "glTF", 4) == 0;
}

Result<MeshData> readGltf(std::span<const std::uint8_t> bytes, const std::string& name,
                          const fs::path& folder)
{
    if (bytes.empty())
        return fail(fmt::format("{}: empty file", name));
    if (bytes.size() > std::numeric_limits<unsigned int>::max())
        return fail(
            fmt::format("{}: {} bytes is more than tinygltf reads (4 GiB)", name, bytes.size()));
    // tinygltf copies extras and extensions by recursion, a level of the stack a level of JSON:
    // a file nesting its arrays 100 000 deep would overflow the stack, which no check can catch.
    if (const std::size_t depth = jsonNestingDepth(jsonOf(bytes), MaxGltfJsonDepth);
        depth > MaxGltfJsonDepth)
        return fail(
            fmt::format("{}: its JSON nests more than {} levels deep", name, MaxGltfJsonDepth));
    FileAccess access{(folder.empty() ? fs::path(".") : folder).string()};
    if (!access.folder.ends_with('/'))
        access.folder += '/';
    tinygltf::TinyGLTF loader;
    loader.SetFsCallbacks({&fileExists, &expandFilePath, &readWholeFile, &writeWholeFile, &access});
    loader.SetImageLoader(&keepImageBytes, nullptr);
    Model model;
    std::string error, warning;
    bool loaded = false;
    try {
        const auto size = static_cast<unsigned int>(bytes.size());
        const std::string base = access.folder.substr(0, access.folder.size() - 1);
        loaded =
            isGlb(bytes)
                ? loader.LoadBinaryFromMemory(&model, &error, &warning, bytes.data(), size, base)
                : loader.LoadASCIIFromString(&model, &error, &warning,
                                             reinterpret_cast<const char*>(bytes.data()), size,
                                             base);
    } catch (const std::exception& e) {
        return fail(fmt::format("{}: not a glTF file tandem can read: {}", name, e.what()));
    }
    if (!loaded)
        return fail(fmt::format("{}: not a glTF file tandem can read: {}", name,
                                error.empty() ? "tinygltf gave no reason" : oneLine(error)));
    try {
        auto result = readModel(model, name, folder, bytes.size());
        if (result && !warning.empty())
            result.addWarning(fmt::format("{}: {}", name, oneLine(warning)));
        return result;
    } catch (const std::bad_alloc&) {
        return fail(fmt::format("{}: out of memory while reading it", name));
    } catch (const std::exception& e) {
        return fail(fmt::format("{}: cannot be read: {}", name, e.what()));
    }
}

Result<MeshData> readGltf(const fs::path& path)
{
    auto bytes = readFile(path);
    if (!bytes)
        return fail(bytes.error());
    return readGltf(bytes.value(), path.string(), path.parent_path());
}

} // namespace tandem::io
