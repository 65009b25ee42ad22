#include "engine/postfx/CudaBackend.h"

#include <cuda_fp16.h>

#include "engine/cuda/CudaCheck.h"
#include "engine/cuda/DeviceBuffer.h"
#include "engine/cuda/Stream.h"
#include "engine/interop/Registry.h"
#include "engine/postfx/detail/ChainWalk.h"

namespace tandem::postfx {

namespace {

// --- device accessors: the same at(x, y) contract as the host's, through surface objects ---

struct SurfRgba8 {
    cudaSurfaceObject_t surface;
    int width, height;
    __device__ Rgba at(int x, int y) const
    {
        x = clampi(x, 0, width - 1);
        y = clampi(y, 0, height - 1);
        const uchar4 v = surf2Dread<uchar4>(surface, x * 4, y);
        return {unorm8(v.x), unorm8(v.y), unorm8(v.z), unorm8(v.w)};
    }
};
/// RGBA16F read as raw halves; __half2float is exact, like the host's halfToFloat.
struct SurfRgba16F {
    cudaSurfaceObject_t surface;
    int width, height;
    __device__ Rgba at(int x, int y) const
    {
        x = clampi(x, 0, width - 1);
        y = clampi(y, 0, height - 1);
        const ushort4 v = surf2Dread<ushort4>(surface, x * 8, y);
        return {__half2float(__ushort_as_half(v.x)), __half2float(__ushort_as_half(v.y)),
                __half2float(__ushort_as_half(v.z)), __half2float(__ushort_as_half(v.w))};
    }
};
struct SurfR32F {
    cudaSurfaceObject_t surface;
    int width, height;
    __device__ float at(int x, int y) const
    {
        return surf2Dread<float>(surface, clampi(x, 0, width - 1) * 4, clampi(y, 0, height - 1));
    }
};
struct SurfR32UI {
    cudaSurfaceObject_t surface;
    int width, height;
    __device__ std::uint32_t at(int x, int y) const
    {
        return surf2Dread<unsigned int>(surface, clampi(x, 0, width - 1) * 4,
                                        clampi(y, 0, height - 1));
    }
};

/// Device accessors over plain device memory, for process() (no GL).
struct BufRgba16F {
    const std::uint16_t* data;
    int width, height;
    __device__ Rgba at(int x, int y) const
    {
        x = clampi(x, 0, width - 1);
        y = clampi(y, 0, height - 1);
        const std::uint16_t* p = data + (static_cast<long long>(y) * width + x) * 4;
        return {halfToFloat(p[0]), halfToFloat(p[1]), halfToFloat(p[2]), halfToFloat(p[3])};
    }
};
struct BufRgba8 {
    const std::uint8_t* data;
    int width, height;
    __device__ Rgba at(int x, int y) const
    {
        x = clampi(x, 0, width - 1);
        y = clampi(y, 0, height - 1);
        const std::uint8_t* p = data + (static_cast<long long>(y) * width + x) * 4;
        return {unorm8(p[0]), unorm8(p[1]), unorm8(p[2]), unorm8(p[3])};
    }
};

// --- kernels: one thread per pixel of the drawn region ---

template <class F> __global__ void pixelKernel(ImageView<Rgba> out, F f)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < out.width && y < out.height)
        out.ref(x, y) = f(x, y);
}

struct SurfaceOut {
    cudaSurfaceObject_t surface;
    __device__ void store(int x, int y, Rgba8 p) const
    {
        surf2Dwrite(make_uchar4(p.r, p.g, p.b, p.a), surface, x * 4, y);
    }
};
struct BufferOut {
    std::uint8_t* data;
    int width;
    __device__ void store(int x, int y, Rgba8 p) const
    {
        *reinterpret_cast<uchar4*>(data + (static_cast<long long>(y) * width + x) * 4) =
            make_uchar4(p.r, p.g, p.b, p.a);
    }
};

/// A shared-memory tile as an accessor: element (x, y) of the image at tile[(y - top) * pitch +
/// (x - left)].
struct SharedTile {
    const Rgba* tile;
    int left, top, pitch;
    __device__ Rgba at(int x, int y) const { return tile[(y - top) * pitch + (x - left)]; }
};

/// Output rows one fused-blur block covers: tall tiles keep the apron (2r rows read twice)
/// small next to the rows that use it.
inline constexpr int BlurTileRows = 32;

