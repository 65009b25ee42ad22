// gl tier: steady-state scopes allocate nothing. This file replaces the global operator new
// for the whole gl test binary; the replacement only counts (an atomic counter) while this
// test's flag is set, so the other tests see plain malloc/free. Warm-up frames grow every
// slot's pools first; then one frame's 1000 begin/end pairs of GL, CPU and thread-track scopes
// (CUDA ones too, in a CUDA build with a GPU) must not reach operator new.
#include <atomic>
#include <cstdlib>
#include <new>
#include <string>

#include <gtest/gtest.h>

#include "engine/profile/Profiler.h"
#include "tests/support/GlTestContext.h"

#ifdef TANDEM_HAS_CUDA
#include "engine/cuda/Device.h"
#include "engine/cuda/Stream.h"
#endif

namespace {

std::atomic<bool> g_counting{false};
std::atomic<std::size_t> g_allocations{0};

void* allocate(std::size_t size, std::size_t alignment = 0)
{
    if (g_counting.load(std::memory_order_relaxed))
        g_allocations.fetch_add(1, std::memory_order_relaxed);
    size = size == 0 ? 1 : size;
    void* p = alignment == 0
                  ? std::malloc(size)
                  : std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
    if (!p)
        throw std::bad_alloc();
    return p;
}

} // namespace

