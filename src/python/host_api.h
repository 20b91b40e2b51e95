// Bindings of the classic front's host API (python/weft/_cuda_host.py): page-locked host memory,
// streams, events, asynchronous copies and the device's properties.
#pragma once

#include <Python.h>

#include <cstddef>

#include <nanobind/nanobind.h>

namespace weft::python {

// A C-contiguous view of a Python buffer (a NumPy array), released on destruction; raises the
// buffer protocol's error when `object` is not contiguous (or not writable when `writable`).
class BufferView {
 public:
  BufferView(nanobind::handle object, bool writable) {
    if (PyObject_GetBuffer(object.ptr(), &view_, PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0)) != 0)
      throw nanobind::python_error();
  }
  ~BufferView() { PyBuffer_Release(&view_); }
  BufferView(const BufferView&) = delete;
  BufferView& operator=(const BufferView&) = delete;
  void* data() const { return view_.buf; }
  size_t bytes() const { return static_cast<size_t>(view_.len); }

 private:
  Py_buffer view_{};
};

// Adds HostBuffer, HostRegistration, Stream, Event and the host API's functions to `module`.
void bindHostApi(nanobind::module_& module);

}  // namespace weft::python
