// tandem._tandem, the native half of the Python package: a Renderer per device (a headless GL
// context on the EGL device of a CUDA device, or the default one for host memory) that
// rasterizes arrays handed over as DLPack capsules. Capsules are borrowed: the caller keeps the
// arrays alive for the call and the capsule's own destructor releases them. Validation with
// messages for users lives in the Python layer (tandem/_raster.py); the checks here guard
// memory only. Calls release the GIL while GL and CUDA work is issued. One thread at a time.
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include <dlpack/dlpack.h>
#include <fmt/format.h>
#include <pybind11/pybind11.h>

#include "engine/core/Error.h"
#include "engine/cuda/Copy.h"
#include "engine/cuda/Device.h"
#include "engine/frame/TensorRaster.h"
#include "engine/interop/Doctor.h"
#include "engine/platform/Context.h"

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
    // Row-major and compact only: the Python layer makes a contiguous copy of anything else.
    if (t.strides) {
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
        if (triangleIds != "pulled" && triangleIds != "primitive-id")
            throw py::value_error("triangle_ids: 'pulled' or 'primitive-id'");
        m_raster = std::make_unique<frame::TensorRaster>(triangleIds == "pulled"
                                                             ? render::TriangleIds::Pulled
                                                             : render::TriangleIds::PrimitiveId);
    }

    ~Renderer()
    {
        // GL objects die while the context is current, before it.
        if (std::this_thread::get_id() == m_owner) {
            try {
                DeviceScope scope(m_cudaDevice);
                m_context->makeCurrent();
                m_raster.reset();
            } catch (const std::exception&) {
                (void)m_raster.release(); // the driver is gone (interpreter exit): leak
            }
        } else {
            (void)m_raster.release(); // another thread cannot make the context current: leak
        }
    }

    Renderer(const Renderer&) = delete;
    Renderer& operator=(const Renderer&) = delete;

    void rasterize(const py::capsule& positionsCapsule, const py::capsule& trianglesCapsule,
                   const py::capsule& outputCapsule, int height, int width, std::uintptr_t stream)
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
        if (onCuda && !isCuda())
            throw std::runtime_error("tandem: GL-CUDA interop does not work here: " +
                                     m_status.reason);
        checkThread();
        py::gil_scoped_release release;
        DeviceScope scope(m_cudaDevice);
        m_context->makeCurrent();
        const auto* p = static_cast<const float*>(positions.data);
        const auto* t = static_cast<const std::uint32_t*>(triangles.data);
        auto* o = static_cast<float*>(output.data);
        if (onCuda)
            m_raster->rasterizeCuda(p, t, o, shape, reinterpret_cast<void*>(stream));
        else
            m_raster->rasterizeHost(p, t, o, shape);
    }

    bool isCuda() const { return m_status.path == interop::Path::Cuda; }
    const std::string& reason() const { return m_status.reason; }
    const std::string& description() const { return m_description; }
    int cudaDevice() const { return m_cudaDevice; }
    std::uint64_t handoffs() const { return m_raster->handoffs(); }

private:
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
             py::arg("height"), py::arg("width"), py::arg("stream"),
             "Rasterizes DLPack arrays pos [B, V, 4] float32 and tri [T, 3] int32 into out [B, H, "
             "W, 4] float32, on CUDA stream `stream` for CUDA arrays.")
        .def_property_readonly("is_cuda", &Renderer::isCuda,
                               "Whether CUDA arrays go through GL-CUDA interop here.")
        .def_property_readonly("reason", &Renderer::reason, "Why the interop path is what it is.")
        .def_property_readonly("description", &Renderer::description,
                               "The GL context: platform, device, renderer.")
        .def_property_readonly("cuda_device", &Renderer::cudaDevice)
        .def_property_readonly("handoffs", &Renderer::handoffs,
                               "GL-CUDA map+unmap round trips made so far.");
    module.def("is_built_with_cuda", &tandem::cuda::isBuiltWithCuda,
               "Whether this build includes CUDA.");
}