void* operator new(std::size_t size)
{
    return allocate(size);
}
void* operator new[](std::size_t size)
{
    return allocate(size);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept
{
    try {
        return allocate(size);
    } catch (const std::bad_alloc&) {
        return nullptr;
    }
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept
{
    try {
        return allocate(size);
    } catch (const std::bad_alloc&) {
        return nullptr;
    }
}
void* operator new(std::size_t size, std::align_val_t alignment)
{
    return allocate(size, static_cast<std::size_t>(alignment));
}
void* operator new[](std::size_t size, std::align_val_t alignment)
{
    return allocate(size, static_cast<std::size_t>(alignment));
}
// The replaced operator new takes its memory from malloc, so the replaced operator delete frees
// it with free(); GCC, inlining the pair, warns of a mismatch (-Wmismatched-new-delete) that
// the replacement itself makes correct.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void operator delete(void* p) noexcept
{
    std::free(p);
}
void operator delete[](void* p) noexcept
{
    std::free(p);
}
void operator delete(void* p, std::size_t) noexcept
{
    std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept
{
    std::free(p);
}
void operator delete(void* p, std::align_val_t) noexcept
{
    std::free(p);
}
void operator delete[](void* p, std::align_val_t) noexcept
{
    std::free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept
{
    std::free(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept
{
    std::free(p);
}

namespace tandem::profile {
namespace {

constexpr int Pairs = 1000;
constexpr int WarmupFrames = 8; // twice the slot ring: every slot's pools have grown

/// Keeps the compiler from proving `p` unused (and eliding the allocation behind it).
void escape(const void* p)
{
    asm volatile("" : : "r"(p) : "memory");
}

/// Counts operator new calls while `body` runs.
template <class Body> std::size_t allocationsDuring(Body&& body)
{
    g_allocations = 0;
    g_counting = true;
    body();
    g_counting = false;
    return g_allocations.load();
}

using ProfilerAllocGL = test::GlTest;

TEST_F(ProfilerAllocGL, TheCounterSeesAllocations)
{
    // Proves the test below can fail: an allocation in the window is counted. (A call of
    // operator new, unlike a new-expression, cannot be optimised away.)
    EXPECT_EQ(allocationsDuring([] { ::operator delete(::operator new(16)); }), 1u);
    // Span names longer than std::string's small buffer, as real stage names are: copying one
    // into a std::string (what the profiler did before its names were static) allocates.
    EXPECT_GE(allocationsDuring([] {
                  std::string copy("geometry.visibility");
                  escape(copy.data());
              }),
              1u);
}

TEST_F(ProfilerAllocGL, SteadyStateGlCpuAndThreadScopesDoNotAllocate)
{
    if (!CompiledIn)
        GTEST_SKIP() << "the profiler is compiled out (TANDEM_PROFILER=OFF): nothing to measure";
    Profiler profiler;
    CpuTrack& track = profiler.threadTrack("encoder"); // recorded from this thread: same path
    auto frame = [&] {
        profiler.beginFrame();
        const std::size_t count = allocationsDuring([&] {
            for (int i = 0; i < Pairs; ++i) {
                {
                    GlScope scope(profiler, "geometry.visibility");
                }
                {
                    CpuScope scope(profiler, "postfx.host-stage");
                }
                {
                    ThreadScope scope(track, "encoder.write-frame");
                }
                profiler.endGl(profiler.beginGl("present.to-the-window"));
                profiler.endCpu(profiler.beginCpu("readback.to-host-memory"));
            }
        });
        profiler.endFrame();
        return count;
    };
    for (int i = 0; i < WarmupFrames; ++i)
        frame();
    (void)profiler.takeFrames();
    EXPECT_EQ(frame(), 0u) << "operator new calls in " << Pairs << " scope pairs of each kind";

    // The scopes did their work: the measured frame holds every span.
    profiler.flush();
    const auto frames = profiler.takeFrames();
    ASSERT_FALSE(frames.empty());
    EXPECT_EQ(frames.back().index, static_cast<std::uint64_t>(WarmupFrames));
    int gl = 0, cpu = 0, thread = 0;
    for (const auto& span : frames.back().spans) {
        gl += span.api == Api::Gl ? 1 : 0;
        cpu += span.api == Api::Cpu && span.track == 0 ? 1 : 0;
        thread += span.api == Api::Cpu && span.track == track.index() ? 1 : 0;
    }
    EXPECT_EQ(gl, 2 * Pairs);
    EXPECT_EQ(cpu, 2 * Pairs);
    EXPECT_EQ(thread, Pairs);
}

TEST_F(ProfilerAllocGL, SteadyStateCudaScopesDoNotAllocate)
{
#ifdef TANDEM_HAS_CUDA
    if (!CompiledIn)
        GTEST_SKIP() << "the profiler is compiled out (TANDEM_PROFILER=OFF): nothing to measure";
    const auto devices = cuda::listDevices();
    if (!devices || devices.value().empty())
        GTEST_SKIP() << "no CUDA device here (" << (devices ? "none listed" : devices.error())
                     << "): this part runs where a GPU is";
    Profiler profiler;
    cuda::Stream frameStream, copyStream;
    profiler.nameStream(frameStream.get(), "frame");
    auto frame = [&] {
        profiler.beginFrame();
        const std::size_t count = allocationsDuring([&] {
            profiler.beginHandoff();
            profiler.anchorHandoff(frameStream.get());
            for (int i = 0; i < Pairs; ++i) {
                profiler.endCuda(profiler.beginCuda("postfx.tonemap-stage", frameStream.get()),
                                 frameStream.get());
                profiler.endCuda(profiler.beginCuda("copy.to-the-encoder", copyStream.get()),
                                 copyStream.get());
            }
            profiler.nameStream(frameStream.get(), "frame"); // named again: no work
            profiler.endHandoff();
        });
        profiler.endFrame();
        return count;
    };
    for (int i = 0; i < WarmupFrames; ++i)
        frame();
    (void)profiler.takeFrames();
    EXPECT_EQ(frame(), 0u) << "operator new calls in " << Pairs << " CUDA scope pairs per stream";
    profiler.flush();
    const auto frames = profiler.takeFrames();
    ASSERT_FALSE(frames.empty());
    int cudaSpans = 0;
    for (const auto& span : frames.back().spans)
        cudaSpans += span.api == Api::Cuda ? 1 : 0;
    EXPECT_EQ(cudaSpans, 2 * Pairs);
#else
    GTEST_SKIP() << "built without CUDA: no CUDA scopes to measure";
#endif
}

} // namespace
} // namespace tandem::profile
