// One libFuzzer executable per target: TANDEM_FUZZ_TARGET names the function of Targets.h.
#include "tests/fuzz/Targets.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    return tandem::fuzz::TANDEM_FUZZ_TARGET(data, size);
}
