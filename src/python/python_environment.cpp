#include "python/python_environment.h"

#include "python/arguments.h"
#include "support/limits.h"

namespace weft::python {
namespace {

// The value of a weft._weft.SourceText.
struct SourceText {
  std::shared_ptr<const SourceFile> file;
};

using sema::GlobalValue;

GlobalValue unsupported(nb::handle value) {
  GlobalValue result;
  result.kind = GlobalValue::Kind::Unsupported;
  result.qualifiedName = Py_TYPE(value.ptr())->tp_name;
  return result;
}

GlobalValue functionValue(nb::handle function, sema::FunctionSource::Decorator decorator, bool interop) {
  GlobalValue result;
  result.function = functionSource(function, decorator, interop);
  if (!result.function) {
    result.kind = GlobalValue::Kind::Unsupported;
    result.qualifiedName = "function without source code";
    return result;
  }
  result.kind = GlobalValue::Kind::Function;
  return result;
}

// The NumPy module when something imported it (weft never imports it for sema).
PyObject* numpyIfImported() {
  return PyDict_GetItemString(PyImport_GetModuleDict(), "numpy");
}

// A function's captured variables: a dict from each free variable's name to its cell, or None
// when it captures nothing.
nb::object capturedCells(nb::handle function) {
  nb::object closure = function.attr("__closure__");
  if (closure.is_none()) return nb::none();
  nb::object names = function.attr("__code__").attr("co_freevars");
  nb::dict cells;
  for (size_t i = 0; i < nb::len(names); ++i) cells[names[i]] = closure[i];
  return cells;
}

// Sets a lambda's bodyLine and bodyColumn from the first instruction with a real position (the
// RESUME before it has none).
void lambdaPosition(nb::handle function, sema::FunctionSource& source) {
  for (nb::handle position : function.attr("__code__").attr("co_positions")()) {
    nb::object line = position[0], column = position[2], endColumn = position[3];
    if (line.is_none() || column.is_none() || endColumn.is_none()) continue;
    if (nb::cast<uint32_t>(column) == nb::cast<uint32_t>(endColumn)) continue;
    source.bodyLine = nb::cast<uint32_t>(line);
    source.bodyColumn = nb::cast<uint32_t>(column);
    return;
  }
}

bool truthy(nb::handle value) {
  int result = PyObject_IsTrue(value.ptr());
  if (result < 0) throw nb::python_error();
  return result == 1;
}

}  // namespace

namespace {
thread_local LookupObserver* activeObserver = nullptr;
}  // namespace

LookupObserver::LookupObserver() : previous_(activeObserver) { activeObserver = this; }

LookupObserver::~LookupObserver() { activeObserver = previous_; }

PythonEnvironment::~PythonEnvironment() {
  if (!Py_IsInitialized()) {
    globals_.release();
    return;
  }
  nb::gil_scoped_acquire gil;
  globals_.reset();
  cells_.reset();
}

PyObject* PythonEnvironment::cell(PyObject* name) const {
  return cells_.is_none() ? nullptr : PyDict_GetItem(cells_.ptr(), name);
}

PyObject* PythonEnvironment::current(PyObject* name) const {
  if (PyObject* captured = cell(name)) return PyCell_GET(captured);
  return PyDict_GetItem(globals_.ptr(), name);
}

GlobalValue PythonEnvironment::lookup(std::string_view name) {
  nb::str key(name.data(), name.size());
  PyObject* value = current(key.ptr());
  // Names that are not globals (range, abs, len, ...) are sema's builtins: it knows which of
  // Python's builtins device code supports. A captured variable not yet assigned is undefined.
  GlobalValue result;
  if (value) {
    result = classifyGlobal(value);
    result.captured = cell(key.ptr()) != nullptr;
  }
  if (activeObserver) activeObserver->looked(*this, name, result);
  return result;
}

GlobalValue classifyGlobal(nb::handle value, int depth) {
  GlobalValue result;
  PyObject* object = value.ptr();
  if (PyType_Check(object) && PyObject_HasAttrString(object, "__weft_struct__")) {
    result.kind = GlobalValue::Kind::Struct;
    result.structClass = structSource(value);
    return result;
  }
  if (PyObject_HasAttrString(object, "__weft_kernel__") && !PyType_Check(object))
    return functionValue(value.attr("underlying"), sema::FunctionSource::Decorator::Kernel,
                         truthy(value.attr("interop")));
  if (PyObject_HasAttrString(object, "__weft_func__") && !PyType_Check(object))
    return functionValue(value.attr("underlying"), sema::FunctionSource::Decorator::Func,
                         truthy(value.attr("interop")));
  if (PyFunction_Check(object)) return functionValue(value, sema::FunctionSource::Decorator::None, false);
  if (PyModule_Check(object)) {
    result.kind = GlobalValue::Kind::Module;
    result.qualifiedName = PyModule_GetName(object);
    return result;
  }
  if (PyObject_HasAttrString(object, "__weft_name__")) {
    nb::object name = value.attr("__weft_name__");
    if (PyUnicode_Check(name.ptr())) {
      result.kind = GlobalValue::Kind::Entity;
      result.qualifiedName = nb::cast<std::string>(name);
      return result;
    }
  }
  if (PyCFunction_Check(object)) {
    // Builtin functions of the math and cmath modules (`from math import sqrt`).
    PyObject* self = PyCFunction_GET_SELF(object);
    std::string module = self && PyModule_Check(self) ? PyModule_GetName(self) : "";
    if (module == "math" || module == "cmath") {
      result.kind = GlobalValue::Kind::Entity;
      result.qualifiedName = module + "." + nb::cast<std::string>(value.attr("__name__"));
      return result;
    }
    return unsupported(value);
  }
  if (PyObject* numpy = numpyIfImported()) {
    // A NumPy array of numbers: its contents now, as constant data (weft._runtime.constant_array).
    nb::object ndarray = nb::steal(PyObject_GetAttrString(numpy, "ndarray"));
    if (ndarray.is_valid() && PyObject_TypeCheck(object, reinterpret_cast<PyTypeObject*>(ndarray.ptr()))) {
      nb::object data = nb::module_::import_("weft._runtime").attr("constant_array")(value);
      if (data.is_none()) return unsupported(value);
      auto array = std::make_shared<sema::ConstArray>();
      array->dtype = nb::cast<std::string>(data[0]);
      for (nb::handle extent : data[1]) array->shape.push_back(nb::cast<int64_t>(extent));
      nb::bytes raw = nb::cast<nb::bytes>(data[2]);
      array->bytes.assign(raw.c_str(), raw.size());
      result.kind = GlobalValue::Kind::Array;
      result.array = std::move(array);
      return result;
    }
    PyErr_Clear();
    // A NumPy ufunc (`from numpy import exp`, or np.exp passed to a kernel factory).
    nb::object ufunc = nb::steal(PyObject_GetAttrString(numpy, "ufunc"));
    if (ufunc.is_valid() && PyObject_TypeCheck(object, reinterpret_cast<PyTypeObject*>(ufunc.ptr()))) {
      result.kind = GlobalValue::Kind::Entity;
      result.qualifiedName = "numpy." + nb::cast<std::string>(value.attr("__name__"));
      return result;
    }
    PyErr_Clear();
  }
  if (PyObject* numpy = numpyIfImported(); numpy && PyType_Check(object)) {
    nb::object generic = nb::steal(PyObject_GetAttrString(numpy, "generic"));
    if (generic.is_valid() && PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(object),
                                               reinterpret_cast<PyTypeObject*>(generic.ptr()))) {
      nb::object dtype = nb::module_::import_("numpy").attr("dtype")(value);
      result.kind = GlobalValue::Kind::Entity;
      result.qualifiedName = "numpy." + nb::cast<std::string>(dtype.attr("name"));
      return result;
    }
    PyErr_Clear();
  }
  if (ArgumentConverter::toConstant(object, result.constant)) {
    result.kind = GlobalValue::Kind::Constant;
    return result;
  }
  // A tuple of functions or types (and constants): each element as a global of its own.
  if (PyTuple_Check(object) && depth < kMaxNestingDepth) {
    for (nb::handle element : nb::borrow<nb::tuple>(value)) {
      GlobalValue meaning = classifyGlobal(element, depth + 1);
      if (meaning.kind == GlobalValue::Kind::Unsupported || meaning.kind == GlobalValue::Kind::Array)
        return unsupported(value);
      result.elements.push_back(std::move(meaning));
    }
    result.kind = GlobalValue::Kind::Tuple;
    return result;
  }
  return unsupported(value);
}

