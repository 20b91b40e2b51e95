#include "python/arguments.h"

#include "python/python_environment.h"

#include <climits>
#include <cstddef>
#include <cstring>
#include <functional>
#include <optional>

#include "support/limits.h"
#include "weft/device/fp16.h"

namespace weft::python {
namespace {

using runtime::ArgumentValue;
using runtime::LaunchError;
using runtime::Target;
using types::ScalarKind;
using weft::detail::BFloat16Format;
using weft::detail::Float16Format;
using weft::detail::Float8E4M3Format;
using weft::detail::Float8E5M2Format;

// NumPy's array and dtype objects begin with these fields in every NumPy version since 1.7 (the
// C ABI its headers compile into extensions); reading them avoids creating Python objects.
struct NumpyArrayFields {
  PyObject_HEAD char* data;
  int nd;
  Py_ssize_t* dimensions;
  Py_ssize_t* strides;
  PyObject* base;
  PyObject* descr;
};
struct NumpyDescrFields {
  PyObject_HEAD PyTypeObject* typeobj;
  char kind;
  char type;
  char byteorder;
  char flags;
  int typeNum;
};
// NumPy scalars (numpy.float32(1.0), ...) store their value right after the object header.
struct NumpyScalarFields {
  PyObject_HEAD unsigned char value[16];
};

[[noreturn]] void typeError(const std::string& name, const std::string& message) {
  throw LaunchError(LaunchError::Kind::Type, "parameter '" + name + "': " + message);
}

[[noreturn]] void valueError(const std::string& name, const std::string& message) {
  throw LaunchError(LaunchError::Kind::Value, "parameter '" + name + "': " + message);
}

std::string typeName(PyObject* value) {
  return Py_TYPE(value)->tp_name;
}

const char* kHostArrayOnGpu =
    "a host (CPU) array cannot be used by a GPU kernel; pass device memory (weft.to_device(a), a CuPy "
    "array or a CUDA torch tensor) or launch with target='cpu'";
const char* kDeviceArrayOnCpu =
    "GPU memory cannot be used by the CPU target; pass a NumPy array (or a CPU-backed weft.DeviceArray), "
    "or launch with target='gpu'";

// The number types arrays may hold, for messages: every kind, or those an array interface's
// typestr can name.
std::string supportedDtypes(bool typestrOnly) {
  std::string list;
  for (size_t i = 0; i < types::kScalarKindCount; ++i) {
    auto kind = static_cast<ScalarKind>(i);
    if (typestrOnly && *types::typestr(kind) == '\0') continue;
    if (!list.empty()) list += ", ";
    list += types::pythonName(kind);
  }
  return list;
}

// Fills C-contiguous strides (in elements) for `array.shape`.
void contiguousStrides(runtime::ArrayValue& array) {
  int64_t step = 1;
  for (int d = array.ndim - 1; d >= 0; --d) {
    array.strides[d] = step;
    step *= array.shape[d] > 0 ? array.shape[d] : 1;
  }
}

template <typename T>
T readScalar(PyObject* value) {
  T result;
  std::memcpy(&result, reinterpret_cast<NumpyScalarFields*>(value)->value, sizeof(T));
  return result;
}

ArgumentValue numpyScalar(PyObject* value, ScalarKind kind) {
  ArgumentValue result;
  result.scalar = kind;
  switch (kind) {
    case ScalarKind::Bool: result.intValue = readScalar<uint8_t>(value) != 0; break;
    case ScalarKind::Int8: result.intValue = readScalar<int8_t>(value); break;
    case ScalarKind::Int16: result.intValue = readScalar<int16_t>(value); break;
    case ScalarKind::Int32: result.intValue = readScalar<int32_t>(value); break;
    case ScalarKind::Int64: result.intValue = readScalar<int64_t>(value); break;
    case ScalarKind::UInt8: result.intValue = readScalar<uint8_t>(value); break;
    case ScalarKind::UInt16: result.intValue = readScalar<uint16_t>(value); break;
    case ScalarKind::UInt32: result.intValue = readScalar<uint32_t>(value); break;
    case ScalarKind::UInt64: result.intValue = static_cast<int64_t>(readScalar<uint64_t>(value)); break;
    case ScalarKind::Float16: result.floatValue = Float16Format::decode(readScalar<uint16_t>(value)); break;
    case ScalarKind::BFloat16: result.floatValue = BFloat16Format::decode(readScalar<uint16_t>(value)); break;
    case ScalarKind::Float8E4M3: result.floatValue = Float8E4M3Format::decode(readScalar<uint8_t>(value)); break;
    case ScalarKind::Float8E5M2: result.floatValue = Float8E5M2Format::decode(readScalar<uint8_t>(value)); break;
    case ScalarKind::Float32: result.floatValue = readScalar<float>(value); break;
    case ScalarKind::Float64: result.floatValue = readScalar<double>(value); break;
    case ScalarKind::Complex64: {
      auto parts = readScalar<std::array<float, 2>>(value);
      result.floatValue = parts[0];
      result.imagValue = parts[1];
      break;
    }
    case ScalarKind::Complex128: {
      auto parts = readScalar<std::array<double, 2>>(value);
      result.floatValue = parts[0];
      result.imagValue = parts[1];
      break;
    }
    case ScalarKind::TFloat32: break;  // no host dtype: no NumPy scalar is of this kind
  }
  return result;
}

// Whether `value` is a NumPy scalar (numpy.int32(3), ...), recognized without importing NumPy.
bool isNumpyScalar(PyObject* value) {
  const char* name = Py_TYPE(value)->tp_name;
  return std::strncmp(name, "numpy.", 6) == 0 && std::strcmp(name, "numpy.ndarray") != 0;
}

// Reads a Python int that must fit in 64 bits.
bool readInt64(PyObject* value, int64_t& out) {
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
  if (overflow != 0 || (v == -1 && PyErr_Occurred())) {
    PyErr_Clear();
    return false;
  }
  out = v;
  return true;
}

// A tuple element or attribute that must be an int.
int64_t requireInt(PyObject* value, const std::string& name, const char* what) {
  int64_t result = 0;
  if (!value || !PyLong_Check(value) || !readInt64(value, result))
    typeError(name, std::string("its array interface has an invalid ") + what);
  return result;
}

ScalarKind dlpackScalar(const DLDataType& dtype, const std::string& name) {
  std::optional<ScalarKind> kind = types::scalarFromDLPack(types::DLPackType{dtype.code, dtype.bits});
  if (kind && dtype.lanes == 1) return *kind;
  typeError(name, "arrays of DLPack dtype (code " + std::to_string(dtype.code) + ", " +
                      std::to_string(dtype.bits) + " bits, " + std::to_string(dtype.lanes) +
                      " lanes) are not supported; use " + supportedDtypes(false));
}

}  // namespace

ConsumedTensors::~ConsumedTensors() {
  for (DLManagedTensor* tensor : tensors_)
    if (tensor->deleter) tensor->deleter(tensor);
}

ArgumentConverter::~ArgumentConverter() {
  if (!Py_IsInitialized()) return;
  for (auto& [type, info] : types_) Py_DECREF(reinterpret_cast<PyObject*>(type));
  forgetDtypes();
  Py_XDECREF(numpyArrayType_);
  Py_XDECREF(numpyGenericType_);
  Py_XDECREF(numpyVoidType_);
  Py_XDECREF(numpyModule_);
}

void ArgumentConverter::findNumpy() {
  // NumPy is looked up only once it is imported by someone: weft never imports it for this.
  PyObject* numpy = PyDict_GetItemString(PyImport_GetModuleDict(), "numpy");
  if (!numpy) return;
  numpySearched_ = true;
  Py_INCREF(numpy);
  numpyModule_ = numpy;
  numpyArrayType_ = PyObject_GetAttrString(numpy, "ndarray");
  numpyGenericType_ = PyObject_GetAttrString(numpy, "generic");
  numpyVoidType_ = PyObject_GetAttrString(numpy, "void");
  if (!numpyArrayType_ || !numpyGenericType_ || !numpyVoidType_) PyErr_Clear();
}

bool ArgumentConverter::isHostVector(PyTypeObject* type) {
  if (!hostVectorType_.is_valid()) hostVectorType_ = nb::module_::import_("weft._types").attr("Vector");
  return type == reinterpret_cast<PyTypeObject*>(hostVectorType_.ptr());
}

const TypeInfo& ArgumentConverter::classify(PyTypeObject* type) {
  auto found = types_.find(type);
  if (found != types_.end()) return found->second;
  if (!numpySearched_) findNumpy();
  TypeInfo info;
  auto isSubtype = [&](PyObject* base) {
    return base && PyType_Check(base) && PyType_IsSubtype(type, reinterpret_cast<PyTypeObject*>(base));
  };
  PyObject* typeObject = reinterpret_cast<PyObject*>(type);
  if (PyObject_HasAttrString(typeObject, "__weft_struct__")) {
    info.cls = ArgumentClass::Struct;
    info.structSource = structSource(typeObject);
    nb::object fields = nb::borrow(typeObject).attr("__weft_struct__").attr("fields");
    for (nb::handle field : fields) info.fieldNames.push_back(nb::borrow(field));
  } else if (type == &PyTuple_Type) {
    info.cls = ArgumentClass::Tuple;
  } else if (isHostVector(type)) {
    info.cls = ArgumentClass::Vector;
  } else if (type == Py_TYPE(Py_None)) {
    info.cls = ArgumentClass::None;
  } else if (type == &PyBool_Type) {
    info.cls = ArgumentClass::Bool;
  } else if (type == &PyLong_Type) {
    info.cls = ArgumentClass::Int;
  } else if (type == &PyFloat_Type) {
    info.cls = ArgumentClass::Float;
  } else if (type == &PyComplex_Type) {
    info.cls = ArgumentClass::Complex;
  } else if (isSubtype(deviceArrayType_.ptr())) {
    info.cls = ArgumentClass::DeviceArray;
  } else if (isSubtype(numpyArrayType_)) {
    info.cls = ArgumentClass::NumpyArray;
    // weft.cuda.mapped_array's arrays: host memory the GPU reads in place.
    info.alsoCudaArrayInterface = PyObject_HasAttrString(typeObject, "__cuda_array_interface__");
  } else if (isSubtype(numpyGenericType_)) {
    // NumPy's scalars and ml_dtypes' store the value right after the object header.
    nb::object dtype = nb::steal(PyObject_CallMethod(numpyModule_, "dtype", "O", typeObject));
    if (!dtype.is_valid()) throw nb::python_error();
    std::optional<ScalarKind> kind = types::scalarFromDtypeName(nb::cast<std::string>(dtype.attr("name")));
    if (kind && static_cast<size_t>(type->tp_basicsize) >=
                    offsetof(NumpyScalarFields, value) + static_cast<size_t>(types::byteSize(*kind))) {
      info.cls = ArgumentClass::NumpyScalar;
      info.scalar = *kind;
    } else if (isSubtype(numpyVoidType_)) {
      info.cls = ArgumentClass::NumpyRecord;
    }
  } else if (PyType_IsSubtype(type, &PyLong_Type)) {
    info.cls = ArgumentClass::Int;
  } else if (PyType_IsSubtype(type, &PyFloat_Type)) {
    info.cls = ArgumentClass::Float;
  } else if (PyObject_HasAttrString(typeObject, "__dlpack__")) {
    info.cls = ArgumentClass::DLPack;
    info.alsoCudaArrayInterface = PyObject_HasAttrString(typeObject, "__cuda_array_interface__");
    info.alsoArrayInterface = PyObject_HasAttrString(typeObject, "__array_interface__");
  } else if (PyObject_HasAttrString(typeObject, "__cuda_array_interface__")) {
    info.cls = ArgumentClass::CudaArrayInterface;
  } else if (PyObject_HasAttrString(typeObject, "__array_interface__")) {
    info.cls = ArgumentClass::ArrayInterface;
  }
  Py_INCREF(typeObject);
  return types_.emplace(type, info).first->second;
}

ArgumentValue ArgumentConverter::convert(PyObject* value, const std::string& name, Target target,
                                         uintptr_t stream, ConsumedTensors& consumed) {
  const TypeInfo& info = classify(Py_TYPE(value));
  ArgumentValue result;
  switch (info.cls) {
    case ArgumentClass::Bool:
      result.scalar = ScalarKind::Bool;
      result.intValue = value == Py_True;
      return result;
    case ArgumentClass::Int:
      if (!readInt64(value, result.intValue))
        valueError(name, "the int " + nb::cast<std::string>(nb::str(value)) +
                             " does not fit in int64; pass a numpy.uint64 or a smaller value");
      result.scalar = result.intValue >= INT32_MIN && result.intValue <= INT32_MAX ? ScalarKind::Int32
                                                                                   : ScalarKind::Int64;
      return result;
    case ArgumentClass::Float:
      result.scalar = ScalarKind::Float32;
      result.floatValue = PyFloat_AsDouble(value);
      return result;
    case ArgumentClass::Complex:
      result.scalar = ScalarKind::Complex64;
      result.floatValue = PyComplex_RealAsDouble(value);
      result.imagValue = PyComplex_ImagAsDouble(value);
      return result;
    case ArgumentClass::NumpyScalar: return numpyScalar(value, info.scalar);
    case ArgumentClass::NumpyRecord: return fromRecord(value, name);
    case ArgumentClass::None:
      result.kind = ArgumentValue::Kind::None;
      return result;
    case ArgumentClass::Struct:
    case ArgumentClass::Tuple: return fromStruct(value, info, name, target, stream, consumed);
    case ArgumentClass::Vector: return fromVector(value, name, target, stream, consumed);
    case ArgumentClass::NumpyArray:
      // A mapped array's view has the device interface; the result of an operation on one does not.
      if (target == Target::Gpu && info.alsoCudaArrayInterface &&
          PyObject_HasAttrString(value, "__cuda_array_interface__"))
        return fromInterface(value, name, true);
      if (target == Target::Gpu) typeError(name, kHostArrayOnGpu);
      return fromNumpyArray(value, name);
    case ArgumentClass::DeviceArray: {
      const DeviceArrayBase* array = nb::inst_ptr<DeviceArrayBase>(value);
      if (array->onHost && target == Target::Gpu)
        typeError(name,
                  "this weft.DeviceArray lives in host memory (it was made for the CPU target); make it "
                  "with target='gpu' or launch with target='cpu'");
      if (!array->onHost && target == Target::Cpu) typeError(name, kDeviceArrayOnCpu);
      result.kind = ArgumentValue::Kind::Array;
      result.array = array->array;
      if (array->array.itemSize < 0) {
        // A structured dtype: its elements' struct comes from the array's NumPy dtype.
        nb::object dtype = nb::handle(value).attr("dtype");
        result.array.elementStruct = structElement(dtype, name);
        result.array.itemSize = nb::cast<int64_t>(dtype.attr("itemsize"));
      }
      return result;
    }
    case ArgumentClass::DLPack: return fromDLPack(value, name, target, stream, consumed);
    case ArgumentClass::CudaArrayInterface:
      if (target == Target::Cpu) typeError(name, kDeviceArrayOnCpu);
      return fromInterface(value, name, true);
    case ArgumentClass::ArrayInterface:
      if (target == Target::Gpu) typeError(name, kHostArrayOnGpu);
      return fromInterface(value, name, false);
    case ArgumentClass::Unsupported:
      // The protocols may be instance attributes (a wrapper object), invisible on the type.
      if (PyObject_HasAttrString(value, "__dlpack__"))
        return fromDLPack(value, name, target, stream, consumed);
      if (target == Target::Gpu && PyObject_HasAttrString(value, "__cuda_array_interface__"))
        return fromInterface(value, name, true);
      if (target == Target::Cpu && PyObject_HasAttrString(value, "__array_interface__"))
        return fromInterface(value, name, false);
      break;
  }
  typeError(name,
            std::string("cannot pass a ") + typeName(value) +
                " to a kernel; pass a number (int, float, bool, complex, a NumPy scalar) or an array (" +
                (target == Target::Gpu ? "with __dlpack__ or __cuda_array_interface__, e.g. weft.to_device(a)"
                                       : "a NumPy array or a CPU weft.DeviceArray") +
                ")");
}

ArgumentValue ArgumentConverter::fromNumpyArray(PyObject* value, const std::string& name) {
  auto* fields = reinterpret_cast<NumpyArrayFields*>(value);
  auto* descr = reinterpret_cast<NumpyDescrFields*>(fields->descr);
  constexpr int kNumpyVoid = 20;  // NPY_VOID: structured dtypes
  if (descr->typeNum == kNumpyVoid) return fromStructuredArray(value, name);
  // The element kind is that of the dtype's scalar type (NumPy's own, or ml_dtypes' for the
  // narrow floats), classified once per type.
  const TypeInfo& element = classify(descr->typeobj);
  if (element.cls != ArgumentClass::NumpyScalar)
    typeError(name, "NumPy arrays of this dtype are not supported; use " + supportedDtypes(false));
  ScalarKind kind = element.scalar;
  if (descr->byteorder == '>') typeError(name, "byte-swapped (big-endian) arrays are not supported");
  if (fields->nd > 8) valueError(name, "arrays have at most 8 dimensions");
  ArgumentValue result;
  result.kind = ArgumentValue::Kind::Array;
  runtime::ArrayValue& array = result.array;
  array.data = fields->data;
  array.dtype = kind;
  array.ndim = fields->nd;
  int64_t itemSize = types::byteSize(kind);
  for (int d = 0; d < fields->nd; ++d) {
    array.shape[d] = fields->dimensions[d];
    if (fields->strides[d] % itemSize != 0)
      valueError(name,
                 "its strides are not multiples of its element size; pass a copy (numpy.ascontiguousarray)");
    array.strides[d] = fields->strides[d] / itemSize;
  }
  return result;
}

ArgumentValue ArgumentConverter::fromStruct(PyObject* value, const TypeInfo& info, const std::string& name,
                                            Target target, uintptr_t stream, ConsumedTensors& consumed) {
  ArgumentValue result;
  result.kind = ArgumentValue::Kind::Aggregate;
  if (info.cls == ArgumentClass::Tuple) {
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(value); ++i)
      result.members.push_back(
          convert(PyTuple_GET_ITEM(value, i), name + "[" + std::to_string(i) + "]", target, stream, consumed));
    return result;
  }
  result.structSource = info.structSource;
  for (const nb::object& field : info.fieldNames) {
    nb::object member = nb::steal(PyObject_GetAttr(value, field.ptr()));
    if (!member.is_valid()) throw nb::python_error();
    result.members.push_back(convert(member.ptr(), name + "." + nb::cast<std::string>(field), target, stream, consumed));
  }
  return result;
}

