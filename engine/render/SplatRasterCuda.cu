// The CUDA side of the splat rasterizer: kernels over the same functions as the host twin
// (SplatMath.h), compiled without FMA contraction so both compute the same bits.
#include "engine/render/SplatRaster.h"

#include <algorithm>
#include <array>
#include <cstring>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime_api.h>
#include <surface_indirect_functions.h>

#include "engine/core/Error.h"
#include "engine/core/Stall.h"
#include "engine/cuda/CudaCheck.h"
#include "engine/cuda/DeviceBuffer.h"
#include "engine/cuda/PinnedMemory.h"
#include "engine/interop/Pass.h"
#include "engine/render/detail/SplatReport.h"

namespace tandem::render {

using namespace splats;

namespace {

constexpr std::uint32_t Invisible = 0xffffffffu;
constexpr int BlendThreads = TileSize * TileSize;
/// Gaussians a block of projectKernel: its SH coefficients staged in shared memory (at SH 3 and
/// the odd pitch, 25 KB).
constexpr std::uint32_t ProjectThreads = 128;

/// Floats between staged Gaussians' coefficients: odd, so a warp reading one coefficient of each
/// of its Gaussians meets 32 distinct banks.
__host__ __device__ constexpr int stagePitch(int stride)
{
    return stride | 1;
}
/// Tile entries planned beyond the latest frame's, and a floor (a frame with more takes the slow
/// way; the buffer holds the largest plan).
constexpr double PlanHeadroom = 1.25;
constexpr std::size_t PlanFloor = 1u << 16;
/// Frames whose counts may be in flight at once.
constexpr int CountSlots = 4;

/// What the GPU counts of a frame, in device memory and copied to the host.
struct FrameCounts {
    unsigned int visible;
    unsigned int entries;
    unsigned int planned;
    unsigned int pad;
};

/// A visible Gaussian's tiles: its box (x0, y0, x1, y1 in 16 bits each), which of the box's tiles
/// it touches (bit (ty - y0) w + (tx - x0), for boxes of up to 32 tiles; AllTiles: test each
/// again), and how many.
constexpr std::uint32_t AllTiles = 0xffffffffu;

__device__ __forceinline__ uint4 tilesOf(const ProjectedSplat& p, const Footprint& fp)
{
    const int w = fp.tx1 - fp.tx0 + 1, h = fp.ty1 - fp.ty0 + 1;
    std::uint32_t mask = 0, n = 0;
    if (w * h <= 32) {
        for (int ty = fp.ty0; ty <= fp.ty1; ++ty)
            for (int tx = fp.tx0; tx <= fp.tx1; ++tx)
                if (touchesTile(p, tx, ty)) {
                    mask |= 1u << ((ty - fp.ty0) * w + (tx - fp.tx0));
                    ++n;
                }
    } else {
        mask = AllTiles;
        n = countTiles(p, fp);
    }
    return make_uint4(static_cast<unsigned>(fp.tx0) | (static_cast<unsigned>(fp.ty0) << 16),
                      static_cast<unsigned>(fp.tx1) | (static_cast<unsigned>(fp.ty1) << 16), mask,
                      n);
}

/// Packed Gaussians (a streamed frame's) into the float arrays projectKernel reads: one thread
/// a Gaussian's record (restKernel does its SH rest).
__global__ void unpackKernel(std::uint32_t n, int degree, const PackedSplat* records,
                             float* positions, float* scales, float* rotations, float* opacities,
                             float* sh)
{
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const int stride = 3 * (degree + 1) * (degree + 1);
    unpackSplatRecord(records[i], positions + 3 * i, scales + 3 * i, rotations + 4 * i,
                      opacities + i, sh + static_cast<std::size_t>(i) * stride);
}

/// The SH rest of packed Gaussians, one thread a coefficient: consecutive threads read
/// consecutive bytes and write consecutive floats (a thread a Gaussian would stride both).
__global__ void restKernel(std::uint64_t total, int degree, const PackedSplat* records,
                           const std::int8_t* rest, float* sh)
{
    const std::uint64_t t = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= total)
        return;
    const auto count = static_cast<std::uint64_t>(shRestCount(degree));
    const std::uint64_t g = t / count, k = t - g * count;
    const std::size_t stride = static_cast<std::size_t>(3 * (degree + 1) * (degree + 1));
    sh[g * stride + 3 + k] =
        static_cast<float>(rest[g * static_cast<std::uint64_t>(shRestBytes(degree)) + k]) *
        restStep(records[g]);
}

/// One thread a Gaussian: its record, depth key (Invisible when culled or touching no tile) and
/// tiles.
__global__ void __launch_bounds__(ProjectThreads)
    projectKernel(const __grid_constant__ SplatFrame f, SplatScene scene, ProjectedSplat* records,
                  std::uint32_t* keys, std::uint32_t* indices, uint4* tiles, FrameCounts* counts)
{
    extern __shared__ float staged[];
    const std::uint32_t first = blockIdx.x * ProjectThreads;
    const std::uint32_t i = first + threadIdx.x;
    const int stride = f.shStride * 3;
    const int pitch = stagePitch(stride);
    // The block's coefficients, read in order by all its threads (whole lines), then each
    // Gaussian's from shared memory (an odd pitch: a warp's reads on distinct banks).
    const std::uint32_t held = min(ProjectThreads, scene.count - first);
    const std::uint32_t total = held * static_cast<std::uint32_t>(stride);
    const float* source = scene.sh + std::size_t{first} * static_cast<std::size_t>(stride);
    const float inverse = 1.0f / static_cast<float>(stride);
    for (std::uint32_t k = threadIdx.x; k < total; k += ProjectThreads) {
        const std::uint32_t owner = stagedOwner(k, inverse);
        staged[owner * static_cast<std::uint32_t>(pitch) + k -
               owner * static_cast<std::uint32_t>(stride)] = __ldg(source + k);
    }
    __syncthreads();
    if (i >= scene.count)
        return;
    const float* coefficients = staged + threadIdx.x * pitch;
    const GaussianIn g{scene.positions + 3 * std::size_t{i}, scene.scales + 3 * std::size_t{i},
                       scene.rotations + 4 * std::size_t{i}, scene.opacities[i], coefficients};
    ProjectedSplat p;
    const Footprint fp = projectGaussian(f, g, i, p);
    indices[i] = i;
    const uint4 t = fp.visible ? tilesOf(p, fp) : make_uint4(1u, 0u, 0u, 0u);
    tiles[i] = t;
    if (t.w == 0) {
        keys[i] = Invisible;
        return;
    }
    records[i] = p;
    keys[i] = depthKey(p);
    const unsigned mask = __activemask();
    const unsigned mine = __popc(mask & ((1u << (threadIdx.x & 31)) - 1u));
    if (mine == 0)
        atomicAdd(&counts->visible, static_cast<unsigned>(__popc(mask)));
}

/// One thread a Gaussian in depth order: its tile count, gathered.
__global__ void gatherKernel(std::uint32_t n, const std::uint32_t* order, const uint4* tiles,
                             std::uint32_t* tileCounts)
{
    const std::uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < n)
        tileCounts[r] = tiles[order[r]].w;
}

