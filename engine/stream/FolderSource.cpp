#include "engine/stream/FolderSource.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <system_error>
#include <tuple>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fnmatch.h>
#include <nlohmann/json.hpp>

#include "engine/core/File.h"
#include "engine/io/Image.h"
#include "engine/io/MeshLoader.h"
#include "engine/io/PlyReader.h"
#include "engine/render/PointSplat.h"
#include "engine/render/Scene.h"
#include "engine/stream/NaturalOrder.h"

namespace tandem::stream {

namespace fs = std::filesystem;

FolderSource::FolderSource(std::vector<SequenceFrame> frames, double fps, std::string description)
    : m_frames(std::move(frames)), m_fps(fps), m_description(std::move(description))
{
    TANDEM_ASSERT(!m_frames.empty(), "stream::FolderSource: no frames");
    TANDEM_ASSERT(fps > 0.0, "stream::FolderSource: fps must be positive");
}

std::string FolderSource::frameName(int index) const
{
    if (index < 0 || index >= frameCount())
        return fmt::format("frame {} of {}", index, m_description);
    return m_frames[static_cast<std::size_t>(index)].file.string();
}

std::optional<fs::path> FolderSource::texture(int index) const
{
    if (index < 0 || index >= frameCount())
        return std::nullopt;
    return m_frames[static_cast<std::size_t>(index)].texture;
}

Result<std::span<const std::uint8_t>> FolderSource::load(int index, const BlockSink& sink) const
{
    if (index < 0 || index >= frameCount())
        return fail(fmt::format("{}: no frame {} (the sequence has {})", m_description, index,
                                frameCount()));
    const fs::path& file = m_frames[static_cast<std::size_t>(index)].file;
    // A PLY frame that cannot fit the memory given (20 bytes a point at least: compact points)
    // is refused from its header, before it is read and decoded whole.
    std::string extension = file.extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (extension == ".ply") {
        auto vertices = io::plyVertexCount(file);
        if (!vertices)
            return fail(vertices.error());
        const std::uint64_t atLeast =
            vertices.value() * (sizeof(glm::vec3) + sizeof(render::PointAttributes));
        if (atLeast > 0 && sink(static_cast<std::size_t>(atLeast)).size() < atLeast)
            return fail(fmt::format("{}: the frame (at least {:.1f} MiB) does not fit in the "
                                    "streaming memory budget (--cache-mb)",
                                    file.string(), static_cast<double>(atLeast) / 1048576.0));
    }
    // The loader's messages name the file.
    auto mesh = io::loadMesh(file);
    if (!mesh)
        return fail(mesh.error());
    render::Scene scene;
    scene.objects.push_back({file.filename().string(), std::move(mesh.value())});
    std::vector<std::string> warnings = mesh.warnings();
    if (const auto& texture = m_frames[static_cast<std::size_t>(index)].texture) {
        if (scene.objects.front().mesh.texcoords.empty() ||
            scene.objects.front().mesh.isPointCloud()) {
            warnings.push_back(fmt::format("{}: texture {} not drawn: the frame has no texture "
                                           "coordinates",
                                           file.string(), texture->filename().string()));
        } else {
            auto image = io::readImage(*texture);
            if (!image)
                return fail(fmt::format("{} (the texture of {})", image.error(), file.string()));
            const auto side = static_cast<int>(render::MaxTextureSize);
            if (image.value().width > side || image.value().height > side)
                return fail(fmt::format("{}: a {}x{} texture exceeds {}x{} (the texture of {})",
                                        texture->string(), image.value().width,
                                        image.value().height, side, side, file.string()));
            scene.texture = std::move(image.value());
        }
    }
    auto block = blockFromScene(scene, sink, frameName(index));
    for (const std::string& warning : warnings)
        block.addWarning(warning);
    return block;
}

namespace {

constexpr double MaxFps = 1000.0;

std::string lowercase(std::string text)
{
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

enum class FrameKind { Ply, Obj, Other };

FrameKind frameKind(const fs::path& file)
{
    const std::string extension = lowercase(file.extension().string());
    if (extension == ".ply")
        return FrameKind::Ply;
    if (extension == ".obj")
        return FrameKind::Obj;
    return FrameKind::Other;
}

bool isRegularFile(const fs::path& path)
{
    std::error_code ec;
    return fs::is_regular_file(path, ec);
}

/// "300 PLY files", "1 OBJ file", "3 PLY and 2 OBJ files".
std::string fileKinds(const std::vector<SequenceFrame>& frames)
{
    std::size_t ply = 0, obj = 0;
    for (const auto& frame : frames) {
        const FrameKind kind = frameKind(frame.file);
        ply += kind == FrameKind::Ply;
        obj += kind == FrameKind::Obj;
    }
    const std::size_t n = frames.size();
    const char* files = n == 1 ? "file" : "files";
    if (ply == n)
        return fmt::format("{} PLY {}", n, files);
    if (obj == n)
        return fmt::format("{} OBJ {}", n, files);
    return fmt::format("{} PLY and {} OBJ files", ply, obj);
}

std::unique_ptr<Source> makeSource(std::vector<SequenceFrame> frames, double fps,
                                   const std::string& what)
{
    std::string description = fmt::format("{} at {:g} fps)", what, fps);
    return std::make_unique<FolderSource>(std::move(frames), fps, std::move(description));
}

/// A frame's texture beside it: the image of the same name (frame_0001.obj and frame_0001.png,
/// .jpg or .jpeg), as capture pipelines that write textured meshes lay them out.
std::optional<fs::path> siblingTexture(const fs::path& frame)
{
    for (const char* extension : {".png", ".jpg", ".jpeg", ".PNG", ".JPG", ".JPEG"}) {
        fs::path image = frame;
        image.replace_extension(extension);
        if (isRegularFile(image))
            return image;
    }
    return std::nullopt;
}

/// The .ply/.obj files in `folder` whose names `keep` accepts, in natural order. Names starting
/// with '.' are skipped (hidden files, and the "._frame.ply" resource forks macOS leaves on
/// copied drives).
template <class Keep> Result<std::vector<SequenceFrame>>
listFrames(const fs::path& folder, const std::string& shown, Keep keep)
{
    std::vector<std::string> names;
    std::error_code ec;
    fs::directory_iterator it(folder.empty() ? fs::path(".") : folder, ec);
    const fs::directory_iterator end;
    for (; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.starts_with('.') || frameKind(name) == FrameKind::Other || !keep(name))
            continue;
        std::error_code typeError;
        if (it->is_regular_file(typeError))
            names.push_back(name);
    }
    if (ec)
        return fail(fmt::format("{}: cannot list the folder: {}", shown, ec.message()));
    std::sort(names.begin(), names.end(),
              [](const std::string& a, const std::string& b) { return naturalLess(a, b); });
    std::vector<SequenceFrame> frames;
    frames.reserve(names.size());
    for (const std::string& name : names)
        frames.push_back({folder / name, siblingTexture(folder / name)});
    return frames;
}

Result<std::unique_ptr<Source>> openFolder(const std::string& spec, double fps)
{
    auto frames = listFrames(spec, spec, [](const std::string&) { return true; });
    if (!frames)
        return fail(frames.error());
    if (frames.value().empty())
        return fail(fmt::format("{}: no frames (.ply or .obj files) in this folder", spec));
    const std::string shown = spec.ends_with('/') ? spec : spec + "/";
    const std::string what = fmt::format("folder {} ({}", shown, fileKinds(frames.value()));
    return makeSource(std::move(frames.value()), fps, what);
}

Result<std::unique_ptr<Source>> openGlob(const std::string& spec, double fps)
{
    const fs::path path(spec);
    const fs::path folder = path.parent_path();
    const std::string pattern = path.filename().string();
    std::error_code ec;
    if (!folder.empty() && !fs::is_directory(folder, ec))
        return fail(fmt::format("{}: no such folder {}", spec, folder.string()));
    auto frames = listFrames(folder, spec, [&](const std::string& name) {
        return fnmatch(pattern.c_str(), name.c_str(), FNM_PERIOD) == 0;
    });
    if (!frames)
        return fail(frames.error());
    if (frames.value().empty())
        return fail(fmt::format("{}: no .ply or .obj file matches the pattern", spec));
    const std::string what = fmt::format("pattern {} ({}", spec, fileKinds(frames.value()));
    return makeSource(std::move(frames.value()), fps, what);
}

/// A file name with one printf integer conversion: what comes before and after it, and its
/// zero-padded width (0: none).
struct PrintfPattern {
    std::string prefix;
    std::string suffix;
    int width = 0;