ArgumentValue ArgumentConverter::fromVector(PyObject* value, const std::string& name, Target target,
                                            uintptr_t stream, ConsumedTensors& consumed) {
  nb::handle vector(value);
  std::string dtype = nb::cast<std::string>(vector.attr("dtype").attr("name"));
  std::optional<ScalarKind> kind = types::scalarFromName(dtype);
  if (!kind) typeError(name, "a host vector of dtype '" + dtype + "' cannot be passed to a kernel");
  ArgumentValue result;
  result.kind = ArgumentValue::Kind::Aggregate;
  result.vector = true;
  result.scalar = *kind;
  size_t index = 0;
  for (nb::handle element : vector.attr("_elements")) {
    result.members.push_back(
        convert(element.ptr(), name + "[" + std::to_string(index++) + "]", target, stream, consumed));
    if (result.members.back().kind != ArgumentValue::Kind::Scalar || result.members.back().scalar != *kind)
      typeError(name, "a host vector's components must be NumPy scalars of its dtype " + dtype);
  }
  return result;
}

ArgumentValue ArgumentConverter::fromStructuredArray(PyObject* value, const std::string& name) {
  auto* fields = reinterpret_cast<NumpyArrayFields*>(value);
  nb::handle dtype(fields->descr);
  if (fields->nd > 8) valueError(name, "arrays have at most 8 dimensions");
  if (dtype.attr("names").is_none())
    typeError(name, "NumPy arrays of this dtype are not supported; use a number dtype or a structured dtype");
  int64_t itemSize = nb::cast<int64_t>(dtype.attr("itemsize"));
  std::shared_ptr<sema::StructSource> element = structElement(dtype, name);
  ArgumentValue result;
  result.kind = ArgumentValue::Kind::Array;
  runtime::ArrayValue& array = result.array;
  array.data = fields->data;
  array.ndim = fields->nd;
  array.elementStruct = std::move(element);
  array.itemSize = itemSize;
  for (int d = 0; d < fields->nd; ++d) {
    array.shape[d] = fields->dimensions[d];
    if (fields->strides[d] % itemSize != 0)
      valueError(name, "its strides are not multiples of its element size; pass a copy (numpy.ascontiguousarray)");
    array.strides[d] = fields->strides[d] / itemSize;
  }
  return result;
}

