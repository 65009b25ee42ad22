#include "engine/io/GaussianTransform.h"

#include <array>
#include <cmath>
#include <utility>
#include <vector>

#include <glm/gtc/quaternion.hpp>

namespace tandem::io {

void shBasis(const glm::dvec3& d, double out[16])
{
    const double c0 = 0.28209479177387814, c1 = 0.4886025119029199;
    const double x = d.x, y = d.y, z = d.z, xx = x * x, yy = y * y, zz = z * z;
    out[0] = c0;
    out[1] = -c1 * y;
    out[2] = c1 * z;
    out[3] = -c1 * x;
    out[4] = 1.0925484305920792 * x * y;
    out[5] = -1.0925484305920792 * y * z;
    out[6] = 0.31539156525252005 * (2 * zz - xx - yy);
    out[7] = -1.0925484305920792 * x * z;
    out[8] = 0.5462742152960396 * (xx - yy);
    out[9] = -0.5900435899266435 * y * (3 * xx - yy);
    out[10] = 2.890611442640554 * x * y * z;
    out[11] = -0.4570457994644658 * y * (4 * zz - xx - yy);
    out[12] = 0.3731763325901154 * z * (2 * zz - 3 * xx - 3 * yy);
    out[13] = -0.4570457994644658 * x * (4 * zz - xx - yy);
    out[14] = 1.445305721320277 * z * (xx - yy);
    out[15] = -0.5900435899266435 * x * (xx - 3 * yy);
}

namespace {

/// For each degree l ≥ 1, the (2l+1)² matrix X with b_l(Rᵀ d) = Xᵀ b_l(d) for every d, found by
/// least squares over directions spread on the sphere (exact: a rotation keeps each degree's
/// functions among themselves); turned coefficients are X c.
std::array<std::vector<double>, MaxShDegree + 1> degreeTurns(const glm::dmat3& rotation)
{
    constexpr int Samples = 64;
    std::array<std::vector<double>, MaxShDegree + 1> turns;
    const glm::dmat3 back = glm::transpose(rotation);
    std::vector<std::array<double, 16>> at(Samples), turned(Samples);
    for (int i = 0; i < Samples; ++i) {
        // A Fibonacci sphere: well spread, no direction twice.
        const double z = 1.0 - (2.0 * i + 1.0) / Samples;
        const double r = std::sqrt(1.0 - z * z);
        const double phi = 2.399963229728653 * i;
        const glm::dvec3 d(r * std::cos(phi), r * std::sin(phi), z);
        shBasis(d, at[static_cast<std::size_t>(i)].data());
        shBasis(back * d, turned[static_cast<std::size_t>(i)].data());
    }
    for (int l = 1; l <= MaxShDegree; ++l) {
        const int first = l * l, n = 2 * l + 1;
        // The normal equations (Bᵀ B) X = Bᵀ B_turned, solved by Gauss-Jordan with pivoting.
        std::vector<double> a(static_cast<std::size_t>(n * 2 * n), 0.0);
        const auto A = [&](int r, int c) -> double& {
            return a[static_cast<std::size_t>(r * 2 * n + c)];
        };
        for (int s = 0; s < Samples; ++s)
            for (int r = 0; r < n; ++r)
                for (int c = 0; c < n; ++c) {
                    A(r, c) += at[static_cast<std::size_t>(s)][first + r] *
                               at[static_cast<std::size_t>(s)][first + c];
                    A(r, n + c) += at[static_cast<std::size_t>(s)][first + r] *
                                   turned[static_cast<std::size_t>(s)][first + c];
                }
        for (int p = 0; p < n; ++p) {
            int best = p;
            for (int r = p + 1; r < n; ++r)
                if (std::abs(A(r, p)) > std::abs(A(best, p)))
                    best = r;
            for (int c = 0; c < 2 * n; ++c)
                std::swap(A(p, c), A(best, c));
            const double pivot = A(p, p);
            for (int c = 0; c < 2 * n; ++c)
                A(p, c) /= pivot;
            for (int r = 0; r < n; ++r) {
                if (r == p)
                    continue;
                const double f = A(r, p);
                for (int c = 0; c < 2 * n; ++c)
                    A(r, c) -= f * A(p, c);
            }
        }
        std::vector<double>& x = turns[static_cast<std::size_t>(l)];
        x.resize(static_cast<std::size_t>(n * n));
        for (int r = 0; r < n; ++r)
            for (int c = 0; c < n; ++c)
                x[static_cast<std::size_t>(r * n + c)] = A(r, n + c);
    }
    return turns;
}

} // namespace

void turnGaussians(GaussianData& g, const glm::dmat3& rotation)
{
    const glm::dquat turn = glm::quat_cast(rotation);
    for (std::size_t i = 0; i < g.count(); ++i) {
        g.positions[i] = glm::vec3(rotation * glm::dvec3(g.positions[i]));
        g.rotations[i] = glm::quat(glm::normalize(turn * glm::dquat(g.rotations[i])));
    }
    if (g.shDegree == 0)
        return;
    const auto turns = degreeTurns(rotation);
    const int coefficients = shCoefficients(g.shDegree);
    std::vector<double> old(7);
    for (std::size_t i = 0; i < g.count(); ++i) {
        float* sh = g.sh.data() + i * static_cast<std::size_t>(coefficients) * 3;
        for (int l = 1; l <= g.shDegree; ++l) {
            const int first = l * l, n = 2 * l + 1;
            const std::vector<double>& x = turns[static_cast<std::size_t>(l)];
            for (int c = 0; c < 3; ++c) {
                for (int m = 0; m < n; ++m)
                    old[static_cast<std::size_t>(m)] = sh[(first + m) * 3 + c];
                // The colour at d after turning is the old one at Rᵀ d, cᵀ b(Rᵀ d) = cᵀ Xᵀ b(d):
                // its coefficients are X c.
                for (int r = 0; r < n; ++r) {
                    double sum = 0.0;
                    for (int m = 0; m < n; ++m)
                        sum += x[static_cast<std::size_t>(r * n + m)] *
                               old[static_cast<std::size_t>(m)];
                    sh[(first + r) * 3 + c] = static_cast<float>(sum);
                }
            }
        }
    }
}

void turnMesh(MeshData& mesh, const glm::dmat3& rotation)
{
    turnPoints(mesh.positions, rotation);
    turnPoints(mesh.normals, rotation);
}

void turnPoints(std::span<glm::vec3> points, const glm::dmat3& rotation)
{
    for (glm::vec3& p : points)
        p = glm::vec3(rotation * glm::dvec3(p));
}

glm::dmat3 upTurn(UpAxis up)
{
    // Rows: where x, y, z of the file go.
    const auto rows = [](glm::dvec3 x, glm::dvec3 y, glm::dvec3 z) {
        return glm::transpose(glm::dmat3(x, y, z));
    };
    switch (up) {
    case UpAxis::PlusY:
        break;
    case UpAxis::MinusY:
        return rows({1, 0, 0}, {0, -1, 0}, {0, 0, -1});
    case UpAxis::PlusZ:
        return rows({1, 0, 0}, {0, 0, 1}, {0, -1, 0});
    case UpAxis::MinusZ:
        return rows({1, 0, 0}, {0, 0, -1}, {0, 1, 0});
    case UpAxis::PlusX:
        return rows({0, -1, 0}, {1, 0, 0}, {0, 0, 1});
    case UpAxis::MinusX:
        return rows({0, 1, 0}, {-1, 0, 0}, {0, 0, 1});
    }
    return glm::dmat3(1.0);
}

} // namespace tandem::io
