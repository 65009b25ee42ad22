// The frame files tandem-bench stream reads back, written from the built-in sample as the tools
// that hand such files out would write them: PLY (binary or ASCII, float positions and normals,
// byte colours), Draco (libdraco's encoder at draco_encoder's defaults), GLB (one POINTS or
// triangle primitive: float positions and normals, normalized byte colours) and OBJ (v with
// colours, vn, f). Throws Error when a file cannot be written.
#pragma once

#include <filesystem>

#include "engine/io/MeshData.h"

namespace tandem::bench {

void writePly(const std::filesystem::path& path, const io::MeshData& mesh, bool ascii);
void writeDraco(const std::filesystem::path& path, const io::MeshData& mesh);
void writeGlb(const std::filesystem::path& path, const io::MeshData& mesh);
void writeObj(const std::filesystem::path& path, const io::MeshData& mesh);

} // namespace tandem::bench
