// tandem._tandem, the native half of the Python package: a Renderer per device (a headless GL
// context on the EGL device of a CUDA device, or the default one for host memory) that
// rasterizes arrays handed over as DLPack capsules. Capsules are borrowed: the caller keeps the
// arrays alive for the call and the capsule's own destructor releases them. Validation with
// messages for users lives in the Python layer (tandem/_raster.py); the checks here guard
// memory only. Calls release the GIL while GL and CUDA work is issued. One thread at a time.
#include <csignal>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include <dlpack/dlpack.h>
#include <fmt/format.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "engine/app/RemoteView.h"
#include "engine/app/Session.h"
#include "engine/core/Error.h"
#include "engine/core/Log.h"
#include "engine/core/StopToken.h"
#include "engine/cuda/Copy.h"
#include "engine/cuda/Device.h"
#include "engine/frame/Frame.h"
#include "engine/frame/StillFrame.h"
#include "engine/frame/TensorRaster.h"
#include "engine/frame/TensorScene.h"
#include "engine/gl/Debug.h"
#include "engine/interop/Doctor.h"
#include "engine/io/MeshLoader.h"
#include "engine/platform/Context.h"
#include "engine/postfx/HookPass.h"
#include "engine/profile/Profiler.h"
#include "engine/profile/Trace.h"
#include "engine/render/OrbitController.h"
#include "engine/render/SceneRenderer.h"
#include "engine/render/SplatPacking.h"

namespace py = pybind11;

namespace tandem::python {
namespace {

/// A borrowed DLPack array: its data, device and shape.
struct Array {
    void* data = nullptr;
    DLDevice device{};
    DLDataType dtype{};
    std::vector<std::int64_t> shape;

