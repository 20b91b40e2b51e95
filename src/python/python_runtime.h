// The process's runtime as the Python module holds it: one Compiler (created by the Python
// package on first use, owned by a Python object, not a C++ static), the argument converter
// and its per-type cache, and the errors weft raises.
#pragma once

#include <Python.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>

#include "python/arguments.h"
#include "runtime/runtime.h"
#include "support/diagnostics.h"

namespace weft::python {

namespace nb = nanobind;

class PythonRuntime {
 public:
  PythonRuntime(std::string includeDir, nb::handle deviceArrayType);
  runtime::Compiler& compiler() { return *compiler_; }
  const std::shared_ptr<runtime::Compiler>& sharedCompiler() const { return compiler_; }
  ArgumentConverter& converter() { return converter_; }
  // Whether a GPU is usable; asked of the driver once.
  bool gpuAvailable();
  // $WEFT_TARGET when set ("gpu" or "cpu"; anything else is a ValueError), else the GPU when
  // one is usable, else the CPU.
  runtime::Target defaultTarget();
  // Resolves a launch's `target` argument: None, "gpu" or "cpu".
  runtime::Target target(nb::handle value);
  // Serializes front-end compilations (sema calls back into Python, so the wait drops the GIL).
  std::unique_lock<std::mutex> lockFrontEnd();

 private:
  std::shared_ptr<runtime::Compiler> compiler_;
  ArgumentConverter converter_;
  std::optional<bool> gpuAvailable_;
  std::mutex frontEndMutex_;
};

// Raises weft.<className>(text) (CompileError, CudaError, InternalCompilerError).
[[noreturn]] void raiseWeftError(const char* className, const std::string& text);

// Raises weft.CompileError for `report`: its str() the rendered text, its `diagnostics` one
// weft.Diagnostic per diagnostic (python/weft/_errors.py).
[[noreturn]] void raiseCompileError(const DiagnosticReport& report);

// Registers the translation of runtime::CudaError, LaunchError, Interrupted and
// InternalCompilerError.
void registerExceptionTranslators();

// Sets the Python error for the C++ exception being handled, as a nanobind-bound function
// would: for the type slots that CPython calls directly (a kernel's subscript and call).
void setPythonErrorFromCurrentException() noexcept;

}  // namespace weft::python
