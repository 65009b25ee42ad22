#include "engine/postfx/HostBackend.h"

#include <chrono>

#include "engine/postfx/detail/ChainWalk.h"

namespace tandem::postfx {

namespace {

/// Host accessors for read-back G-buffer memory; they convert exactly as the CUDA side does.
struct HostRgba8 {
    const std::uint8_t* data;
    int width, height;
    Rgba at(int x, int y) const
    {
        x = clampi(x, 0, width - 1);
        y = clampi(y, 0, height - 1);
        const std::uint8_t* p = data + (static_cast<std::size_t>(y) * width + x) * 4;
        return {unorm8(p[0]), unorm8(p[1]), unorm8(p[2]), unorm8(p[3])};
    }
};
struct HostRgba16F {
    const std::uint16_t* data;
    int width, height;
    Rgba at(int x, int y) const
    {
        x = clampi(x, 0, width - 1);
        y = clampi(y, 0, height - 1);
        const std::uint16_t* p = data + (static_cast<std::size_t>(y) * width + x) * 4;
        return {halfToFloat(p[0]), halfToFloat(p[1]), halfToFloat(p[2]), halfToFloat(p[3])};
    }
};

class HostExec {
public:
    HostExec(ThreadPool& pool, const interop::HostFrame& in, std::vector<Rgba> (&buffers)[3],
             std::vector<std::uint8_t>& output, std::vector<StageTime>& times, StageHooks* hooks)
        : m_pool(pool), m_in(in), m_output(output), m_times(times),
          m_hooks(hooks), m_depth{in.depth, in.width, in.height, in.width},
          m_normal{in.normal, in.width, in.height}, m_id{in.id, in.width, in.height, in.width}
    {
        const std::size_t pixels = static_cast<std::size_t>(in.width) * in.height;
        for (int i = 0; i < 3; ++i) {
            buffers[i].resize(pixels);
            m_views[i] = ImageView<Rgba>{buffers[i].data(), in.width, in.height, in.width};
        }
        output.resize(pixels * 4);
    }

    void beginStage(StageKind kind)
    {
        if (m_hooks)
            m_hooks->beginStage(stageName(kind).data(), nullptr);
        m_start = std::chrono::steady_clock::now();
    }
    void beginEncode()
    {
        if (m_hooks)
            m_hooks->beginStage("encode", nullptr);
    }
    void endEncode()
    {
        if (m_hooks)
            m_hooks->endStage("encode", nullptr);
    }
    void endStage(StageKind kind)
    {
        if (m_hooks)
            m_hooks->endStage(stageName(kind).data(), nullptr);
        m_times.push_back(
            {std::string(stageName(kind)),
             std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - m_start)
                 .count()});
    }

    TonemapCache& tonemapTables() { return *m_tonemaps; }
    TonemapCache* m_tonemaps = nullptr;