    std::size_t elements() const
    {
        std::size_t n = 1;
        for (auto extent : shape)
            n *= static_cast<std::size_t>(extent);
        return n;
    }
};

Array borrow(const py::capsule& capsule, const char* name)
{
    auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
    if (!managed) {
        PyErr_Clear();
        throw py::value_error(fmt::format("{}: not an unused DLPack capsule", name));
    }
    const DLTensor& t = managed->dl_tensor;
    Array array;
    array.data = static_cast<std::uint8_t*>(t.data) + t.byte_offset;
    array.device = t.device;
    array.dtype = t.dtype;
    array.shape.assign(t.shape, t.shape + t.ndim);
    // Row-major and compact only: the Python layer makes a contiguous copy of anything else. An
    // empty array has no layout (PyTorch keeps any strides on one, calling it contiguous).
    if (t.strides && array.elements() > 0) {
        std::int64_t expected = 1;
        for (int i = t.ndim - 1; i >= 0; --i) {
            if (t.shape[i] != 1 && t.strides[i] != expected)
                throw py::value_error(fmt::format("{}: not contiguous", name));
            expected *= t.shape[i];
        }
    }
    return array;
}

void expectKind(const Array& array, const char* name, std::uint8_t code, int ndimMin, int ndimMax)
{
    if (array.dtype.code != code || array.dtype.bits != 32 || array.dtype.lanes != 1)
        throw py::value_error(
            fmt::format("{}: expected 32-bit {}", name, code == kDLFloat ? "floats" : "integers"));
    const auto ndim = static_cast<int>(array.shape.size());
    if (ndim < ndimMin || ndim > ndimMax)
        throw py::value_error(fmt::format("{}: {} dimensions", name, ndim));
}

/// The Gaussians of a tandem.Gaussians (its F32 splat region, laid out in Python by
/// splat_region()'s offsets), or none: {"region": capsule, "count": N, "degree": d} or None.
frame::RegionSplats regionOf(const py::object& splats, int cudaDevice)
{
    frame::RegionSplats r;
    if (splats.is_none())
        return r;
    const py::dict d = splats.cast<py::dict>();
    const Array region = borrow(d["region"].cast<py::capsule>(), "gaussians");
    expectKind(region, "gaussians", kDLFloat, 1, 1);
    r.count = d["count"].cast<std::uint32_t>();
    r.shDegree = d["degree"].cast<int>();
    if (r.shDegree < 0 || r.shDegree > io::MaxShDegree)
        throw py::value_error("gaussians: SH degree outside 0..3");
    const std::size_t bytes =
        render::splatRegion(r.count, r.shDegree, render::SplatEncoding::F32, render::SplatAlign)
            .bytes;
    if (region.elements() * sizeof(float) != bytes)
        throw py::value_error("gaussians: the region's size does not match its count and degree");
    r.onDevice = region.device.device_type == kDLCUDA;
    if (!r.onDevice && region.device.device_type != kDLCPU)
        throw py::value_error("gaussians: expected host or CUDA memory");
    if (r.onDevice && region.device.device_id != cudaDevice)
        throw py::value_error("gaussians: on another device than the renderer's");
    r.region = r.count > 0 ? region.data : nullptr;
    return r;
}

/// A DLPack capsule over a hook image (borrowed memory: valid during the hook only). The
/// consumer (torch.utils.dlpack.from_dlpack) renames the capsule and calls the deleter when its
/// tensor dies; an unconsumed capsule calls it itself.
py::capsule capsuleOf(const postfx::HookImage& image, int cudaDevice)
{
    auto* managed = new DLManagedTensor{};
    auto* shape = new std::int64_t[3]{image.height, image.width, image.channels};
    DLTensor& t = managed->dl_tensor;
    t.data = image.data;
    t.device = image.onDevice ? DLDevice{kDLCUDA, cudaDevice} : DLDevice{kDLCPU, 0};
    t.ndim = 3;
    switch (image.type) {
    case postfx::HookType::UInt8:
        t.dtype = {kDLUInt, 8, 1};
        break;
    case postfx::HookType::Float16:
        t.dtype = {kDLFloat, 16, 1};
        break;
    case postfx::HookType::Float32:
        t.dtype = {kDLFloat, 32, 1};
        break;
    case postfx::HookType::Int32:
        t.dtype = {kDLInt, 32, 1};
        break;
    }
    t.shape = shape;
    managed->manager_ctx = shape;
    managed->deleter = [](DLManagedTensor* self) {
        delete[] static_cast<std::int64_t*>(self->manager_ctx);
        delete self;
    };
    return py::capsule(managed, "dltensor", [](PyObject* object) {
        if (PyCapsule_IsValid(object, "dltensor")) {
            auto* self = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(object, "dltensor"));
            self->deleter(self);
        }
    });
}

/// A hook pass calling `hook(images, stream)` with the GIL held: images a list of (name,
/// capsule) pairs, stream the cudaStream_t as an int (0 on the host path). A Python error leaves
/// the frame as a C++ exception carrying its text. The hook may use tandem (tandem.rasterize on
/// its tensors: another renderer's context made current); the frame's `context` is current
/// again afterwards, however the hook ends. `context` outlives the pass's last frame. Make and
/// destroy it with the GIL held.
std::unique_ptr<postfx::HookPass> makeHookPass(const py::object& hook, interop::Path path,
                                               int cudaDevice, platform::Context& context)
{
    auto call = [hook, cudaDevice, &context](const std::vector<postfx::HookImage>& images,
                                             void* stream) {
        {
            py::gil_scoped_acquire gil;
            try {
                py::list list;
                for (const postfx::HookImage& image : images)
                    list.append(py::make_tuple(image.name, capsuleOf(image, cudaDevice)));
                hook(list, reinterpret_cast<std::uintptr_t>(stream));
            } catch (py::error_already_set& e) {
                context.makeCurrent();
                throw std::runtime_error(std::string("tandem: the hook failed: ") + e.what());
            } catch (...) {
                context.makeCurrent();
                throw;
            }
        }
        context.makeCurrent();
    };
    return std::make_unique<postfx::HookPass>(call, path);
}

/// Makes a CUDA device current for a scope and puts the caller's back (PyTorch keeps its own
/// idea of the current device).
class DeviceScope {
public:
    explicit DeviceScope(int device)
    {
        if (device < 0)
            return;
        m_previous = cuda::currentDevice();
        if (m_previous != device)
            cuda::setCurrentDevice(device);
    }
    ~DeviceScope()
    {
        if (m_previous >= 0) {
            try {
                cuda::setCurrentDevice(m_previous);
            } catch (const Error&) {
            }
        }
    }
    DeviceScope(const DeviceScope&) = delete;
    DeviceScope& operator=(const DeviceScope&) = delete;

private:
    int m_previous = -1;
};

/// One call into a Viewer or Renderer: refuses a second call into the same object while one
/// runs, which only a hook can make (it runs inside the frame: a frame begun inside the frame,
/// or the object closed under it, would leave the object broken). Raises RuntimeError naming
/// the call; the object stays usable.
class CallGuard {
public:
    CallGuard(bool& busy, const char* call, const char* owner) : m_busy(busy)
    {
        if (busy)
            throw std::runtime_error(
                fmt::format("{}: called from inside {}'s own hook (or while another of its calls "
                            "runs): a hook runs inside the frame and may not call back into "
                            "{}; work on the tensors it is given, or call after the frame",
                            call, owner, owner));
        busy = true;
    }
    ~CallGuard() { m_busy = false; }
    CallGuard(const CallGuard&) = delete;
    CallGuard& operator=(const CallGuard&) = delete;

private:
    bool& m_busy;
};

/// One device's GL context and what draws with it.
class Renderer {
public:
    Renderer(int cudaDevice, const std::string& triangleIds) : m_cudaDevice(cudaDevice)
    {
        std::string cudaError;
        int selected = -1;
        if (cudaDevice >= 0) {
            auto device = cuda::selectDevice(cudaDevice);
            if (device)
                selected = device.value().index;
            else
                cudaError = device.error();
        }
        platform::ContextOptions options;
        options.width = 64;
        options.height = 64;
        options.cudaDevice = cudaDevice;
        options.debug = gl::debugOutputRequested(); // as the apps: TANDEM_GL_DEBUG=1
        auto context = platform::tryCreateHeadless(options);
        if (!context)
            throw std::runtime_error("tandem: no headless GL context: " + context.error());
        m_context = std::move(context.value());
        m_owner = std::this_thread::get_id();
        m_description = m_context->description();
        if (cudaDevice >= 0) {
            m_status = interop::diagnose(selected, cudaError, m_context->cudaDevice());
        } else {
            m_status.reason = "host memory";
        }
        auto ids = render::TriangleIdChoices.parse(triangleIds);
        if (!ids)
            throw py::value_error("triangle_ids: " + ids.error());
        m_raster = std::make_unique<frame::TensorRaster>(ids.value());
    }

    ~Renderer()
    {
        // GL objects die while the context is current, before it.
        if (std::this_thread::get_id() == m_owner) {
            try {
                DeviceScope scope(m_cudaDevice);
                m_context->makeCurrent();
                m_still.reset();
                m_raster.reset();
                m_trace.reset();
                m_profiler.reset();
            } catch (const std::exception&) {
                (void)m_still.release(); // the driver is gone (interpreter exit): leak
                (void)m_raster.release();
                (void)m_profiler.release();
            }
        } else {
            // Another thread cannot make the context current: leak.
            (void)m_still.release();
            (void)m_raster.release();
            (void)m_profiler.release();
        }
    }