/// One thread a Gaussian in depth order: its entries (tile, Gaussian) from its place in the
/// inclusive sum of counts, up to the planned number; the last thread records the total.
__global__ void emitKernel(const __grid_constant__ SplatFrame f, std::uint32_t n,
                           const std::uint32_t* order, const ProjectedSplat* records,
                           const uint4* tiles, const std::uint32_t* ends, std::uint32_t planned,
                           std::uint32_t* entryKeys, std::uint32_t* entryValues,
                           FrameCounts* counts)
{
    const std::uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n)
        return;
    if (r == n - 1) {
        counts->entries = ends[r];
        counts->planned = planned;
    }
    const std::uint32_t g = order[r];
    const uint4 t = tiles[g];
    if (t.w == 0)
        return;
    const int x0 = t.x & 0xffff, y0 = t.x >> 16, x1 = t.y & 0xffff, y1 = t.y >> 16;
    const int w = x1 - x0 + 1;
    std::uint32_t slot = ends[r] - t.w;
    const auto put = [&](int tx, int ty) {
        if (slot < planned) {
            entryKeys[slot] = static_cast<std::uint32_t>(ty * f.tilesX + tx);
            entryValues[slot] = g;
        }
        ++slot;
    };
    if (t.z != AllTiles) {
        for (std::uint32_t mask = t.z; mask != 0u; mask &= mask - 1u) {
            const int bit = __ffs(static_cast<int>(mask)) - 1;
            put(x0 + bit % w, y0 + bit / w);
        }
        return;
    }
    const ProjectedSplat p = records[g];
    for (int ty = y0; ty <= y1; ++ty)
        for (int tx = x0; tx <= x1; ++tx)
            if (touchesTile(p, tx, ty))
                put(tx, ty);
}

