#include "tests/render/SplatReference.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tandem::test {

namespace {

struct Splat {
    double x, y, depth;
    double conic[3];
    double opacity;
    double color[3];
    std::uint32_t index;
};

void shColor(const float* sh, int degree, const glm::dvec3& d, double* out)
{
    const double c0 = 0.28209479177387814, c1 = 0.4886025119029199;
    const double c2[5] = {1.0925484305920792, -1.0925484305920792, 0.31539156525252005,
                          -1.0925484305920792, 0.5462742152960396};
    const double c3[7] = {-0.5900435899266435, 2.890611442640554,   -0.4570457994644658,
                          0.3731763325901154,  -0.4570457994644658, 1.445305721320277,
                          -0.5900435899266435};
    const double x = d.x, y = d.y, z = d.z;
    // The basis functions, in coefficient order.
    const double basis[16] = {c0,
                              -c1 * y,
                              c1 * z,
                              -c1 * x,
                              c2[0] * x * y,
                              c2[1] * y * z,
                              c2[2] * (2 * z * z - x * x - y * y),
                              c2[3] * x * z,
                              c2[4] * (x * x - y * y),
                              c3[0] * y * (3 * x * x - y * y),
                              c3[1] * x * y * z,
                              c3[2] * y * (4 * z * z - x * x - y * y),
                              c3[3] * z * (2 * z * z - 3 * x * x - 3 * y * y),
                              c3[4] * x * (4 * z * z - x * x - y * y),
                              c3[5] * z * (x * x - y * y),
                              c3[6] * x * (x * x - 3 * y * y)};
    const int used = (degree + 1) * (degree + 1);
    for (int c = 0; c < 3; ++c) {
        double sum = 0.0;
        for (int k = 0; k < used; ++k)
            sum += basis[k] * static_cast<double>(sh[k * 3 + c]);
        out[c] = std::max(sum + 0.5, 0.0);
    }
}

} // namespace

ReferenceImage renderSplatsReference(const io::GaussianData& g, const render::Camera& camera,
                                     const glm::mat4& model, int width, int height,
                                     double scaleModifier, int shDegree, const double background[4],
                                     const ReferenceSurface& surface)
{
    const glm::dmat4 view = glm::dmat4(camera.view()) * glm::dmat4(model);
    const double aspect = static_cast<double>(width) / height;
    const double tanY = std::tan(static_cast<double>(camera.fovY) * M_PI / 360.0);
    const double tanX = tanY * aspect;
    const glm::dmat3 w(view); // model → view rotation (and scale), columns
    const glm::dvec3 eye =
        glm::dvec3(glm::inverse(glm::dmat4(model)) * glm::dvec4(glm::dvec3(camera.eye), 1.0));
    const int degree = std::min(shDegree, g.shDegree);
    const int stride = io::shCoefficients(g.shDegree);

    std::vector<Splat> splats;
    for (std::size_t i = 0; i < g.count(); ++i) {
        const glm::dvec3 p(g.positions[i]);
        const glm::dvec4 v = view * glm::dvec4(p, 1.0);
        const double depth = -v.z;
        if (depth <= 0.2)
            continue;
        // Through the projection: ndc = (x / tanX) / depth; pixel = ((ndc + 1) size - 1) / 2.
        const double ndcX = v.x / tanX / depth, ndcY = v.y / tanY / depth;
        Splat s{};
        s.x = ((ndcX + 1.0) * width - 1.0) / 2.0;
        s.y = ((ndcY + 1.0) * height - 1.0) / 2.0;
        s.depth = depth;
        const glm::dquat q = glm::normalize(glm::dquat(g.rotations[i]));
        const glm::dmat3 r = glm::mat3_cast(q);
        const glm::dvec3 scale = glm::dvec3(g.scales[i]) * scaleModifier;
        const glm::dmat3 sMat(scale.x, 0, 0, 0, scale.y, 0, 0, 0, scale.z);
        const glm::dmat3 sigma = r * sMat * glm::transpose(sMat) * glm::transpose(r);
        // The view frame with its third axis forward (depth), and J there.
        glm::dmat3 forward = w;
        for (int c = 0; c < 3; ++c)
            forward[c][2] = -w[c][2];
        const double fx = width / (2.0 * tanX), fy = height / (2.0 * tanY);
        const double limX = 1.3 * tanX, limY = 1.3 * tanY;
        const double tx = std::clamp(v.x / depth, -limX, limX) * depth;
        const double ty = std::clamp(v.y / depth, -limY, limY) * depth;
        // J as a 3×3 with a zero last row (glm: columns).
        const glm::dmat3 j(fx / depth, 0.0, 0.0, 0.0, fy / depth, 0.0, -fx * tx / (depth * depth),
                           -fy * ty / (depth * depth), 0.0);
        const glm::dmat3 t = j * forward;
        const glm::dmat3 cov = t * sigma * glm::transpose(t);
        const double a = cov[0][0] + 0.3, b = cov[1][0], c = cov[1][1] + 0.3;
        const double det = a * c - b * b;
        if (det <= 0.0)
            continue;
        s.conic[0] = c / det;
        s.conic[1] = -b / det;
        s.conic[2] = a / det;
        s.opacity = g.opacities[i];
        const glm::dvec3 dir = glm::normalize(p - eye);
        shColor(g.sh.data() + i * static_cast<std::size_t>(stride) * 3, degree, dir, s.color);
        s.index = static_cast<std::uint32_t>(i);
        splats.push_back(s);
    }
    std::sort(splats.begin(), splats.end(), [](const Splat& a, const Splat& b) {
        return a.depth != b.depth ? a.depth < b.depth : a.index < b.index;
    });

    ReferenceImage out;
    out.width = width;
    out.height = height;
    const std::size_t pixels = static_cast<std::size_t>(width) * height;
    out.rgba.assign(pixels * 4, 0.0);
    out.depth.assign(pixels, 0.0);
    out.count.assign(pixels, 0u);
    for (int py = 0; py < height; ++py)
        for (int px = 0; px < width; ++px) {
            const std::size_t pixel = static_cast<std::size_t>(py) * width + px;
            const double under = surface.depth.empty() ? 0.0 : surface.depth[pixel];
            double color[3] = {0.0, 0.0, 0.0}, t = 1.0;
            for (const Splat& s : splats) {
                if (under > 0.0 && s.depth >= under)
                    break;
                const double dx = s.x - px, dy = s.y - py;
                const double power =
                    -0.5 * (s.conic[0] * dx * dx + s.conic[2] * dy * dy) - s.conic[1] * dx * dy;
                if (power > 0.0)
                    continue;
                const double alpha = std::min(0.99, s.opacity * std::exp(power));
                if (alpha < 1.0 / 255.0)
                    continue;
                const double next = t * (1.0 - alpha);
                if (next < 1e-4)
                    break;
                for (int c = 0; c < 3; ++c)
                    color[c] += s.color[c] * alpha * t;
                if (out.depth[pixel] == 0.0 && next <= 0.5)
                    out.depth[pixel] = s.depth;
                t = next;
                ++out.count[pixel];
            }
            const double* below =
                surface.rgba.empty() ? background : surface.rgba.data() + pixel * 4;
            for (int c = 0; c < 3; ++c)
                out.rgba[pixel * 4 + c] = color[c] + t * below[c];
            out.rgba[pixel * 4 + 3] = (1.0 - t) + t * below[3];
        }
    return out;
}

} // namespace tandem::test
