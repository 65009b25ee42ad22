// A PLY point-cloud frame decoded straight into its frame block: io::PlyPointReader a chunk of
// points at a time, turned, packed as compact points, so the cloud is never held whole as
// io::MeshData and laid out a second time. The files it does not take go through io::loadMesh
// (FolderSource). No GL, any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include <glm/glm.hpp>

#include "engine/core/File.h"
#include "engine/core/Result.h"
#include "engine/stream/Source.h"

namespace tandem::stream {

/// The block of the point cloud in `bytes` (the PLY file `name`), turned by `turn`, in memory
/// from `sink`, with readPly's warnings: byte for byte the block FolderSource writes from
/// io::loadMesh's cloud, points that are not usable dropped with its warning. Nothing where
/// that path must read the file (io::PlyPointReader's cases: faces, lists, a texture comment, a
/// value it cannot read; or no point left); a failure when the block of all the file's points
/// does not fit the sink. With `arrive`, `bytes` is the file as it is being read: arrive(n) reads
/// on until its first n bytes are in (false: it ended first, and nothing is returned), called
/// before the points in them are decoded.
std::optional<Result<std::span<const std::uint8_t>>>
loadPlyPoints(std::span<const std::uint8_t> bytes, const std::string& name, const glm::dmat3& turn,
              const BlockSink& sink, const std::function<bool(std::size_t)>& arrive = {});

/// The same for the file `file` reads, its header in file.start(): a binary body read a piece at
/// a time into a small buffer and decoded from there, nothing of it into file's buffer (a read
/// into memory the cache holds ran four times as fast); an ascii one read whole, as it is
/// decoded. What the file grew by while it was read is not looked at (FileReader::grew()).
std::optional<Result<std::span<const std::uint8_t>>> loadPlyPoints(FileReader& file,
                                                                   const std::string& name,
                                                                   const glm::dmat3& turn,
                                                                   const BlockSink& sink);

} // namespace tandem::stream
