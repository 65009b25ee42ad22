// frame: a frame runs resident on CUDA exactly when nothing in it needs GL (frame/Residence.h's
// chooseMemory()), and its two copies of each resource stay coherent by interop/Coherence.h's
// rules: a use sees the newer copy, and nothing is copied that it does not need.
#include <gtest/gtest.h>

#include "engine/frame/Residence.h"
#include "engine/interop/Coherence.h"

namespace tandem::frame {
namespace {

/// A frame that needs no GL: headless, every pass on CUDA, the output shown.
MemoryNeeds allCuda()
{
    MemoryNeeds needs;
    needs.cudaPath = true;
    needs.cudaPasses = true;
    needs.showsOutput = true;
    needs.presents = false;
    return needs;
}

TEST(Memory, CudaWhenNothingNeedsGl)
{
    std::string why;
    EXPECT_EQ(chooseMemory(allCuda(), &why), Memory::Cuda);
    EXPECT_EQ(why, "CUDA-resident: no handoff; the output read back by CUDA");
    MemoryNeeds window = allCuda();
    window.presents = true;
    EXPECT_EQ(chooseMemory(window, &why), Memory::Cuda);
    EXPECT_EQ(why, "CUDA-resident: the output copied into GL in one map to be presented");
}

TEST(Memory, GlWheneverSomethingNeedsIt)
{
    struct Case {
        void (*change)(MemoryNeeds&);
        const char* why;
    };
    const Case cases[] = {
        {[](MemoryNeeds& n) { n.choice = MemoryChoice::Gl; },
         "GL-resident: asked for with --frame-memory gl"},
        {[](MemoryNeeds& n) { n.cudaPath = false; }, "GL-resident: the host path"},
        {[](MemoryNeeds& n) { n.glDraws = true; }, "GL-resident: GL draws into the G-buffer"},
        {[](MemoryNeeds& n) { n.hostPasses = true; }, "GL-resident: a pass runs on the host"},
        {[](MemoryNeeds& n) { n.cudaPasses = false; }, "GL-resident: no pass runs on CUDA"},
        {[](MemoryNeeds& n) { n.captured = true; },
         "GL-resident: a capture tool records the frame"},
        {[](MemoryNeeds& n) { n.readsTargets = true; },
         "GL-resident: GL reads the G-buffer's targets after the frame"},
        {[](MemoryNeeds& n) { n.showsOutput = false; },
         "GL-resident: the G-buffer colour is shown through GL"},
        {[](MemoryNeeds& n) { n.presents = true, n.presentCopy = false; },
         "GL-resident: presented with the passes inside the handoff"},
    };
    for (const Case& c : cases) {
        MemoryNeeds needs = allCuda();
        c.change(needs);
        std::string why;
        EXPECT_EQ(chooseMemory(needs, &why), Memory::Gl) << c.why;
        EXPECT_EQ(why, c.why);
    }
}

} // namespace
} // namespace tandem::frame

namespace tandem::interop {
namespace {

TEST(Coherence, AUseSeesTheNewerCopyAndCopiesOnlyWhatItReads)
{
    for (const Intent intent : {Intent::Read, Intent::Write, Intent::ReadWrite}) {
        const bool reads = intent != Intent::Write;
        const bool writes = intent != Intent::Read;
        for (const Newer newer : {Newer::Neither, Newer::Gl, Newer::Cuda}) {
            SCOPED_TRACE(testing::Message() << "intent " << static_cast<int>(intent) << ", newer "
                                            << static_cast<int>(newer));
            const Step resident = residentUse(newer, intent);
            EXPECT_FALSE(resident.copyToGl);
            EXPECT_EQ(resident.copyToCuda, reads && newer == Newer::Gl);
            // Written: the CUDA copy is newer. Read: it is as new as it was, or as GL's once
            // brought over.
            EXPECT_EQ(resident.after, writes                 ? Newer::Cuda
                                      : newer == Newer::Cuda ? Newer::Cuda
                                                             : Newer::Neither);
            const Step mapped = mappedUse(newer, intent);
            EXPECT_FALSE(mapped.copyToCuda);
            EXPECT_EQ(mapped.copyToGl, reads && newer == Newer::Cuda);
            EXPECT_EQ(mapped.after, writes               ? Newer::Gl
                                    : newer == Newer::Gl ? Newer::Gl
                                                         : Newer::Neither);
        }
    }
}

TEST(Coherence, AlternatingFramesCopyOnceEachWay)
{
    // A resource GL drew, read by a CUDA-resident frame twice, then by a handoff, then written
    // by a CUDA-resident frame and read by a handoff: one copy each time the reader's copy is
    // stale, none otherwise.
    Newer newer = Newer::Gl;
    int copies = 0;
    const auto resident = [&](Intent intent) {
        const Step step = residentUse(newer, intent);
        copies += step.copyToCuda;
        newer = step.after;
    };
    const auto mapped = [&](Intent intent) {
        const Step step = mappedUse(newer, intent);
        copies += step.copyToGl;
        newer = step.after;
    };
    resident(Intent::Read);
    EXPECT_EQ(copies, 1);
    resident(Intent::Read);
    mapped(Intent::Read);
    EXPECT_EQ(copies, 1);
    EXPECT_EQ(newer, Newer::Neither);
    resident(Intent::ReadWrite);
    EXPECT_EQ(newer, Newer::Cuda);
    mapped(Intent::Read);
    EXPECT_EQ(copies, 2);
    mapped(Intent::Write);
    EXPECT_EQ(newer, Newer::Gl);
    resident(Intent::Write); // overwritten whole: nothing to bring over
    EXPECT_EQ(copies, 2);
}

} // namespace
} // namespace tandem::interop