std::shared_ptr<sema::StructSource> ArgumentConverter::structElement(nb::handle dtype, const std::string& name) {
  if (dtype.attr("names").is_none())
    typeError(name, "arrays of this dtype are not supported; use a number dtype or a structured dtype");
  nb::object metadata = dtype.attr("metadata");  // a mappingproxy, or None
  nb::object structClass;
  if (!metadata.is_none() && PyMapping_HasKeyString(metadata.ptr(), "weft_struct"))
    structClass = nb::steal(PyMapping_GetItemString(metadata.ptr(), "weft_struct"));
  if (structClass.is_valid() && PyType_Check(structClass.ptr())) {
    // S.dtype: laid out as the struct by construction.
    const TypeInfo& info = classify(reinterpret_cast<PyTypeObject*>(structClass.ptr()));
    if (info.cls != ArgumentClass::Struct) typeError(name, "its dtype's 'weft_struct' metadata is not a @struct class");
    return info.structSource;
  }
  return recordFromDtype(dtype, name);
}

namespace {

// A record is its layout: two descriptions of the same fields at the same offsets (a NumPy
// dtype, an array interface's descr) are one record type. The layout's text identifies it.
std::string recordLayout(const sema::StructSource& record) {
  std::string layout = std::to_string(record.itemSize) + "{";
  for (const sema::RecordField& field : record.fields) {
    layout += field.name + "@" + std::to_string(field.offset) + ":" + field.dtype;
    for (int64_t extent : field.shape) layout += "[" + std::to_string(extent) + "]";
    if (field.record != nullptr) layout += "#" + std::to_string(field.record->identity);
    layout += ";";
  }
  return layout + "}";
}

// The dtype objects remembered before the cache starts over (a program making dtypes in a
// loop must not grow it without bound).
constexpr size_t kMaxRememberedDtypes = 1024;

}  // namespace

