#include "engine/postfx/CudaBackend.h"

#include <type_traits>

#include <cuda_fp16.h>

#include "engine/cuda/CudaCheck.h"
#include "engine/cuda/DeviceBuffer.h"
#include "engine/postfx/detail/ChainWalk.h"

namespace tandem::postfx {

namespace {

// --- device accessors: the same at(x, y) contract as the host's, through surface objects ---

/// RGBA8 colour: linear colour sRGB-encoded (render::GBuffer), read as raw bytes (a surface
/// does no sRGB decoding) and decoded through the device copy of srgb8ToLinearTable(), as the
/// host does: one load a channel, where the function would cost a log2 and an exp2 per tap.
struct SurfRgba8 {
    cudaSurfaceObject_t surface;
    int width, height;
    const float* decode; ///< device: srgb8ToLinearTable()
    __device__ Rgba at(int x, int y) const
    {
        x = clampi(x, 0, width - 1);
        y = clampi(y, 0, height - 1);
        const uchar4 v = surf2Dread<uchar4>(surface, x * 4, y);
        return {__ldg(decode + v.x), __ldg(decode + v.y), __ldg(decode + v.z), unorm8(v.w)};
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

struct SurfaceOut {
    cudaSurfaceObject_t surface;
    __device__ void store(int x, int y, Rgba8 p) const
    {
        surf2Dwrite(make_uchar4(p.r, p.g, p.b, p.a), surface, x * 4, y);
    }
};

// --- kernels: one thread per pixel of the drawn region ---

/// `k` is a __grid_constant__: stages index its arrays with values known only at run time
/// (bilateral's spatial weights), and without it the compiler copied the block into registers
/// and selected among them, which ran bilateral at half the speed of a local-memory copy on an
/// H200 (4K: 0.55 ms against 0.29 ms); read in place from the constant bank, every thread of a
/// warp reading the same weight, it is a broadcast.
template <class S, class In> __global__ void
stageKernel(In in, ImageView<Rgba> out, const __grid_constant__ typename S::K k, int pass)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < out.width && y < out.height)
        out.ref(x, y) = stagePixel<S>(in, x, y, k, pass);
}

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

/// Both passes of the separable blur in one kernel (Blur's two passes, fused for speed). A block
/// of 32×8 threads covers a 32-wide, BlurTileRows-tall tile: it copies its source region (apron
/// of `radius` each side, clamped like every read) into shared memory once, blurs rows
/// y0-r … y0+BlurTileRows-1+r horizontally from there into a second tile (rows clamped at the
/// image edge, as the host's temporary image is read), then each thread sums its columns
/// vertically. The same sums in the same order as the host's two passes; one read of the
/// source, one write.
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

/// The final store: linear colour sRGB-encoded (`srgb`), or data as it is (after a debug view).
template <class Src, class Out>
__global__ void encodeKernel(Src src, Out out, int width, int height, bool srgb)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        const Rgba c = src.at(x, y);
        out.store(x, y, srgb ? encodePixel(c) : storeDataPixel(c));
    }
}

dim3 blockSize()
{
    return dim3(32, 8);
}
dim3 gridFor(int width, int height)
{
    return dim3((width + 31) / 32, (height + 7) / 8);
}