    Renderer(const Renderer&) = delete;
    Renderer& operator=(const Renderer&) = delete;

    void rasterize(const py::capsule& positionsCapsule, const py::capsule& trianglesCapsule,
                   const py::capsule& outputCapsule, int height, int width, std::uintptr_t stream,
                   bool kernels)
    {
        const Array positions = borrow(positionsCapsule, "pos");
        const Array triangles = borrow(trianglesCapsule, "tri");
        const Array output = borrow(outputCapsule, "out");
        expectKind(positions, "pos", kDLFloat, 3, 3);
        expectKind(triangles, "tri", kDLInt, 2, 2);
        expectKind(output, "out", kDLFloat, 4, 4);
        render::ClipRasterShape shape;
        shape.batch = static_cast<std::size_t>(positions.shape[0]);
        shape.vertices = static_cast<std::size_t>(positions.shape[1]);
        shape.triangles = static_cast<std::size_t>(triangles.shape[0]);
        shape.width = width;
        shape.height = height;
        if (positions.shape[2] != 4 || triangles.shape[1] != 3 ||
            output.shape != std::vector<std::int64_t>{positions.shape[0], height, width, 4})
            throw py::value_error("pos [B, V, 4], tri [T, 3], out [B, H, W, 4] expected");
        const bool onCuda = positions.device.device_type == kDLCUDA;
        for (const Array* array : {&positions, &triangles, &output}) {
            const bool cuda = array->device.device_type == kDLCUDA;
            const bool host = array->device.device_type == kDLCPU;
            if (!(cuda || host) || cuda != onCuda ||
                (cuda && array->device.device_id != m_cudaDevice))
                throw py::value_error("pos, tri and out must be on this renderer's device");
        }
        if (onCuda && m_cudaDevice < 0)
            throw py::value_error("CUDA arrays given to the host renderer");
        if (kernels && !onCuda)
            throw py::value_error("the CUDA rasterizer takes CUDA arrays");
        if (onCuda && !kernels && !isCuda())
            throw std::runtime_error("tandem: GL-CUDA interop does not work here: " +
                                     m_status.reason);
        checkThread();
        const CallGuard guard(m_busy, "tandem.rasterize()", "the renderer");
        py::gil_scoped_release release;
        DeviceScope scope(m_cudaDevice);
        m_context->makeCurrent();
        const auto* p = static_cast<const float*>(positions.data);
        const auto* t = static_cast<const std::uint32_t*>(triangles.data);
        auto* o = static_cast<float*>(output.data);
        if (kernels)
            m_raster->rasterizeInCuda(p, t, o, shape, reinterpret_cast<void*>(stream));
        else if (onCuda)
            m_raster->rasterizeCuda(p, t, o, shape, reinterpret_cast<void*>(stream));
        else
            m_raster->rasterizeHost(p, t, o, shape);
        collect();
    }

    /// Starts timing every call (GL, CUDA and CPU spans, as the apps' --trace) for a trace of
    /// at most `maxCalls` calls. Aligns the GL clock once (a wait for the GPU).
    void startTrace(std::size_t maxCalls)
    {
        checkThread();
        const CallGuard guard(m_busy, "tandem.trace()", "the renderer");
        DeviceScope scope(m_cudaDevice);
        m_context->makeCurrent();
        stopProfiler();
        profile::ProfilerOptions options;
        options.enabled = true;
        // A Python loop runs calls far ahead of the GPU: a frame whose results are not in when
        // its slot comes round again is dropped, so the ring is deep.
        options.depth = 64;
        m_profiler = std::make_unique<profile::Profiler>(options);
        m_trace = std::make_unique<profile::Trace>(maxCalls);
        m_raster->setProfiler(m_profiler.get());
        if (m_still)
            m_still->setProfiler(m_profiler.get());
    }

    /// Milliseconds on the trace's timeline now (the CPU clock its spans are placed on).
    double nowMs() const
    {
        if (!m_profiler)
            throw std::runtime_error("tandem: no trace recording (start_trace() first)");
        return m_profiler->nowMs();
    }

    /// Waits for the calls in flight (a wait for the GPU), ends the recording and returns the
    /// Chrome trace JSON of tandem's spans, times in microseconds on nowMs()'s timeline.
    std::string stopTrace()
    {
        if (!m_profiler)
            throw std::runtime_error("tandem: no trace recording (start_trace() first)");
        checkThread();
        const CallGuard guard(m_busy, "tandem.trace()", "the renderer");
        DeviceScope scope(m_cudaDevice);
        m_context->makeCurrent();
        m_profiler->flush();
        collect();
        m_trace->setTracks(m_profiler->tracks());
        std::string json = m_trace->toJson().dump();
        stopProfiler();
        return json;
    }