/// Entries past the frame's total, up to the planned number: a key past every tile.
__global__ void padKernel(std::uint32_t planned, const FrameCounts* counts, std::uint32_t* keys)
{
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < planned && i >= counts->entries)
        keys[i] = Invisible;
}

/// One thread an entry of the sorted keys: where each tile's run starts and ends.
__global__ void rangesKernel(std::uint32_t planned, std::uint32_t tileTotal,
                             const std::uint32_t* keys, uint2* ranges)
{
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= planned)
        return;
    const std::uint32_t k = keys[i];
    if (k >= tileTotal)
        return;
    if (i == 0 || keys[i - 1] != k)
        ranges[k].x = i;
    if (i == planned - 1 || keys[i + 1] != k)
        ranges[k].y = i + 1;
}

struct BlendTargets {
    cudaSurfaceObject_t color, depth, normal, id;
    std::uint32_t* counts;
    int countPitch;
};

/// A warp's pixels within a tile: 8 × 4, the 16 × 16 tile's eight warps two across, four up.
constexpr int WarpWidth = 8;
constexpr int WarpHeight = 4;
constexpr unsigned FullMask = 0xffffffffu;

/// One block a tile, one thread a pixel: its Gaussians front to back (from the tile's run of
/// sorted entries, or, when the frame's entries did not fit, from every visible Gaussian in depth
/// order that touches this tile: the same list, found slowly), then the pixel over its surface
/// into the targets. The block loads the list in batches; each warp blends, in order, only those
/// of a batch that reach its 8 × 4 pixels (touchesRect, a superset of the pixels whose own test
/// passes, so what it skips would have been skipped pixel by pixel: the host twin's image).
__global__ void __launch_bounds__(BlendThreads)
    blendKernel(const __grid_constant__ SplatFrame f, const ProjectedSplat* records,
                const std::uint32_t* entryValues, const uint2* ranges, const std::uint32_t* order,
                const uint4* tiles, const FrameCounts* counts, BlendTargets out)
{
    __shared__ ProjectedSplat batch[BlendThreads];
    __shared__ int valid[BlendThreads];
    const int tileX = static_cast<int>(blockIdx.x) % f.tilesX;
    const int tileY = static_cast<int>(blockIdx.x) / f.tilesX;
    const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
    const int wx0 = tileX * TileSize + (warp % 2) * WarpWidth;
    const int wy0 = tileY * TileSize + (warp / 2) * WarpHeight;
    const int px = wx0 + lane % WarpWidth;
    const int py = wy0 + lane / WarpWidth;
    const bool inside = px < f.width && py < f.height;
    const bool slow = counts->entries > counts->planned;
    const bool centres = f.debug == SplatDebugCentres;
    std::uint32_t begin = 0, end = 0;
    if (slow) {
        end = counts->visible; // the visible Gaussians sort first
    } else {
        const uint2 range = ranges[blockIdx.x];
        begin = range.x;
        end = range.y;
    }

    float under[4];
    float surface = 0.0f;
    if (inside && f.targetsDrawn) {
        surface = surf2Dread<float>(out.depth, px * 4, py);
        if (f.colorIsHalf) {
            const ushort4 h = surf2Dread<ushort4>(out.color, px * 8, py);
            const std::uint16_t halves[4] = {h.x, h.y, h.z, h.w};
            underFromHalf(halves, under);
        } else {
            const uchar4 c = surf2Dread<uchar4>(out.color, px * 4, py);
            const std::uint8_t bytes[4] = {c.x, c.y, c.z, c.w};
            underFromRgba8(bytes, under);
        }
    } else {
        for (int c = 0; c < 4; ++c)
            under[c] = f.background[c];
    }

    PixelBlend blend = startBlend();
    bool done = !inside;
    for (std::uint32_t first = begin; first < end; first += BlendThreads) {
        if (__syncthreads_count(done ? 1 : 0) == BlendThreads)
            break;
        const std::uint32_t at = first + threadIdx.x;
        int ok = 0;
        if (at < end) {
            if (slow) {
                const std::uint32_t g = order[at];
                const uint4 t = tiles[g];
                ok = tileX >= static_cast<int>(t.x & 0xffff) &&
                     tileX <= static_cast<int>(t.y & 0xffff) &&
                     tileY >= static_cast<int>(t.x >> 16) && tileY <= static_cast<int>(t.y >> 16);
                if (ok) {
                    batch[threadIdx.x] = records[g];
                    ok = touchesTile(batch[threadIdx.x], tileX, tileY) ? 1 : 0;
                }
            } else {
                batch[threadIdx.x] = records[entryValues[at]];
                ok = 1;
            }
        }
        valid[threadIdx.x] = ok;
        __syncthreads();
        if (__all_sync(FullMask, done))
            continue;
        const int held =
            static_cast<int>(min(end - first, static_cast<std::uint32_t>(BlendThreads)));
        for (int chunk = 0; chunk < held; chunk += 32) {
            const int j = chunk + lane;
            const bool reaches =
                j < held && valid[j] &&
                touchesRect(batch[j], wx0, wy0, wx0 + WarpWidth - 1, wy0 + WarpHeight - 1);
            unsigned mask = __ballot_sync(FullMask, reaches);
            while (mask != 0u) {
                const int k = chunk + __ffs(mask) - 1;
                mask &= mask - 1u;
                const ProjectedSplat g = batch[k]; // three 16-byte loads, broadcast
                if (!done && !blendGaussian(blend, g, px, py, surface, centres))
                    done = true;
            }
            if (__all_sync(FullMask, done))
                break;
        }
    }
    if (!inside)
        return;
    if (out.counts)
        out.counts[static_cast<std::size_t>(py) * out.countPitch + px] = blend.count;
    const SplatPixel pixel = finishPixel(f, blend, under);
    if (!pixel.writes)
        return;
    if (f.colorIsHalf) {
        std::uint16_t h[4];
        storeHalf(pixel.rgba, h);
        surf2Dwrite(make_ushort4(h[0], h[1], h[2], h[3]), out.color, px * 8, py);
    } else {
        std::uint8_t b[4];
        storeRgba8(pixel.rgba, b);
        surf2Dwrite(make_uchar4(b[0], b[1], b[2], b[3]), out.color, px * 4, py);
    }
    if (pixel.setsDepth) {
        surf2Dwrite(pixel.depth, out.depth, px * 4, py);
        surf2Dwrite(static_cast<unsigned int>(pixel.id), out.id, px * 4, py);
        ushort4 normal = make_ushort4(0, 0, 0, 0);
        if (pixel.id != 0u)
            normal = make_ushort4(floatToHalf(f.facing[0]), floatToHalf(f.facing[1]),
                                  floatToHalf(f.facing[2]), floatToHalf(1.0f));
        surf2Dwrite(normal, out.normal, px * 8, py);
    }
}

