// The nanobind module `weft._weft`: bindings of the runtime (kernels, launch, device memory),
// the parser's AST dump, and the toolchain queries the Python package needs.
#include <Python.h>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "backend/backend.h"
#include "python/arguments.h"
#include "python/dispatcher.h"
#include "python/host_api.h"
#include "python/python_runtime.h"
#include "python/struct_layouts.h"
#include "sema/sema.h"
#include "sema/targets.h"
#include "syntax/syntax.h"
#include "types/type.h"

namespace nb = nanobind;

namespace weft::python {
namespace {

// Device memory owned by a Python object; freed when the object dies.
class DeviceBuffer {
 public:
  DeviceBuffer(PythonRuntime& runtime, size_t bytes)
      : compiler_(runtime.sharedCompiler()), address_(compiler_->allocate(bytes)), bytes_(bytes) {}
  ~DeviceBuffer() {
    try {
      compiler_->free(address_);
    } catch (const std::exception&) {
      // A context that faulted cannot free; the driver reclaims the memory with the context.
    }
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  uintptr_t address() const { return address_; }
  size_t bytes() const { return bytes_; }

 private:
  std::shared_ptr<runtime::Compiler> compiler_;
  uintptr_t address_;
  size_t bytes_;
};

// What a DLPack tensor exported from a DeviceArray owns: its shape and strides and a reference
// to the array, which keeps the memory alive.
struct ExportedTensor {
  DLManagedTensor managed{};
  std::array<int64_t, 8> shape{};
  std::array<int64_t, 8> strides{};
  PyObject* owner = nullptr;
};

void deleteExportedTensor(DLManagedTensor* managed) {
  auto* exported = static_cast<ExportedTensor*>(managed->managerContext);
  if (Py_IsInitialized()) {
    PyGILState_STATE state = PyGILState_Ensure();
    Py_XDECREF(exported->owner);
    PyGILState_Release(state);
  }
  delete exported;
}

void destroyCapsule(PyObject* capsule) {
  // A consumer that took the tensor renamed the capsule and calls the deleter itself.
  if (!PyCapsule_IsValid(capsule, "dltensor")) return;
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
  if (managed && managed->deleter) managed->deleter(managed);
}

nb::object dlpackCapsule(nb::handle arrayObject) {
  const DeviceArrayBase& array = nb::cast<const DeviceArrayBase&>(arrayObject);
  if (array.array.itemSize < 0)
    throw nb::buffer_error("a weft.DeviceArray of a structured dtype has no DLPack dtype; pass it to kernels directly");
  auto* exported = new ExportedTensor;
  DLTensor& tensor = exported->managed.tensor;
  tensor.data = array.array.data;
  tensor.device = DLDevice{array.onHost ? kDLCPU : kDLCUDA, 0};
  tensor.ndim = array.array.ndim;
  types::DLPackType dtype = types::dlpackType(array.array.dtype);
  tensor.dtype = DLDataType{dtype.code, dtype.bits, 1};
  exported->shape = array.array.shape;
  exported->strides = array.array.strides;
  tensor.shape = exported->shape.data();
  tensor.strides = exported->strides.data();
  tensor.byteOffset = 0;
  exported->owner = arrayObject.ptr();
  Py_INCREF(exported->owner);
  exported->managed.managerContext = exported;
  exported->managed.deleter = deleteExportedTensor;
  PyObject* capsule = PyCapsule_New(&exported->managed, "dltensor", destroyCapsule);
  if (!capsule) {
    deleteExportedTensor(&exported->managed);
    throw nb::python_error();
  }
  return nb::steal(capsule);
}

std::string dumpAst(const std::string& source, const std::string& filename) {
  SourceManager sources;
  uint32_t file = sources.add(filename, source);
  Diagnostics diagnostics(sources);
  std::unique_ptr<syntax::Module> module = syntax::parse(file, diagnostics);
  if (diagnostics.hasErrors() || !module) raiseCompileError(diagnostics.detach());
  return syntax::dumpAst(*module);
}

// The columns of scalar_kinds.def the Python package's number types need (python/weft/_types.py).
nb::tuple scalarKinds() {
  nb::list kinds;
  for (size_t i = 0; i < types::kScalarKindCount; ++i) {
    auto kind = static_cast<types::ScalarKind>(i);
    nb::dict entry;
    entry["name"] = types::pythonName(kind);
    entry["attribute"] = types::attributeName(kind);
    entry["category"] = std::string(1, types::category(kind));
    entry["dtype_module"] = types::dtypeModule(kind);
    entry["dtype_name"] = types::dtypeName(kind);
    entry["typestr"] = types::typestr(kind);
    kinds.append(entry);
  }
  return nb::tuple(kinds);
}

// A host number type's constructor (weft.int8(x)...): the Python number `value` converted to
// `typeName` by the rule device code uses (sema::convertConstant); None when `value` is not a
// number that fits uint64 or int64 (the caller converts those itself).
nb::object convertNumber(nb::handle value, const std::string& typeName) {
  using Kind = sema::ConstValue::Kind;
  std::optional<types::ScalarKind> kind = types::scalarFromName(typeName);
  sema::ConstValue constant;
  if (!kind || !ArgumentConverter::toConstant(value.ptr(), constant)) return nb::none();
  if (constant.kind == Kind::Complex && !types::isComplex(*kind) && !types::isBool(*kind))
    throw nb::type_error((typeName + "() needs a real number, not complex").c_str());
  if (constant.kind != Kind::Bool && constant.kind != Kind::Int && constant.kind != Kind::Float &&
      constant.kind != Kind::Complex)
    return nb::none();
  sema::ConstValue converted = sema::convertConstant(constant, *kind);
  switch (converted.kind) {
    case Kind::Bool: return nb::bool_(converted.boolValue);
    case Kind::Int:
      if (converted.aboveInt64)
        return nb::steal(PyLong_FromUnsignedLongLong(static_cast<uint64_t>(converted.intValue)));
      return nb::int_(converted.intValue);
    case Kind::Float: return nb::float_(converted.floatValue);
    case Kind::Complex: return nb::steal(PyComplex_FromDoubles(converted.floatValue, converted.imagValue));
    case Kind::None:
    case Kind::Str:
    case Kind::Tuple: break;
  }
  return nb::none();
}

nb::tuple toTuple(const std::array<int64_t, 8>& values, int count) {
  nb::list list;
  for (int i = 0; i < count; ++i) list.append(values[static_cast<size_t>(i)]);
  return nb::tuple(list);
}

void bindRuntime(nb::module_& module) {
  nb::class_<PythonRuntime>(module, "Runtime",
                            "The process's compiler, caches and device (see weft._runtime.runtime())")
      .def("__init__",
           [](PythonRuntime* self, std::string includeDir) {
             new (self) PythonRuntime(std::move(includeDir), nb::type<DeviceArrayBase>());
           })
      .def("gpu_available", &PythonRuntime::gpuAvailable)
      .def("gpu_architecture", [](PythonRuntime& runtime) { return runtime.compiler().gpuArchitecture(); })
      .def("default_target",
           [](PythonRuntime& runtime) {
             return runtime.defaultTarget() == runtime::Target::Gpu ? "gpu" : "cpu";
           })
      .def(
          "synchronize",
          [](PythonRuntime& runtime, uintptr_t stream) {
            if (!runtime.gpuAvailable()) return;
            nb::gil_scoped_release release;
            runtime.compiler().synchronize(stream);
          },
          nb::arg("stream") = 0)
      .def("copy_to_device",
           [](PythonRuntime& runtime, uintptr_t address, nb::handle array) {
             BufferView view(array, false);
             nb::gil_scoped_release release;
             runtime.compiler().copyToDevice(address, view.data(), view.bytes());
           })
      .def("copy_to_host",
           [](PythonRuntime& runtime, nb::handle out, uintptr_t address) {
             BufferView view(out, true);
             nb::gil_scoped_release release;
             runtime.compiler().copyToHost(view.data(), address, view.bytes());
           })
      .def("copy_on_device",
           [](PythonRuntime& runtime, uintptr_t destination, uintptr_t source, size_t bytes) {
             nb::gil_scoped_release release;
             runtime.compiler().copyOnDevice(destination, source, bytes);
           })
      .def("memset", [](PythonRuntime& runtime, uintptr_t address, uint8_t value, size_t bytes) {
        runtime.compiler().memset(address, value, bytes);
      });

  nb::class_<DeviceBuffer>(module, "DeviceBuffer", "Device memory, freed when this object dies")
      .def("__init__", [](DeviceBuffer* self, PythonRuntime& runtime,
                          size_t bytes) { new (self) DeviceBuffer(runtime, bytes); })
      .def_prop_ro("address", &DeviceBuffer::address)
      .def_prop_ro("nbytes", &DeviceBuffer::bytes);

  nb::class_<DeviceArrayBase>(module, "DeviceArrayBase", "The fields of weft.DeviceArray that launches read")
      .def("__init__",
           [](DeviceArrayBase* self, uintptr_t data, nb::tuple shape, nb::tuple strides,
              const std::string& dtype, bool onHost, nb::object owner) {
             std::optional<types::ScalarKind> kind = types::scalarFromDtypeName(dtype);
             // NumPy names structured dtypes "void<bits>": their elements are structs, which
             // the launch reads from the array's dtype (itemSize -1 marks them).
             bool structured = !kind && dtype.rfind("void", 0) == 0;
             if (!kind && !structured) throw nb::type_error(("weft arrays cannot hold dtype " + dtype).c_str());
             if (shape.size() > 8 || strides.size() != shape.size())
               throw nb::value_error("an array has at most 8 dimensions and one stride per dimension");
             new (self) DeviceArrayBase();
             self->array.data = reinterpret_cast<void*>(data);
             self->array.dtype = kind.value_or(types::ScalarKind::UInt8);
             if (structured) self->array.itemSize = -1;
             self->array.ndim = static_cast<int>(shape.size());
             for (size_t d = 0; d < shape.size(); ++d) {
               self->array.shape[d] = nb::cast<int64_t>(shape[d]);
               self->array.strides[d] = nb::cast<int64_t>(strides[d]);
             }
             self->onHost = onHost;
             self->owner = std::move(owner);
           })
      .def_prop_ro("data", [](const DeviceArrayBase& a) { return reinterpret_cast<uintptr_t>(a.array.data); })
      .def_prop_ro("shape", [](const DeviceArrayBase& a) { return toTuple(a.array.shape, a.array.ndim); })
      .def_prop_ro("element_strides",
                   [](const DeviceArrayBase& a) { return toTuple(a.array.strides, a.array.ndim); })
      .def_prop_ro("ndim", [](const DeviceArrayBase& a) { return a.array.ndim; })
      .def_prop_ro("on_host", [](const DeviceArrayBase& a) { return a.onHost; })
      .def_prop_ro("owner", [](const DeviceArrayBase& a) { return a.owner; });
}

// A TargetSet from its encoding; ValueError when `encoded` is not one.
sema::TargetSet decodeTargets(const std::string& encoded) {
  std::optional<sema::TargetSet> set = sema::TargetSet::decode(encoded);
  if (!set) throw nb::value_error(("not an encoded TargetDescription: " + encoded).c_str());
  return *set;
}

// A known GPU target by its selector name (sm90a) or target name (sm_90a); ValueError if none.
sema::GpuTarget knownTarget(const std::string& name) {
  std::optional<sema::GpuTarget> target = sema::parseTarget(name, name.starts_with("sm_") ? "sm_" : "sm");
  if (!target || !sema::isKnownTarget(*target))
    throw nb::value_error(("'" + name + "' is not a CUDA architecture (such as sm90, sm90a or sm100f)").c_str());
  return *target;
}

// The target facts sema decides, which python/weft/_target.py reads instead of recomputing:
// the selectors and the algebra of descriptions, each description as its encoding.
void bindTargets(nb::module_& module) {
  module.def(
      "target_selectors",
      [] {
        nb::list selectors;
        for (sema::GpuTarget target : sema::knownTargets())
          selectors.append(nb::make_tuple(sema::targetName(target, "sm"), target.arch, std::string(sema::featureSuffix(target.features))));
        return selectors;
      },
      "(name, XY, suffix) of every SMSelector: sm10 ... sm90, sm90a, sm100, sm100f, sm100a ...");
  module.def(
      "target_entity",
      [](const std::string& name) {
        if (name == "is_host") return sema::TargetSet::host().encoded();
        if (name == "is_device") return sema::TargetSet::device().encoded();
        if (name == "any_target") return sema::TargetSet::all().encoded();
        if (name == "no_target") return sema::TargetSet::none().encoded();
        throw nb::value_error(("no target entity " + name).c_str());
      },
      "The encoding of is_host, is_device, any_target or no_target.");
  module.def(
      "target_select",
      [](const std::string& function, const std::string& selector) {
        sema::GpuTarget target = knownTarget(selector);
        return (function == "is_exactly" ? sema::TargetSet::exactly(target) : sema::TargetSet::provides(target)).encoded();
      },
      "The encoding of is_exactly(selector) (function 'is_exactly') or provides(selector).");
  module.def(
      "target_union", [](const std::string& a, const std::string& b) { return (decodeTargets(a) | decodeTargets(b)).encoded(); },
      "The encoding of a | b.");
  module.def(
      "target_intersection",
      [](const std::string& a, const std::string& b) { return (decodeTargets(a) & decodeTargets(b)).encoded(); },
      "The encoding of a & b.");
  module.def(
      "target_complement", [](const std::string& a) { return (~decodeTargets(a)).encoded(); }, "The encoding of ~a.");
  module.def(
      "target_includes",
      [](const std::string& encoded, const std::string& target) {
        sema::TargetSet set = decodeTargets(encoded);
        return target == "host" ? set.includesHost() : set.includes(knownTarget(target));
      },
      "Whether the description holds for `target`: 'host' or a GPU target (sm90a or sm_90a).");
  module.def(
      "target_condition", [](const std::string& encoded) { return decodeTargets(encoded).condition(); },
      "The preprocessor condition a lowering tests for the description.");
}

}  // namespace
}  // namespace weft::python

NB_MODULE(_weft, module) {
  using namespace weft::python;
  module.doc() = "weft's C++ core: compiler, dispatcher and runtime (use the `weft` package)";
  // Kernels live in module globals that reference them back; such cycles outlive the interpreter
  // and are not leaks of the binding.
  nb::set_leak_warnings(false);
  registerExceptionTranslators();
  bindRuntime(module);
  bindHostApi(module);
  bindKernels(module);
  bindTargets(module);
  bindStructLayouts(module);
  bindSourceTexts(module);
  module.def("dlpack_capsule", &dlpackCapsule, "A DLPack capsule for a weft.DeviceArray (GPU or CPU memory)");
  module.def(
      "tile_names",
      [](const std::string& face) {
        weft::sema::FunctionSource::Face which = face == "tiles"    ? weft::sema::FunctionSource::Face::Tiles
                                           : face == "cutile" ? weft::sema::FunctionSource::Face::CuTile
                                                              : throw nb::value_error("face must be 'tiles' or 'cutile'");
        nb::dict constants;
        for (const auto& [name, value] : weft::sema::tileConstants(which)) constants[name.c_str()] = value;
        return nb::make_tuple(weft::sema::tileFunctionNames(which), constants);
      },
      nb::arg("face"), "The device functions of a tile face and its constants by name (sema's tables).");
  module.def("scalar_kinds", &scalarKinds,
             "weft's number types in ScalarKind order, one dict each: name, attribute, category (B S U F C), "
             "dtype_module, dtype_name, typestr ('' if none).");
  module.def(
      "dump_ast", &dumpAst, nb::arg("source"), nb::arg("filename") = "<string>",
      "The AST of `source` exactly as CPython's ast.dump(ast.parse(source)); CompileError on syntax errors.");
  module.def("convert_number", &convertNumber, nb::arg("value"), nb::arg("type_name"),
             "`value` converted by number type `type_name`'s constructor as device code converts it.");
  module.def(
      "cache_dir", [] { return weft::backend::DiskCache::fromEnvironment().directory(); },
      "The disk cache directory ($WEFT_CACHE_DIR, else ~/.cache/weft).");
  module.def(
      "cache_enabled", [] { return weft::backend::DiskCache::fromEnvironment().enabled(); },
      "Whether the disk cache is in use (WEFT_CACHE=0, or no directory, turns it off).");
}