std::shared_ptr<sema::StructSource> ArgumentConverter::internRecord(
    std::shared_ptr<sema::StructSource> record) {
  std::string layout = recordLayout(*record);
  auto found = records_.find(layout);
  if (found != records_.end()) return found->second;
  record->identity = std::hash<std::string>{}(layout);
  return records_.emplace(layout, std::move(record)).first->second;
}

void ArgumentConverter::forgetDtypes() {
  for (auto& [dtype, record] : recordsByDtype_) Py_DECREF(dtype);
  recordsByDtype_.clear();
}

std::shared_ptr<sema::StructSource> ArgumentConverter::recordFromDtype(nb::handle dtype,
                                                                       const std::string& name) {
  auto found = recordsByDtype_.find(dtype.ptr());
  if (found != recordsByDtype_.end()) return found->second;
  auto record = std::make_shared<sema::StructSource>();
  record->name = "record";
  record->itemSize = nb::cast<uint64_t>(dtype.attr("itemsize"));
  nb::object fields = dtype.attr("fields");
  for (nb::handle fieldName : dtype.attr("names")) {
    nb::object entry = fields[fieldName];
    sema::RecordField& field = record->fields.emplace_back();
    field.name = nb::cast<std::string>(fieldName);
    field.offset = nb::cast<uint64_t>(entry[1]);
    nb::object element = entry[0];
    nb::object subarray = element.attr("subdtype");  // (base dtype, shape) of a sub-array field
    if (!subarray.is_none()) {
      element = subarray[0];
      for (nb::handle extent : subarray[1]) field.shape.push_back(nb::cast<int64_t>(extent));
    }
    if (!element.attr("names").is_none()) {
      field.record = structElement(element, name);
      continue;
    }
    if (nb::cast<std::string>(element.attr("byteorder")) == ">")
      typeError(name, "field '" + field.name +
                          "' of its structured dtype is big-endian; convert the array to native byte order");
    field.dtype = nb::cast<std::string>(element.attr("name"));
  }
  std::shared_ptr<sema::StructSource> interned = internRecord(std::move(record));
  if (recordsByDtype_.size() >= kMaxRememberedDtypes) forgetDtypes();
  Py_INCREF(dtype.ptr());
  recordsByDtype_.emplace(dtype.ptr(), interned);
  return interned;
}