std::shared_ptr<sema::FunctionSource> functionSource(nb::handle function,
                                                     sema::FunctionSource::Decorator decorator,
                                                     bool interop) {
  nb::object info = nb::module_::import_("weft._runtime").attr("function_source")(function);
  if (info[0].is_none()) return nullptr;
  auto source = std::make_shared<sema::FunctionSource>();
  source->file = nb::cast<SourceText&>(info[0]).file;
  source->line = nb::cast<uint32_t>(info[1]);
  source->name = nb::cast<std::string>(info[2]);
  source->identity = reinterpret_cast<uintptr_t>(function.ptr());
  if (source->name == "<lambda>") lambdaPosition(function, *source);
  source->decorator = decorator;
  source->interop = interop;
  source->globals = std::make_shared<PythonEnvironment>(nb::borrow(function.attr("__globals__")), capturedCells(function));
  return source;
}

std::shared_ptr<sema::StructSource> structSource(nb::handle cls) {
  nb::object info = nb::module_::import_("weft._structs").attr("struct_source")(cls);
  auto source = std::make_shared<sema::StructSource>();
  // A class whose source is not available gets an empty file: sema reports it not found there.
  source->file = info[1].is_none() ? std::make_shared<const SourceFile>(nb::cast<std::string>(info[0]), "")
                                   : nb::cast<SourceText&>(info[1]).file;
  source->line = nb::cast<uint32_t>(info[2]);
  source->name = nb::cast<std::string>(info[3]);
  source->align = nb::cast<int>(info[4]);
  source->identity = reinterpret_cast<uintptr_t>(cls.ptr());
  source->globals = std::make_shared<PythonEnvironment>(nb::borrow(info[5]));
  return source;
}

void bindSourceTexts(nb::module_& module) {
  nb::class_<SourceText>(module, "SourceText",
                         "A source file's text, held once for every function and class defined in it")
      .def("__init__", [](SourceText* self, std::string name, std::string text) {
        new (self) SourceText{std::make_shared<const SourceFile>(std::move(name), std::move(text))};
      });
}

}  // namespace weft::python
