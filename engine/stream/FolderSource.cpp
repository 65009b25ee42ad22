#include "engine/stream/FolderSource.h"

#include <algorithm>
#include <array>
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
#include "engine/core/JsonDepth.h"
#include "engine/core/Plural.h"
#include "engine/io/GaussianReader.h"
#include "engine/io/GaussianTransform.h"
#include "engine/io/MeshLoader.h"
#include "engine/io/PlyReader.h"
#include "engine/render/PointSplat.h"
#include "engine/render/Scene.h"
#include "engine/render/SceneTexture.h"
#include "engine/stream/NaturalOrder.h"
#include "engine/stream/PlyPoints.h"

namespace tandem::stream {

namespace fs = std::filesystem;

FolderSource::FolderSource(std::vector<SequenceFrame> frames, double fps, std::string description,
                           const glm::dmat3& turn)
    : m_frames(std::move(frames)), m_fps(fps), m_turn(turn), m_description(std::move(description))
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
    std::string extension = file.extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    // A PLY frame is read once, as it is decoded (a binary cloud's body a small piece at a time:
    // loadPlyPoints()). Each loader thread reads frame after frame into one buffer, not into
    // memory the system maps and clears again for every frame; one that a huge frame grew is let
    // go.
    thread_local std::vector<std::uint8_t> buffer;
    constexpr std::size_t KeptBytes = std::size_t{256} << 20;
    struct Release {
        ~Release()
        {
            if (buffer.capacity() > KeptBytes)
                std::vector<std::uint8_t>().swap(buffer);
        }
    };
    std::optional<Release> release;
    std::optional<FileReader> ply;
    bool splat = false;
    if (extension == ".ply") {
        auto opened = FileReader::open(file, buffer);
        if (!opened)
            return fail(opened.error());
        ply.emplace(std::move(opened.value()));
        release.emplace();
        // The file's first bytes, read once for the splat check and the header (nearly always
        // within them; else as far as a header may go).
        const auto start = [&ply](std::size_t bytes) -> Result<std::span<const std::uint8_t>> {
            if (!ply->readTo(bytes))
                if (auto all = ply->readAll(); !all)
                    return fail(all.error());
            return ply->start().first(std::min(bytes, ply->start().size()));
        };
        auto sniffed = start(io::SplatSniffBytes);
        if (!sniffed)
            return fail(sniffed.error());
        auto vertices = io::plyVertexCount(sniffed.value(), file.string());
        if (!vertices && sniffed.value().size() < ply->size()) {
            auto head = start(io::PlyHeaderBytes);
            if (!head)
                return fail(head.error());
            vertices = io::plyVertexCount(head.value(), file.string());
        }
        // A PLY frame that cannot fit the memory given (20 bytes a point at least: compact
        // points) is refused from its header, before it is read and decoded whole.
        if (!vertices)
            return fail(vertices.error());
        const std::uint64_t atLeast =
            vertices.value() * (sizeof(glm::vec3) + sizeof(render::PointAttributes));
        if (atLeast > 0 && sink(static_cast<std::size_t>(atLeast)).size() < atLeast)
            return fail(fmt::format("{}: the frame (at least {:.1f} MiB) does not fit in the "
                                    "streaming memory budget (--cache-mb)",
                                    file.string(), static_cast<double>(atLeast) / 1048576.0));
        // (From the bytes read so far: reading the header further may have moved them.)
        splat = io::isSplatStart(
            ply->start().first(std::min(io::SplatSniffBytes, ply->start().size())));
    } else {
        splat = io::isSplatFile(file);
    }
    // Gaussian splats, known by what the file holds (a 3DGS PLY is a PLY).
    if (splat) {
        auto gaussians = io::readGaussians(file);
        if (!gaussians)
            return fail(gaussians.error());
        if (m_turn != glm::dmat3(1.0))
            io::turnGaussians(gaussians.value(), m_turn);
        render::Scene scene;
        scene.splats.push_back({file.filename().string(), std::move(gaussians.value())});
        auto block = blockFromScene(scene, sink, frameName(index));
        for (const std::string& warning : gaussians.warnings())
            block.addWarning(warning);
        return block;
    }
    // The loader's messages name the file; it reads the texture the file names or the one
    // beside it, or the manifest's.
    const io::MeshLoadOptions options{m_frames[static_cast<std::size_t>(index)].texture};
    Result<io::MeshData> mesh = fail("");
    if (ply) {
        // A point cloud straight into its block as the file arrives (its unusable points
        // dropped); a mesh, a cloud with nothing left, or one it cannot read through
        // io::loadMesh's path, from the file read whole.
        std::optional<Result<std::span<const std::uint8_t>>> block;
        if (!options.texture) {
            block = loadPlyPoints(*ply, file.string(), m_turn, sink);
            // Read again whole where the file grew while it was read (bytes after the last
            // element, as readPly() reads them). A block that did not fit is that failure.
            if (block && *block && ply->grew()) {
                auto all = ply->readAll();
                if (!all)
                    return fail(all.error());
                block = loadPlyPoints(all.value(), file.string(), m_turn, sink);
            }
        }
        if (block)
            return std::move(*block);
        auto all = ply->readAll();
        if (!all)
            return fail(all.error());
        mesh = io::loadPlyMesh(file, all.value(), options);
        // The file's bytes are let go before the scene is built from the mesh.
        ply.reset();
        release.reset();
    } else {
        mesh = io::loadMesh(file, options);
    }
    if (!mesh)
        return fail(mesh.error());
    std::vector<std::string> warnings = mesh.warnings();
    if (m_turn != glm::dmat3(1.0))
        io::turnMesh(mesh.value(), m_turn);
    render::Scene scene;
    auto added = render::addObject(scene, {file.filename().string(), std::move(mesh.value())});
    if (!added)
        return fail(added.error());
    auto block = blockFromScene(scene, sink, frameName(index));
    for (const std::string& warning : warnings)
        block.addWarning(warning);
    return block;
}