    void tonemap(int src, int dst, const TonemapTable& table)
    {
        const TonemapK k = table.view(table.curve.data());
        withSource(src, [&](const auto& s) {
            each(dst, [&](int x, int y) { return tonemapPixel(s, x, y, k); });
        });
    }
    void blur(int src, int dst, const BlurK& k)
    {
        withSource(src, [&](const auto& s) {
            each(detail::Temporary, [&](int x, int y) { return blurPixel(s, x, y, 1, 0, k); });
        });
        const ImageView<Rgba>& tmp = m_views[detail::Temporary];
        each(dst, [&](int x, int y) { return blurPixel(tmp, x, y, 0, 1, k); });
    }
    void bilateral(int src, int dst, const BilateralK& k)
    {
        withSource(src, [&](const auto& s) {
            each(dst, [&](int x, int y) { return bilateralPixel(s, m_depth, x, y, k); });
        });
    }
    void outline(int src, int dst, const OutlineK& k)
    {
        withSource(src, [&](const auto& s) {
            each(dst, [&](int x, int y) { return outlinePixel(s, m_depth, m_normal, x, y, k); });
        });
    }
    void ssao(int src, int dst, const SsaoK& k)
    {
        withSource(src, [&](const auto& s) {
            each(dst, [&](int x, int y) { return ssaoPixel(s, m_depth, m_normal, x, y, k); });
        });
    }
    void fxaa(int src, int dst, const FxaaK& k)
    {
        withSource(src, [&](const auto& s) {
            each(dst, [&](int x, int y) { return fxaaPixel(s, x, y, k); });
        });
    }
    void viewDepth(int dst, const ViewK& k)
    {
        each(dst, [&](int x, int y) { return viewDepthPixel(m_depth, x, y, k); });
    }
    void viewNormal(int dst)
    {
        each(dst, [&](int x, int y) { return viewNormalPixel(m_normal, x, y); });
    }
    void viewId(int dst)
    {
        each(dst, [&](int x, int y) { return viewIdPixel(m_id, x, y); });
    }
    void encode(int src)
    {
        withSource(src, [&](const auto& s) {
            const int width = m_in.width;
            m_pool.parallelFor(m_in.height, [&](int begin, int end) {
                for (int y = begin; y < end; ++y)
                    for (int x = 0; x < width; ++x) {
                        const Rgba8 p = encodePixel(s.at(x, y));
                        std::uint8_t* out =
                            m_output.data() + (static_cast<std::size_t>(y) * width + x) * 4;
                        out[0] = p.r;
                        out[1] = p.g;
                        out[2] = p.b;
                        out[3] = p.a;
                    }
            });
        });
    }

private:
    template <class F> void withSource(int src, F&& f)
    {
        if (src != detail::GBufferColor) {
            f(m_views[src]);
        } else if (m_in.colorIsHalf) {
            f(HostRgba16F{static_cast<const std::uint16_t*>(m_in.color), m_in.width, m_in.height});
        } else {
            f(HostRgba8{static_cast<const std::uint8_t*>(m_in.color), m_in.width, m_in.height});
        }
    }
    template <class F> void each(int dst, F&& pixel)
    {
        const ImageView<Rgba>& out = m_views[dst];
        m_pool.parallelFor(out.height, [&](int begin, int end) {
            for (int y = begin; y < end; ++y)
                for (int x = 0; x < out.width; ++x)
                    out.ref(x, y) = pixel(x, y);
        });
    }

    ThreadPool& m_pool;
    const interop::HostFrame& m_in;
    std::vector<std::uint8_t>& m_output;
    std::vector<StageTime>& m_times;
    StageHooks* m_hooks;
    ImageView<const float> m_depth;
    HostRgba16F m_normal;
    ImageView<const std::uint32_t> m_id;
    ImageView<Rgba> m_views[3];
    std::chrono::steady_clock::time_point m_start;
};

} // namespace

HostBackend::HostBackend(unsigned threads) : m_pool(threads) {}

std::vector<std::uint8_t> HostBackend::process(const Chain& chain, const FrameInfo& frame,
                                               const interop::HostFrame& input)
{
    m_times.clear();
    HostExec exec(m_pool, input, m_buffers, m_output, m_times, nullptr);
    exec.m_tonemaps = &m_tonemaps;
    detail::walkChain(exec, chain, frame);
    return m_output;
}

void HostBackend::run(const Chain& chain, const FrameInfo& frame,
                      const interop::FrameTextures& textures, StageHooks* hooks)
{
    if (hooks)
        hooks->beginHandoff();
    const interop::HostFrame input = m_transfer.download(textures);
    m_times.clear();
    try {
        HostExec exec(m_pool, input, m_buffers, m_output, m_times, hooks);
        exec.m_tonemaps = &m_tonemaps;
        detail::walkChain(exec, chain, frame);
    } catch (...) {
        m_transfer.release();
        throw;
    }
    m_transfer.release();
    m_transfer.upload(textures, m_output.data());
    if (hooks)
        hooks->endHandoff();
}

} // namespace tandem::postfx