namespace {

// The dtype name of a field's typestr ("<f4": "float32"); a typestr of no number type stays as
// it is, for sema to report.
std::string typestrDtype(const std::string& typestr, const std::string& name) {
  try {
    return types::pythonName(scalarFromTypestr(typestr, name));
  } catch (const LaunchError&) {
    return typestr;
  }
}

// Reads the fields of an array interface's `descr` into `record` (nested records interned
// by `intern`); returns the bytes they take, padding included.
uint64_t readDescr(
    nb::handle descr, sema::StructSource& record, const std::string& name,
    const std::function<std::shared_ptr<sema::StructSource>(std::shared_ptr<sema::StructSource>)>& intern) {
  if (!PyList_Check(descr.ptr())) typeError(name, "its array interface's 'descr' is not a list of fields");
  uint64_t offset = 0;
  for (nb::handle entry : descr) {
    if (!PyTuple_Check(entry.ptr()) || PyTuple_GET_SIZE(entry.ptr()) < 2 || PyTuple_GET_SIZE(entry.ptr()) > 3)
      typeError(name, "its array interface's 'descr' has an entry that is not (name, format[, shape])");
    nb::handle fieldName = entry[0];
    if (PyTuple_Check(fieldName.ptr())) fieldName = fieldName[1];  // (title, name)
    std::vector<int64_t> shape;
    uint64_t count = 1;
    if (PyTuple_GET_SIZE(entry.ptr()) == 3) {
      nb::handle extents = entry[2];
      if (PyLong_Check(extents.ptr())) {
        shape.push_back(nb::cast<int64_t>(extents));
      } else {
        for (nb::handle extent : extents) shape.push_back(nb::cast<int64_t>(extent));
      }
      for (int64_t extent : shape) count *= extent > 0 ? static_cast<uint64_t>(extent) : 0;
    }
    nb::handle format = entry[1];
    sema::RecordField field;
    field.name = nb::cast<std::string>(nb::str(fieldName));
    field.offset = offset;
    field.shape = shape;
    uint64_t bytes = 0;
    if (PyList_Check(format.ptr())) {
      auto nested = std::make_shared<sema::StructSource>();
      nested->name = "record";
      nested->itemSize = readDescr(format, *nested, name, intern);
      bytes = nested->itemSize;
      field.record = intern(std::move(nested));
    } else {
      std::string typestr = nb::cast<std::string>(format);
      bytes = typestr.size() >= 3 ? static_cast<uint64_t>(std::atoll(typestr.c_str() + 2)) : 0;
      // Unnamed void bytes are padding.
      if (field.name.empty() && typestr.size() >= 2 && typestr[1] == 'V') {
        offset += bytes * count;
        continue;
      }
      if (typestr.size() >= 2 && typestr[0] == '>')
        typeError(name, "field '" + field.name + "' of its records is big-endian; use native byte order");
      field.dtype = typestrDtype(typestr, name);
    }
    offset += bytes * count;
    record.fields.push_back(std::move(field));
  }
  return offset;
}

}  // namespace