namespace {

std::string lowercase(std::string text)
{
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return text;
}

/// The kinds of frame file a sequence lists, by extension (lower case), with the name messages
/// give them.
struct FrameFormat {
    const char* name;
    std::array<const char*, 2> extensions; ///< null where there is no second one
};
constexpr std::array<FrameFormat, 6> FrameFormats{{{"PLY", {".ply", nullptr}},
                                                   {"OBJ", {".obj", nullptr}},
                                                   {"SPZ/.splat", {".splat", ".spz"}},
                                                   {"CWIPC", {".cwipcdump", nullptr}},
                                                   {"Draco", {".drc", nullptr}},
                                                   {"glTF", {".glb", ".gltf"}}}};

/// The index of `file`'s format in FrameFormats, or -1 when it is none.
int frameKind(const fs::path& file)
{
    const std::string extension = lowercase(file.extension().string());
    for (std::size_t k = 0; k < FrameFormats.size(); ++k)
        for (const char* e : FrameFormats[k].extensions)
            if (e && extension == e)
                return static_cast<int>(k);
    return -1;
}

/// The extensions sequences take: ".ply, .obj, .splat, .spz, .cwipcdump, .drc, .glb or .gltf".
std::string frameExtensions()
{
    std::vector<std::string> all;
    for (const FrameFormat& format : FrameFormats)
        for (const char* e : format.extensions)
            if (e)
                all.push_back(e);
    const std::string last = all.back();
    all.pop_back();
    return fmt::format("{} or {}", fmt::join(all, ", "), last);
}

/// "300 PLY files", "1 OBJ file", "3 PLY and 2 OBJ files", "90 SPZ/.splat files" (a PLY of
/// Gaussians is known when it loads).
std::string fileKinds(const std::vector<SequenceFrame>& frames)
{
    std::array<std::size_t, FrameFormats.size()> counts{};
    for (const auto& frame : frames)
        if (const int kind = frameKind(frame.file); kind >= 0)
            ++counts[static_cast<std::size_t>(kind)];
    const std::size_t n = frames.size();
    // The kinds present: "3 PLY and 1 OBJ files", "2 PLY, 1 OBJ and 4 SPZ/.splat files".
    std::vector<std::string> kinds;
    for (std::size_t k = 0; k < FrameFormats.size(); ++k)
        if (counts[k] > 0)
            kinds.push_back(fmt::format("{} {}", counts[k], FrameFormats[k].name));
    if (kinds.empty())
        return fmt::format("{} {}", n, n == 1 ? "file" : "files");
    const std::string last = kinds.back();
    kinds.pop_back();
    if (kinds.empty())
        return fmt::format("{} {}", last, n == 1 ? "file" : "files");
    return fmt::format("{} and {} files", fmt::join(kinds, ", "), last);
}

std::unique_ptr<Source> makeSource(std::vector<SequenceFrame> frames, double fps,
                                   const std::string& what, const glm::dmat3& turn)
{
    std::string description = fmt::format("{} at {:g} fps)", what, fps);
    return std::make_unique<FolderSource>(std::move(frames), fps, std::move(description), turn);
}

/// The .ply/.obj files in `folder` whose names `keep` accepts, in natural order. Names starting
/// with '.' are skipped (hidden files, and the "._frame.ply" resource forks macOS leaves on
/// copied drives); so are names that are no regular file (a FIFO or a link to /dev/zero named
/// like a frame would block a loader or fill its memory), with one warning naming them.
template <class Keep> Result<std::vector<SequenceFrame>>
listFrames(const fs::path& folder, const std::string& shown, const StopToken& stop, Keep keep)
{
    std::vector<std::string> names, refused;
    std::error_code ec;
    fs::directory_iterator it(folder.empty() ? fs::path(".") : folder, ec);
    const fs::directory_iterator end;
    for (std::size_t count = 0; !ec && it != end; it.increment(ec), ++count) {
        if (count % StopPollSteps == 0)
            if (const int signal = stop.stopRequested(); signal != 0)
                return fail(stoppedWhile(
                    signal, fmt::format("listing {} ({} names so far)", shown, count)));
        const std::string name = it->path().filename().string();
        if (name.starts_with('.') || frameKind(name) < 0 || !keep(name))
            continue;
        std::error_code typeError;
        const fs::file_type type = it->status(typeError).type(); // through links
        if (type == fs::file_type::regular)
            names.push_back(name);
        else
            refused.push_back(fmt::format("{} ({})", name, fileTypeName(type)));
    }
    if (ec)
        return fail(fmt::format("{}: cannot list the folder: {}", shown, ec.message()));
    std::sort(names.begin(), names.end(),
              [](const std::string& a, const std::string& b) { return naturalLess(a, b); });
    std::vector<SequenceFrame> frames;
    frames.reserve(names.size());
    for (const std::string& name : names)
        frames.push_back({folder / name, std::nullopt});
    Result<std::vector<SequenceFrame>> result(std::move(frames));
    if (!refused.empty()) {
        std::sort(refused.begin(), refused.end());
        result.addWarning(fmt::format("{}: skipped {} {} not {}: {}", shown, refused.size(),
                                      refused.size() == 1 ? "name that is" : "names that are",
                                      refused.size() == 1 ? "a regular file" : "regular files",
                                      boundedList(refused)));
    }
    return result;
}

/// What a "no frames" failure adds when the listing skipped names that are no regular file:
/// "; " and its warning.
template <class T> std::string skippedNote(const Result<T>& listing)
{
    return listing.warnings().empty() ? std::string() : "; " + listing.warnings()[0];
}

/// `source` with the warnings of `from` (listing the frames) passed on.
template <class T>
Result<std::unique_ptr<Source>> withWarnings(std::unique_ptr<Source> source, const Result<T>& from)
{
    Result<std::unique_ptr<Source>> result(std::move(source));
    for (const std::string& warning : from.warnings())
        result.addWarning(warning);
    return result;
}

Result<std::unique_ptr<Source>> openFolder(const std::string& spec, const SequenceOptions& options,
                                           const StopToken& stop)
{
    auto frames = listFrames(spec, spec, stop, [](const std::string&) { return true; });
    if (!frames)
        return fail(frames.error());
    if (frames.value().empty())
        return fail(fmt::format("{}: no frames ({} files) in this folder{}", spec,
                                frameExtensions(), skippedNote(frames)));
    const std::string shown = spec.ends_with('/') ? spec : spec + "/";
    const std::string what = fmt::format("folder {} ({}", shown, fileKinds(frames.value()));
    return withWarnings(makeSource(std::move(frames.value()), options.fps, what, options.turn),
                        frames);
}

Result<std::unique_ptr<Source>> openGlob(const std::string& spec, const SequenceOptions& options,
                                         const StopToken& stop)
{
    const fs::path path(spec);
    const fs::path folder = path.parent_path();
    const std::string pattern = path.filename().string();
    std::error_code ec;
    if (!folder.empty() && !fs::is_directory(folder, ec))
        return fail(fmt::format("{}: no such folder {}", spec, folder.string()));
    auto frames = listFrames(folder, spec, stop, [&](const std::string& name) {
        return fnmatch(pattern.c_str(), name.c_str(), FNM_PERIOD) == 0;
    });
    if (!frames)
        return fail(frames.error());
    if (frames.value().empty())
        return fail(fmt::format("{}: no {} file matches the pattern{}", spec, frameExtensions(),
                                skippedNote(frames)));
    const std::string what = fmt::format("pattern {} ({}", spec, fileKinds(frames.value()));
    return withWarnings(makeSource(std::move(frames.value()), options.fps, what, options.turn),
                        frames);
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

Result<std::unique_ptr<Source>> openPrintf(const std::string& spec, const SequenceOptions& options,
                                           const StopToken& stop)
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
        listFrames(folder, spec, stop, [&](const std::string& name) { return indexOf(name) >= 0; });
    if (!listed)
        return fail(listed.error());
    std::map<long long, std::string> present; // regular files only (listFrames checks)
    for (const SequenceFrame& frame : listed.value())
        present.emplace(indexOf(frame.file.filename().string()), frame.file.filename().string());
    if (present.empty())
        return fail(fmt::format("{}: no frames: no file in {} matches the pattern{}", spec,
                                folder.empty() ? std::string(".") : folder.string(),
                                skippedNote(listed)));
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
        frames.push_back({file, std::nullopt});
    }
    std::string what = fmt::format("pattern {} (frames {} to {}", spec, first, last);
    if (!gaps.empty())
        what += fmt::format(", {} missing and skipped: {}", gaps.size(), boundedList(gaps));
    return withWarnings(makeSource(std::move(frames), options.fps, what, options.turn), listed);
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

/// How deep a manifest may nest lists and objects: it needs 3 ({"frames": [{"file": …}]}).
/// nlohmann's parser and its dump() recurse once a level, so a file of 70 000 '[' (140 KB)
/// overflows the stack; this bound is checked before parsing.
constexpr std::size_t MaxManifestDepth = 64;

/// A JSON value for a message: a scalar as written (a string cut at 60 characters), a list or
/// an object by its size; never the whole of a large or deep value.
std::string shortJson(const nlohmann::json& value)
{
    if (value.is_array())
        return fmt::format("a list of {} entr{}", value.size(), value.size() == 1 ? "y" : "ies");
    if (value.is_object())
        return fmt::format("an object of {} key{}", value.size(), value.size() == 1 ? "" : "s");
    // Cut at 60 bytes, a string may end inside a character: written with a replacement then.
    constexpr auto replace = nlohmann::json::error_handler_t::replace;
    if (value.is_string() && value.get_ref<const std::string&>().size() > 60)
        return nlohmann::json(value.get_ref<const std::string&>().substr(0, 60))
                   .dump(-1, ' ', false, replace) +
               "…";
    return value.dump(-1, ' ', false, replace);
}

Result<std::unique_ptr<Source>> openManifest(const std::string& spec,
                                             const SequenceOptions& options, const StopToken& stop)
{
    auto text = readTextFile(spec);
    if (!text)
        return fail(text.error());
    if (jsonNestingDepth(text.value(), MaxManifestDepth) > MaxManifestDepth)
        return fail(fmt::format("{}: lists and objects nested more than {} deep: not a sequence "
                                "manifest ({{\"frames\": [...]}})",
                                spec, MaxManifestDepth));
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
        if (!value.is_number() || !isFrameRate(value.get<double>()))
            return fail(fmt::format("{}: \"fps\" must be a number from {:g} to {:g}, not {}", spec,
                                    MinFps, MaxFps, shortJson(value)));
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
                                    where, shortJson(value)));
        const std::string written = value.get<std::string>();
        return Named{written, base / fs::path(written)};
    };

    std::vector<SequenceFrame> frames;
    std::vector<std::string> missing, refused;
    std::set<std::string> seen;
    auto check = [&](const Named& file) {
        std::error_code ec;
        const fs::file_type type = fs::status(file.resolved, ec).type();
        if (type == fs::file_type::regular || !seen.insert(file.written).second)
            return;
        if (type == fs::file_type::not_found)
            missing.push_back(file.written);
        else
            refused.push_back(fmt::format("{} ({})", file.written, fileTypeName(type)));
    };
    for (std::size_t i = 0; i < list.size(); ++i) {
        if (i % StopPollSteps == 0) // a file's status each: slow on a network drive
            if (const int signal = stop.stopRequested(); signal != 0)
                return fail(stoppedWhile(signal, fmt::format("checking the {} files that {} "
                                                             "names ({} checked)",
                                                             list.size(), spec, i)));
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
                                    spec, where, shortJson(entry)));
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
    if (!missing.empty() || !refused.empty()) {
        std::string problems;
        if (!missing.empty())
            problems = fmt::format("{} {} missing: {}", missing.size(),
                                   missing.size() == 1 ? "file is" : "files are",
                                   fmt::join(missing, ", "));
        if (!refused.empty())
            problems += fmt::format("{}{} {} not {}: {}", problems.empty() ? "" : "; ",
                                    refused.size(), refused.size() == 1 ? "name is" : "names are",
                                    refused.size() == 1 ? "a regular file" : "regular files",
                                    fmt::join(refused, ", "));
        return fail(fmt::format("{}: {}", spec, problems));
    }
    const std::size_t n = frames.size();
    Result<std::unique_ptr<Source>> result = makeSource(
        std::move(frames), fps, fmt::format("manifest {} ({} frame{}", spec, n, n == 1 ? "" : "s"),
        options.turn);
    for (std::string& warning : warnings)
        result.addWarning(std::move(warning));
    return result;
}

} // namespace