    void render(const py::list& meshes, const py::dict& camera, int height, int width,
                const std::string& postfx, float pointSize, const py::dict& outputs,
                const py::object& hook, const std::string& raster, const py::object& splats,
                const std::vector<float>& splatLow, const std::vector<float>& splatHigh,
                std::uintptr_t stream)
    {
        const frame::RegionSplats gaussians = regionOf(splats, m_cudaDevice);
        if (gaussians.onDevice && m_cudaDevice < 0)
            throw py::value_error("CUDA arrays given to the host renderer");
        const auto rasterChoice = render::RasterChoices.parse(raster);
        if (!rasterChoice)
            throw py::value_error("raster: " + rasterChoice.error());
        render::Scene scene;
        for (const auto& item : meshes)
            scene.objects.push_back({"tensor", meshOf(item.cast<py::dict>())});
        auto chain = postfx::parseChain(postfx);
        if (!chain)
            throw py::value_error("postfx: " + chain.error());
        io::Bounds bounds = scene.bounds();
        if (gaussians.region) { // the Gaussians' centres, computed where they are
            bounds.extend(glm::vec3(splatLow.at(0), splatLow.at(1), splatLow.at(2)));
            bounds.extend(glm::vec3(splatHigh.at(0), splatHigh.at(1), splatHigh.at(2)));
        }
        const render::Camera view = cameraOf(camera, bounds);
        std::vector<std::pair<frame::StillChannel, Array>> reads;
        for (const auto& [key, value] : outputs) {
            const std::string name = key.cast<std::string>();
            const auto channel = frame::StillChannels.find(name);
            if (!channel)
                throw py::value_error(
                    fmt::format("channels: '{}' is not {}", name, frame::StillChannels.list()));
            Array array = borrow(value.cast<py::capsule>(), name.c_str());
            if (array.device.device_type != kDLCPU ||
                array.elements() * (array.dtype.bits / 8u) != static_cast<std::size_t>(width) *
                                                                  static_cast<std::size_t>(height) *
                                                                  frame::bytesPerPixel(*channel))
                throw py::value_error(fmt::format("{}: a host array of the channel's size", name));
            reads.emplace_back(*channel, array);
        }
        render::GeometryOptions options;
        options.pointSize = pointSize;
        checkThread();
        const CallGuard guard(m_busy, "tandem.render()", "the renderer");
        // Made and destroyed with the GIL held (it holds a Python object).
        std::unique_ptr<postfx::HookPass> hookPass;
        if (!hook.is_none())
            hookPass = makeHookPass(hook, m_status.path, m_cudaDevice, *m_context);
        py::gil_scoped_release release;
        DeviceScope scope(m_cudaDevice);
        m_context->makeCurrent();
        m_raster->unmap(); // its buffers are GL's again before the frame's handoff
        if (!m_still)
            m_still = std::make_unique<frame::StillFrame>(m_status);
        const frame::Channel presented =
            chain.value().stages.empty() ? frame::Channel::Color : frame::Channel::Output;
        m_still->setRaster(rasterChoice.value());
        m_still->setProfiler(m_profiler.get());
        m_still->setHook(hookPass.get());
        struct Unhook {
            frame::StillFrame& still;
            ~Unhook() { still.setHook(nullptr); }
        } unhook{*m_still};
        m_still->render(scene, view, chain.value(), presented, options, width, height, gaussians,
                        reinterpret_cast<void*>(stream));
        for (const auto& [channel, array] : reads)
            m_still->read(channel, array.data);
        collect();
    }

    bool isCuda() const { return m_status.path == interop::Path::Cuda; }
    const std::string& reason() const { return m_status.reason; }
    const std::string& description() const { return m_description; }
    int cudaDevice() const { return m_cudaDevice; }
    std::uint64_t handoffs() const { return m_raster->handoffs(); }
    /// GL errors its context reported (counted with debug output on: TANDEM_GL_DEBUG=1).
    std::uint64_t glErrors() const { return m_context->glErrorCount(); }

private:
    static io::MeshData meshOf(const py::dict& mesh)
    {
        io::MeshData data;
        const Array positions = borrow(mesh["positions"].cast<py::capsule>(), "positions");
        expectKind(positions, "positions", kDLFloat, 2, 2);
        const auto count = static_cast<std::size_t>(positions.shape[0]);
        if (positions.shape[1] != 3 || positions.device.device_type != kDLCPU)
            throw py::value_error("positions: a host float32 [N, 3] array");
        const auto* p = static_cast<const glm::vec3*>(positions.data);
        data.positions.assign(p, p + count);
        if (mesh.contains("indices")) {
            const Array indices = borrow(mesh["indices"].cast<py::capsule>(), "indices");
            expectKind(indices, "indices", kDLInt, 2, 2);
            const auto* i = static_cast<const std::uint32_t*>(indices.data);
            data.indices.assign(i, i + indices.elements());
        }
        if (mesh.contains("colors")) {
            const Array colors = borrow(mesh["colors"].cast<py::capsule>(), "colors");
            if (colors.dtype.code != kDLUInt || colors.dtype.bits != 8 ||
                colors.elements() != 4 * count)
                throw py::value_error("colors: a host uint8 [N, 4] array");
            const auto* c = static_cast<const glm::u8vec4*>(colors.data);
            data.colors.assign(c, c + count);
        }
        if (mesh.contains("normals")) {
            const Array normals = borrow(mesh["normals"].cast<py::capsule>(), "normals");
            expectKind(normals, "normals", kDLFloat, 2, 2);
            if (normals.elements() != 3 * count)
                throw py::value_error("normals: a host float32 [N, 3] array");
            const auto* n = static_cast<const glm::vec3*>(normals.data);
            data.normals.assign(n, n + count);
        }
        return data;
    }

