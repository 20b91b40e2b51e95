// Conversion of Python launch arguments (numbers, arrays through DLPack, the CUDA array
// interface, NumPy, weft.DeviceArray), launch shapes and streams to the runtime's values.
#pragma once

#include <Python.h>

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include "runtime/runtime.h"
#include "sema/environment.h"

namespace weft::python {

namespace nb = nanobind;

// weft.DeviceArray's C++ part: the launcher reads these fields without touching Python.
struct DeviceArrayBase {
  runtime::ArrayValue array;
  bool onHost = false;
  nb::object owner;  // keeps the memory alive: a NumPy array or a DeviceBuffer
};

// The DLPack ABI (dlpack.h, version 0.8+: the unversioned "dltensor" capsule).
struct DLDevice {
  int32_t deviceType;
  int32_t deviceId;
};
struct DLDataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byteOffset;
};
struct DLManagedTensor {
  DLTensor tensor;
  void* managerContext;
  void (*deleter)(DLManagedTensor* self);
};
enum DLDeviceType : int32_t { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLCUDAManaged = 13 };

// DLPack tensors consumed by one launch; their deleters run when the launch is over, as the
// protocol requires of a consumer.
class ConsumedTensors {
 public:
  ConsumedTensors() = default;
  ConsumedTensors(const ConsumedTensors&) = delete;
  ConsumedTensors& operator=(const ConsumedTensors&) = delete;
  ~ConsumedTensors();
  void add(DLManagedTensor* tensor) { tensors_.push_back(tensor); }

 private:
  std::vector<DLManagedTensor*> tensors_;
};

// How arguments of one Python type are converted; decided once per type.
enum class ArgumentClass : uint8_t {
  Bool,
  Int,
  Float,
  Complex,             // the builtin types
  NumpyScalar,         // a NumPy scalar type (`scalar` holds its kind)
  NumpyRecord,         // numpy.void: one element of a structured array (a record or S.dtype struct)
  NumpyArray,          // numpy.ndarray or a subclass: read through NumPy's C struct
  DeviceArray,         // weft.DeviceArray (DeviceArrayBase)
  DLPack,              // has __dlpack__
  CudaArrayInterface,  // has __cuda_array_interface__
  ArrayInterface,      // has __array_interface__
  Struct,              // an instance of a @struct class (`structSource`, `fieldNames`)
  Tuple,               // a Python tuple (a heterogeneous tuple argument)
  Vector,              // weft's host vector (weft.float32x4(...)): a vector argument
  None,                // None: NoneType, passed as a null void*
  Unsupported,
};

struct TypeInfo {
  ArgumentClass cls = ArgumentClass::Unsupported;
  types::ScalarKind scalar = types::ScalarKind::Int32;  // NumpyScalar
  // DLPack: fallback for the GPU; a NumPy array: its device view (a mapped host array).
  bool alsoCudaArrayInterface = false;
  bool alsoArrayInterface = false;                      // DLPack: fallback for the CPU
  std::shared_ptr<sema::StructSource> structSource;     // Struct
  std::vector<nb::object> fieldNames;                   // Struct: str objects, in order
};

// Converts Python objects to runtime arguments. Caches per-type decisions; used with the GIL.
class ArgumentConverter {
 public:
  explicit ArgumentConverter(nb::handle deviceArrayType)
      : deviceArrayType_(deviceArrayType),
        dlpackName_(nb::str("__dlpack__")),
        streamKeyword_(nb::make_tuple("stream")) {}
  ~ArgumentConverter();
  // Converts `value` for `target`; `name` (the parameter) is used in errors. DLPack tensors are
  // recorded in `consumed`. Throws LaunchError for a value the target cannot use.
  runtime::ArgumentValue convert(PyObject* value, const std::string& name, runtime::Target target,
                                 uintptr_t stream, ConsumedTensors& consumed);
  // Converts the value of a ConstExpr parameter; false when it is not a constant.
  static bool toConstant(PyObject* value, sema::ConstValue& out);

