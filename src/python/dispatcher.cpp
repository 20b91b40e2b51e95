#include "python/dispatcher.h"

#include <cstring>
#include <optional>

#include "python/front_end_records.h"
#include "sema/sema.h"

namespace weft::python {
namespace {

using runtime::ArgumentValue;
using sema::ConstValue;

// The type sema gives a ConstExpr argument's value (the builtin types' formats for numbers).
const types::Type* constantType(const ConstValue& value, types::TypeContext& types) {
  switch (value.kind) {
    case ConstValue::Kind::None: return types.none();
    case ConstValue::Kind::Bool:
    case ConstValue::Kind::Int:
    case ConstValue::Kind::Float:
    case ConstValue::Kind::Complex: return types.scalar(sema::builtinKindOf(value));
    case ConstValue::Kind::Str: return nullptr;
    case ConstValue::Kind::Tuple: {
      std::vector<const types::Type*> elements;
      for (const ConstValue& element : value.elements) {
        const types::Type* type = constantType(element, types);
        if (!type) return nullptr;
        elements.push_back(type);
      }
      return types.tuple(elements);
    }
  }
  return nullptr;
}

// The struct type of `source` for argument `name`: a malformed @struct definition raises
// CompileError (it points at the class); a NumPy record device code cannot use, a TypeError
// naming the parameter.
const types::Type* argumentStruct(const std::shared_ptr<sema::StructSource>& source,
                                  types::TypeContext& types, const std::string& kernel,
                                  const std::string& name) {
  SourceManager sources;
  Diagnostics diagnostics(sources);
  const types::Type* type = sema::resolveStruct(source, types, sources, diagnostics);
  if (type != nullptr) return type;
  if (source->file != nullptr || source->globals != nullptr) raiseCompileError(diagnostics.detach());
  std::string message = "kernel '" + kernel + "', parameter '" + name + "': ";
  for (const Diagnostic& diagnostic : diagnostics.all()) message += diagnostic.message;
  throw runtime::LaunchError(runtime::LaunchError::Kind::Type, message);
}

// The launch facts a tile kernel's code may assume of an array argument (runtime::arrayFacts);
// a SIMT kernel assumes none, so that they cost it no specializations.
unsigned launchFacts(const ArgumentValue& value, bool tileKernel) {
  return tileKernel && value.kind == ArgumentValue::Kind::Array ? runtime::arrayFacts(value.array) : 0;
}

// The type of an argument; `tileKernel`: its arrays carry their launch facts.
const types::Type* argumentType(const ArgumentValue& value, types::TypeContext& types,
                                const std::string& kernel, const std::string& name, bool tileKernel) {
  if (value.kind == ArgumentValue::Kind::Array && value.array.elementStruct)
    return types.array(argumentStruct(value.array.elementStruct, types, kernel, name), value.array.ndim);
  if (value.kind == ArgumentValue::Kind::Array)
    return types.withFacts(types.array(value.array.dtype, value.array.ndim), launchFacts(value, tileKernel));
  if (value.kind == ArgumentValue::Kind::None) return types.none();
  if (value.kind == ArgumentValue::Kind::Aggregate) {
    if (value.vector) return types.vector(value.scalar, static_cast<int>(value.members.size()));
    if (value.structSource) return argumentStruct(value.structSource, types, kernel, name);
    std::vector<const types::Type*> members;
    for (size_t i = 0; i < value.members.size(); ++i)
      members.push_back(
          argumentType(value.members[i], types, kernel, name + "[" + std::to_string(i) + "]", tileKernel));
    return types.tuple(members);
  }
  return types.scalar(value.scalar);
}

// Whether an argument is or holds a struct (which the key knows by its class's identity).
bool holdsStruct(const ArgumentValue& value) {
  if (value.array.elementStruct || value.structSource) return true;
  for (const ArgumentValue& member : value.members)
    if (holdsStruct(member)) return true;
  return false;
}

// Appends what decides an argument's type to a specialization key: kind, scalar kind and
// rank; a struct's class; a tuple's members; a tile kernel's array's launch facts.
void appendArgumentKey(std::string& key, const ArgumentValue& value, bool tileKernel) {
  key.push_back(static_cast<char>(value.kind));
  key.push_back(static_cast<char>(value.kind == ArgumentValue::Kind::Array ? value.array.dtype : value.scalar));
  key.push_back(static_cast<char>(value.array.ndim));
  if (tileKernel && value.kind == ArgumentValue::Kind::Array && !value.array.elementStruct)
    key.push_back(static_cast<char>(launchFacts(value, tileKernel)));
  const sema::StructSource* source =
      value.kind == ArgumentValue::Kind::Array ? value.array.elementStruct.get() : value.structSource.get();
  if (source != nullptr) key.append(reinterpret_cast<const char*>(&source->identity), sizeof source->identity);
  if (value.kind == ArgumentValue::Kind::Aggregate) {
    key.push_back(value.vector ? 'v' : 't');
    key.push_back(static_cast<char>(value.members.size()));
    for (const ArgumentValue& member : value.members) appendArgumentKey(key, member, tileKernel);
  }
}

// Raises the Python exception of a failed run-time check (docs/debugging.md).
[[noreturn]] void raiseCheckFailure(const runtime::KernelCheckError& failure) {
  PyObject* type = PyExc_IndexError;
  switch (failure.kind()) {
    case runtime::KernelCheckError::Kind::Index: type = PyExc_IndexError; break;
    case runtime::KernelCheckError::Kind::ZeroDivision: type = PyExc_ZeroDivisionError; break;
    case runtime::KernelCheckError::Kind::Assertion: type = PyExc_AssertionError; break;
    case runtime::KernelCheckError::Kind::Value: type = PyExc_ValueError; break;
  }
  PyErr_SetString(type, failure.what());
  throw nb::python_error();
}

PyObject* const* tupleItems(nb::handle tuple) {
  return PySequence_Fast_ITEMS(tuple.ptr());
}

// `kernel[grid, block, stream, shared]` and the configured kernel's call are type slots, not
// methods: CPython calls a slot directly, where a method costs a lookup and an argument tuple
// with `self` prepended on every launch. A slot returns null with the Python error set on failure.
template <class Body>
PyObject* runSlot(Body body) noexcept {
  try {
    return body();
  } catch (...) {
    setPythonErrorFromCurrentException();
    return nullptr;
  }
}

PyObject* subscriptKernel(PyObject* kernel, PyObject* index) {
  return runSlot([&] { return nb::cast(configure(nb::borrow(kernel), index)).release().ptr(); });
}

PyObject* callConfiguredKernel(PyObject* self, PyObject* args, PyObject* kwargs) {
  return runSlot([&] {
    if (kwargs != nullptr && PyDict_GET_SIZE(kwargs) != 0)
      throw nb::type_error("kernel[grid, block](*args) takes no keyword arguments");
    const ConfiguredKernel& configured = *nb::inst_ptr<ConfiguredKernel>(self);
    nb::inst_ptr<Kernel>(configured.kernel)
        ->launch(tupleItems(args), PyTuple_GET_SIZE(args), configured.config, nb::none());
    return Py_NewRef(Py_None);
  });
}

PyType_Slot kernelSlots[] = {{Py_mp_subscript, reinterpret_cast<void*>(subscriptKernel)}, {0, nullptr}};
PyType_Slot configuredKernelSlots[] = {{Py_tp_call, reinterpret_cast<void*>(callConfiguredKernel)}, {0, nullptr}};

}  // namespace

Kernel::Kernel(nb::object function_, bool debug, bool fastMath, bool interop_,
               std::optional<bool> boundsCheck, nb::object signature, const std::string& faceName, int stages)
    : function(std::move(function_)),
      options(runtime::kernelOptions(debug, fastMath, boundsCheck)),
      interop(interop_),
      signature_(std::move(signature)) {
  options.pipelineStages = stages;
  name_ = nb::cast<std::string>(function.attr("__name__"));
  if (faceName == "tiles") face = sema::FunctionSource::Face::Tiles;
  else if (faceName == "cutile") face = sema::FunctionSource::Face::CuTile;
  else if (faceName != "simt") throw nb::value_error(("unknown kernel face '" + faceName + "'").c_str());
}

void Kernel::prepare() {
  nb::module_ runtimeModule = nb::module_::import_("weft._runtime");
  nb::object runtimeObject = runtimeModule.attr("runtime")();
  std::shared_ptr<sema::FunctionSource> source =
      functionSource(function, sema::FunctionSource::Decorator::Kernel, interop);
  if (source) source->face = face;
  if (!source) {
    std::string file = nb::cast<std::string>(function.attr("__code__").attr("co_filename"));
    raiseWeftError("CompileError",
                   "cannot compile kernel '" + name_ + "': its source code is not available (" + file +
                       " is not a file, and linecache has no text for it). Define the kernel in a file, "
                       "in a Jupyter/IPython cell, or, for exec, register the text first as IPython does: "
                       "linecache.cache[name] = (len(text), None, text.splitlines(True), name), then "
                       "exec(compile(text, name, 'exec'), namespace)");
  }
  auto* runtime = nb::inst_ptr<PythonRuntime>(runtimeObject);
  std::vector<std::string> names;
  std::vector<bool> constExpr;
  std::vector<const types::Type*> declared;
  {
    auto lock = runtime->lockFrontEnd();
    runtime::Compiler& compiler = runtime->compiler();
    types::TypeContext& types = compiler.types();
    // The description from its record when that still holds, else from sema.
    const std::vector<sema::ParameterDescription> described = recordedOrComputed<std::vector<sema::ParameterDescription>>(
        compiler.diskCache(), recordKey(*source, compiler.buildIdentity(), ""), *source,
        [&](std::string_view record) { return decodeDescription(record, *source, types); },
        [&] {
          ++frontEndRuns_;
          SourceManager sources;
          Diagnostics diagnostics(sources);
          auto parameters = sema::describeParameters(*source, types, sources, diagnostics, &compiler.parses());
          if (!parameters) raiseWeftError("CompileError", diagnostics.render());
          return std::move(*parameters);
        },
        [&](const std::vector<sema::ParameterDescription>& parameters, const std::string& lookups) {
          return encodeDescription(parameters, lookups);
        });
    for (const sema::ParameterDescription& parameter : described) {
      names.push_back(parameter.name);
      constExpr.push_back(parameter.kind == sema::ParameterDescription::Kind::ConstExpr);
      declared.push_back(parameter.kind == sema::ParameterDescription::Kind::Typed ? parameter.type
                                                                                   : nullptr);
    }
    if (!signature_.is_none()) declared = signatureTypes(names.size(), types);
  }
  runtime_ = runtime;
  runtimeObject_ = std::move(runtimeObject);
  parameterNames_ = std::move(names);
  constExpr_ = std::move(constExpr);
  declared_ = std::move(declared);
  source_ = std::move(source);
}

std::vector<const types::Type*> Kernel::signatureTypes(size_t parameters, types::TypeContext& types) const {
  size_t count = nb::len(signature_);
  if (count != parameters)
    throw nb::type_error(("kernel '" + name_ + "' has " + std::to_string(parameters) +
                          " parameters but its signature declares " + std::to_string(count))
                             .c_str());
  std::vector<const types::Type*> declared;
  for (nb::handle entry : signature_) {
    std::string dtype = nb::cast<std::string>(entry[0]);
    int ndim = nb::cast<int>(entry[1]);
    std::optional<types::ScalarKind> kind = types::scalarFromName(dtype);
    if (!kind || ndim < 0 || ndim > 8)
      throw nb::type_error(
          ("kernel '" + name_ + "': its signature declares an unsupported type " + dtype).c_str());
    declared.push_back(ndim == 0 ? types.scalar(*kind) : types.array(*kind, ndim));
  }
  return declared;
}

bool Kernel::globalsUnchanged(Specialization& specialization) {
  for (CheckedGlobal& global : specialization.globals) {
    auto* python = dynamic_cast<PythonEnvironment*>(global.environment.get());
    if (python) {
      PyObject* now = python->current(global.name.ptr());
      if (now == global.value.ptr()) continue;
      ConstValue constant;
      if (!now || global.byIdentity || !ArgumentConverter::toConstant(now, constant) || !(constant == global.constant))
        return false;
      global.value = nb::borrow(now);  // rebound to an equal value: compare pointers next time
    } else {
      sema::GlobalValue value = global.environment->lookup(nb::cast<std::string>(global.name));
      if (value.kind != sema::GlobalValue::Kind::Constant || !(value.constant == global.constant))
        return false;
    }
  }
  return true;
}

std::shared_ptr<Specialization> Kernel::compile(std::string key, PyObject* const* args, size_t count,
                                                const std::vector<ArgumentValue>& values) {
  auto lock = runtime_->lockFrontEnd();
  types::TypeContext& types = runtime_->compiler().types();
  sema::CheckRequest request;
  request.entries.push_back({source_, {}});
  request.debug = options.debug;
  for (size_t i = 0; i < count; ++i) {
    sema::ArgumentInfo info;
    if (constExpr_[i]) {
      ConstValue constant;
      ArgumentConverter::toConstant(args[i], constant);
      info.type = constantType(constant, types);
      info.constant = std::move(constant);
    } else if (declared_[i] != nullptr) {
      // A declared parameter has its declared type whatever the argument; packing the argument
      // converts a number to it and rejects anything else with a TypeError. A tile kernel's
      // declared array has the argument's launch facts (specialize() checked those it declares).
      info.type = declared_[i];
      if (declared_[i]->isArray() && declared_[i]->element == nullptr && i < values.size() &&
          values[i].kind == ArgumentValue::Kind::Array)
        info.type = types.withFacts(declared_[i], launchFacts(values[i], tileKernel()));
    } else {
      info.type = argumentType(values[i], types, name_, parameterNames_[i], tileKernel());
    }
    request.entries[0].arguments.push_back(std::move(info));
  }
  auto specialization = std::make_shared<Specialization>();
  runtime::Compiler& compiler = runtime_->compiler();
  // The front end's result from its record when that still holds, else from sema. A struct
  // argument is in the key by its class's identity in this process: it keeps no record.
  bool recordable = true;
  for (const ArgumentValue& value : values) recordable = recordable && !holdsStruct(value);
  std::optional<std::string> subject =
      recordable ? specializationSubject(key, options, declared_) : std::nullopt;
  specialization->frontEnd = recordedOrComputed<runtime::FrontEndResult>(
      compiler.diskCache(), subject ? recordKey(*source_, compiler.buildIdentity(), *subject) : "", *source_,
      [&](std::string_view record) { return decodeFrontEnd(record, *source_, types); },
      [&] {
        ++frontEndRuns_;
        return compiler.compileFrontEnd(request, options);
      },
      [&](const runtime::FrontEndResult& result, const std::string& lookups) {
        return encodeFrontEnd(result, *source_, lookups);
      });
  specialization->key = std::move(key);
  ++compileCount_;
  const runtime::FrontEndResult& frontEnd = specialization->frontEnd;
  if (!frontEnd.internalError.empty())
    raiseWeftError("InternalCompilerError", frontEnd.diagnostics.text() + frontEnd.internalError);
  if (!frontEnd.ok) raiseCompileError(frontEnd.diagnostics);
  for (const sema::GlobalDependency& dependency : frontEnd.globals) {
    CheckedGlobal global;
    global.environment = dependency.environment;
    global.name = nb::str(dependency.name.c_str(), dependency.name.size());
    global.constant = dependency.value;
    global.byIdentity = dependency.byIdentity;
    if (auto* python = dynamic_cast<PythonEnvironment*>(dependency.environment.get()))
      global.value = nb::borrow(python->current(global.name.ptr()));
    specialization->globals.push_back(std::move(global));
  }
  return specialization;
}

std::shared_ptr<Specialization> Kernel::specialize(PyObject* const* args, size_t count,
                                                   runtime::Target target, uintptr_t stream,
                                                   std::vector<ArgumentValue>& values,
                                                   ConsumedTensors& consumed) {
  if (!runtime_) prepare();
  if (count != parameterNames_.size())
    throw nb::type_error(("kernel '" + name_ + "' takes " + std::to_string(parameterNames_.size()) +
                          " argument" + (parameterNames_.size() == 1 ? "" : "s") + " (" +
                          std::to_string(count) + " given)")
                             .c_str());
  // The key: per argument its kind, scalar kind and rank, or for a ConstExpr its value.
  std::string key;
  values.resize(count);
  ArgumentConverter& converter = runtime_->converter();
  for (size_t i = 0; i < count; ++i) {
    if (constExpr_[i]) {
      ConstValue constant;
      if (!ArgumentConverter::toConstant(args[i], constant))
        throw nb::type_error(("kernel '" + name_ + "', parameter '" + parameterNames_[i] +
                              "' is a ConstExpr: pass an int, float, bool, complex, str, None or a tuple of "
                              "those, not " +
                              Py_TYPE(args[i])->tp_name)
                                 .c_str());
      appendConstant(key, constant);
      continue;
    }
    values[i] = converter.convert(args[i], parameterNames_[i], target, stream, consumed);
    // A declared type is the same for every launch: it is not part of the key, except for a
    // tile kernel's array's launch facts, of which it must have those its type declares.
    if (declared_[i] == nullptr) {
      appendArgumentKey(key, values[i], tileKernel());
    } else if (tileKernel() && declared_[i]->isArray() && values[i].kind == ArgumentValue::Kind::Array) {
      const unsigned facts = launchFacts(values[i], true);
      if (const unsigned missing = declared_[i]->facts & ~facts; missing != 0)
        throw nb::type_error(("kernel '" + name_ + "', parameter '" + parameterNames_[i] + "' is declared " +
                              types::toString(declared_[i]) + " with " + runtime::describeFacts(declared_[i]->facts) +
                              " (T[..., ::1]), but the array has no " + runtime::describeFacts(missing) +
                              "; pass such an array or declare the parameter T[:, :]")
                                 .c_str());
      key.push_back(static_cast<char>(facts));
    }
  }
  for (auto it = specializations_.begin(); it != specializations_.end(); ++it) {
    if ((*it)->key != key) continue;
    if (globalsUnchanged(**it)) return *it;
    // A global the program baked in changed: compile again with its new value.
    specializations_.erase(it);
    break;
  }
  std::shared_ptr<Specialization> specialization = compile(std::move(key), args, count, values);
  specializations_.push_back(specialization);
  return specialization;
}

void Kernel::launch(PyObject* const* args, size_t count, const runtime::LaunchConfig& given,
                    nb::handle targetArgument) {
  if (!runtime_) prepare();
  runtime::Target target = runtime_->target(targetArgument);
  runtime::LaunchConfig config = given;
  bool noBlock = config.block == std::array<uint32_t, 3>{0, 0, 0};
  const bool tile = tileKernel();
  if (tile && !noBlock)
    throw nb::type_error(("kernel '" + name_ +
                          "' is a tile kernel: launch it with a grid only (weft runs each tile block with the "
                          "threads it needs), e.g. ct.launch(stream, grid, " + name_ + ", args)")
                             .c_str());
  if (!tile && noBlock)
    throw nb::type_error(("kernel '" + name_ + "' needs block= (an int or a tuple of 1 to 3 ints)").c_str());
  // The kernel's reusable argument vector, so that a launch allocates nothing; a launch that
  // finds it taken (by a launch that called back into Python or dropped the GIL) uses its own.
  bool reuse = !argumentsInUse_;
  std::vector<ArgumentValue> own;
  std::vector<ArgumentValue>& values = reuse ? arguments_ : own;
  argumentsInUse_ = true;
  struct Release {
    bool* inUse;  // null: this launch did not take the kernel's vector
    ~Release() {
      if (inUse) *inUse = false;
    }
  } releaseArguments{reuse ? &argumentsInUse_ : nullptr};
  ConsumedTensors consumed;
  std::shared_ptr<Specialization> specialization =
      specialize(args, count, target, config.stream, values, consumed);
  const runtime::FrontEndResult& frontEnd = specialization->frontEnd;
  // A tile block is one CTA of the kernel's threads on the GPU, one thread on the CPU target.
  if (tile) {
    const bool gpu = target == runtime::Target::Gpu;
    config.block = {gpu ? static_cast<uint32_t>(frontEnd.tileThreads) : 1u, 1, 1};
    config.tileSharedBytes = gpu ? frontEnd.tileSharedBytes : 0;
  }
  std::shared_ptr<runtime::LoadedKernel> loaded = specialization->loaded[static_cast<int>(target)];
  if (!loaded) {
    std::shared_ptr<runtime::Compiler> compiler = runtime_->sharedCompiler();
    {
      nb::gil_scoped_release release;
      loaded = compiler->load(frontEnd, target, options);
    }
    specialization->loaded[static_cast<int>(target)] = loaded;
  }
  try {
    if (loaded->waitsForCompletion()) {
      // The CPU target runs the whole grid, and a checked GPU kernel waits for its record,
      // before returning: let other Python threads run meanwhile.
      nb::gil_scoped_release release;
      loaded->launch(config, values);
    } else {
      loaded->launch(config, values);
    }
  } catch (const runtime::KernelCheckError& failure) {
    raiseCheckFailure(failure);
  }
}

void Kernel::compileDeclared() {
  if (!runtime_) prepare();
  for (size_t i = 0; i < parameterNames_.size(); ++i)
    if (constExpr_[i] || declared_[i] == nullptr) return;
  // Every type is declared: the key holds only a tile kernel's arrays' launch facts, here those
  // their types declare (specialize() keys only undeclared arguments and those facts).
  std::string key;
  for (const types::Type* type : declared_)
    if (tileKernel() && type->isArray()) key.push_back(static_cast<char>(type->facts));
  for (const std::shared_ptr<Specialization>& specialization : specializations_)
    if (specialization->key == key) return;
  specializations_.push_back(compile(std::move(key), nullptr, parameterNames_.size(), {}));
}

std::string Kernel::emitCuda(PyObject* const* args, size_t count, nb::handle targetArgument) {
  if (!runtime_) prepare();
  std::vector<ArgumentValue> values;
  ConsumedTensors consumed;
  return specialize(args, count, runtime_->target(targetArgument), 0, values, consumed)->frontEnd.unit.source;
}

ConfiguredKernel configure(nb::object kernel, nb::handle index) {
  ConfiguredKernel result;
  result.kernel = std::move(kernel);
  if (nb::inst_ptr<Kernel>(result.kernel)->face != sema::FunctionSource::Face::Simt) {
    // A tile kernel: kernel[grid] or kernel[grid, stream].
    nb::tuple items = PyTuple_Check(index.ptr()) ? nb::borrow<nb::tuple>(index) : nb::make_tuple(index);
    if (PyTuple_GET_SIZE(items.ptr()) == 2 && PyTuple_Check(index.ptr()) && !PyLong_Check(items[1].ptr()) &&
        !items[1].is_none()) {
      result.config.grid = parseShape(items[0], "grid");
      result.config.stream = parseStream(items[1]);
    } else {
      result.config.grid = parseShape(index, "grid");
    }
    result.config.block = {0, 0, 0};
    return result;
  }
  if (!PyTuple_Check(index.ptr()) || PyTuple_GET_SIZE(index.ptr()) < 2 || PyTuple_GET_SIZE(index.ptr()) > 4)
    throw nb::type_error(
        "launch a kernel with kernel[grid, block](*args) or kernel[grid, block, stream, shared](*args)");
  PyObject* const* items = tupleItems(index);
  Py_ssize_t size = PyTuple_GET_SIZE(index.ptr());
  result.config.grid = parseShape(items[0], "grid");
  result.config.block = parseShape(items[1], "block");
  if (size > 2) result.config.stream = parseStream(items[2]);
  if (size > 3) result.config.sharedBytes = parseShared(items[3]);
  return result;
}

void bindKernels(nb::module_& module) {
  nb::class_<Kernel>(
      module, "Kernel",
      "A @kernel: launch it with launch(kernel, *args, grid=, block=) or kernel[grid, block](*args)",
      nb::type_slots(kernelSlots))
      .def(nb::init<nb::object, bool, bool, bool, std::optional<bool>, nb::object, const std::string&, int>(),
           nb::arg("function"),
           nb::arg("debug") = false, nb::arg("fastmath") = false, nb::arg("interop") = false,
           nb::arg("boundscheck") = nb::none(), nb::arg("signature") = nb::none(), nb::arg("face") = "simt",
           nb::arg("stages") = 0)
      .def_prop_ro("underlying", [](Kernel& kernel) { return kernel.function; })
      .def_prop_ro("__wrapped__", [](Kernel& kernel) { return kernel.function; })
      .def_prop_ro("debug", [](Kernel& kernel) { return kernel.options.debug; })
      .def_prop_ro("boundscheck",
                   [](Kernel& kernel) -> std::optional<bool> {
                     switch (kernel.options.boundsCheck) {
                       case runtime::BoundsCheck::CpuOnly: return std::nullopt;
                       case runtime::BoundsCheck::Always: return true;
                       case runtime::BoundsCheck::Never: return false;
                     }
                     return std::nullopt;
                   })
      .def_prop_ro("fastmath", [](Kernel& kernel) { return kernel.options.fastMath; })
      .def_prop_ro("stages",
                   [](Kernel& kernel) -> std::optional<int> {
                     if (kernel.options.pipelineStages == 0) return std::nullopt;
                     return kernel.options.pipelineStages;
                   })
      .def_prop_ro("interop", [](Kernel& kernel) { return kernel.interop; })
      .def_prop_ro("_compile_count", &Kernel::compileCount)
      .def_prop_ro("_front_end_runs", &Kernel::frontEndRuns)
      .def("_compile_declared", &Kernel::compileDeclared,
           "Compiles the front end now if every parameter's type is declared (numba's eager signatures).")
      .def_prop_ro_static("__weft_kernel__", [](nb::handle) { return true; })
      .def("__call__",
           [](Kernel& kernel, nb::args, nb::kwargs) {
             std::string name = nb::cast<std::string>(kernel.function.attr("__name__"));
             throw nb::type_error(("kernel '" + name +
                                   "' cannot be called like a function; launch it with weft.launch(" + name +
                                   ", *args, grid=..., block=...) or " + name + "[grid, block](*args)")
                                      .c_str());
           })
      .def("__getattr__",
           [](Kernel& kernel, const std::string& name) -> nb::object {
             // The function's name, as functools.wraps would give it (a type cannot hold them).
             if (name == "__name__" || name == "__qualname__") return kernel.function.attr(name.c_str());
             throw nb::attribute_error(name.c_str());
           })
      .def(
          "_emit_cuda",
          [](Kernel& kernel, nb::args args, nb::kwargs kwargs) {
            nb::handle target = kwargs.contains("target") ? nb::handle(kwargs["target"]) : nb::none();
            return kernel.emitCuda(tupleItems(args), args.size(), target);
          },
          "The CUDA C++ unit weft emits for these arguments (compiling the front end if needed).")
      .def("__repr__", [](Kernel& kernel) {
        return "<weft.kernel " + nb::cast<std::string>(kernel.function.attr("__qualname__")) + ">";
      });

  nb::class_<ConfiguredKernel>(module, "ConfiguredKernel", "kernel[grid, block, stream, shared]: call it to launch",
                               nb::type_slots(configuredKernelSlots));

  module.def(
      "launch",
      [](nb::args args, nb::kwargs kwargs) {
        if (args.size() == 0)
          throw nb::type_error("launch(kernel, *args, grid=, block=, stream=None, shared=0, cluster=None)");
        nb::handle kernel = args[0];
        // An autotuned tile kernel (python/weft/_autotune.py) launches itself.
        if (!nb::isinstance<Kernel>(kernel) && nb::hasattr(kernel, "__weft_launch__")) {
          nb::object rest = nb::steal(PyTuple_GetSlice(args.ptr(), 1, PyTuple_GET_SIZE(args.ptr())));
          nb::object launchMethod = kernel.attr("__weft_launch__");
          if (!rest.is_valid() || !nb::steal(PyObject_Call(launchMethod.ptr(), rest.ptr(), kwargs.ptr())).is_valid())
            throw nb::python_error();
          return;
        }
        if (!nb::isinstance<Kernel>(kernel)) {
          std::string what = PyObject_HasAttrString(kernel.ptr(), "__weft_func__")
                                 ? "a @func function; only @kernel functions can be launched"
                                 : std::string("a ") + Py_TYPE(kernel.ptr())->tp_name;
          throw nb::type_error(("launch() takes a @kernel as its first argument, not " + what).c_str());
        }
        runtime::LaunchConfig config;
        nb::handle grid, block, cluster, target = nb::none();
        for (auto [keyObject, value] : kwargs) {
          std::string key = nb::cast<std::string>(keyObject);
          if (key == "grid")
            grid = value;
          else if (key == "block")
            block = value;
          else if (key == "stream")
            config.stream = parseStream(value);
          else if (key == "shared")
            config.sharedBytes = parseShared(value);
          else if (key == "target")
            target = value;
          else if (key == "cluster")
            cluster = value;
          else
            throw nb::type_error(("launch() got an unexpected keyword argument '" + key + "'").c_str());
        }
        if (!grid.is_valid())
          throw nb::type_error("launch() needs grid= (an int or a tuple of 1 to 3 ints)");
        config.grid = parseShape(grid, "grid");
        // No block: a tile kernel's own (a SIMT kernel reports that it needs one).
        config.block = block.is_valid() ? parseShape(block, "block") : std::array<uint32_t, 3>{0, 0, 0};
        if (cluster.is_valid() && !cluster.is_none()) config.cluster = parseShape(cluster, "cluster");
        nb::inst_ptr<Kernel>(kernel)->launch(tupleItems(args) + 1, args.size() - 1, config, target);
      },
      "launch(kernel, *args, grid, block, stream=None, shared=0, cluster=None, target=None): runs `kernel` "
      "on a grid of `grid` blocks of `block` threads (asynchronously on the GPU), in thread block clusters "
      "of `cluster` blocks when given (compute capability 9.0+).");
}

}  // namespace weft::python