    /// The camera a dict describes: {"kind": "fit"}, {"kind": "orbit", "yaw", "pitch",
    /// "distance"} (tandem-raster's --camera-path keys) or {"kind": "look", "eye", "target",
    /// "up", "fov_y", "near", "far"}.
public:
    static render::Camera cameraOf(const py::dict& camera, const io::Bounds& bounds)
    {
        const std::string kind = camera["kind"].cast<std::string>();
        if (kind == "look") {
            auto vec = [&](const char* key) {
                const auto v = camera[key].cast<std::vector<float>>();
                if (v.size() != 3)
                    throw py::value_error(fmt::format("camera: {} needs 3 numbers", key));
                return glm::vec3(v[0], v[1], v[2]);
            };
            render::Camera c;
            c.eye = vec("eye");
            c.target = vec("target");
            c.up = vec("up");
            c.fovY = camera["fov_y"].cast<float>();
            c.nearPlane = camera["near"].cast<float>();
            c.farPlane = camera["far"].cast<float>();
            return c;
        }
        render::OrbitController controller;
        controller.fit(bounds);
        if (kind == "orbit")
            controller.setPose(camera["yaw"].cast<float>(), camera["pitch"].cast<float>(),
                               camera["distance"].cast<float>());
        return controller.camera();
    }

private:
    /// Moves the calls the profiler finished into the trace.
    void collect()
    {
        if (m_profiler)
            m_trace->add(m_profiler->takeFrames());
    }

    void stopProfiler()
    {
        m_raster->setProfiler(nullptr);
        if (m_still)
            m_still->setProfiler(nullptr);
        m_profiler.reset();
        m_trace.reset();
    }

    void checkThread() const
    {
        if (std::this_thread::get_id() != m_owner)
            throw std::runtime_error("tandem: a renderer is used from the thread that created "
                                     "it (its GL context is current there)");
    }

    int m_cudaDevice;
    std::unique_ptr<platform::Context> m_context;
    std::thread::id m_owner;
    std::string m_description;
    interop::InteropStatus m_status;
    /// After the context: destroyed first.
    std::unique_ptr<frame::TensorRaster> m_raster;
    std::unique_ptr<frame::StillFrame> m_still;
    /// While a trace records (start_trace() to stop_trace()).
    std::unique_ptr<profile::Profiler> m_profiler;
    std::unique_ptr<profile::Trace> m_trace;
    bool m_busy = false; ///< a call runs (CallGuard)
};

/// The Python stop token's poll: runs Python's signal handlers (the main thread only; elsewhere
/// nothing), SIGINT when one raised (the exception stays set for the caller to raise).
int pythonSignals()
{
    py::gil_scoped_acquire gil;
    if (PyErr_Occurred())
        return SIGINT; // raised already (an earlier poll): stay stopped
    return PyErr_CheckSignals() != 0 ? SIGINT : 0;
}

/// tandem.Viewer's native half: an app session (a window, or headless) showing a TensorScene
/// the Python loop replaces, with the overlay, the orbit camera, capture and post-processing.
class Viewer {
public:
    /// `overlay`: None (in a window, not headless), True (headless too), False (hidden).
    Viewer(int height, int width, const std::string& mode, const std::string& postfx,
           const std::string& title, float pointSize, std::optional<bool> overlay, int cudaDevice,
           bool quiet, const py::object& hook, int captureFrame, const std::string& captureDir,
           const std::string& raster, const std::string& serve)
        : m_cudaDevice(cudaDevice)
    {
        const auto rasterChoice = render::RasterChoices.parse(raster);
        if (!rasterChoice)
            throw py::value_error("raster: " + rasterChoice.error());
        const auto context = platform::ContextModes.parse(mode);
        if (!context)
            throw py::value_error("mode: " + context.error());
        auto chain = postfx::parseChain(postfx);
        if (!chain)
            throw py::value_error(chain.error());
        app::SessionSettings settings;
        settings.headless = context.value() == platform::ContextMode::Headless;
        settings.size = {width, height};
        settings.chain = chain.value();
        settings.pointSize = pointSize;
        settings.raster = rasterChoice.value();
        settings.overlay = overlay.value_or(false); // into headless output: only when asked
        if (!hook.is_none())
            settings.channel = frame::Channel::Output; // what the hook leaves there is shown
        settings.format = frame::OutputFormat::None;
        // The loop decides when it ends (setFrameLimit(-1) below); this only passes the checks
        // that --capture-frame lies within the run.
        settings.frames = std::numeric_limits<int>::max();
        settings.backend =
            cudaDevice >= 0 ? postfx::BackendChoice::Auto : postfx::BackendChoice::Host;
        if (cudaDevice >= 0)
            settings.cudaDevice = cudaDevice;
        settings.quiet = quiet;
        if (!serve.empty()) {
            auto address = app::parseServeAddress(serve);
            if (!address)
                throw py::value_error("serve: " + address.error());
            settings.serve = address.value();
        }
        // RenderDoc captures when it is in the process (preloaded, or under renderdoccmd).
        settings.capture.frame = captureFrame;
        settings.capture.captureDir = captureDir;
        if (quiet)
            log::setLevel(log::Level::Warning);
        // Python keeps its own SIGINT handler: Ctrl-C sets its flag, and the session, polling
        // it each frame, stops the loop; step() then raises the KeyboardInterrupt.
        app::AppInfo info{title, "the Python loop drives the frames", nullptr,
                          StopToken(pythonSignals)};
        app::OpenFailure failure;
        DeviceScope scope(cudaDevice);
        m_session = app::Session::open(info, settings, failure);
        if (!m_session)
            throw std::runtime_error("tandem.Viewer: " + failure.message);
        if (context.value() == platform::ContextMode::Window && m_session->isHeadless())
            throw std::runtime_error("tandem.Viewer: no window could be opened (no display)");
        m_session->setFrameLimit(-1);
        // image() reads the presented image; tensor scenes are written through GL's buffers by
        // a map of their own each update: frames stay on GL's memory.
        m_session->keepPresenting();
        m_session->frame().setReadsTargets(true);
        if (overlay.has_value() && !*overlay && m_session->overlay())
            m_session->overlay()->setVisible(false); // a window's: F1 shows it
        m_owner = std::this_thread::get_id();
        if (!hook.is_none()) {
            m_hook =
                makeHookPass(hook, m_session->frame().path(), cudaDevice, m_session->context());
            m_hookPass = m_session->frame().addPass(*m_hook);
        }
    }