 private:
  const TypeInfo& classify(PyTypeObject* type);
  bool isHostVector(PyTypeObject* type);
  runtime::ArgumentValue fromNumpyArray(PyObject* value, const std::string& name);
  // An array of a NumPy structured dtype: its elements are the dtype's @struct class (from the
  // dtype's metadata, as S.dtype makes it) or an anonymous record of its fields.
  runtime::ArgumentValue fromStructuredArray(PyObject* value, const std::string& name);
  // The struct of a structured dtype's elements: the @struct class of S.dtype (its metadata),
  // else a record of the dtype's fields (sema checks and lays it out).
  std::shared_ptr<sema::StructSource> structElement(nb::handle dtype, const std::string& name);
  // The record of a structured dtype of no @struct class: its fields (numbers, sub-arrays,
  // nested records or @struct S.dtypes) at their offsets, and its itemsize; cached by the
  // dtype object (a repr would not show a nested S.dtype's class).
  std::shared_ptr<sema::StructSource> recordFromDtype(nb::handle dtype, const std::string& name);
  // The record an array interface describes: `descr` ([(name, typestr or descr[, shape]),
  // ...], padding named '') of `itemSize` bytes (typestr '|V<itemSize>').
  std::shared_ptr<sema::StructSource> recordFromDescr(nb::handle descr, int64_t itemSize,
                                                      const std::string& name);
  // A numpy.void of a structured dtype: the record (or @struct) by value, from its bytes.
  runtime::ArgumentValue fromRecord(PyObject* value, const std::string& name);
  runtime::ArgumentValue fromStruct(PyObject* value, const TypeInfo& info, const std::string& name,
                                    runtime::Target target, uintptr_t stream, ConsumedTensors& consumed);
  // A host vector: its components, converted as numbers of its dtype.
  runtime::ArgumentValue fromVector(PyObject* value, const std::string& name, runtime::Target target,
                                    uintptr_t stream, ConsumedTensors& consumed);
  runtime::ArgumentValue fromDLPack(PyObject* value, const std::string& name, runtime::Target target,
                                    uintptr_t stream, ConsumedTensors& consumed);
  runtime::ArgumentValue fromInterface(PyObject* value, const std::string& name, bool cuda);
  void findNumpy();

  nb::handle deviceArrayType_;
  nb::object dlpackName_;                              // "__dlpack__", made once for the vectorcall
  nb::object streamKeyword_;                           // ("stream",)
  std::unordered_map<PyTypeObject*, TypeInfo> types_;  // holds a reference to each key
  // Records by layout (one StructSource per layout, see identifyRecord), by array interface
  // description, and by dtype object (holding a reference to each key; bounded).
  std::unordered_map<std::string, std::shared_ptr<sema::StructSource>> records_;
  std::unordered_map<std::string, std::shared_ptr<sema::StructSource>> recordsByDescr_;
  std::unordered_map<PyObject*, std::shared_ptr<sema::StructSource>> recordsByDtype_;
  // Makes `record` (described, not yet identified) the one record of its layout.
  std::shared_ptr<sema::StructSource> internRecord(std::shared_ptr<sema::StructSource> record);
  void forgetDtypes();
  bool numpySearched_ = false;
  PyObject* numpyArrayType_ = nullptr;
  PyObject* numpyGenericType_ = nullptr;
  PyObject* numpyVoidType_ = nullptr;
  PyObject* numpyModule_ = nullptr;
  nb::object hostVectorType_;  // weft._types.Vector, looked up on first use
};

// An array interface typestr ("<f4") -> scalar kind; throws LaunchError naming parameter `name`.
types::ScalarKind scalarFromTypestr(const std::string& typestr, const std::string& name);

// Parses a grid or block shape: an int or a tuple of 1 to 3 positive ints.
std::array<uint32_t, 3> parseShape(nb::handle value, const char* what);

// A stream argument: None -> 0, an int handle, or an object with __cuda_stream__ (cuda.core),
// .cuda_stream (torch) or .ptr (CuPy).
uintptr_t parseStream(nb::handle value);

// Reads `shared` (bytes of dynamic shared memory, a non-negative int).
uint32_t parseShared(nb::handle value);

}  // namespace weft::python
