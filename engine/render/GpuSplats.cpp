#include "engine/render/GpuSplats.h"

#include <algorithm>

#include "engine/core/Error.h"
#include "engine/core/Log.h"
#include "engine/cuda/Copy.h"

namespace tandem::render {

GpuSplats::GpuSplats(const std::vector<SplatObject>& objects)
{
    int degree = 0;
    for (const SplatObject& object : objects)
        degree = std::max(degree, object.gaussians.shDegree);
    m_host.shDegree = degree;
    const auto stride = static_cast<std::size_t>(io::shCoefficients(degree)) * 3;
    for (const SplatObject& object : objects) {
        const SplatArrays a = splatArrays(object.gaussians);
        const auto own = static_cast<std::size_t>(io::shCoefficients(a.shDegree)) * 3;
        using Field = std::vector<float> SplatArrays::*;
        for (const Field field : {&SplatArrays::positions, &SplatArrays::scales,
                                  &SplatArrays::rotations, &SplatArrays::opacities})
            (m_host.*field).insert((m_host.*field).end(), (a.*field).begin(), (a.*field).end());
        for (std::uint32_t i = 0; i < a.count; ++i) {
            const auto first = a.sh.begin() + static_cast<std::ptrdiff_t>(i * own);
            m_host.sh.insert(m_host.sh.end(), first, first + static_cast<std::ptrdiff_t>(own));
            m_host.sh.insert(m_host.sh.end(), stride - own, 0.0f);
        }
        m_host.count += a.count;
    }
}

GpuSplats::GpuSplats(const SplatView& view)
{
    unpackSplatRegion(view, m_host.positions, m_host.scales, m_host.rotations, m_host.opacities,
                      m_host.sh);
    m_host.count = view.count;
    m_host.shDegree = view.shDegree;
}

GpuSplats GpuSplats::elsewhere(std::uint32_t count, int degree)
{
    GpuSplats splats;
    splats.m_host.count = count;
    splats.m_host.shDegree = degree;
    splats.m_elsewhere = true;
    return splats;
}

SplatScene GpuSplats::device() const
{
    if (m_elsewhere)
        throw Error("render::GpuSplats::device(): the Gaussians are in a streamed frame's device "
                    "memory; the splat pass reads them there");
    if (m_device.empty()) {
        Device d;
        const auto upload = [](cuda::DeviceBuffer<float>& to, const std::vector<float>& from) {
            to = cuda::DeviceBuffer<float>(std::max<std::size_t>(from.size(), 1), "splats");
            cuda::copy(to.data(), from.data(), from.size() * sizeof(float));
        };
        upload(d.positions, m_host.positions);
        upload(d.scales, m_host.scales);
        upload(d.rotations, m_host.rotations);
        upload(d.opacities, m_host.opacities);
        upload(d.sh, m_host.sh);
        log::info("splats: {} Gaussians of SH degree {} in device memory ({:.1f} MiB)",
                  m_host.count, m_host.shDegree,
                  static_cast<double>(d.positions.bytes() + d.scales.bytes() + d.rotations.bytes() +
                                      d.opacities.bytes() + d.sh.bytes()) /
                      (1024.0 * 1024.0));
        m_device.push_back(std::move(d));
    }
    const Device& d = m_device.front();
    return {d.positions.data(), d.scales.data(), d.rotations.data(),
            d.opacities.data(), d.sh.data(),     m_host.count};
}

} // namespace tandem::render
