#include "engine/capture/RenderDoc.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include <dlfcn.h>
#include <fmt/format.h>
#include <renderdoc_app.h>
#include <unistd.h>

#include "engine/core/File.h"

extern char** environ;

namespace tandem::capture {

namespace fs = std::filesystem;

namespace {

RENDERDOC_API_1_4_1* api(void* p)
{
    return static_cast<RENDERDOC_API_1_4_1*>(p);
}

} // namespace

std::unique_ptr<RenderDoc> RenderDoc::attach()
{
    // RTLD_NOLOAD: only if RenderDoc is already in the process (preloaded or injected).
    void* library = dlopen("librenderdoc.so", RTLD_NOW | RTLD_NOLOAD);
    if (!library)
        return nullptr;
    auto getApi = reinterpret_cast<pRENDERDOC_GetAPI>(dlsym(library, "RENDERDOC_GetAPI"));
    RENDERDOC_API_1_4_1* entry = nullptr;
    if (!getApi || getApi(eRENDERDOC_API_Version_1_4_1, reinterpret_cast<void**>(&entry)) != 1 ||
        !entry)
        return nullptr;
    // tandem owns F12 (its captures also bring the CUDA output into the GL stream): RenderDoc's
    // own capture keys would capture the same frame a second time, without that.
    entry->SetCaptureKeys(nullptr, 0);
    return std::unique_ptr<RenderDoc>(new RenderDoc(static_cast<void*>(entry)));
}

std::optional<fs::path> RenderDoc::findLibrary()
{
    if (void* library = dlopen("librenderdoc.so", RTLD_LAZY | RTLD_NOLOAD)) {
        dlclose(library);
        return fs::path("librenderdoc.so");
    }
    std::error_code ec;
    if (const char* chosen = std::getenv("TANDEM_RENDERDOC_LIBRARY"); chosen && *chosen) {
        if (fs::is_regular_file(chosen, ec))
            return fs::absolute(chosen, ec);
        return std::nullopt;
    }
    // The loader's own search: LD_LIBRARY_PATH first, then where Debian and a source build put it.
    std::vector<fs::path> folders;
    if (const char* path = std::getenv("LD_LIBRARY_PATH")) {
        std::string_view rest(path);
        while (!rest.empty()) {
            const std::size_t colon = rest.find(':');
            if (const std::string_view folder = rest.substr(0, colon); !folder.empty())
                folders.emplace_back(folder);
            rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
        }
    }
    for (const char* folder : {"/usr/lib", "/usr/lib/x86_64-linux-gnu", "/usr/local/lib"})
        folders.emplace_back(folder);
    for (const fs::path& folder : folders) {
        if (fs::exists(folder / "librenderdoc.so", ec))
            return fs::absolute(folder / "librenderdoc.so", ec);
    }
    return std::nullopt;
}

bool RenderDoc::isReexecutedChild()
{
    const char* child = std::getenv("TANDEM_RENDERDOC_CHILD");
    return child && std::string_view(child) == "1";
}

Failure RenderDoc::reexecWithRenderDoc(char** argv)
{
    if (isReexecutedChild())
        return fail("RenderDoc was preloaded but did not start in the process");
    const auto library = findLibrary();
    if (!library) {
        const char* chosen = std::getenv("TANDEM_RENDERDOC_LIBRARY");
        return fail(chosen && *chosen
                        ? fmt::format("TANDEM_RENDERDOC_LIBRARY={} is not a file", chosen)
                        : std::string("RenderDoc is not installed: no librenderdoc.so on "
                                      "LD_LIBRARY_PATH or in /usr/lib (Debian: apt-get install "
                                      "librenderdoc renderdoccmd)"));
    }
    const fs::path self = fs::read_symlink("/proc/self/exe");
    std::string preload = library->string();
    if (const char* existing = std::getenv("LD_PRELOAD"); existing && *existing)
        preload += std::string(":") + existing;
    setenv("LD_PRELOAD", preload.c_str(), 1);
    setenv("TANDEM_RENDERDOC_CHILD", "1", 1);
    execv(self.c_str(), argv);
    return fail(fmt::format("cannot re-execute {} with RenderDoc preloaded: {}", self.string(),
                            std::strerror(errno)));
}

Result<bool> RenderDoc::setCaptureDirectory(const fs::path& dir)
{
    if (auto ok = prepareOutputDirectory(dir); !ok)
        return fail(ok.error());
    const std::string pattern = (fs::absolute(dir) / ".tandem-capture-in-progress").string();
    api(m_api)->SetCaptureFilePathTemplate(pattern.c_str());
    return true;
}

void RenderDoc::startFrame()
{
    api(m_api)->StartFrameCapture(nullptr, nullptr);
}

bool RenderDoc::endFrame()
{
    return api(m_api)->EndFrameCapture(nullptr, nullptr) == 1;
}

std::vector<std::string> RenderDoc::captures() const
{
    std::vector<std::string> list;
    const std::uint32_t count = api(m_api)->GetNumCaptures();
    for (std::uint32_t i = 0; i < count; ++i) {
        std::uint32_t length = 0;
        if (!api(m_api)->GetCapture(i, nullptr, &length, nullptr) || length == 0)
            continue;
        std::string name(length, '\0');
        api(m_api)->GetCapture(i, name.data(), &length, nullptr);
        name.resize(std::strlen(name.c_str()));
        list.push_back(name);
    }
    return list;
}

std::string RenderDoc::version() const
{
    int major = 0, minor = 0, patch = 0;
    api(m_api)->GetAPIVersion(&major, &minor, &patch);
    return fmt::format("{}.{}.{}", major, minor, patch);
}

} // namespace tandem::capture