    std::string name(long long index) const
    {
        return prefix + (width > 0 ? fmt::format("{:0{}d}", index, width) : std::to_string(index)) +
               suffix;
    }
};

/// The conversions `%d` and `%0Nd` in `name`, in order: (position, length, width).
std::vector<std::tuple<std::size_t, std::size_t, int>> printfConversions(const std::string& name)
{
    std::vector<std::tuple<std::size_t, std::size_t, int>> found;
    for (std::size_t i = name.find('%'); i != std::string::npos; i = name.find('%', i + 1)) {
        std::size_t j = i + 1;
        int width = 0;
        if (j < name.size() && name[j] == '0') {
            ++j;
            const std::size_t digits = j;
            while (j < name.size() && std::isdigit(static_cast<unsigned char>(name[j])) &&
                   j - digits < 2)
                width = width * 10 + (name[j++] - '0');
            if (j == digits)
                continue;
        }
        if (j < name.size() && name[j] == 'd')
            found.emplace_back(i, j + 1 - i, width);
    }
    return found;
}

Result<std::unique_ptr<Source>> openPrintf(const std::string& spec, double fps)
{
    const fs::path path(spec);
    const fs::path folder = path.parent_path();
    const std::string fileName = path.filename().string();
    const auto conversions = printfConversions(fileName);
    if (conversions.size() != 1)
        return fail(fmt::format("{}: a pattern takes one %d or %0Nd, this one has {}", spec,
                                conversions.size()));
    const auto [at, length, width] = conversions.front();
    const PrintfPattern pattern{fileName.substr(0, at), fileName.substr(at + length), width};
    std::error_code ec;
    if (!folder.empty() && !fs::is_directory(folder, ec))
        return fail(fmt::format("{}: no such folder {}", spec, folder.string()));
    // Every file the pattern names, by its number; the frames run from the lowest to the
    // highest, and a number missing in between is a missing frame: it keeps its place on the
    // timeline and is skipped, named, when it plays.
    const auto indexOf = [&](const std::string& name) -> long long {
        if (name.size() <= pattern.prefix.size() + pattern.suffix.size() ||
            !name.starts_with(pattern.prefix) || !name.ends_with(pattern.suffix))
            return -1;
        const std::string digits = name.substr(
            pattern.prefix.size(), name.size() - pattern.prefix.size() - pattern.suffix.size());
        if (digits.size() > 15 || !std::all_of(digits.begin(), digits.end(), [](char c) {
                return std::isdigit(static_cast<unsigned char>(c));
            }))
            return -1;
        const long long index = std::stoll(digits);
        return pattern.name(index) == name ? index : -1; // frame_01.ply is not what %d names
    };
    auto listed =
        listFrames(folder, spec, [&](const std::string& name) { return indexOf(name) >= 0; });
    if (!listed)
        return fail(listed.error());
    std::map<long long, std::string> present; // regular files only (listFrames checks)
    for (const SequenceFrame& frame : listed.value())
        present.emplace(indexOf(frame.file.filename().string()), frame.file.filename().string());
    if (present.empty())
        return fail(fmt::format("{}: no frames: no file in {} matches the pattern", spec,
                                folder.empty() ? std::string(".") : folder.string()));
    const long long first = present.begin()->first;
    const long long last = present.rbegin()->first;
    const long long missing = last - first + 1 - static_cast<long long>(present.size());
    if (missing > static_cast<long long>(present.size()))
        return fail(fmt::format("{}: {} files numbered {} to {}, but {} numbers between are "
                                "missing; for files numbered with gaps use a glob ({}*{}), which "
                                "plays them in natural order",
                                spec, present.size(), first, last, missing, pattern.prefix,
                                pattern.suffix));
    std::vector<SequenceFrame> frames;
    std::vector<std::string> gaps;
    for (long long i = first; i <= last; ++i) {
        const fs::path file = folder / pattern.name(i);
        if (!present.contains(i))
            gaps.push_back(pattern.name(i));
        frames.push_back({file, present.contains(i) ? siblingTexture(file) : std::nullopt});
    }
    std::string what = fmt::format("pattern {} (frames {} to {}", spec, first, last);
    if (!gaps.empty())
        what += fmt::format(
            ", {} missing and skipped: {}{}", gaps.size(),
            fmt::join(gaps.begin(), gaps.begin() + std::min<std::size_t>(gaps.size(), 5), ", "),
            gaps.size() > 5 ? ", …" : "");
    return makeSource(std::move(frames), fps, what);
}

/// nlohmann's "[json.exception.parse_error.101] parse error at line 1, column 2: …" without the
/// bracketed prefix.
std::string jsonMessage(const nlohmann::json::exception& e)
{
    std::string message = e.what();
    if (message.starts_with('[')) {
        const auto close = message.find("] ");
        if (close != std::string::npos)
            message = message.substr(close + 2);
    }
    return message;
}

Result<std::unique_ptr<Source>> openManifest(const std::string& spec,
                                             const SequenceOptions& options)
{
    auto text = readTextFile(spec);
    if (!text)
        return fail(text.error());
    nlohmann::json json;
    try {
        json = nlohmann::json::parse(text.value());
    } catch (const nlohmann::json::exception& e) {
        return fail(fmt::format("{}: not valid JSON: {}", spec, jsonMessage(e)));
    }
    if (!json.is_object())
        return fail(fmt::format("{}: expected a JSON object ({{\"frames\": [...]}}), found {}",
                                spec, json.type_name()));

    std::vector<std::string> warnings;
    for (const auto& [key, value] : json.items())
        if (key != "fps" && key != "frames" && key != "textures")
            warnings.push_back(
                fmt::format("{}: unknown key \"{}\" ignored (fps, frames, textures)", spec, key));

    double fps = options.fps;
    if (json.contains("fps")) {
        const auto& value = json["fps"];
        if (!value.is_number() || !(value.get<double>() > 0.0 && value.get<double>() <= MaxFps))
            return fail(fmt::format("{}: \"fps\" must be a number in (0, {:g}], not {}", spec,
                                    MaxFps, value.dump()));
        if (!options.fpsGiven)
            fps = value.get<double>();
    }

    if (!json.contains("frames"))
        return fail(fmt::format("{}: no \"frames\" list", spec));
    const auto& list = json["frames"];
    if (!list.is_array())
        return fail(fmt::format("{}: \"frames\" must be a list, not {}", spec, list.type_name()));
    if (list.empty())
        return fail(fmt::format("{}: \"frames\" is empty", spec));

    const nlohmann::json* textures = nullptr;
    if (json.contains("textures")) {
        textures = &json["textures"];
        if (!textures->is_array() || textures->size() != list.size())
            return fail(fmt::format("{}: \"textures\" must be a list as long as \"frames\" ({} "
                                    "entries)",
                                    spec, list.size()));
    }

    // Names as the manifest writes them (for messages) and as paths from here.
    struct Named {
        std::string written;
        fs::path resolved;
    };
    const fs::path base = fs::path(spec).parent_path();
    auto named = [&](const nlohmann::json& value, std::string_view where) -> Result<Named> {
        if (!value.is_string() || value.get<std::string>().empty())
            return fail(fmt::format("{}: {} must be a file name (a non-empty string), not {}", spec,
                                    where, value.dump()));
        const std::string written = value.get<std::string>();
        return Named{written, base / fs::path(written)};
    };

    std::vector<SequenceFrame> frames;
    std::vector<std::string> missing;
    std::set<std::string> missingSeen;
    auto check = [&](const Named& file) {
        if (!isRegularFile(file.resolved) && missingSeen.insert(file.written).second)
            missing.push_back(file.written);
    };
    for (std::size_t i = 0; i < list.size(); ++i) {
        const auto& entry = list[i];
        const std::string where = fmt::format("frames[{}]", i);
        std::optional<Named> file, texture;
        if (entry.is_string()) {
            auto f = named(entry, where);
            if (!f)
                return fail(f.error());
            file = f.value();
        } else if (entry.is_object()) {
            if (!entry.contains("file"))
                return fail(fmt::format("{}: {} has no \"file\"", spec, where));
            auto f = named(entry["file"], where + ".file");
            if (!f)
                return fail(f.error());
            file = f.value();
            if (entry.contains("texture")) {
                auto t = named(entry["texture"], where + ".texture");
                if (!t)
                    return fail(t.error());
                texture = t.value();
            }
            for (const auto& [key, value] : entry.items())
                if (key != "file" && key != "texture")
                    warnings.push_back(fmt::format("{}: {}: unknown key \"{}\" ignored (file, "
                                                   "texture)",
                                                   spec, where, key));
        } else {
            return fail(fmt::format("{}: {} must be a file name or {{\"file\": ..., \"texture\": "
                                    "...}}, not {}",
                                    spec, where, entry.dump()));
        }
        if (textures && !(*textures)[i].is_null()) {
            if (texture)
                return fail(fmt::format("{}: frame {} has a texture both in \"frames\" and in "
                                        "\"textures\"",
                                        spec, i));
            auto t = named((*textures)[i], fmt::format("textures[{}]", i));
            if (!t)
                return fail(t.error());
            texture = t.value();
        }
        check(*file);
        if (texture)
            check(*texture);
        frames.push_back({file->resolved,
                          texture ? std::optional(texture->resolved) : std::optional<fs::path>()});
    }
    if (!missing.empty()) {
        std::string names;
        for (const std::string& name : missing)
            names += (names.empty() ? "" : ", ") + name;
        return fail(fmt::format("{}: {} {} missing: {}", spec, missing.size(),
                                missing.size() == 1 ? "file is" : "files are", names));
    }
    const std::size_t n = frames.size();
    Result<std::unique_ptr<Source>> result = makeSource(
        std::move(frames), fps, fmt::format("manifest {} ({} frame{}", spec, n, n == 1 ? "" : "s"));
    for (std::string& warning : warnings)
        result.addWarning(std::move(warning));
    return result;
}

} // namespace

Result<std::unique_ptr<Source>> openFileSequence(const std::string& spec,
                                                 const SequenceOptions& options)
{
    if (!(options.fps > 0.0 && options.fps <= MaxFps))
        return fail(fmt::format("{}: frame rate {:g} is out of range (0, {:g}]", spec, options.fps,
                                MaxFps));
    if (spec.empty())
        return fail("an empty name is no file or folder");
    std::error_code ec;
    if (fs::is_directory(spec, ec))
        return openFolder(spec, options.fps);
    const std::string fileName = fs::path(spec).filename().string();
    if (fileName.find_first_of("*?") != std::string::npos)
        return openGlob(spec, options.fps);
    if (!printfConversions(fileName).empty())
        return openPrintf(spec, options.fps);
    if (!fs::exists(spec, ec))
        return fail(fmt::format("{}: no such file or folder", spec));
    const fs::path path(spec);
    if (lowercase(path.extension().string()) == ".json")
        return openManifest(spec, options);
    if (frameKind(path) != FrameKind::Other && isRegularFile(path)) {
        std::vector<SequenceFrame> frames{{path, siblingTexture(path)}};
        return makeSource(std::move(frames), options.fps, fmt::format("file {} (1 frame", spec));
    }
    return fail(fmt::format("{}: not a frame sequence (expected a folder, a .json manifest, a "
                            "pattern such as frame_*.ply or frame_%04d.ply, or a .ply or .obj "
                            "file)",
                            spec));
}

} // namespace tandem::stream