std::shared_ptr<sema::StructSource> ArgumentConverter::recordFromDescr(nb::handle descr, int64_t itemSize,
                                                                       const std::string& name) {
  std::string description = std::to_string(itemSize) + " " + nb::cast<std::string>(nb::repr(descr));
  auto found = recordsByDescr_.find(description);
  if (found != recordsByDescr_.end()) return found->second;
  auto record = std::make_shared<sema::StructSource>();
  record->name = "record";
  record->itemSize = static_cast<uint64_t>(itemSize);
  readDescr(descr, *record, name,
            [&](std::shared_ptr<sema::StructSource> nested) { return internRecord(std::move(nested)); });
  return recordsByDescr_.emplace(description, internRecord(std::move(record))).first->second;
}

ArgumentValue ArgumentConverter::fromRecord(PyObject* value, const std::string& name) {
  nb::handle record(value);
  nb::object dtype = record.attr("dtype");
  if (dtype.attr("names").is_none())
    typeError(
        name,
        "a numpy.void without fields cannot be passed to a kernel; pass a record of a structured dtype");
  ArgumentValue result;
  result.kind = ArgumentValue::Kind::Aggregate;
  result.structSource = structElement(dtype, name);
  // Its bytes, where the numpy.void (alive for the launch, as an argument) keeps them.
  nb::object interface = record.attr("__array_interface__");
  result.array.data = reinterpret_cast<void*>(nb::cast<uintptr_t>(interface["data"][0]));
  result.array.itemSize = nb::cast<int64_t>(dtype.attr("itemsize"));
  return result;
}

ArgumentValue ArgumentConverter::fromDLPack(PyObject* value, const std::string& name, Target target,
                                            uintptr_t stream, ConsumedTensors& consumed) {
  const TypeInfo& info = classify(Py_TYPE(value));
  nb::object capsule;
  if (target == Target::Gpu && stream != 0) {
    // The producer makes the data ready on the consumer's stream. For the default stream no
    // argument is passed: None means the legacy default stream and spares producers (torch) an
    // event synchronization per call.
    nb::object streamArgument = nb::int_(stream);
    PyObject* args[] = {value, streamArgument.ptr()};
    capsule = nb::steal(PyObject_VectorcallMethod(dlpackName_.ptr(), args, 1, streamKeyword_.ptr()));
  } else {
    capsule = nb::steal(PyObject_CallMethodNoArgs(value, dlpackName_.ptr()));
  }
  if (!capsule.is_valid()) {
    nb::python_error error;
    if (target == Target::Gpu && info.alsoCudaArrayInterface) return fromInterface(value, name, true);
    if (target == Target::Cpu && info.alsoArrayInterface) return fromInterface(value, name, false);
    typeError(name, std::string("its __dlpack__() failed: ") + error.what());
  }
  if (!PyCapsule_IsValid(capsule.ptr(), "dltensor"))
    typeError(name, "its __dlpack__() did not return a DLPack capsule named 'dltensor'");
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  // Taking ownership: renaming the capsule stops its destructor from calling the deleter.
  PyCapsule_SetName(capsule.ptr(), "used_dltensor");
  consumed.add(managed);
  const DLTensor& tensor = managed->tensor;
  int32_t device = tensor.device.deviceType;
  bool gpuMemory = device == kDLCUDA || device == kDLCUDAManaged || device == kDLCUDAHost;
  bool hostMemory = device == kDLCPU || device == kDLCUDAManaged || device == kDLCUDAHost;
  if (target == Target::Gpu && !gpuMemory) {
    if (device == kDLCPU) typeError(name, kHostArrayOnGpu);
    typeError(name, "its DLPack device type " + std::to_string(device) + " is not a CUDA device");
  }
  if (target == Target::Cpu && !hostMemory) typeError(name, kDeviceArrayOnCpu);
  if (tensor.ndim < 0 || tensor.ndim > 8) valueError(name, "arrays have at most 8 dimensions");
  ArgumentValue result;
  result.kind = ArgumentValue::Kind::Array;
  runtime::ArrayValue& array = result.array;
  array.dtype = dlpackScalar(tensor.dtype, name);
  array.data = static_cast<char*>(tensor.data) + tensor.byteOffset;
  array.ndim = tensor.ndim;
  for (int d = 0; d < tensor.ndim; ++d) array.shape[d] = tensor.shape[d];
  if (tensor.strides) {
    for (int d = 0; d < tensor.ndim; ++d) array.strides[d] = tensor.strides[d];
  } else {
    contiguousStrides(array);
  }
  return result;
}