/// Executor over the mapped G-buffer's surfaces; Color is the colour target's accessor type.
template <class Color> class DeviceExec {
public:
    DeviceExec(Color color, SurfR32F depth, SurfRgba16F normal, SurfR32UI id, SurfaceOut out,
               ImageView<Rgba> (&views)[3], cudaStream_t stream, interop::PassHooks* hooks)
        : m_color(color), m_depth(depth), m_normal(normal), m_id(id), m_out(out), m_views(views),
          m_stream(stream), m_hooks(hooks)
    {}

    void beginStage(const char* name)
    {
        if (m_hooks)
            m_hooks->beginStage(name, m_stream);
    }
    void endStage(const char* name)
    {
        if (m_hooks)
            m_hooks->endStage(name, m_stream);
    }

    template <class S> void stage(int src, int dst, const PreparedChain::Entry& entry)
    {
        const typename S::K k = entry.k<S>();
        if constexpr (std::is_same_v<S, Blur>) {
            blurFused(src, dst, k);
        } else {
            constexpr int passes = passesOf<S>;
            for (int pass = 0; pass < passes; ++pass) {
                const int from = pass == 0 ? src : detail::Temporary;
                const ImageView<Rgba>& out = m_views[pass == passes - 1 ? dst : detail::Temporary];
                withSource(from, [&](auto s) {
                    const Inputs<decltype(s), SurfR32F, SurfRgba16F, SurfR32UI> in{s, m_depth,
                                                                                   m_normal, m_id};
                    stageKernel<S><<<gridFor(out.width, out.height), blockSize(), 0, m_stream>>>(
                        in, out, k, pass);
                    cuda::checkLaunch(S::descriptor.name);
                });
            }
        }
    }

    void encode(int src, bool srgb)
    {
        const ImageView<Rgba>& any = m_views[0];
        withSource(src, [&](auto s) {
            encodeKernel<<<gridFor(any.width, any.height), blockSize(), 0, m_stream>>>(
                s, m_out, any.width, any.height, srgb);
            cuda::checkLaunch("encodeKernel");
        });
    }

private:
    void blurFused(int src, int dst, const BlurK& k)
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
    template <class F> void withSource(int src, F&& f)
    {
        if (src == detail::GBufferColor)
            f(m_color);
        else
            f(ImageView<const Rgba>{m_views[src].data, m_views[src].width, m_views[src].height,
                                    m_views[src].pitch});
    }

    Color m_color;
    SurfR32F m_depth;
    SurfRgba16F m_normal;
    SurfR32UI m_id;
    SurfaceOut m_out;
    ImageView<Rgba> (&m_views)[3];
    cudaStream_t m_stream;
    interop::PassHooks* m_hooks;
};

} // namespace

struct CudaBackend::State {
    cuda::DeviceBuffer<Rgba> buffers[3];
    ImageView<Rgba> views[3] = {};
    /// srgb8ToLinearTable() in device memory, copied on the first frame.
    cuda::DeviceBuffer<float> srgbDecode;

    const float* decodeTable(cudaStream_t stream)
    {
        if (srgbDecode.size() == 0) {
            const std::array<float, 256>& table = srgb8ToLinearTable();
            srgbDecode.reserve(table.size());
            // The host table is a static that outlives the copy (and pageable copies are staged
            // before cudaMemcpyAsync returns).
            TANDEM_CUDA_CHECK(cudaMemcpyAsync(srgbDecode.data(), table.data(),
                                              table.size() * sizeof(float), cudaMemcpyHostToDevice,
                                              stream));
        }
        return srgbDecode.data();
    }

    void prepareBuffers(int width, int height)
    {
        const std::size_t pixels = static_cast<std::size_t>(width) * height;
        for (int i = 0; i < 3; ++i) {
            buffers[i].reserve(pixels);
            views[i] = ImageView<Rgba>{buffers[i].data(), width, height, width};
        }
    }
};

CudaBackend::CudaBackend() : m_state(std::make_unique<State>()) {}

CudaBackend::~CudaBackend() = default;

CudaBackend::Refs CudaBackend::declare(interop::Uses& uses, const interop::FrameTextures& t)
{
    using interop::Intent;
    Refs refs;
    refs.color = uses.image(*t.color, *t.registrations, Intent::Read);
    refs.depth = uses.image(*t.depth, *t.registrations, Intent::Read);
    refs.normal = uses.image(*t.normal, *t.registrations, Intent::Read);
    refs.id = uses.image(*t.id, *t.registrations, Intent::Read);
    refs.output = uses.image(*t.output, *t.registrations, Intent::Write);
    return refs;
}

void CudaBackend::run(const PreparedChain& chain, const interop::FrameTextures& t, const Refs& refs,
                      const interop::MappedView& view, interop::PassHooks* hooks)
{
    State& s = *m_state;
    s.prepareBuffers(t.width, t.height);
    const auto stream = static_cast<cudaStream_t>(view.stream());
    const SurfR32F depth{view.surface(refs.depth), t.width, t.height};
    const SurfRgba16F normal{view.surface(refs.normal), t.width, t.height};
    const SurfR32UI id{view.surface(refs.id), t.width, t.height};
    const SurfaceOut out{view.surface(refs.output)};
    if (t.colorIsHalf) {
        DeviceExec<SurfRgba16F> exec(SurfRgba16F{view.surface(refs.color), t.width, t.height},
                                     depth, normal, id, out, s.views, stream, hooks);
        detail::walkChain(exec, chain);
    } else {
        DeviceExec<SurfRgba8> exec(
            SurfRgba8{view.surface(refs.color), t.width, t.height, s.decodeTable(stream)}, depth,
            normal, id, out, s.views, stream, hooks);
        detail::walkChain(exec, chain);
    }
}

} // namespace tandem::postfx