    ~Viewer()
    {
        try {
            close();
        } catch (const std::exception&) {
        }
    }
    Viewer(const Viewer&) = delete;
    Viewer& operator=(const Viewer&) = delete;

    /// Replaces what is shown: object records (firstVertex, vertexCount, firstPrimitive, flags)
    /// and the packed arrays (DLPack; None when empty) on the CUDA device (copied on `stream`)
    /// or the host.
    void update(const std::vector<std::array<std::uint32_t, 4>>& objects,
                const py::object& vertices, const py::object& indices, const py::object& offsets,
                const py::object& triangles, const py::object& splats,
                const std::vector<float>& low, const std::vector<float>& high, bool fit,
                std::uintptr_t stream)
    {
        expectOpen();
        const frame::RegionSplats gaussians = regionOf(splats, m_cudaDevice);
        std::vector<render::GpuObject> records;
        for (const auto& o : objects)
            records.push_back({o[0], o[1], o[2], o[3]});
        render::SceneCounts counts;
        counts.objects = static_cast<std::uint32_t>(records.size());
        frame::TensorScene::Arrays arrays;
        bool anyDevice = false, anyHost = false;
        auto take = [&](const py::object& object, const char* name, std::size_t width,
                        std::uint32_t& count) -> const void* {
            if (object.is_none())
                return nullptr;
            const Array array = borrow(object.cast<py::capsule>(), name);
            anyDevice = anyDevice || array.device.device_type == kDLCUDA;
            anyHost = anyHost || array.device.device_type == kDLCPU;
            if (array.device.device_type == kDLCUDA && array.device.device_id != m_cudaDevice)
                throw py::value_error(fmt::format("{}: on another device than the viewer's", name));
            count = static_cast<std::uint32_t>(array.elements() * (array.dtype.bits / 8u) / width);
            return array.data;
        };
        arrays.vertices = take(vertices, "vertices", sizeof(render::Vertex), counts.vertices);
        arrays.indices =
            static_cast<const std::uint32_t*>(take(indices, "indices", 4, counts.indices));
        arrays.provokingOffsets =
            static_cast<const std::uint32_t*>(take(offsets, "offsets", 4, counts.provokingOffsets));
        arrays.provokingTriangles = static_cast<const std::uint32_t*>(
            take(triangles, "triangles", 4, counts.provokingTriangles));
        if (anyDevice && anyHost)
            throw py::value_error("scene: arrays on the host and on a GPU at once");
        arrays.onDevice = anyDevice;
        if (gaussians.region &&
            ((anyDevice && !gaussians.onDevice) || (anyHost && gaussians.onDevice)))
            throw py::value_error("scene: arrays on the host and on a GPU at once");
        io::Bounds bounds;
        bounds.min = glm::vec3(low.at(0), low.at(1), low.at(2));
        bounds.max = glm::vec3(high.at(0), high.at(1), high.at(2));
        checkThread();
        const CallGuard guard(m_busy, "tandem.Viewer.update()", "the viewer");
        py::gil_scoped_release release;
        DeviceScope scope(m_cudaDevice);
        m_session->context().makeCurrent();
        if (arrays.onDevice && m_session->frame().path() != interop::Path::Cuda)
            throw std::runtime_error("tandem.Viewer: CUDA tensors need GL-CUDA interop, which "
                                     "this viewer does not have (give CPU tensors)");
        if ((arrays.onDevice || gaussians.onDevice) &&
            m_session->frame().path() != interop::Path::Cuda)
            throw std::runtime_error("tandem.Viewer: CUDA tensors need GL-CUDA interop, which "
                                     "this viewer does not have (give CPU tensors)");
        m_scene->set(records, counts, bounds, arrays, reinterpret_cast<void*>(stream));
        m_scene->setSplats(gaussians, m_session->frame().splatPass(),
                           reinterpret_cast<void*>(stream));
        m_session->showScene(m_scene->scene());
        if (fit)
            m_session->fitCamera(bounds);
    }

    /// Renders one frame (input, camera, frame, overlay, swap). False once the window was
    /// closed (then nothing is rendered).
    bool step()
    {
        expectOpen();
        if (!m_scene->scene())
            throw std::runtime_error("tandem.Viewer: update() a scene before the first step()");
        checkThread();
        const CallGuard guard(m_busy, "tandem.Viewer.step()", "the viewer");
        bool rendered = false;
        {
            py::gil_scoped_release release;
            DeviceScope scope(m_cudaDevice);
            m_session->context().makeCurrent();
            if (m_session->nextFrame()) {
                if (m_hook) // the targets of this frame (a resize may have made new ones)
                    m_hook->setFrame(m_session->renderer().gbuffer().frameTextures());
                m_session->renderFrame();
                rendered = true;
            }
        }
        // A signal handler that raised (Ctrl-C: KeyboardInterrupt) stopped the loop: the
        // caller gets its exception.
        if (PyErr_Occurred())
            throw py::error_already_set();
        return rendered;
    }

