// Fuzz targets: each takes one input of arbitrary bytes to a reader tandem exposes to files from
// elsewhere, and must end in a value or a failure, never a crash, a hang or undefined behaviour.
// Linked into the libFuzzer executables (FuzzMain.cpp, the sanitize preset) and into the unit
// tests, which replay every committed regression input (tests/fuzz/regressions/<target>/).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tandem::fuzz {

/// io::readPly on the bytes (header and body, ascii and binary; a byte-order mark, packed
/// colours, non-finite and far points dropped), a chunk at a time and value by value, and
/// stream::loadPlyPoints where it takes them: all must agree (comparePlyReaders()), else it
/// aborts.
int ply(const std::uint8_t* data, std::size_t size);
/// io::loadMesh on the bytes as an .obj file (tandem's one-pass reader, the
/// material libraries it names, their textures).
int obj(const std::uint8_t* data, std::size_t size);
/// io::parseMtl on the bytes, then io::loadMesh of a textured quad whose mtllib is the bytes
/// and whose faces use their first material: the texture's name resolved and read as for an
/// OBJ from Blender.
int mtl(const std::uint8_t* data, std::size_t size);
/// stream::openFileSequence on the bytes as a JSON sequence manifest.
int manifest(const std::uint8_t* data, std::size_t size);
/// io::readCameraPath on the bytes as a camera-path JSON file.
int cameraPath(const std::uint8_t* data, std::size_t size);
/// The bytes as a .tdpk pack, their checksums made to match first (else every mutation would
/// stop at the first CRC): readPackInfo, verifyPack, openPack, and every frame loaded and
/// viewed as the viewer would.
int pack(const std::uint8_t* data, std::size_t size);
/// postfx::parseChain on the bytes as a --postfx argument.
int chain(const std::uint8_t* data, std::size_t size);
/// io::readGaussianPly, io::readSplat, io::readCompressedPly and io::readSpz on the bytes (a 3DGS
/// or compressed PLY's header and body; .splat records; a gzip stream holding an SPZ).
int gaussians(const std::uint8_t* data, std::size_t size);
/// io::readCwipcDump on the bytes (a CWIPC point-cloud dump's header and points).
int cwipc(const std::uint8_t* data, std::size_t size);
/// io::readDraco on the bytes (a Draco point cloud or mesh: libdraco's decoder, tandem's checks
/// before it and its reading of the attributes after).
int draco(const std::uint8_t* data, std::size_t size);
/// io::readGltf on the bytes (GLB, or glTF's JSON with its buffers in data: URIs; no file is
/// read): tinygltf's parser, then tandem's checks of every accessor, view, index and node.
int gltf(const std::uint8_t* data, std::size_t size);
/// web::parseClientMessage and web::readFrameMessage on the bytes: what a browser (or anyone
/// who has the token) may send the server. Built with the browser view only (TANDEM_SERVE).
int clientMessage(const std::uint8_t* data, std::size_t size);

/// The target named `name` ("ply", "obj", "mtl", "manifest", "camera_path", "pack", "chain",
/// "gaussians", "cwipc", "draco", "gltf", and "client_message" where the build has the browser
/// view), or null.
using Target = int (*)(const std::uint8_t*, std::size_t);
Target targetNamed(std::string_view name);

} // namespace tandem::fuzz