int bitsFor(std::uint32_t values)
{
    int bits = 1;
    while (bits < 32 && (std::uint32_t{1} << bits) < values)
        ++bits;
    return bits;
}

unsigned blocksFor(std::size_t items, unsigned threads = 256)
{
    return static_cast<unsigned>((items + threads - 1) / threads);
}

} // namespace

struct SplatRaster::Scratch {
    std::size_t gaussians = 0; ///< capacity of the per-Gaussian buffers
    cuda::DeviceBuffer<ProjectedSplat> records;
    cuda::DeviceBuffer<std::uint32_t> keys[2], indices[2];
    cuda::DeviceBuffer<uint4> tiles;
    cuda::DeviceBuffer<std::uint32_t> tileCounts, ends;
    std::size_t entries = 0; ///< capacity of the entry buffers
    cuda::DeviceBuffer<std::uint32_t> entryKeys[2], entryValues[2];
    cuda::DeviceBuffer<uint2> ranges;
    cuda::DeviceBuffer<std::uint8_t> temp;
    cuda::DeviceBuffer<FrameCounts> counts;
    /// A packed region unpacked: positions, scales, rotations, opacities, SH.
    cuda::DeviceBuffer<float> unpacked[5];
    // The counts of recent frames, copied to pinned memory; harvested without waiting.
    FrameCounts* pinned = nullptr;
    std::array<cudaEvent_t, CountSlots> copied{};
    std::array<bool, CountSlots> pending{};
    int next = 0;
    cudaEvent_t done = nullptr; ///< the last frame's kernels (the scratch is free after it)
    bool recorded = false;
    std::size_t lastEntries = 0;               ///< the latest harvested frame's total
    std::size_t lastCount = 0, lastPixels = 0; ///< its Gaussians and pixels
    std::array<std::size_t, CountSlots> launchedCount{}, launchedPixels{};
    bool seen = false;
    std::size_t forced = 0; ///< setEntryCapacity()
    SplatCounts totals;

