#include "python/python_runtime.h"

#include <cstdlib>
#include <cstring>
#include <exception>

#include "support/check.h"

namespace weft::python {

PythonRuntime::PythonRuntime(std::string includeDir, nb::handle deviceArrayType)
    : compiler_(std::make_shared<runtime::Compiler>(std::move(includeDir))), converter_(deviceArrayType) {
  // A CPU launch runs with the GIL released; this lets Python's signal handlers run meanwhile
  // (Ctrl-C raises KeyboardInterrupt, which stops the launch).
  compiler_->setInterruptCheck([] {
    PyGILState_STATE state = PyGILState_Ensure();
    bool raised = PyErr_CheckSignals() != 0;
    PyGILState_Release(state);
    return raised;
  });
}

bool PythonRuntime::gpuAvailable() {
  if (!gpuAvailable_) gpuAvailable_ = compiler_->gpuAvailable();
  return *gpuAvailable_;
}

runtime::Target PythonRuntime::defaultTarget() {
  // Read on every launch, so that a program (or a test) can switch targets with the variable.
  if (const char* chosen = std::getenv("WEFT_TARGET"); chosen && *chosen) {
    if (std::strcmp(chosen, "cpu") == 0) return runtime::Target::Cpu;
    if (std::strcmp(chosen, "gpu") == 0) return runtime::Target::Gpu;
    throw nb::value_error(("WEFT_TARGET must be 'gpu' or 'cpu', not '" + std::string(chosen) + "'").c_str());
  }
  return gpuAvailable() ? runtime::Target::Gpu : runtime::Target::Cpu;
}

runtime::Target PythonRuntime::target(nb::handle value) {
  if (value.is_none()) return defaultTarget();
  if (PyUnicode_Check(value.ptr())) {
    const char* name = PyUnicode_AsUTF8(value.ptr());
    if (name && std::strcmp(name, "gpu") == 0) return runtime::Target::Gpu;
    if (name && std::strcmp(name, "cpu") == 0) return runtime::Target::Cpu;
  }
  throw nb::value_error(
      ("target must be 'gpu', 'cpu' or None, not " + nb::cast<std::string>(nb::repr(value))).c_str());
}

std::unique_lock<std::mutex> PythonRuntime::lockFrontEnd() {
  std::unique_lock<std::mutex> lock(frontEndMutex_, std::try_to_lock);
  if (!lock.owns_lock()) {
    nb::gil_scoped_release release;
    lock.lock();
  }
  return lock;
}

void raiseWeftError(const char* className, const std::string& text) {
  nb::object type = nb::module_::import_("weft._errors").attr(className);
  PyErr_SetString(type.ptr(), text.c_str());
  throw nb::python_error();
}

void raiseCompileError(const DiagnosticReport& report) {
  nb::module_ errors = nb::module_::import_("weft._errors");
  nb::object diagnosticType = errors.attr("Diagnostic");
  nb::object noteType = errors.attr("DiagnosticNote");
  // file (None without a position), line, 1-based column as printed (0 without a position).
  auto position = [&](SourceLoc loc) {
    const std::string* file = report.fileName(loc);
    if (file == nullptr) return nb::make_tuple(nb::none(), 0, 0);
    return nb::make_tuple(*file, loc.line, loc.column + 1);
  };
  nb::list diagnostics;
  for (size_t i = 0; i < report.diagnostics.size(); ++i) {
    const Diagnostic& diagnostic = report.diagnostics[i];
    nb::list notes;
    for (const DiagnosticNote& note : diagnostic.notes) {
      nb::tuple at = position(note.loc);
      notes.append(noteType(at[0], at[1], at[2], note.message));
    }
    nb::tuple at = position(diagnostic.loc);
    diagnostics.append(diagnosticType(severityName(diagnostic.severity), diagnostic.kind, at[0], at[1], at[2],
                                      diagnostic.message, nb::tuple(notes), report.rendered[i]));
  }
  nb::object type = errors.attr("CompileError");
  nb::object error = type(report.text(), diagnostics);
  PyErr_SetObject(type.ptr(), error.ptr());
  throw nb::python_error();
}

namespace {

// Sets the Python error for weft's own C++ exceptions; rethrows any other.
void translateWeftException(const std::exception_ptr& error) {
  auto raise = [](const char* className, const std::string& text) {
    nb::object type = nb::module_::import_("weft._errors").attr(className);
    PyErr_SetString(type.ptr(), text.c_str());
  };
  try {
    std::rethrow_exception(error);
  } catch (const runtime::CudaError& cudaError) {
    raise("CudaError", cudaError.what());
  } catch (const runtime::Interrupted& interrupted) {
    // The interrupt check left Python's own error (KeyboardInterrupt) pending.
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_KeyboardInterrupt, interrupted.what());
  } catch (const runtime::LaunchError& launchError) {
    PyErr_SetString(launchError.kind() == runtime::LaunchError::Kind::Type ? PyExc_TypeError : PyExc_ValueError,
                    launchError.what());
  } catch (const InternalCompilerError& internalError) {
    raise("InternalCompilerError",
          std::string(internalError.what()) +
              "\nThis is a bug in weft, not in your program; please report it with the kernel's source.");
  }
}

PyObject* builtinExceptionType(nb::exception_type type) {
  switch (type) {
    case nb::exception_type::stop_iteration: return PyExc_StopIteration;
    case nb::exception_type::index_error: return PyExc_IndexError;
    case nb::exception_type::key_error: return PyExc_KeyError;
    case nb::exception_type::value_error: return PyExc_ValueError;
    case nb::exception_type::type_error: return PyExc_TypeError;
    case nb::exception_type::buffer_error: return PyExc_BufferError;
    case nb::exception_type::import_error: return PyExc_ImportError;
    case nb::exception_type::attribute_error: return PyExc_AttributeError;
    default: return PyExc_RuntimeError;
  }
}

}  // namespace

void registerExceptionTranslators() {
  nb::register_exception_translator([](const std::exception_ptr& error, void*) { translateWeftException(error); });
}

void setPythonErrorFromCurrentException() noexcept {
  try {
    translateWeftException(std::current_exception());
  } catch (nb::python_error& error) {
    error.restore();
  } catch (const nb::builtin_exception& error) {
    PyErr_SetString(builtinExceptionType(error.type()), error.what());
  } catch (const std::exception& error) {
    PyErr_SetString(PyExc_RuntimeError, error.what());
  } catch (...) {
    PyErr_SetString(PyExc_SystemError, "weft: an unknown C++ exception");
  }
}

}  // namespace weft::python
