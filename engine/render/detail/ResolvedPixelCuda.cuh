// The CUDA side of what the drawing passes' resolves share: a ResolvedPixel written into the
// G-buffer's surfaces (only the colour target's format). Private to render/'s .cu files.
#pragma once

#include <cuda_runtime_api.h>
#include <surface_indirect_functions.h>

#include "engine/render/PointSplat.h"

namespace tandem::render::detail {

__device__ __forceinline__ void writeResolved(const ResolvedPixel& r, int colorIsHalf, int x, int y,
                                              cudaSurfaceObject_t color, cudaSurfaceObject_t normal,
                                              cudaSurfaceObject_t depth, cudaSurfaceObject_t id)
{
    if (colorIsHalf)
        surf2Dwrite(make_ushort4(r.color16[0], r.color16[1], r.color16[2], r.color16[3]), color,
                    x * 8, y);
    else
        surf2Dwrite(make_uchar4(r.color8[0], r.color8[1], r.color8[2], r.color8[3]), color, x * 4,
                    y);
    surf2Dwrite(make_ushort4(r.normal[0], r.normal[1], r.normal[2], r.normal[3]), normal, x * 8, y);
    surf2Dwrite(r.depth, depth, x * 4, y);
    surf2Dwrite(static_cast<unsigned int>(r.id), id, x * 4, y);
}

} // namespace tandem::render::detail