/// Shared memory the fused blur needs for `radius`: the source region and the horizontal
/// pass's rows.
inline std::size_t blurSharedBytes(int radius)
{
    const std::size_t rows = BlurTileRows + 2 * static_cast<std::size_t>(radius);
    return (rows * (32 + 2 * static_cast<std::size_t>(radius)) + rows * 32) * sizeof(Rgba);
}

/// Both passes of the separable blur in one kernel. A block of 32×8 threads covers a 32-wide,
/// BlurTileRows-tall tile: it copies its source region (apron of `radius` each side, clamped
/// like every read) into shared memory once, blurs rows y0-r … y0+BlurTileRows-1+r
/// horizontally from there into a second tile (rows clamped at the image edge, as the host's
/// temporary image is read), then each thread sums its columns vertically. The same sums in
/// the same order as the host's two passes; one read of the source, one write.
template <class Src> __global__ void blurFusedKernel(Src src, ImageView<Rgba> out, BlurK k)
{
    extern __shared__ Rgba shared[];
    const int r = k.radius;
    const int x0 = blockIdx.x * 32;
    const int y0 = blockIdx.y * BlurTileRows;
    const int rows = BlurTileRows + 2 * r;
    const int width = 32 + 2 * r;
    Rgba* source = shared;
    Rgba* horizontal = shared + rows * width;
    const int thread = threadIdx.y * 32 + threadIdx.x;
    for (int i = thread; i < rows * width; i += 256) {
        const int row = i / width;
        const int column = i - row * width;
        source[i] = src.at(x0 - r + column, clampi(y0 - r + row, 0, out.height - 1));
    }
    __syncthreads();
    const int x = x0 + threadIdx.x;
    for (int row = threadIdx.y; row < rows; row += 8) {
        const int y = clampi(y0 - r + row, 0, out.height - 1);
        // The source tile's row `row` holds image row y; index columns by image x.
        const SharedTile tile{source + row * width, x0 - r, y, width};
        horizontal[row * 32 + threadIdx.x] = blurPixel(tile, x, y, 1, 0, k);
    }
    __syncthreads();
    const SharedTile vertical{horizontal, x0, y0 - r, 32};
    for (int y = y0 + threadIdx.y; y < y0 + BlurTileRows; y += 8)
        if (x < out.width && y < out.height)
            out.ref(x, y) = blurPixel(vertical, x, y, 0, 1, k);
}

template <class Src, class Out>
__global__ void encodeKernel(Src src, Out out, int width, int height)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height)
        out.store(x, y, encodePixel(src.at(x, y)));
}

// Per-stage functors (device lambdas would need --extended-lambda).
template <class S> struct TonemapF {
    S s;
    TonemapK k;
    __device__ Rgba operator()(int x, int y) const { return tonemapPixel(s, x, y, k); }
};
template <class S, class D> struct BilateralF {
    S s;
    D d;
    BilateralK k;
    __device__ Rgba operator()(int x, int y) const { return bilateralPixel(s, d, x, y, k); }
};
template <class S, class D, class N> struct OutlineF {
    S s;
    D d;
    N n;
    OutlineK k;
    __device__ Rgba operator()(int x, int y) const { return outlinePixel(s, d, n, x, y, k); }
};
template <class S, class D, class N> struct SsaoF {
    S s;
    D d;
    N n;
    SsaoK k;
    __device__ Rgba operator()(int x, int y) const { return ssaoPixel(s, d, n, x, y, k); }
};
template <class S> struct FxaaF {
    S s;
    FxaaK k;
    __device__ Rgba operator()(int x, int y) const { return fxaaPixel(s, x, y, k); }
};
template <class D> struct ViewDepthF {
    D d;
    ViewK k;
    __device__ Rgba operator()(int x, int y) const { return viewDepthPixel(d, x, y, k); }
};
template <class N> struct ViewNormalF {
    N n;
    __device__ Rgba operator()(int x, int y) const { return viewNormalPixel(n, x, y); }
};
template <class I> struct ViewIdF {
    I i;
    __device__ Rgba operator()(int x, int y) const { return viewIdPixel(i, x, y); }
};

/// The tonemap curve in device memory, uploaded again only when it changes.
class CurveCache {
public:
    const float* upload(const std::vector<float>& curve, cudaStream_t stream)
    {
        if (curve != m_host) {
            m_device.reserve(curve.size());
            TANDEM_CUDA_CHECK(cudaMemcpyAsync(m_device.data(), curve.data(),
                                              curve.size() * sizeof(float), cudaMemcpyHostToDevice,
                                              stream));
            // The copy reads m_host's twin: keep it alive (pageable copies are staged at once).
            m_host = curve;
        }
        return m_device.data();
    }

private:
    std::vector<float> m_host;
    cuda::DeviceBuffer<float> m_device;
};

