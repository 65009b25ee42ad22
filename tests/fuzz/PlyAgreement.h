// Whether tandem's ways of reading one PLY file agree (tests and the ply fuzz target): io::readPly
// a chunk at a time against value by value, and a point cloud decoded straight into its frame
// block (stream::loadPlyPoints) against the block written from readPly's cloud. Host only.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace tandem::fuzz {

struct PlyAgreement {
    /// Empty when they agree; else what differs, first.
    std::string disagreement;
    /// stream::loadPlyPoints took the file (else FolderSource reads it through io::loadMesh).
    bool pointsTaken = false;
};

/// Reads `bytes` (the file `name`) every way: io::readPly fast and value by value must give the
/// same mesh bit for bit with the same warnings, or the same failure; where
/// stream::loadPlyPoints takes the file, its block (unturned, and turned z-up) must be byte for
/// byte the one FolderSource writes from readPly's cloud, with the same warnings.
PlyAgreement comparePlyReaders(std::span<const std::uint8_t> bytes, const std::string& name);

} // namespace tandem::fuzz