    ~Scratch()
    {
        for (cudaEvent_t e : copied)
            if (e)
                cuda::logFailure(cudaEventDestroy(e), "cudaEventDestroy (splats)");
        if (done)
            cuda::logFailure(cudaEventDestroy(done), "cudaEventDestroy (splats)");
        cuda::freePinned(pinned);
    }

    void harvest(int slot)
    {
        const FrameCounts& c = pinned[slot];
        totals.visible = c.visible;
        totals.entries = c.entries;
        totals.capacity = c.planned;
        if (c.entries > c.planned) {
            ++totals.slowFrames;
            detail::logSlowSplatFrame(c.entries, c.planned);
        }
        lastEntries = c.entries;
        lastCount = launchedCount[static_cast<std::size_t>(slot)];
        lastPixels = launchedPixels[static_cast<std::size_t>(slot)];
        seen = true;
        pending[static_cast<std::size_t>(slot)] = false;
    }

    void poll()
    {
        for (int i = 0; i < CountSlots; ++i) {
            const int slot = (next + i) % CountSlots;
            if (!pending[static_cast<std::size_t>(slot)])
                continue;
            const cudaError_t state = cudaEventQuery(copied[static_cast<std::size_t>(slot)]);
            if (state == cudaErrorNotReady)
                break; // later slots are later frames
            TANDEM_CUDA_CHECK(state);
            harvest(slot);
        }
    }
};

SplatRaster::SplatRaster() : m_scratch(std::make_unique<Scratch>()) {}
SplatRaster::~SplatRaster() = default;

SplatCounts SplatRaster::counts()
{
    if (m_scratch->pinned)
        m_scratch->poll();
    return m_scratch->totals;
}

void SplatRaster::setEntryCapacity(std::size_t entries)
{
    m_scratch->forced = entries;
}

void* SplatRaster::lastFrameDone() const
{
    return m_scratch->recorded ? static_cast<void*>(m_scratch->done) : nullptr;
}