dim3 blockSize()
{
    return dim3(32, 8);
}
dim3 gridFor(int width, int height)
{
    return dim3((width + 31) / 32, (height + 7) / 8);
}

/// Executor over one set of G-buffer accessors (texture objects or device buffers).
template <class Color, class Depth, class Normal, class Id, class Out> class DeviceExec {
public:
    DeviceExec(Color color, Depth depth, Normal normal, Id id, Out out, ImageView<Rgba> (&views)[3],
               cudaStream_t stream, std::vector<std::pair<StageKind, std::size_t>>* marks,
               std::vector<cuda::Event>* events, CurveCache* curves)
        : m_color(color), m_depth(depth), m_normal(normal), m_id(id), m_out(out), m_views(views),
          m_stream(stream), m_marks(marks), m_events(events), m_curves(curves)
    {}

    void beginStage(StageKind kind)
    {
        mark(kind);
        if (m_hooks)
            m_hooks->beginStage(stageName(kind).data(), m_stream);
    }
    void endStage(StageKind kind)
    {
        if (m_hooks)
            m_hooks->endStage(stageName(kind).data(), m_stream);
        mark(kind);
    }
    void beginEncode()
    {
        if (m_hooks)
            m_hooks->beginStage("encode", m_stream);
    }
    void endEncode()
    {
        if (m_hooks)
            m_hooks->endStage("encode", m_stream);
    }
    StageHooks* m_hooks = nullptr;

    TonemapCache& tonemapTables() { return *m_tonemaps; }
    TonemapCache* m_tonemaps = nullptr;

    void tonemap(int src, int dst, const TonemapTable& table)
    {
        const TonemapK k = table.view(m_curves->upload(table.curve, m_stream));
        withSource(src, [&](auto s) { launch(dst, TonemapF<decltype(s)>{s, k}, "tonemap"); });
    }
    void blur(int src, int dst, const BlurK& k)
    {
        const ImageView<Rgba>& out = m_views[dst];
        const std::size_t shared = blurSharedBytes(k.radius);
        withSource(src, [&](auto s) {
            // Radius 16 needs 60 KB, over the 48 KB a launch gets without asking.
            TANDEM_CUDA_CHECK(cudaFuncSetAttribute(
                blurFusedKernel<decltype(s)>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                static_cast<int>(blurSharedBytes(MaxBlurRadius))));
            const dim3 grid((out.width + 31) / 32, (out.height + BlurTileRows - 1) / BlurTileRows);
            blurFusedKernel<<<grid, blockSize(), shared, m_stream>>>(s, out, k);
            cuda::checkLaunch("blurFusedKernel");
        });
    }
    void bilateral(int src, int dst, const BilateralK& k)
    {
        withSource(src, [&](auto s) {
            launch(dst, BilateralF<decltype(s), Depth>{s, m_depth, k}, "bilateral");
        });
    }
    void outline(int src, int dst, const OutlineK& k)
    {
        withSource(src, [&](auto s) {
            launch(dst, OutlineF<decltype(s), Depth, Normal>{s, m_depth, m_normal, k}, "outline");
        });
    }
    void ssao(int src, int dst, const SsaoK& k)
    {
        withSource(src, [&](auto s) {
            launch(dst, SsaoF<decltype(s), Depth, Normal>{s, m_depth, m_normal, k}, "ssao");
        });
    }
    void fxaa(int src, int dst, const FxaaK& k)
    {
        withSource(src, [&](auto s) { launch(dst, FxaaF<decltype(s)>{s, k}, "fxaa"); });
    }
    void viewDepth(int dst, const ViewK& k)
    {
        launch(dst, ViewDepthF<Depth>{m_depth, k}, "view-depth");
    }
    void viewNormal(int dst) { launch(dst, ViewNormalF<Normal>{m_normal}, "view-normal"); }
    void viewId(int dst) { launch(dst, ViewIdF<Id>{m_id}, "view-id"); }
    void encode(int src)
    {
        const ImageView<Rgba>& any = m_views[0];
        withSource(src, [&](auto s) {
            encodeKernel<<<gridFor(any.width, any.height), blockSize(), 0, m_stream>>>(
                s, m_out, any.width, any.height);
            cuda::checkLaunch("encodeKernel");
        });
    }

private:
    template <class F> void withSource(int src, F&& f)
    {
        if (src == detail::GBufferColor)
            f(m_color);
        else
            f(ImageView<const Rgba>{m_views[src].data, m_views[src].width, m_views[src].height,
                                    m_views[src].pitch});
    }
    template <class F> void launch(int dst, F f, const char* name)
    {
        const ImageView<Rgba>& out = m_views[dst];
        pixelKernel<<<gridFor(out.width, out.height), blockSize(), 0, m_stream>>>(out, f);
        cuda::checkLaunch(name);
    }
    void mark(StageKind kind)
    {
        if (!m_marks)
            return;
        const std::size_t i = m_marks->size();
        if (i >= m_events->size())
            m_events->emplace_back(true);
        (*m_events)[i].record(m_stream);
        m_marks->push_back({kind, i});
    }

    Color m_color;
    Depth m_depth;
    Normal m_normal;
    Id m_id;
    Out m_out;
    ImageView<Rgba> (&m_views)[3];
    cudaStream_t m_stream;
    std::vector<std::pair<StageKind, std::size_t>>* m_marks;
    std::vector<cuda::Event>* m_events;
    CurveCache* m_curves;
};

