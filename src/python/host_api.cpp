#include "python/host_api.h"

#include <Python.h>

#include <memory>

#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>

#include "python/arguments.h"
#include "python/python_runtime.h"

namespace weft::python {
namespace {

// Owns one driver object through the Compiler: `release` runs when the Python object dies or is
// closed, whichever comes first. Errors on release are ignored: a context that faulted cannot
// release, and the driver reclaims everything with the context.
class DriverObject {
 public:
  DriverObject(PythonRuntime& runtime, uintptr_t handle, void (runtime::Compiler::*release)(uintptr_t))
      : compiler_(runtime.sharedCompiler()), handle_(handle), release_(release) {}
  ~DriverObject() { close(); }
  DriverObject(const DriverObject&) = delete;
  DriverObject& operator=(const DriverObject&) = delete;
  uintptr_t handle() const { return handle_; }
  runtime::Compiler& compiler() const { return *compiler_; }
  void close() {
    if (handle_ == 0) return;
    uintptr_t handle = handle_;
    handle_ = 0;
    try {
      ((*compiler_).*release_)(handle);
    } catch (const std::exception&) {
    }
  }

 private:
  std::shared_ptr<runtime::Compiler> compiler_;
  uintptr_t handle_;
  void (runtime::Compiler::*release_)(uintptr_t);
};

// Page-locked host memory (mapped or not), freed when the object dies.
class HostBuffer : public DriverObject {
 public:
  HostBuffer(PythonRuntime& runtime, size_t bytes, bool mapped)
      : DriverObject(runtime, runtime.compiler().allocateHost(bytes, mapped), &runtime::Compiler::freeHost),
        bytes_(bytes),
        mapped_(mapped) {}
  size_t bytes() const { return bytes_; }
  bool mapped() const { return mapped_; }

 private:
  size_t bytes_;
  bool mapped_;
};

}  // namespace

void bindHostApi(nb::module_& module) {
  nb::class_<DriverObject>(module, "DriverObject",
                           "A driver object (stream, event, host memory) owned by Python")
      .def_prop_ro("handle", &DriverObject::handle)
      .def("close", &DriverObject::close, "Releases the object now (later calls do nothing)");
  nb::class_<HostBuffer, DriverObject>(module, "HostBuffer",
                                       "Page-locked host memory, freed when this object dies")
      .def(nb::init<PythonRuntime&, size_t, bool>(), nb::arg("runtime"), nb::arg("bytes"), nb::arg("mapped"))
      .def_prop_ro("nbytes", &HostBuffer::bytes)
      .def_prop_ro("device_address", [](const HostBuffer& buffer) {
        if (!buffer.mapped())
          throw nb::value_error("page-locked memory that is not mapped has no device address");
        return buffer.compiler().mappedDeviceAddress(buffer.handle());
      });
  module.def(
      "register_host",
      [](PythonRuntime& runtime, uintptr_t address, size_t bytes, bool mapped) {
        runtime.compiler().registerHost(address, bytes, mapped);
        return new DriverObject(runtime, address, &runtime::Compiler::unregisterHost);
      },
      nb::rv_policy::take_ownership,
      "Page-locks host memory; the returned object unlocks it when closed or when it dies");
  module.def(
      "mapped_device_address",
      [](PythonRuntime& runtime, uintptr_t host) { return runtime.compiler().mappedDeviceAddress(host); },
      "The device address of mapped page-locked host memory");
  module.def(
      "create_stream",
      [](PythonRuntime& runtime) {
        return new DriverObject(runtime, runtime.compiler().createStream(),
                                &runtime::Compiler::destroyStream);
      },
      nb::rv_policy::take_ownership, "A new stream, destroyed when the returned object dies");
  module.def(
      "create_event",
      [](PythonRuntime& runtime, bool timing) {
        return new DriverObject(runtime, runtime.compiler().createEvent(timing),
                                &runtime::Compiler::destroyEvent);
      },
      nb::rv_policy::take_ownership, "A new event, destroyed when the returned object dies");
  module.def("stream_done",
             [](PythonRuntime& runtime, uintptr_t stream) { return runtime.compiler().streamDone(stream); });
  module.def("stream_wait_event", [](PythonRuntime& runtime, uintptr_t stream, uintptr_t event) {
    runtime.compiler().streamWaitEvent(stream, event);
  });
  module.def("record_event", [](PythonRuntime& runtime, uintptr_t event, uintptr_t stream) {
    runtime.compiler().recordEvent(event, stream);
  });
  module.def("synchronize_event", [](PythonRuntime& runtime, uintptr_t event) {
    nb::gil_scoped_release release;
    runtime.compiler().synchronizeEvent(event);
  });
  module.def("event_done",
             [](PythonRuntime& runtime, uintptr_t event) { return runtime.compiler().eventDone(event); });
  module.def("elapsed_milliseconds", [](PythonRuntime& runtime, uintptr_t start, uintptr_t end) {
    return runtime.compiler().elapsedMilliseconds(start, end);
  });
  module.def(
      "copy_to_device_async",
      [](PythonRuntime& runtime, uintptr_t address, nb::handle array, uintptr_t stream) {
        BufferView view(array, false);
        runtime.compiler().copyToDeviceAsync(address, view.data(), view.bytes(), stream);
      },
      "Copies a C-contiguous host array to device memory on `stream`; the array must outlive the copy");
  module.def(
      "copy_to_host_async",
      [](PythonRuntime& runtime, nb::handle out, uintptr_t address, uintptr_t stream) {
        BufferView view(out, true);
        runtime.compiler().copyToHostAsync(view.data(), address, view.bytes(), stream);
      },
      "Copies device memory into a C-contiguous host array on `stream`; the array must outlive the copy");
  module.def("parse_stream", &parseStream,
             "The CUDA handle of a launch's `stream` argument (None, int, stream object)");
  module.def("device_name", [](PythonRuntime& runtime) { return runtime.compiler().deviceName(); });
  module.def("device_attribute", [](PythonRuntime& runtime, int attribute) {
    return runtime.compiler().deviceAttribute(attribute);
  });
  module.def(
      "memory_info", [](PythonRuntime& runtime) { return runtime.compiler().memoryInfo(); },
      "(free, total) bytes of device memory");
}

}  // namespace weft::python
