// The browser view's fuzz target (Targets.h: clientMessage), apart so that builds without the
// browser view (TANDEM_SERVE=OFF) leave it out.
#include <string_view>

#include "engine/web/Protocol.h"
#include "tests/fuzz/Targets.h"

namespace tandem::fuzz {

int clientMessage(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    (void)web::parseClientMessage(text);
    (void)web::readFrameMessage(text);
    return 0;
}

} // namespace tandem::fuzz