template <class Color, class Depth, class Normal, class Id, class Out>
DeviceExec<Color, Depth, Normal, Id, Out>
makeExec(Color c, Depth d, Normal n, Id i, Out o, ImageView<Rgba> (&views)[3], cudaStream_t s,
         std::vector<std::pair<StageKind, std::size_t>>* marks, std::vector<cuda::Event>* events,
         CurveCache* curves)
{
    return DeviceExec<Color, Depth, Normal, Id, Out>(c, d, n, i, o, views, s, marks, events,
                                                     curves);
}

} // namespace

struct CudaBackend::State {
    cuda::Stream stream;
    interop::Registry registry;
    cuda::DeviceBuffer<Rgba> buffers[3];
    ImageView<Rgba> views[3] = {};
    bool stageTiming = false;
    std::vector<cuda::Event> events;
    std::vector<std::pair<StageKind, std::size_t>> marks;
    CurveCache curves;
    TonemapCache tonemaps;

    void prepareBuffers(int width, int height)
    {
        const std::size_t pixels = static_cast<std::size_t>(width) * height;
        for (int i = 0; i < 3; ++i) {
            buffers[i].reserve(pixels);
            views[i] = ImageView<Rgba>{buffers[i].data(), width, height, width};
        }
        marks.clear();
    }
};

CudaBackend::CudaBackend() : m_state(std::make_unique<State>()) {}

CudaBackend::~CudaBackend() = default;

void CudaBackend::run(const Chain& chain, const FrameInfo& frame, const interop::FrameTextures& t,
                      StageHooks* hooks, std::vector<std::uint8_t>* outputCopy)
{
    State& s = *m_state;
    s.registry.update(t);
    s.prepareBuffers(t.width, t.height);
    if (hooks)
        hooks->beginHandoff();
    {
        interop::Handoff handoff(s.registry, s.stream.get());
        if (hooks)
            hooks->anchorHandoff(s.stream.get());
        runMapped(chain, frame, t, handoff, hooks);
        if (outputCopy) {
            outputCopy->resize(static_cast<std::size_t>(t.width) * t.height * 4);
            cudaArray_t array = nullptr;
            TANDEM_CUDA_CHECK(cudaGraphicsSubResourceGetMappedArray(
                &array, s.registry.image(interop::Slot::Output).resource(), 0, 0));
            TANDEM_CUDA_CHECK(cudaMemcpy2DFromArrayAsync(
                outputCopy->data(), static_cast<std::size_t>(t.width) * 4, array, 0, 0,
                static_cast<std::size_t>(t.width) * 4, static_cast<std::size_t>(t.height),
                cudaMemcpyDeviceToHost, s.stream.get()));
            s.stream.synchronize(); // counted as a stall: captured frames only
        }
    }
    if (hooks)
        hooks->endHandoff();
}

void CudaBackend::runMapped(const Chain& chain, const FrameInfo& frame,
                            const interop::FrameTextures& t, const interop::Handoff& handoff,
                            StageHooks* hooks)
{
    State& s = *m_state;
    using interop::Slot;
    const SurfR32F depth{handoff.surface(Slot::Depth), t.width, t.height};
    const SurfRgba16F normal{handoff.surface(Slot::Normal), t.width, t.height};
    const SurfR32UI id{handoff.surface(Slot::Id), t.width, t.height};
    const SurfaceOut out{handoff.surface(Slot::Output)};
    auto* marks = s.stageTiming ? &s.marks : nullptr;
    if (t.colorIsHalf) {
        auto exec = makeExec(SurfRgba16F{handoff.surface(Slot::Color), t.width, t.height}, depth,
                             normal, id, out, s.views, s.stream.get(), marks, &s.events, &s.curves);
        exec.m_hooks = hooks;
        exec.m_tonemaps = &s.tonemaps;
        detail::walkChain(exec, chain, frame);
    } else {
        auto exec = makeExec(SurfRgba8{handoff.surface(Slot::Color), t.width, t.height}, depth,
                             normal, id, out, s.views, s.stream.get(), marks, &s.events, &s.curves);
        exec.m_hooks = hooks;
        exec.m_tonemaps = &s.tonemaps;
        detail::walkChain(exec, chain, frame);
    }
}