SplatScene SplatRaster::unpack(const DeviceSplatRegion& region, void* streamHandle,
                               interop::PassHooks& hooks)
{
    const auto stream = static_cast<cudaStream_t>(streamHandle);
    Scratch& s = *m_scratch;
    const std::size_t n = std::max<std::uint32_t>(region.count, 1);
    const std::size_t stride = static_cast<std::size_t>(3 * shCount(region.shDegree));
    const std::size_t floats[5] = {n * 3, n * 3, n * 4, n, n * stride};
    // The previous frame may still read these on another stream.
    if (s.recorded)
        TANDEM_CUDA_CHECK(cudaStreamWaitEvent(stream, s.done, 0));
    for (int a = 0; a < 5; ++a)
        if (s.unpacked[a].size() < floats[a])
            s.unpacked[a].reserve(floats[a] + floats[a] / 4, "unpacked splats");
    const SplatRegion r =
        splatRegion(region.count, region.shDegree, SplatEncoding::Packed, SplatAlign);
    const auto* base = static_cast<const std::uint8_t*>(region.region);
    hooks.beginStage("splats.unpack", streamHandle);
    if (region.count > 0) {
        const auto* records = reinterpret_cast<const PackedSplat*>(base + r.records);
        unpackKernel<<<blocksFor(region.count), 256, 0, stream>>>(
            region.count, region.shDegree, records, s.unpacked[0].data(), s.unpacked[1].data(),
            s.unpacked[2].data(), s.unpacked[3].data(), s.unpacked[4].data());
        cuda::checkLaunch("splats unpackKernel");
        const std::uint64_t total =
            std::uint64_t{region.count} * static_cast<std::uint64_t>(shRestCount(region.shDegree));
        if (total > 0) {
            restKernel<<<static_cast<unsigned>((total + 255) / 256), 256, 0, stream>>>(
                total, region.shDegree, records,
                reinterpret_cast<const std::int8_t*>(base + r.rest), s.unpacked[4].data());
            cuda::checkLaunch("splats restKernel");
        }
    }
    hooks.endStage("splats.unpack", streamHandle);
    return {s.unpacked[0].data(), s.unpacked[1].data(), s.unpacked[2].data(),
            s.unpacked[3].data(), s.unpacked[4].data(), region.count};
}

