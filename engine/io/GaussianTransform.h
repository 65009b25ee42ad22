// Turning a scene read from files: a rotation applied to Gaussians (centres, orientations, and
// their view-dependent colour: each SH degree's coefficients turned with it) and to meshes and
// point clouds (positions, normals), so a scene stored in another frame (COLMAP's y down, a z-up
// capture) is shown upright. Any thread.
#pragma once

#include <span>

#include <glm/glm.hpp>

#include "engine/core/EnumTable.h"
#include "engine/io/GaussianData.h"
#include "engine/io/MeshData.h"

namespace tandem::io {

/// Which axis of the files points up (the apps' --up): the scene is turned so it points up on
/// screen (a COLMAP or 3DGS training scene: -y; a z-up capture: z).
enum class UpAxis { PlusY, MinusY, PlusZ, MinusZ, PlusX, MinusX };
inline constexpr EnumTable<UpAxis, 6> UpAxes{
    "up axis",
    {{{UpAxis::PlusY, "y", "as stored"},
      {UpAxis::MinusY, "-y", "y down (COLMAP, 3DGS training): turned 180 degrees about x"},
      {UpAxis::PlusZ, "z", "z up: turned -90 degrees about x"},
      {UpAxis::MinusZ, "-z", "z down: turned 90 degrees about x"},
      {UpAxis::PlusX, "x", "x up: turned 90 degrees about z"},
      {UpAxis::MinusX, "-x", "x down: turned -90 degrees about z"}}}};

/// The turn that brings `up` to +y.
glm::dmat3 upTurn(UpAxis up);

/// Turns `gaussians` by `rotation` (orthonormal, determinant 1): centres R p, orientations
/// R · q, and the SH coefficients of each degree so that the turned Gaussian shows in direction
/// R d the colour the original showed in d.
void turnGaussians(GaussianData& gaussians, const glm::dmat3& rotation);

/// Turns `mesh` by `rotation`: positions and normals.
void turnMesh(MeshData& mesh, const glm::dmat3& rotation);

/// Turns points by `rotation` as turnMesh() does (in double precision): what a mesh's positions
/// and normals arrays hold, a chunk at a time.
void turnPoints(std::span<glm::vec3> points, const glm::dmat3& rotation);

/// The real SH basis functions up to degree 3 at unit direction `d`, in the coefficient order
/// the reference rasterizer uses (render/SplatMath.h's shColor()).
void shBasis(const glm::dvec3& d, double out[16]);

} // namespace tandem::io
