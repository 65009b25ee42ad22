#include "tests/fuzz/Targets.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <vector>

#include "engine/io/CameraPath.h"
#include "engine/io/CwipcReader.h"
#include "engine/io/DracoReader.h"
#include "engine/io/GaussianReader.h"
#include "engine/io/GltfReader.h"
#include "engine/io/MeshLoader.h"
#include "engine/io/MtlReader.h"
#include "engine/io/PlyReader.h"
#include "engine/postfx/Chain.h"
#include "engine/stream/Block.h"
#include "engine/stream/FolderSource.h"
#include "engine/stream/Pack.h"
#include "tests/fuzz/PlyAgreement.h"

namespace tandem::fuzz {

namespace fs = std::filesystem;

namespace {

/// A folder of this process's own for inputs that readers take as files, made once.
const fs::path& scratch()
{
    static const fs::path folder = [] {
        fs::path p = fs::temp_directory_path() / ("tandem-fuzz-" + std::to_string(::getpid()));
        fs::create_directories(p);
        return p;
    }();
    return folder;
}

/// Writes the input to `name` in the scratch folder and returns its path.
fs::path asFile(const std::uint8_t* data, std::size_t size, const char* name)
{
    const fs::path path = scratch() / name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    return path;
}

std::uint32_t crc32(const std::uint8_t* data, std::size_t size)
{
    return stream::packCrc32({data, size});
}

/// Makes the pack's checksums (frames, index, header) and its stated file size match the
/// bytes, where the header and index say where those are and that lies inside the bytes.
void fixChecksums(std::vector<std::uint8_t>& bytes)
{
    using stream::PackEntry;
    using stream::PackHeader;
    if (bytes.size() < sizeof(PackHeader))
        return;
    PackHeader h;
    std::memcpy(&h, bytes.data(), sizeof(h));
    const std::uint64_t size = bytes.size();
    if (h.indexOffset <= size && h.indexBytes <= size - h.indexOffset) {
        const std::uint64_t entries =
            std::min<std::uint64_t>(h.frameCount, h.indexBytes / sizeof(PackEntry));
        for (std::uint64_t i = 0; i < entries; ++i) {
            PackEntry e;
            std::uint8_t* at = bytes.data() + h.indexOffset + i * sizeof(PackEntry);
            std::memcpy(&e, at, sizeof(e));
            if (e.offset <= size && e.storedBytes <= size - e.offset) {
                e.crc = crc32(bytes.data() + e.offset, e.storedBytes);
                std::memcpy(at, &e, sizeof(e));
            }
        }
        h.indexCrc = crc32(bytes.data() + h.indexOffset, h.indexBytes);
    }
    h.fileBytes = size;
    h.headerCrc = 0;
    h.headerCrc = crc32(reinterpret_cast<const std::uint8_t*>(&h), sizeof(h));
    std::memcpy(bytes.data(), &h, sizeof(h));
}

} // namespace

int ply(const std::uint8_t* data, std::size_t size)
{
    // Every way of reading it must agree: a difference is a bug, as a crash is.
    const PlyAgreement agreement =
        comparePlyReaders(std::span<const std::uint8_t>(data, size), "fuzz.ply");
    if (!agreement.disagreement.empty()) {
        std::fprintf(stderr, "fuzz.ply: the PLY readers disagree: %s\n",
                     agreement.disagreement.c_str());
        std::abort();
    }
    return 0;
}

int obj(const std::uint8_t* data, std::size_t size)
{
    (void)io::loadMesh(asFile(data, size, "fuzz.obj"));
    return 0;
}

int mtl(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto parsed = io::parseMtl(text, "fuzz.mtl");
    asFile(data, size, "fuzz.mtl");
    const std::string material = parsed.value().empty() ? "none" : parsed.value()[0].name;
    const std::string quad = "mtllib fuzz.mtl\nusemtl " + material +
                             "\nv 0 0 0\nv 1 0 0\nv 1 1 0\nvt 0 0\nvt 1 0\nvt 1 1\n"
                             "f 1/1 2/2 3/3\n";
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(quad.data());
    (void)io::loadMesh(asFile(bytes, quad.size(), "fuzz_mtl.obj"));
    return 0;
}

int manifest(const std::uint8_t* data, std::size_t size)
{
    (void)stream::openFileSequence(asFile(data, size, "fuzz.json").string(), {});
    return 0;
}

int cameraPath(const std::uint8_t* data, std::size_t size)
{
    (void)io::readCameraPath(asFile(data, size, "fuzz_path.json"));
    return 0;
}

int pack(const std::uint8_t* data, std::size_t size)
{
    std::vector<std::uint8_t> bytes(data, data + size);
    fixChecksums(bytes);
    const fs::path path = asFile(bytes.data(), bytes.size(), "fuzz.tdpk");
    // What a viewer's loaders and player, and --verify, do with each frame, in a budget of
    // 64 MiB a frame (libFuzzer stops at an allocation over its memory limit).
    constexpr std::size_t Budget = std::size_t{64} << 20;
    (void)stream::readPackInfo(path);
    (void)stream::verifyPack(path, {}, Budget);
    auto opened = stream::openPack(path);
    if (!opened)
        return 0;
    const stream::Source& source = *opened.value();
    std::vector<std::uint8_t> staging;
    for (int i = 0; i < std::min(source.frameCount(), 64); ++i) {
        auto block = source.load(i, [&](std::size_t bytes) {
            if (bytes > Budget)
                return std::span<std::uint8_t>();
            staging.resize(bytes);
            return std::span<std::uint8_t>(staging);
        });
        if (block)
            (void)stream::viewBlock(block.value(), source.frameName(i));
    }
    return 0;
}

int chain(const std::uint8_t* data, std::size_t size)
{
    (void)postfx::parseChain(std::string_view(reinterpret_cast<const char*>(data), size));
    return 0;
}

int gaussians(const std::uint8_t* data, std::size_t size)
{
    const std::span<const std::uint8_t> bytes(data, size);
    (void)io::readGaussianPly(bytes, "fuzz.ply");
    (void)io::readSplat(bytes, "fuzz.splat");
    (void)io::readCompressedPly(bytes, "fuzz.ply");
    (void)io::readSpz(bytes, "fuzz.spz");
    return 0;
}

int cwipc(const std::uint8_t* data, std::size_t size)
{
    (void)io::readCwipcDump(std::span<const std::uint8_t>(data, size), "fuzz.cwipcdump");
    return 0;
}

int draco(const std::uint8_t* data, std::size_t size)
{
    (void)io::readDraco(std::span<const std::uint8_t>(data, size), "fuzz.drc");
    return 0;
}

int gltf(const std::uint8_t* data, std::size_t size)
{
    // A folder that does not exist: a URI naming a file is not found, nothing is read from disk.
    (void)io::readGltf(std::span<const std::uint8_t>(data, size), "fuzz.glb",
                       "/nonexistent/tandem-fuzz");
    return 0;
}

Target targetNamed(std::string_view name)
{
    if (name == "ply")
        return ply;
    if (name == "obj")
        return obj;
    if (name == "mtl")
        return mtl;
    if (name == "manifest")
        return manifest;
    if (name == "camera_path")
        return cameraPath;
    if (name == "pack")
        return pack;
    if (name == "chain")
        return chain;
    if (name == "gaussians")
        return gaussians;
    if (name == "cwipc")
        return cwipc;
    if (name == "draco")
        return draco;
    if (name == "gltf")
        return gltf;
#ifdef TANDEM_FUZZ_WEB
    if (name == "client_message")
        return clientMessage;
#endif
    return nullptr;
}

} // namespace tandem::fuzz
