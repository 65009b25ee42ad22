// The scene's Gaussian splats ready for the splat pass: its splat objects merged into one set of
// arrays in the rasterizer's layout (SH padded with zeros to the highest degree among them),
// kept in host memory for the host pass, and copied into CUDA device memory on the CUDA pass's
// first use; or, for a streamed frame whose Gaussians a copy put in device memory itself, only
// their count and degree (elsewhere()). Render thread.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/cuda/DeviceBuffer.h"
#include "engine/render/Scene.h"
#include "engine/render/SceneLayout.h"
#include "engine/render/SplatRaster.h"

namespace tandem::render {

class GpuSplats {
public:
    GpuSplats() = default;
    /// `objects` merged, in order.
    explicit GpuSplats(const std::vector<SplatObject>& objects);
    /// A frame block's splat region, unpacked into host arrays (unpackSplatRegion()).
    explicit GpuSplats(const SplatView& view);
    /// `count` Gaussians of SH degree `degree` held in device memory by someone else (a
    /// streamed frame's copy): no host arrays, and device() refuses.
    static GpuSplats elsewhere(std::uint32_t count, int degree);

    bool empty() const { return m_host.count == 0; }
    std::uint32_t count() const { return m_host.count; }
    /// The SH degree stored (the highest of the objects').
    int shDegree() const { return m_host.shDegree; }
    /// Whether the Gaussians are someone else's device memory (elsewhere()).
    bool isElsewhere() const { return m_elsewhere; }
    /// The arrays in host memory (empty when elsewhere).
    const SplatArrays& host() const { return m_host; }
    /// The arrays in CUDA device memory, copied there on the first call (blocks then). Throws
    /// CudaError, or Error without CUDA or when elsewhere.
    SplatScene device() const;

private:
    SplatArrays m_host;
    bool m_elsewhere = false;
    struct Device {
        cuda::DeviceBuffer<float> positions, scales, rotations, opacities, sh;
    };
    mutable std::vector<Device> m_device; ///< empty until device() (one: the copy)
};

} // namespace tandem::render