Result<std::unique_ptr<Source>>
openFileSequence(const std::string& spec, const SequenceOptions& options, const StopToken& stop)
{
    if (!isFrameRate(options.fps))
        return fail(fmt::format("{}: frame rate {:g} is out of range ({:g} to {:g} fps)", spec,
                                options.fps, MinFps, MaxFps));
    if (spec.empty())
        return fail("an empty name is no file or folder");
    std::error_code ec;
    if (fs::is_directory(spec, ec))
        return openFolder(spec, options, stop);
    const std::string fileName = fs::path(spec).filename().string();
    if (fileName.find_first_of("*?") != std::string::npos)
        return openGlob(spec, options, stop);
    if (!printfConversions(fileName).empty())
        return openPrintf(spec, options, stop);
    const fs::file_type type = fs::status(spec, ec).type();
    if (type == fs::file_type::not_found)
        return fail(fmt::format("{}: no such file or folder", spec));
    if (type != fs::file_type::regular)
        return fail(
            fmt::format("{}: is {}, not a file or folder of frames", spec, fileTypeName(type)));
    const fs::path path(spec);
    if (lowercase(path.extension().string()) == ".json")
        return openManifest(spec, options, stop);
    if (frameKind(path) >= 0) {
        std::vector<SequenceFrame> frames{{path, std::nullopt}};
        return makeSource(std::move(frames), options.fps, fmt::format("file {} (1 frame", spec),
                          options.turn);
    }
    return fail(fmt::format("{}: not a frame sequence (expected a folder, a .json manifest, a "
                            "pattern such as frame_*.ply or frame_%04d.ply, or a {} file)",
                            spec, frameExtensions()));
}

} // namespace tandem::stream
