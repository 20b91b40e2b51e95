// weft's kernel object: the Python function, its options, and the specializations compiled
// for it (front end once per argument-type key, one loaded kernel per target).
#pragma once

#include <Python.h>

#include <memory>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include "python/arguments.h"
#include "python/python_environment.h"
#include "python/python_runtime.h"
#include "runtime/runtime.h"

namespace weft::python {

namespace nb = nanobind;

// A global constant (or captured variable) a specialization baked in, with the object it was bound to then, so that
// the check at launch is a pointer comparison unless the global was rebound.
struct CheckedGlobal {
  std::shared_ptr<sema::Environment> environment;
  nb::object name;   // str
  nb::object value;  // the object last seen bound to `name` (null when unbound)
  sema::ConstValue constant;
  bool byIdentity = false;  // sema::GlobalDependency::byIdentity: any other object is a change
};

struct Specialization {
  std::string key;  // see Kernel::launch
  runtime::FrontEndResult frontEnd;
  std::shared_ptr<runtime::LoadedKernel> loaded[2];  // by runtime::Target
  std::vector<CheckedGlobal> globals;
};

// The object `@kernel` returns.
class Kernel {
 public:
  // The options are the decorator's; the environment may override some (runtime::kernelOptions).
  // `signature`: None, or per parameter a (dtype name, ndim) pair that declares its type as an
  // annotation would (the classic front's `cuda.jit("void(float32[:], int32)")`).
  // `face`: "simt" for a @kernel, "tiles" or "cutile" for a tile kernel (launched with a grid only).
  // `stages`: a tile kernel's stages option (CompilerOptions::pipelineStages; the decorator checks it).
  Kernel(nb::object function, bool debug, bool fastMath, bool interop, std::optional<bool> boundsCheck,
         nb::object signature, const std::string& face, int stages);
  // Converts `args` (one value per positional argument; the runtime skips ConstExpr ones) and
  // launches with `config` on `target` (None: the default target).
  void launch(PyObject* const* args, size_t count, const runtime::LaunchConfig& config, nb::handle target);
  // The CUDA C++ unit of the specialization for `args` (compiled if needed), for tests and tools.
  std::string emitCuda(PyObject* const* args, size_t count, nb::handle target);
  // Compiles the front end now when every parameter's type is declared (a signature or
  // annotations), so that errors surface at decoration, as numba's signatures do; else nothing.
  void compileDeclared();
  // How many specializations this kernel has compiled (from sema or from a front-end record).
  size_t compileCount() const { return compileCount_; }
  // How many times this kernel ran sema (a parameters' description or a specialization's
  // check): a launch whose front-end records hold runs none (python/front_end_records.h).
  size_t frontEndRuns() const { return frontEndRuns_; }

  nb::object function;
  runtime::CompilerOptions options;
  bool interop = false;
  sema::FunctionSource::Face face = sema::FunctionSource::Face::Simt;

 private:
  // First use: the runtime, the kernel's own source, and its parameters as sema describes them.
  void prepare();
  // Whether this is a tile kernel, whose arrays' launch facts specialize it (docs/tiles.md).
  bool tileKernel() const { return face != sema::FunctionSource::Face::Simt; }
  // The types `signature_` declares, one per parameter (TypeError when it does not fit them).
  std::vector<const types::Type*> signatureTypes(size_t parameters, types::TypeContext& types) const;
  // The specialization for `args` (converted into `values`), compiling it on a miss.
  std::shared_ptr<Specialization> specialize(PyObject* const* args, size_t count, runtime::Target target,
                                             uintptr_t stream, std::vector<runtime::ArgumentValue>& values,
                                             ConsumedTensors& consumed);
  bool globalsUnchanged(Specialization& specialization);
  std::shared_ptr<Specialization> compile(std::string key, PyObject* const* args, size_t count,
                                          const std::vector<runtime::ArgumentValue>& values);

  nb::object runtimeObject_;
  PythonRuntime* runtime_ = nullptr;
  std::string name_;
  nb::object signature_;
  std::vector<std::string> parameterNames_;
  std::vector<bool> constExpr_;
  // Per parameter, the type its annotation (or the signature) declares; nullptr: the argument's
  // own type decides (a specialization per argument type).
  std::vector<const types::Type*> declared_;
  std::shared_ptr<sema::FunctionSource> source_;
  std::vector<std::shared_ptr<Specialization>> specializations_;
  size_t compileCount_ = 0;
  size_t frontEndRuns_ = 0;
  // Converted launch arguments, reused by one launch at a time (see launch()).
  std::vector<runtime::ArgumentValue> arguments_;
  bool argumentsInUse_ = false;
};

// `kernel[grid, block, stream, shared]`: a kernel with its launch configuration.
struct ConfiguredKernel {
  nb::object kernel;
  runtime::LaunchConfig config;
};

// Parses `kernel[...]`'s index: (grid, block[, stream[, shared]]).
ConfiguredKernel configure(nb::object kernel, nb::handle index);

// Registers Kernel and ConfiguredKernel, and the module function launch().
void bindKernels(nb::module_& module);

}  // namespace weft::python