    /// The image the last frame presented, rows top first (RGBA8). Blocks (a read-back).
    py::bytes image()
    {
        expectOpen();
        checkThread();
        const CallGuard guard(m_busy, "tandem.Viewer.image()", "the viewer");
        std::string pixels;
        {
            py::gil_scoped_release release;
            DeviceScope scope(m_cudaDevice);
            m_session->context().makeCurrent();
            const io::Image image = m_session->renderer().readPresented();
            pixels.assign(reinterpret_cast<const char*>(image.pixels.data()), image.pixels.size());
        }
        return py::bytes(pixels);
    }

    int width() { return m_session ? m_session->renderer().width() : 0; }
    int height() { return m_session ? m_session->renderer().height() : 0; }
    bool isHeadless() const { return m_session && m_session->isHeadless(); }
    /// The browser view's URL (serve=), or "".
    std::string url()
    {
        return m_session && m_session->remote() ? m_session->remote()->url() : std::string();
    }
    std::uint64_t handoffs() const { return m_scene ? m_scene->handoffs() : 0; }
    /// GL errors its context reported (counted with debug output on: TANDEM_GL_DEBUG=1).
    std::uint64_t glErrors() const { return m_session ? m_session->context().glErrorCount() : 0; }

    /// Ends the session (writes nothing; the window closes). Returns its exit code.
    int close()
    {
        if (!m_session || std::this_thread::get_id() != m_owner)
            return 0;
        const CallGuard guard(m_busy, "tandem.Viewer.close()", "the viewer");
        DeviceScope scope(m_cudaDevice);
        m_session->context().makeCurrent();
        m_session->showScene(nullptr);
        m_hookPass.reset();
        const int code = m_session->finish();
        m_scene.reset();   // GL objects while the context lives...
        m_session.reset(); // ...then the context
        {
            py::gil_scoped_acquire gil; // the hook holds a Python object
            m_hook.reset();
        }
        return code;
    }

private:
    void expectOpen() const
    {
        if (!m_session)
            throw std::runtime_error("tandem.Viewer: closed");
    }
    void checkThread() const
    {
        if (std::this_thread::get_id() != m_owner)
            throw std::runtime_error("tandem.Viewer: used from the thread that created it");
    }

    int m_cudaDevice;
    std::unique_ptr<app::Session> m_session;
    std::thread::id m_owner;
    /// After the session: destroyed first (close() resets both in that order).
    std::unique_ptr<frame::TensorScene> m_scene = std::make_unique<frame::TensorScene>();
    std::unique_ptr<postfx::HookPass> m_hook;
    Registration m_hookPass; ///< m_hook in the session's frame
    bool m_busy = false;     ///< a call runs (CallGuard)
};

} // namespace
} // namespace tandem::python

