// Windows in builds without GLFW (TANDEM_WINDOW=OFF, headless GPU servers): never available.
#include "engine/platform/Context.h"

namespace tandem::platform {

Result<std::unique_ptr<Context>> tryCreateWindow(const ContextOptions&)
{
    return fail("this build has no window support (configured with TANDEM_WINDOW=OFF)");
}

} // namespace tandem::platform
