#include "engine/postfx/HostBackend.h"

#include "engine/postfx/detail/ChainWalk.h"

namespace tandem::postfx {

namespace {

/// Host accessors for read-back G-buffer memory; they convert exactly as the CUDA side does.
/// An RGBA8 colour target holds linear colour sRGB-encoded (render::GBuffer): decoded through
/// the table of srgb8ToLinear(), alpha as it is.
struct HostRgba8 {
    const std::uint8_t* data;
    int width, height;
    const float* decode; ///< srgb8ToLinearTable()
    Rgba at(int x, int y) const
    {
        x = clampi(x, 0, width - 1);
        y = clampi(y, 0, height - 1);
        const std::uint8_t* p = data + (static_cast<std::size_t>(y) * width + x) * 4;
        return {decode[p[0]], decode[p[1]], decode[p[2]], unorm8(p[3])};
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
             std::vector<std::uint8_t>& output, interop::PassHooks* hooks)
        : m_pool(pool), m_in(in), m_output(output),
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

    void beginStage(const char* name)
    {
        if (m_hooks)
            m_hooks->beginStage(name, nullptr);
    }
    void endStage(const char* name)
    {
        if (m_hooks)
            m_hooks->endStage(name, nullptr);
    }

    template <class S> void stage(int src, int dst, const PreparedChain::Entry& entry)
    {
        const typename S::K k = entry.k<S>();
        constexpr int passes = passesOf<S>;
        for (int pass = 0; pass < passes; ++pass) {
            const int from = pass == 0 ? src : detail::Temporary;
            const int to = pass == passes - 1 ? dst : detail::Temporary;
            withSource(from, [&](const auto& s) {
                const Inputs<std::decay_t<decltype(s)>, ImageView<const float>, HostRgba16F,
                             ImageView<const std::uint32_t>>
                    in{s, m_depth, m_normal, m_id};
                each(to, [&](int x, int y) { return stagePixel<S>(in, x, y, k, pass); });
            });
        }
    }

    void encode(int src, bool srgb)
    {
        withSource(src, [&](const auto& s) {
            const int width = m_in.width;
            m_pool.parallelFor(m_in.height, [&](int begin, int end) {
                for (int y = begin; y < end; ++y)
                    for (int x = 0; x < width; ++x) {
                        const Rgba c = s.at(x, y);
                        const Rgba8 p = srgb ? encodePixel(c) : storeDataPixel(c);
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
            f(ImageView<const Rgba>{m_views[src].data, m_views[src].width, m_views[src].height,
                                    m_views[src].pitch});
        } else if (m_in.colorIsHalf) {
            f(HostRgba16F{static_cast<const std::uint16_t*>(m_in.color), m_in.width, m_in.height});
        } else {
            f(HostRgba8{static_cast<const std::uint8_t*>(m_in.color), m_in.width, m_in.height,
                        srgb8ToLinearTable().data()});
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
    interop::PassHooks* m_hooks;
    ImageView<const float> m_depth;
    HostRgba16F m_normal;
    ImageView<const std::uint32_t> m_id;
    ImageView<Rgba> m_views[3];
};

} // namespace

HostBackend::HostBackend(unsigned threads) : m_pool(threads) {}

const std::vector<std::uint8_t>& HostBackend::process(const PreparedChain& chain,
                                                      const interop::HostFrame& input,
                                                      interop::PassHooks* hooks)
{
    HostExec exec(m_pool, input, m_buffers, m_output, hooks);
    detail::walkChain(exec, chain);
    return m_output;
}

void HostBackend::run(const PreparedChain& chain, const interop::FrameTextures& textures,
                      interop::PassHooks* hooks)
{
    const interop::HostFrame input = m_transfer.download(textures);
    try {
        process(chain, input, hooks);
    } catch (...) {
        m_transfer.release();
        throw;
    }
    m_transfer.release();
    m_transfer.upload(textures, m_output.data());
}

} // namespace tandem::postfx
