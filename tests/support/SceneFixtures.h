// Known scenes for rendering tests: a cube with coloured faces, a grid of points, and a G-buffer
// rendered from them. Needs a current GL context.
#pragma once

#include "engine/io/MeshData.h"
#include "engine/render/Camera.h"
#include "engine/render/Scene.h"

namespace tandem::test {

/// A cube of half-size 1 with one colour per face and flat normals (24 vertices, 12 triangles).
io::MeshData colouredCube();
/// A 20×20 grid of points without normals or colours, slightly wavy.
io::MeshData pointGrid();
/// An n×n sheet of points over [-s, s]² at height z (facing +z), all of colour `colour`.
io::MeshData pointSheet(int n, float s, float z, glm::u8vec4 colour);
/// Two cubes standing on a floor (creases for the occlusion and depth-guided stages).
io::MeshData cubeOnFloor();
/// A quad facing +z with vertex colours and texture coordinates over [0, 2]² (the texture repeats
/// twice), and a 16×16 texture of smooth gradients and a checker, so filtering and wrapping show.
render::Scene texturedQuad();
/// A camera inside cubeOnFloor()'s bounds, low and close, with a wide view: its triangles cross
/// the near plane and reach far outside the clipping guard band.
render::Camera insideFloorCamera();

} // namespace tandem::test
