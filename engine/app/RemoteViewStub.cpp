// RemoteView in a build without the browser view (TANDEM_SERVE=OFF: a GPU server without
// Boost's headers): open() says so; nothing else is reachable.
#include "engine/app/RemoteView.h"

namespace tandem::app {

class RemoteView::Impl {};

Result<std::unique_ptr<RemoteView>> RemoteView::open(const ServeAddress&, const std::string&,
                                                     const std::string&, int)
{
    return fail("--serve: this build has no browser view (configured with TANDEM_SERVE=OFF)");
}

RemoteView::RemoteView(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
RemoteView::~RemoteView() = default;
void RemoteView::takeMessages(const std::function<void(const std::vector<platform::InputEvent>&)>&)
{}
std::optional<Size> RemoteView::wantedSize() const
{
    return std::nullopt;
}
void RemoteView::readBack(const render::SceneRenderer&, frame::Frame&, std::uint64_t) {}
bool RemoteView::statsDue()
{
    return false;
}
void RemoteView::publishStats(nlohmann::json) {}
Registration RemoteView::onCommand(const std::string&, std::function<Reply(const nlohmann::json&)>)
{
    return {};
}
void RemoteView::finish() {}
std::string RemoteView::url() const
{
    return {};
}
nlohmann::json RemoteView::report() const
{
    return {};
}

} // namespace tandem::app