ArgumentValue ArgumentConverter::fromInterface(PyObject* value, const std::string& name, bool cuda) {
  const char* attribute = cuda ? "__cuda_array_interface__" : "__array_interface__";
  nb::object interface = nb::steal(PyObject_GetAttrString(value, attribute));
  if (!interface.is_valid()) {
    nb::python_error error;
    typeError(name, std::string("reading its ") + attribute + " failed: " + error.what());
  }
  if (!PyDict_Check(interface.ptr())) typeError(name, std::string(attribute) + " is not a dict");
  PyObject* dict = interface.ptr();
  PyObject* mask = PyDict_GetItemString(dict, "mask");
  if (mask && mask != Py_None) typeError(name, "masked arrays are not supported");
  PyObject* data = PyDict_GetItemString(dict, "data");
  if (!data || !PyTuple_Check(data) || PyTuple_GET_SIZE(data) != 2)
    typeError(name, std::string(attribute) + "['data'] must be a (pointer, read_only) tuple");
  PyObject* typestr = PyDict_GetItemString(dict, "typestr");
  if (!typestr || !PyUnicode_Check(typestr))
    typeError(name, std::string(attribute) + "['typestr'] is missing");
  PyObject* shape = PyDict_GetItemString(dict, "shape");
  if (!shape || !PyTuple_Check(shape)) typeError(name, std::string(attribute) + "['shape'] must be a tuple");
  Py_ssize_t ndim = PyTuple_GET_SIZE(shape);
  if (ndim > 8) valueError(name, "arrays have at most 8 dimensions");

  ArgumentValue result;
  result.kind = ArgumentValue::Kind::Array;
  runtime::ArrayValue& array = result.array;
  const char* typestrText = PyUnicode_AsUTF8(typestr);
  if (!typestrText) throw nb::python_error();
  std::string type = typestrText;
  int64_t itemSize = 0;
  if (type.size() >= 3 && type[1] == 'V') {
    // Records ('|V28' with a 'descr' of their fields, as CuPy gives a structured array's).
    itemSize = std::atoll(type.c_str() + 2);
    PyObject* descr = PyDict_GetItemString(dict, "descr");
    if (!descr || itemSize <= 0)
      typeError(name, std::string(attribute) + " describes records ('" + type +
                          "') without their fields ('descr')");
    array.elementStruct = recordFromDescr(descr, itemSize, name);
    // Bytes without named fields are no record: NumPy describes bfloat16 and fp8 so ('<V2').
    if (array.elementStruct->fields.empty()) scalarFromTypestr(type, name);
    array.itemSize = itemSize;
  } else {
    array.dtype = scalarFromTypestr(type, name);
    itemSize = types::byteSize(array.dtype);
  }
  array.data = reinterpret_cast<void*>(
      static_cast<uintptr_t>(requireInt(PyTuple_GET_ITEM(data, 0), name, "data pointer")));
  array.ndim = static_cast<int>(ndim);
  for (Py_ssize_t d = 0; d < ndim; ++d)
    array.shape[d] = requireInt(PyTuple_GET_ITEM(shape, d), name, "shape");
  PyObject* strides = PyDict_GetItemString(dict, "strides");
  if (!strides || strides == Py_None) {
    contiguousStrides(array);
  } else {
    if (!PyTuple_Check(strides) || PyTuple_GET_SIZE(strides) != ndim)
      typeError(name, std::string(attribute) + "['strides'] must be None or a tuple as long as the shape");
    for (Py_ssize_t d = 0; d < ndim; ++d) {
      int64_t bytes = requireInt(PyTuple_GET_ITEM(strides, d), name, "strides");
      if (bytes % itemSize != 0)
        valueError(name, "its strides are not multiples of its element size; pass a contiguous copy");
      array.strides[d] = bytes / itemSize;
    }
  }
  return result;
}

namespace {

// A Python int as a constant: int64, or uint64 above INT64_MAX; false beyond both.
bool readIntConstant(PyObject* value, sema::ConstValue& out) {
  int64_t signedValue = 0;
  if (readInt64(value, signedValue)) {
    out = sema::intConstant(signedValue);
    return true;
  }
  unsigned long long unsignedValue = PyLong_AsUnsignedLongLong(value);
  if (unsignedValue == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    return false;
  }
  out = sema::uint64Constant(unsignedValue);
  return true;
}

// toConstant of a value nested `depth` tuples deep: tuples nest at most kMaxNestingDepth deep
// (the nesting limit of every pass that walks the constant).
bool constantAt(PyObject* value, sema::ConstValue& out, int depth) {
  using Kind = sema::ConstValue::Kind;
  out = sema::ConstValue{};
  if (value == Py_None) {
    out.kind = Kind::None;
  } else if (PyBool_Check(value)) {
    out.kind = Kind::Bool;
    out.boolValue = value == Py_True;
  } else if (PyLong_Check(value)) {
    return readIntConstant(value, out);
  } else if (PyFloat_Check(value)) {
    out.kind = Kind::Float;
    out.floatValue = PyFloat_AS_DOUBLE(value);
  } else if (PyComplex_Check(value)) {
    out.kind = Kind::Complex;
    out.floatValue = PyComplex_RealAsDouble(value);
    out.imagValue = PyComplex_ImagAsDouble(value);
  } else if (PyUnicode_Check(value)) {
    Py_ssize_t size = 0;
    const char* text = PyUnicode_AsUTF8AndSize(value, &size);
    if (!text) {
      PyErr_Clear();
      return false;
    }
    out.kind = Kind::Str;
    out.strValue.assign(text, static_cast<size_t>(size));
  } else if (PyTuple_Check(value)) {
    if (depth >= kMaxNestingDepth) return false;
    out.kind = Kind::Tuple;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(value); ++i) {
      sema::ConstValue element;
      if (!constantAt(PyTuple_GET_ITEM(value, i), element, depth + 1)) return false;
      out.elements.push_back(std::move(element));
    }
  } else if (!isNumpyScalar(value)) {
    return false;
  } else if (std::strcmp(Py_TYPE(value)->tp_name, "numpy.bool") == 0 ||
             std::strcmp(Py_TYPE(value)->tp_name, "numpy.bool_") == 0) {
    out.kind = Kind::Bool;
    out.boolValue = PyObject_IsTrue(value) == 1;
  } else if (PyIndex_Check(value)) {
    // NumPy integer scalars.
    nb::object index = nb::steal(PyNumber_Index(value));
    if (!index.is_valid()) {
      PyErr_Clear();
      return false;
    }
    return readIntConstant(index.ptr(), out);
  } else if (Py_TYPE(value)->tp_as_number && Py_TYPE(value)->tp_as_number->nb_float) {
    // NumPy floating scalars (complex ones are not constants here).
    double number = PyFloat_AsDouble(value);
    if (number == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
    out.kind = Kind::Float;
    out.floatValue = number;
  } else {
    return false;
  }
  return true;
}

}  // namespace