PYBIND11_MODULE(_tandem, module)
{
    using tandem::python::Renderer;
    module.doc() = "tandem's native module: use the tandem package instead.";
    py::register_exception<tandem::Error>(module, "Error", PyExc_RuntimeError);
    py::class_<Renderer>(module, "Renderer",
                         "One device's headless GL context and the passes that draw with it.")
        .def(py::init<int, const std::string&>(), py::arg("cuda_device"),
             py::arg("triangle_ids") = "primitive-id",
             "A renderer for CUDA device `cuda_device`, or host memory with -1.")
        .def("rasterize", &Renderer::rasterize, py::arg("pos"), py::arg("tri"), py::arg("out"),
             py::arg("height"), py::arg("width"), py::arg("stream"), py::arg("kernels") = false,
             "Rasterizes DLPack arrays pos [B, V, 4] float32 and tri [T, 3] int32 into out [B, H, "
             "W, 4] float32, on CUDA stream `stream` for CUDA arrays; with GL, or with CUDA "
             "kernels (`kernels`, CUDA arrays only).")
        .def("render", &Renderer::render, py::arg("meshes"), py::arg("camera"), py::arg("height"),
             py::arg("width"), py::arg("postfx"), py::arg("point_size"), py::arg("outputs"),
             py::arg("hook") = py::none(), py::arg("raster") = "auto",
             py::arg("splats") = py::none(), py::arg("splats_min") = std::vector<float>{},
             py::arg("splats_max") = std::vector<float>{}, py::arg("stream") = 0,
             "Renders meshes (dicts of host DLPack arrays) and Gaussians (a splat region, host "
             "or on this renderer's device, ordered after `stream`; the bounds of their centres) "
             "seen by `camera` (a dict) through the post-process chain `postfx`, and copies the "
             "channels named in `outputs` into their host arrays, rows top first.")
        .def("start_trace", &Renderer::startTrace, py::arg("max_calls"),
             "Starts timing every call (GL, CUDA and CPU spans) for a trace of at most max_calls "
             "calls. Aligns the GL clock once (a wait for the GPU).")
        .def("now_ms", &Renderer::nowMs, "Milliseconds on the trace's timeline now.")
        .def("stop_trace", &Renderer::stopTrace,
             "Waits for the calls in flight, ends the recording and returns tandem's Chrome trace "
             "(JSON text), times in microseconds on now_ms()'s timeline.")
        .def_property_readonly("is_cuda", &Renderer::isCuda,
                               "Whether CUDA arrays go through GL-CUDA interop here.")
        .def_property_readonly("reason", &Renderer::reason, "Why the interop path is what it is.")
        .def_property_readonly("description", &Renderer::description,
                               "The GL context: platform, device, renderer.")
        .def_property_readonly("cuda_device", &Renderer::cudaDevice)
        .def_property_readonly("handoffs", &Renderer::handoffs,
                               "GL-CUDA map+unmap round trips made so far.")
        .def_property_readonly("gl_errors", &Renderer::glErrors,
                               "GL errors its context reported (with TANDEM_GL_DEBUG=1).");
    using tandem::python::Viewer;
    py::class_<Viewer>(module, "Viewer", "tandem.Viewer's native half (use tandem.Viewer).")
        .def(py::init<int, int, const std::string&, const std::string&, const std::string&, float,
                      std::optional<bool>, int, bool, const py::object&, int, const std::string&,
                      const std::string&, const std::string&>(),
             py::arg("height"), py::arg("width"), py::arg("mode"), py::arg("postfx"),
             py::arg("title"), py::arg("point_size"), py::arg("overlay"), py::arg("cuda_device"),
             py::arg("quiet"), py::arg("hook") = py::none(), py::arg("capture_frame") = -1,
             py::arg("capture_dir") = "captures", py::arg("raster") = "auto", py::arg("serve") = "")
        .def("update", &Viewer::update, py::arg("objects"), py::arg("vertices"), py::arg("indices"),
             py::arg("offsets"), py::arg("triangles"), py::arg("splats"), py::arg("low"),
             py::arg("high"), py::arg("fit"), py::arg("stream"))
        .def("step", &Viewer::step)
        .def("image", &Viewer::image)
        .def("close", &Viewer::close)
        .def_property_readonly("width", &Viewer::width)
        .def_property_readonly("height", &Viewer::height)
        .def_property_readonly("is_headless", &Viewer::isHeadless)
        .def_property_readonly("url", &Viewer::url)
        .def_property_readonly("handoffs", &Viewer::handoffs)
        .def_property_readonly("gl_errors", &Viewer::glErrors);
    module.def(
        "load_mesh",
        [](const std::string& path) {
            auto mesh = tandem::io::loadMesh(path);
            if (!mesh)
                throw py::value_error(mesh.error());
            const tandem::io::MeshData& m = mesh.value();
            auto bytes = [](const auto& v) {
                return py::bytes(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(v[0]));
            };
            py::dict out;
            out["positions"] = bytes(m.positions);
            out["indices"] = bytes(m.indices);
            out["colors"] = bytes(m.colors);
            out["normals"] = bytes(m.normals);
            py::list warnings;
            for (const auto& warning : mesh.warnings())
                warnings.append(warning);
            out["warnings"] = warnings;
            return out;
        },
        py::arg("path"),
        "Reads a PLY or OBJ file with the engine's readers: a dict of raw bytes (positions "
        "float32 x3, indices uint32, colors uint8 x4, normals float32 x3; empty when absent) and "
        "warnings.");
    module.def(
        "camera_matrices",
        [](const py::dict& camera, const std::vector<float>& low, const std::vector<float>& high,
           int height, int width) {
            if (low.size() != 3 || high.size() != 3 || height <= 0 || width <= 0)
                throw py::value_error("camera_matrices: bounds of 3 numbers and a size");
            tandem::io::Bounds bounds;
            bounds.min = glm::vec3(low[0], low[1], low[2]);
            bounds.max = glm::vec3(high[0], high[1], high[2]);
            const tandem::render::Camera c = Renderer::cameraOf(camera, bounds);
            const glm::mat4 view = c.view();
            const glm::mat4 projection =
                c.projection(static_cast<float>(width) / static_cast<float>(height));
            // What the geometry pass's camera block holds (render::makeCameraBlock).
            const glm::mat4 viewProjection = projection * view;
            auto rows = [](const glm::mat4& m) {
                std::vector<float> out;
                for (int r = 0; r < 4; ++r)
                    for (int col = 0; col < 4; ++col)
                        out.push_back(m[col][r]);
                return out;
            };
            return py::make_tuple(rows(view), rows(projection), rows(viewProjection));
        },
        py::arg("camera"), py::arg("bounds_min"), py::arg("bounds_max"), py::arg("height"),
        py::arg("width"),
        "The view, projection and view-projection matrices (row-major, 16 floats each) the "
        "engine draws with for `camera` over a scene of these bounds at this size.");
    module.def(
        "splat_region",
        [](std::uint32_t count, int degree) {
            if (degree < 0 || degree > tandem::io::MaxShDegree)
                throw py::value_error("splat_region: SH degree outside 0..3");
            const tandem::render::SplatRegion r = tandem::render::splatRegion(
                count, degree, tandem::render::SplatEncoding::F32, tandem::render::SplatAlign);
            py::dict out; // offsets and size in floats
            out["positions"] = r.positions / 4;
            out["scales"] = r.scales / 4;
            out["rotations"] = r.rotations / 4;
            out["opacities"] = r.opacities / 4;
            out["sh"] = r.sh / 4;
            out["floats"] = r.bytes / 4;
            return out;
        },
        py::arg("count"), py::arg("degree"),
        "Where each array of `count` Gaussians of SH `degree` starts in the splat pass's float "
        "layout (positions x3, scales x3, rotations wxyz, opacities, SH), and its length, in "
        "floats.");
    module.def("is_built_with_cuda", &tandem::cuda::isBuiltWithCuda,
               "Whether this build includes CUDA.");
    py::list stillChannels; // tandem.render's channel names, from the engine's one table
    for (const auto& entry : tandem::frame::StillChannels.entries())
        stillChannels.append(std::string(entry.name));
    module.attr("still_channels") = stillChannels;
}