std::vector<std::uint8_t> CudaBackend::process(const Chain& chain, const FrameInfo& frame,
                                               const interop::HostFrame& in)
{
    State& s = *m_state;
    const std::size_t pixels = static_cast<std::size_t>(in.width) * in.height;
    s.prepareBuffers(in.width, in.height);
    const std::size_t colorBytes = pixels * (in.colorIsHalf ? 8 : 4);
    cuda::DeviceBuffer<std::uint8_t> color(colorBytes);
    cuda::DeviceBuffer<float> depth(pixels);
    cuda::DeviceBuffer<std::uint16_t> normal(pixels * 4);
    cuda::DeviceBuffer<std::uint32_t> id(pixels);
    cuda::DeviceBuffer<std::uint8_t> output(pixels * 4);
    const cudaStream_t stream = s.stream.get();
    TANDEM_CUDA_CHECK(
        cudaMemcpyAsync(color.data(), in.color, colorBytes, cudaMemcpyHostToDevice, stream));
    TANDEM_CUDA_CHECK(
        cudaMemcpyAsync(depth.data(), in.depth, pixels * 4, cudaMemcpyHostToDevice, stream));
    TANDEM_CUDA_CHECK(
        cudaMemcpyAsync(normal.data(), in.normal, pixels * 8, cudaMemcpyHostToDevice, stream));
    TANDEM_CUDA_CHECK(
        cudaMemcpyAsync(id.data(), in.id, pixels * 4, cudaMemcpyHostToDevice, stream));
    const ImageView<const float> depthView{depth.data(), in.width, in.height, in.width};
    const BufRgba16F normalView{normal.data(), in.width, in.height};
    const ImageView<const std::uint32_t> idView{id.data(), in.width, in.height, in.width};
    const BufferOut out{output.data(), in.width};
    auto* marks = s.stageTiming ? &s.marks : nullptr;
    if (in.colorIsHalf) {
        auto exec = makeExec(
            BufRgba16F{reinterpret_cast<const std::uint16_t*>(color.data()), in.width, in.height},
            depthView, normalView, idView, out, s.views, stream, marks, &s.events, &s.curves);
        exec.m_tonemaps = &s.tonemaps;
        detail::walkChain(exec, chain, frame);
    } else {
        auto exec = makeExec(BufRgba8{color.data(), in.width, in.height}, depthView, normalView,
                             idView, out, s.views, stream, marks, &s.events, &s.curves);
        exec.m_tonemaps = &s.tonemaps;
        detail::walkChain(exec, chain, frame);
    }
    std::vector<std::uint8_t> result(pixels * 4);
    TANDEM_CUDA_CHECK(
        cudaMemcpyAsync(result.data(), output.data(), pixels * 4, cudaMemcpyDeviceToHost, stream));
    s.stream.synchronize();
    return result;
}

void CudaBackend::setStageTiming(bool enabled)
{
    m_state->stageTiming = enabled;
}

std::vector<StageTime> CudaBackend::stageTimes()
{
    State& s = *m_state;
    s.stream.synchronize();
    std::vector<StageTime> times;
    for (std::size_t i = 0; i + 1 < s.marks.size(); i += 2) {
        float ms = 0;
        TANDEM_CUDA_CHECK(cudaEventElapsedTime(&ms, s.events[s.marks[i].second].get(),
                                               s.events[s.marks[i + 1].second].get()));
        times.push_back({std::string(stageName(s.marks[i].first)), ms});
    }
    return times;
}

void CudaBackend::releaseRegistrations()
{
    m_state->stream.synchronize();
    m_state->registry.clear();
}

void CudaBackend::synchronize()
{
    m_state->stream.synchronize();
}

std::uint64_t CudaBackend::registrations() const
{
    return m_state->registry.registrations();
}

void* CudaBackend::stream() const
{
    return m_state->stream.get();
}

} // namespace tandem::postfx
