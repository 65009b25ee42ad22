// Probe, not part of the build: can the host feed a streamed pack's 20 MB frames to the GPU at
// 2000 frames/s? Times, on a 64-frame file in the page cache: the pinned host-to-device ceiling;
// today's loaders (pread in 1 MiB chunks, each CRC-32'd while in the cache, into pinned staging,
// then the upload) with 1 to 15 threads; and the file's read-only mapping registered with CUDA
// (DMA straight from the page cache, the CRC read from the mapping), with the cost of
// registering it whole and a frame at a time. Quoted in bench/results/README.md (the frame,
// overlapped); its output there is 2026-12-04-h200-stream-feed-probe-b9e2922.txt.
// Build: nvcc -O2 -std=c++20 -arch=sm_90 stream-feed.cu -o stream-feed -ldeflate
// Run:   ./stream-feed [FILE, default /tmp/probe.bin; 1.3 GB, removed at the end]
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>
#include <vector>
#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            printf("%s: %s\n", #x, cudaGetErrorString(e_));                                        \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
using clk = std::chrono::steady_clock;
static double secs(clk::time_point a)
{
    return std::chrono::duration<double>(clk::now() - a).count();
}
const size_t FRAME = 20u << 20;
const int FRAMES = 64;
const size_t CHUNK = 1u << 20;

double run(int threads, double seconds, auto body)
{
    std::atomic<long> done{0};
    std::atomic<bool> stop{false};
    std::vector<std::thread> t;
    auto t0 = clk::now();
    for (int i = 0; i < threads; ++i)
        t.emplace_back([&, i] {
            long n = 0;
            while (!stop) {
                body(i, n++);
                ++done;
            }
        });
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    stop = true;
    for (auto& x : t)
        x.join();
    return done / secs(t0);
}
int main(int argc, char** argv)
{
    const char* path = argc > 1 ? argv[1] : "/tmp/probe.bin";
    {
        int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
        std::vector<char> b(FRAME);
        for (size_t i = 0; i < FRAME; ++i)
            b[i] = char(i * 131 + 7);
        for (int f = 0; f < FRAMES; ++f) {
            b[0] = char(f);
            if (write(fd, b.data(), FRAME) != (ssize_t)FRAME) {
                puts("write");
                return 1;
            }
        }
        close(fd);
    }
    int fd = open(path, O_RDONLY);
    {
        std::vector<char> b(FRAME);
        for (int f = 0; f < FRAMES; ++f)
            if (pread(fd, b.data(), FRAME, off_t(f) * FRAME) != (ssize_t)FRAME)
                return 1;
    }
    CK(cudaSetDevice(0));
    CK(cudaFree(0));
    const int MAXT = 16;
    std::vector<void*> dev(MAXT), pin(MAXT);
    std::vector<cudaStream_t> st(MAXT);
    for (int i = 0; i < MAXT; ++i) {
        CK(cudaMalloc(&dev[i], FRAME));
        CK(cudaMallocHost(&pin[i], FRAME));
        CK(cudaStreamCreateWithFlags(&st[i], cudaStreamNonBlocking));
    }
    // H2D ceiling from pinned memory, 1 and 2 streams
    for (int s : {1, 2})
        printf("h2d pinned %d stream(s): %.0f frames/s\n", s, run(s, 1.0, [&](int i, long) {
                   CK(cudaMemcpyAsync(dev[i], pin[i], FRAME, cudaMemcpyHostToDevice, st[i]));
                   CK(cudaStreamSynchronize(st[i]));
               }));
    // today's loaders: pread in 1 MB chunks + CRC per chunk into pinned staging, then its upload
    auto load = [&](int i, long k) {
        char* p = (char*)pin[i];
        uint32_t c = 0;
        off_t o = off_t((k * 7 + i) % FRAMES) * FRAME;
        for (size_t d = 0; d < FRAME; d += CHUNK) {
            if (pread(fd, p + d, CHUNK, o + d) != (ssize_t)CHUNK)
                exit(2);
            c = libdeflate_crc32(c, p + d, CHUNK);
        }
        if (c == 0x12345678)
            puts("!");
    };
    for (int n : {1, 4, 8, 12, 15})
        printf("pread+crc only, %2d loaders: %.0f frames/s\n", n, run(n, 1.5, load));
    for (int n : {8, 12, 15})
        printf("pread+crc then upload, %2d loaders: %.0f frames/s\n", n,
               run(n, 1.5, [&](int i, long k) {
                   load(i, k);
                   CK(cudaMemcpyAsync(dev[i], pin[i], FRAME, cudaMemcpyHostToDevice, st[i]));
                   CK(cudaStreamSynchronize(st[i]));
               }));
    // the mapping registered: DMA from the page cache, CRC read on the mapping
    size_t total = FRAME * FRAMES;
    auto t0 = clk::now();
    char* map = (char*)mmap(nullptr, total, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
    if (map == MAP_FAILED) {
        puts("mmap failed");
        return 1;
    }
    printf("mmap+populate %zu MB: %.1f ms\n", total >> 20, secs(t0) * 1e3);
    t0 = clk::now();
    cudaError_t r =
        cudaHostRegister(map, total, cudaHostRegisterReadOnly | cudaHostRegisterPortable);
    printf("cudaHostRegister(ReadOnly) %zu MB: %s, %.1f ms\n", total >> 20, cudaGetErrorString(r),
           secs(t0) * 1e3);
    if (r == cudaSuccess) {
        for (int n : {1, 2, 4, 8})
            printf("mapped DMA only, %d streams: %.0f frames/s\n", n,
                   run(n, 1.0, [&](int i, long k) {
                       CK(cudaMemcpyAsync(dev[i], map + size_t((k * 7 + i) % FRAMES) * FRAME, FRAME,
                                          cudaMemcpyHostToDevice, st[i]));
                       CK(cudaStreamSynchronize(st[i]));
                   }));
        for (int n : {4, 8, 12, 15})
            printf("mapped crc then DMA, %2d threads: %.0f frames/s\n", n,
                   run(n, 1.5, [&](int i, long k) {
                       const char* p = map + size_t((k * 7 + i) % FRAMES) * FRAME;
                       if (libdeflate_crc32(0, p, FRAME) == 0x12345678)
                           puts("!");
                       CK(cudaMemcpyAsync(dev[i], p, FRAME, cudaMemcpyHostToDevice, st[i]));
                       CK(cudaStreamSynchronize(st[i]));
                   }));
        t0 = clk::now();
        CK(cudaHostUnregister(map));
        printf("unregister: %.1f ms\n", secs(t0) * 1e3);
        // a sliding window: the cost of registering one frame's pages at a time
        t0 = clk::now();
        for (int f = 0; f < FRAMES; ++f) {
            CK(cudaHostRegister(map + size_t(f) * FRAME, FRAME, cudaHostRegisterReadOnly));
            CK(cudaHostUnregister(map + size_t(f) * FRAME));
        }
        printf("register+unregister per 20 MB frame: %.3f ms\n", secs(t0) * 1e3 / FRAMES);
    }
    munmap(map, total);
    close(fd);
    unlink(path);
    return 0;
}