void SplatRaster::render(const SplatScene& scene, const SplatFrame& f, const SplatTargets& targets,
                         void* streamHandle, interop::PassHooks& hooks)
{
    const auto stream = static_cast<cudaStream_t>(streamHandle);
    Scratch& s = *m_scratch;
    const std::uint32_t n = scene.count;
    const std::uint32_t tileTotal = static_cast<std::uint32_t>(f.tilesX * f.tilesY);
    if (f.width <= 0 || f.height <= 0)
        return;
    if (!s.pinned) {
        s.pinned =
            static_cast<FrameCounts*>(cuda::allocatePinned(sizeof(FrameCounts) * CountSlots));
        if (!s.pinned)
            throw Error("splats: could not allocate pinned memory for the frame counts");
        for (cudaEvent_t& e : s.copied)
            TANDEM_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        TANDEM_CUDA_CHECK(cudaEventCreateWithFlags(&s.done, cudaEventDisableTiming));
        s.counts.reserve(1, "splat frame counts");
    }
    s.poll();
    // The previous frame may still use the scratch memory on another stream.
    if (s.recorded)
        TANDEM_CUDA_CHECK(cudaStreamWaitEvent(stream, s.done, 0));

    // This frame's plan of entries: the latest counts seen, scaled by the Gaussians and pixels
    // this frame has more of, with headroom; before any, 4 a Gaussian.
    const std::size_t pixels =
        static_cast<std::size_t>(f.width) * static_cast<std::size_t>(f.height);
    std::size_t planned = std::max<std::size_t>(std::size_t{n} * 4, PlanFloor);
    if (s.seen) {
        const double more =
            std::max(1.0, static_cast<double>(n) / std::max<double>(s.lastCount, 1.0)) *
            std::max(1.0, static_cast<double>(pixels) / std::max<double>(s.lastPixels, 1.0));
        planned =
            static_cast<std::size_t>(static_cast<double>(s.lastEntries) * PlanHeadroom * more) +
            PlanFloor;
    }
    if (s.forced)
        planned = s.forced;
    planned = std::min<std::size_t>(planned, std::size_t{1} << 30); // CUB counts in int

    // Scratch memory: per Gaussian, per entry, per tile, and the sorts' temporary storage.
    const std::size_t gaussians = std::max<std::size_t>(n, 1);
    if (s.gaussians < gaussians) {
        s.gaussians = 0;
        s.records.reserve(gaussians, "splat records");
        for (int b = 0; b < 2; ++b) {
            s.keys[b].reserve(gaussians, "splat depth keys");
            s.indices[b].reserve(gaussians, "splat order");
        }
        s.tiles.reserve(gaussians, "splat tiles");
        s.tileCounts.reserve(gaussians, "splat tile counts");
        s.ends.reserve(gaussians, "splat entry ends");
        s.gaussians = gaussians;
    }
    if (s.entries < planned) {
        s.entries = 0;
        for (int b = 0; b < 2; ++b) {
            s.entryKeys[b].reserve(planned, "splat tile entries");
            s.entryValues[b].reserve(planned, "splat tile entries");
        }
        s.entries = planned;
        detail::logSplatEntryRoom(planned);
    }
    s.ranges.reserve(std::max<std::uint32_t>(tileTotal, 1), "splat tile ranges");
    const int tileBits = bitsFor(tileTotal + 1);
    std::size_t depthSortBytes = 0, tileSortBytes = 0, scanBytes = 0;
    {
        cub::DoubleBuffer<std::uint32_t> k(s.keys[0].data(), s.keys[1].data());
        cub::DoubleBuffer<std::uint32_t> v(s.indices[0].data(), s.indices[1].data());
        TANDEM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
            nullptr, depthSortBytes, k, v, static_cast<int>(gaussians), 0, 32, stream));
        cub::DoubleBuffer<std::uint32_t> ek(s.entryKeys[0].data(), s.entryKeys[1].data());
        cub::DoubleBuffer<std::uint32_t> ev(s.entryValues[0].data(), s.entryValues[1].data());
        TANDEM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
            nullptr, tileSortBytes, ek, ev, static_cast<int>(planned), 0, tileBits, stream));
        TANDEM_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, scanBytes, s.tileCounts.data(),
                                                        s.ends.data(), static_cast<int>(gaussians),
                                                        stream));
    }
    const std::size_t tempBytes =
        std::max({depthSortBytes, tileSortBytes, scanBytes, std::size_t{1}});
    if (s.temp.size() < tempBytes) {
        s.temp.reserve(tempBytes, "splat sort storage");
    }

    const int slot = s.next;
    if (s.pending[static_cast<std::size_t>(slot)]) {
        // Only when the GPU is CountSlots frames behind: wait for that frame's counts.
        recordStall(StallCause::StreamSync);
        TANDEM_CUDA_CHECK(cudaEventSynchronize(s.copied[static_cast<std::size_t>(slot)]));
        s.harvest(slot);
    }

    hooks.beginStage("splats.project", streamHandle);
    TANDEM_CUDA_CHECK(cudaMemsetAsync(s.counts.data(), 0, sizeof(FrameCounts), stream));
    if (n > 0) {
        const std::size_t staging =
            sizeof(float) * ProjectThreads * static_cast<std::size_t>(stagePitch(f.shStride * 3));
        projectKernel<<<blocksFor(n, ProjectThreads), ProjectThreads, staging, stream>>>(
            f, scene, s.records.data(), s.keys[0].data(), s.indices[0].data(), s.tiles.data(),
            s.counts.data());
        cuda::checkLaunch("splats projectKernel");
    }
    hooks.endStage("splats.project", streamHandle);

    hooks.beginStage("splats.sort", streamHandle);
    const std::uint32_t* order = s.indices[0].data();
    const std::uint32_t* sortedKeys = nullptr;
    const std::uint32_t* sortedValues = nullptr;
    std::size_t temp = s.temp.size();
    TANDEM_CUDA_CHECK(cudaMemsetAsync(s.ranges.data(), 0, sizeof(uint2) * tileTotal, stream));
    if (n > 0) {
        cub::DoubleBuffer<std::uint32_t> k(s.keys[0].data(), s.keys[1].data());
        cub::DoubleBuffer<std::uint32_t> v(s.indices[0].data(), s.indices[1].data());
        TANDEM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(s.temp.data(), temp, k, v,
                                                          static_cast<int>(n), 0, 32, stream));
        order = v.Current();
        gatherKernel<<<blocksFor(n), 256, 0, stream>>>(n, order, s.tiles.data(),
                                                       s.tileCounts.data());
        cuda::checkLaunch("splats gatherKernel");
        temp = s.temp.size();
        TANDEM_CUDA_CHECK(cub::DeviceScan::InclusiveSum(
            s.temp.data(), temp, s.tileCounts.data(), s.ends.data(), static_cast<int>(n), stream));
        emitKernel<<<blocksFor(n), 256, 0, stream>>>(
            f, n, order, s.records.data(), s.tiles.data(), s.ends.data(),
            static_cast<std::uint32_t>(planned), s.entryKeys[0].data(), s.entryValues[0].data(),
            s.counts.data());
        cuda::checkLaunch("splats emitKernel");
        padKernel<<<blocksFor(planned), 256, 0, stream>>>(static_cast<std::uint32_t>(planned),
                                                          s.counts.data(), s.entryKeys[0].data());
        cuda::checkLaunch("splats padKernel");
        cub::DoubleBuffer<std::uint32_t> ek(s.entryKeys[0].data(), s.entryKeys[1].data());
        cub::DoubleBuffer<std::uint32_t> ev(s.entryValues[0].data(), s.entryValues[1].data());
        temp = s.temp.size();
        TANDEM_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
            s.temp.data(), temp, ek, ev, static_cast<int>(planned), 0, tileBits, stream));
        sortedKeys = ek.Current();
        sortedValues = ev.Current();
        rangesKernel<<<blocksFor(planned), 256, 0, stream>>>(
            static_cast<std::uint32_t>(planned), tileTotal, sortedKeys, s.ranges.data());
        cuda::checkLaunch("splats rangesKernel");
    }
    hooks.endStage("splats.sort", streamHandle);

    hooks.beginStage("splats.blend", streamHandle);
    const BlendTargets out{targets.color, targets.depth,  targets.normal,
                           targets.id,    targets.counts, targets.countPitch};
    blendKernel<<<tileTotal, BlendThreads, 0, stream>>>(f, s.records.data(), sortedValues,
                                                        s.ranges.data(), order, s.tiles.data(),
                                                        s.counts.data(), out);
    cuda::checkLaunch("splats blendKernel");
    hooks.endStage("splats.blend", streamHandle);

    TANDEM_CUDA_CHECK(cudaMemcpyAsync(s.pinned + slot, s.counts.data(), sizeof(FrameCounts),
                                      cudaMemcpyDeviceToHost, stream));
    TANDEM_CUDA_CHECK(cudaEventRecord(s.copied[static_cast<std::size_t>(slot)], stream));
    s.pending[static_cast<std::size_t>(slot)] = true;
    s.launchedCount[static_cast<std::size_t>(slot)] = n;
    s.launchedPixels[static_cast<std::size_t>(slot)] = pixels;
    s.next = (slot + 1) % CountSlots;
    TANDEM_CUDA_CHECK(cudaEventRecord(s.done, stream));
    s.recorded = true;
}

} // namespace tandem::render