bool ArgumentConverter::toConstant(PyObject* value, sema::ConstValue& out) {
  return constantAt(value, out, 0);
}

types::ScalarKind scalarFromTypestr(const std::string& typestr, const std::string& name) {
  if (std::optional<ScalarKind> kind = types::scalarFromTypestr(typestr)) return *kind;
  typeError(name, "arrays of typestr '" + typestr + "' are not supported; use " + supportedDtypes(true) +
                      " in native byte order (bfloat16 and the fp8 types have no typestr: pass such arrays "
                      "through DLPack)");
}

std::array<uint32_t, 3> parseShape(nb::handle value, const char* what) {
  std::array<uint32_t, 3> result{1, 1, 1};
  auto readDimension = [&](PyObject* item, size_t index) {
    if (PyBool_Check(item) || !PyIndex_Check(item))
      throw nb::type_error((std::string(what) + " must be an int or a tuple of 1 to 3 ints, not " +
                            nb::cast<std::string>(nb::repr(value)))
                               .c_str());
    nb::object number = nb::steal(PyNumber_Index(item));
    if (!number.is_valid()) throw nb::python_error();
    int64_t extent = 0;
    if (!readInt64(number.ptr(), extent) || extent <= 0 || extent > UINT32_MAX)
      throw nb::value_error((std::string(what) + " dimensions must be positive ints below 2**32, got " +
                             nb::cast<std::string>(nb::repr(value)))
                                .c_str());
    result[index] = static_cast<uint32_t>(extent);
  };
  if (PyTuple_Check(value.ptr())) {
    Py_ssize_t size = PyTuple_GET_SIZE(value.ptr());
    if (size < 1 || size > 3)
      throw nb::value_error(
          (std::string(what) + " must have 1 to 3 dimensions, got " + nb::cast<std::string>(nb::repr(value)))
              .c_str());
    for (Py_ssize_t i = 0; i < size; ++i)
      readDimension(PyTuple_GET_ITEM(value.ptr(), i), static_cast<size_t>(i));
  } else {
    readDimension(value.ptr(), 0);
  }
  return result;
}

uintptr_t parseStream(nb::handle value) {
  PyObject* object = value.ptr();
  if (object == Py_None) return 0;
  nb::object handle;
  if (PyLong_Check(object) && !PyBool_Check(object)) {
    handle = nb::borrow(value);
  } else if (PyObject_HasAttrString(object, "__cuda_stream__")) {
    nb::object pair = value.attr("__cuda_stream__")();
    if (!PyTuple_Check(pair.ptr()) || PyTuple_GET_SIZE(pair.ptr()) != 2)
      throw nb::type_error("stream.__cuda_stream__() must return a (version, handle) tuple");
    handle = nb::borrow(PyTuple_GET_ITEM(pair.ptr(), 1));
  } else if (PyObject_HasAttrString(object, "cuda_stream")) {
    handle = value.attr("cuda_stream");
  } else if (PyObject_HasAttrString(object, "ptr")) {
    handle = value.attr("ptr");
  } else {
    throw nb::type_error(
        ("stream must be None, a CUDA stream handle (int) or a stream object (cuda.core, torch, "
         "CuPy), not " +
         std::string(Py_TYPE(object)->tp_name))
            .c_str());
  }
  unsigned long long result = PyLong_AsUnsignedLongLong(handle.ptr());
  if (result == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    throw nb::value_error("the stream handle must be a non-negative int");
  }
  return static_cast<uintptr_t>(result);
}

uint32_t parseShared(nb::handle value) {
  int64_t bytes = 0;
  if (PyBool_Check(value.ptr()) || !PyLong_Check(value.ptr()))
    throw nb::type_error("shared (bytes of dynamic shared memory) must be an int");
  if (!readInt64(value.ptr(), bytes) || bytes < 0 || bytes > UINT32_MAX)
    throw nb::value_error("shared (bytes of dynamic shared memory) must be a non-negative int below 2**32");
  return static_cast<uint32_t>(bytes);
}

}  // namespace weft::python
