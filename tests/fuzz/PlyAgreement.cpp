#include "tests/fuzz/PlyAgreement.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <utility>
#include <vector>

#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/core/File.h"
#include "engine/io/GaussianTransform.h"
#include "engine/io/PlyReader.h"
#include "engine/render/Scene.h"
#include "engine/render/SceneTexture.h"
#include "engine/stream/Block.h"
#include "engine/stream/PlyPoints.h"

namespace tandem::fuzz {

namespace {

template <class T> bool sameBits(const std::vector<T>& a, const std::vector<T>& b)
{
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

template <class T> std::string disagree(const Result<T>& a, const Result<T>& b, const char* what,
                                        bool (*same)(const T&, const T&))
{
    if (bool(a) != bool(b))
        return fmt::format("{}: one failed ({}), the other did not", what,
                           a ? b.error() : a.error());
    if (!a)
        return a.error() == b.error() ? std::string()
                                      : fmt::format("{}: failures differ: \"{}\" and \"{}\"", what,
                                                    a.error(), b.error());
    if (a.warnings() != b.warnings())
        return fmt::format("{}: warnings differ: {} and {}", what, a.warnings(), b.warnings());
    return same(a.value(), b.value()) ? std::string() : fmt::format("{}: contents differ", what);
}

bool sameMesh(const io::MeshData& a, const io::MeshData& b)
{
    return sameBits(a.positions, b.positions) && sameBits(a.normals, b.normals) &&
           sameBits(a.colors, b.colors) && sameBits(a.texcoords, b.texcoords) &&
           a.indices == b.indices && a.textureFile == b.textureFile;
}

bool sameBlock(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b)
{
    return a == b;
}

/// A block in `storage`, as a loader writes it into staging memory.
stream::BlockSink sinkInto(std::vector<std::uint8_t>& storage)
{
    return [&storage](std::size_t bytes) {
        storage.assign(bytes, 0xcd); // not zero: padding left unwritten would show
        return std::span<std::uint8_t>(storage);
    };
}

Result<std::vector<std::uint8_t>> copied(Result<std::span<const std::uint8_t>> block)
{
    if (!block)
        return fail(block.error());
    Result<std::vector<std::uint8_t>> out(
        std::vector<std::uint8_t>(block.value().begin(), block.value().end()));
    for (const std::string& warning : block.warnings())
        out.addWarning(warning);
    return out;
}

/// FolderSource's block of the cloud readPly gives (io::loadMesh adds nothing to a point cloud
/// without a texture, which loadPlyPoints requires).
Result<std::vector<std::uint8_t>> referenceBlock(std::span<const std::uint8_t> bytes,
                                                 const std::string& name, const glm::dmat3& turn)
{
    auto mesh = io::readPly(bytes, name, io::PlyDecoding::ValueByValue);
    if (!mesh)
        return fail(mesh.error());
    if (turn != glm::dmat3(1.0))
        io::turnMesh(mesh.value(), turn);
    render::Scene scene;
    if (auto added = render::addObject(scene, {name, std::move(mesh.value())}); !added)
        return fail(added.error());
    std::vector<std::uint8_t> storage;
    auto block = copied(stream::blockFromScene(scene, sinkInto(storage), name));
    if (!block)
        return block;
    Result<std::vector<std::uint8_t>> out(std::move(block.value()));
    for (const std::string& warning : mesh.warnings())
        out.addWarning(warning);
    return out;
}

/// stream::loadPlyPoints of `bytes` written to a file and read through a FileReader that has its
/// first `prefix` bytes in already (as FolderSource reads a header first): nothing where it does
/// not take the file.
std::optional<Result<std::vector<std::uint8_t>>> fromFile(std::span<const std::uint8_t> bytes,
                                                          std::size_t prefix,
                                                          const std::string& name,
                                                          const glm::dmat3& turn)
{
    // One file a process, removed at its exit.
    struct Scratch {
        std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     fmt::format("tandem-ply-agreement-{}.ply", ::getpid());
        ~Scratch() { std::filesystem::remove(path); }
    };
    static const Scratch scratch;
    {
        std::ofstream out(scratch.path, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(bytes.data()),
                  static_cast<std::streamsize>(bytes.size()));
        if (!out)
            return Result<std::vector<std::uint8_t>>(
                fail(fmt::format("{}: cannot write", scratch.path.string())));
    }
    std::vector<std::uint8_t> buffer;
    auto reader = FileReader::open(scratch.path, buffer);
    if (!reader)
        return Result<std::vector<std::uint8_t>>(fail(reader.error()));
    if (!reader.value().readTo(prefix))
        return Result<std::vector<std::uint8_t>>(fail("the scratch file ended early"));
    std::vector<std::uint8_t> storage;
    auto block = stream::loadPlyPoints(reader.value(), name, turn, sinkInto(storage));
    if (!block)
        return std::nullopt;
    return copied(std::move(*block));
}

} // namespace

PlyAgreement comparePlyReaders(std::span<const std::uint8_t> bytes, const std::string& name)
{
    PlyAgreement agreement;
    agreement.disagreement =
        disagree(io::readPly(bytes, name, io::PlyDecoding::Fast),
                 io::readPly(bytes, name, io::PlyDecoding::ValueByValue), "readPly", sameMesh);
    if (!agreement.disagreement.empty())
        return agreement;
    for (const glm::dmat3& turn : {glm::dmat3(1.0), io::upTurn(io::UpAxis::PlusZ)}) {
        std::vector<std::uint8_t> storage;
        auto direct = stream::loadPlyPoints(bytes, name, turn, sinkInto(storage));
        std::optional<Result<std::vector<std::uint8_t>>> block;
        if (direct)
            block = copied(std::move(*direct));
        // The same from the file, read a piece at a time after the first bytes: none of them,
        // a third of the file, as many as FolderSource reads first.
        for (std::size_t prefix : {std::size_t{0}, bytes.size() / 3, std::size_t{64} << 10}) {
            auto again = fromFile(bytes, prefix, name, turn);
            const std::string what = fmt::format("loadPlyPoints from a file ({} bytes first)",
                                                 std::min(prefix, bytes.size()));
            if (again.has_value() != block.has_value())
                agreement.disagreement =
                    fmt::format("{}: {} the file, read whole it {}", what,
                                again ? "took" : "did not take", block ? "was" : "was not");
            else if (block)
                agreement.disagreement = disagree(*again, *block, what.c_str(), sameBlock);
            if (!agreement.disagreement.empty())
                return agreement;
        }
        if (!block)
            return agreement;
        agreement.pointsTaken = true;
        agreement.disagreement =
            disagree(*block, referenceBlock(bytes, name, turn), "loadPlyPoints", sameBlock);
        if (!agreement.disagreement.empty())
            return agreement;
    }
    return agreement;
}

} // namespace tandem::fuzz
