// Types of run-time values in device code. Types are interned by a TypeContext, so two
// equal types are the same pointer and compare with ==.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace weft::types {

enum class ScalarKind : uint8_t {
#define WEFT_SCALAR(Enum, python_name, attribute, cxx_type, bytes, category, dtype_module, dtype_name, typestr, \
                    dlpack_code)                                                                               \
  Enum,
#include "types/scalar_kinds.def"
};

// The number of scalar kinds: ScalarKind values are 0 .. kScalarKindCount - 1.
inline constexpr size_t kScalarKindCount = 0
#define WEFT_SCALAR(Enum, python_name, attribute, cxx_type, bytes, category, dtype_module, dtype_name, typestr, \
                    dlpack_code)                                                                               \
  +1
#include "types/scalar_kinds.def"
    ;

enum class TypeKind : uint8_t {
  Error,      // after a reported error; flows on silently
  None,       // NoneType (the return type of procedures)
  Scalar,     // a number type
  Array,      // a strided view: element type, ndim
  Tuple,      // a heterogeneous tuple of values
  Struct,     // a @struct class: named fields (types in `elements`), lexical order
  Vector,     // an immutable vector of `size` (1..4) numbers of type `scalar` (float32x4)
  Atomic,     // Atomic(dtype): an atomically accessed `scalar` aligned to `align` (0: natural);
              // only an array element or a struct field, never a value
  AtomicRef,  // a reference to an atomically accessed `scalar` (AtomicRef(array, index))
  WarpMask,   // a warp's lanes as the bits of a `scalar` UInt32 (bit i: lane i); a number
              // (isScalar()) whose lanes read and write with mask[i] (SIMT.md's WarpMask)
  // `shape` numbers of type `scalar` stored in place, in C order: a NumPy sub-array field
  // (('pos', numpy.float32, 3)) of a record.
  InlineArray,
  // A tile (docs/tiles.md): an immutable array of numbers of type `scalar` with the static
  // `shape` (0 to 8 extents, each a power of 2; rank 0 is a single element), held by the
  // threads of a tile block together.
  Tile,
  // A partition view (docs/tiles.md: the seed's partition_view): the grid of tiles of the static
  // `shape` over the array elements[0], whose loads pad with `padding` (sema's TilePadding). At
  // run time it is that array.
  TileView,
};

// Where an array's storage lives; local and shared arrays are created in device code.
// Constant: read-only data the program carries (a global NumPy array, issue 10); stores to it
// are compile errors.
enum class MemorySpace : uint8_t { Global, Shared, Local, Constant };

struct Type {
  TypeKind kind = TypeKind::Error;
  ScalarKind scalar = ScalarKind::Bool;      // Scalar; Array: the element type
  int ndim = 0;                              // Array
  MemorySpace space = MemorySpace::Global;   // Array
  std::vector<const Type*> elements;         // Tuple; Struct: the field types
  const Type* element = nullptr;             // Array: a non-scalar element type (a struct); else nullptr
  std::string name;                          // Struct: the class's __name__
  std::vector<std::string> fieldNames;       // Struct: in lexical order
  uint64_t identity = 0;                     // Struct: distinguishes classes (and aligned copies)
  int align = 0;                             // Struct: the alignment asked for (0: natural)
  std::shared_ptr<const void> origin;        // Struct: the host's definition (sema's), for methods
  int size = 0;                              // Vector: the number of elements
  std::vector<int64_t> shape;                // InlineArray, Tile, TileView: the (tile) extents
  int padding = 0;                           // TileView: the padding of its loads
  // Array of numbers in global memory: the launch facts (weft/tiles/span_facts.h's span_fact
  // bits) every value of the type satisfies; 0 for every array a kernel makes or views.
  unsigned facts = 0;
  // Struct of a NumPy record: its size (its itemsize; 0 for a @struct class, which is laid out
  // as a C struct) and each field's byte offset, as the record places them; `align` is then the
  // record's alignment (1 when packed).
  uint64_t bytes = 0;
  std::vector<uint64_t> offsets;

  bool isError() const { return kind == TypeKind::Error; }
  // Numbers: Scalar, and WarpMask (a subclass of int in the specification) as its `scalar`.
  bool isScalar() const { return kind == TypeKind::Scalar || kind == TypeKind::WarpMask; }
  bool isArray() const { return kind == TypeKind::Array; }
  bool isStruct() const { return kind == TypeKind::Struct; }
  bool isVector() const { return kind == TypeKind::Vector; }
  bool isInlineArray() const { return kind == TypeKind::InlineArray; }
  bool isTile() const { return kind == TypeKind::Tile; }
  bool isRecord() const { return kind == TypeKind::Struct && bytes != 0; }
};

// Properties of scalar kinds: the columns of scalar_kinds.def.
const char* pythonName(ScalarKind kind);     // "float32"
const char* attributeName(ScalarKind kind);  // the weft package's attribute: "bool_", "float32"
const char* cxxName(ScalarKind kind);        // "float"
int byteSize(ScalarKind kind);
// 'B' bool, 'S' signed integer, 'U' unsigned integer, 'F' real floating, 'C' complex.
char category(ScalarKind kind);
bool isBool(ScalarKind kind);
bool isInteger(ScalarKind kind);           // signed or unsigned, not bool
bool isSigned(ScalarKind kind);            // signed integers
bool isUnsigned(ScalarKind kind);
bool isFloating(ScalarKind kind);          // real floating
bool isComplex(ScalarKind kind);
// float16, bfloat16 and the fp8 types: narrower than float32; where the hardware has no
// instruction for an operation, it computes in float32 and rounds once.
bool isNarrowFloat(ScalarKind kind);
// The host's dtype is numpy.dtype(getattr(<module>, <name>)): module "numpy" or "ml_dtypes",
// name NumPy's dtype.name ("float32", "float8_e4m3fn").
const char* dtypeModule(ScalarKind kind);
const char* dtypeName(ScalarKind kind);
// Whether the kind has a host dtype; one without (tfloat32) is a tile element type only.
bool hasHostType(ScalarKind kind);
// The array interfaces' typestr ("<f4", "|b1"); "" for the narrow floats, which have none.
const char* typestr(ScalarKind kind);

// A DLPack DLDataType of one lane: its DLDataTypeCode and bits.
struct DLPackType {
  uint8_t code;
  uint8_t bits;
  bool operator==(const DLPackType&) const = default;
};
DLPackType dlpackType(ScalarKind kind);

// Parses a dtype name: a python name ("float32"), an attribute name ("bool_"), a host dtype
// name (ml_dtypes' "float8_e4m3fn") or a builtin ("int", "float", "complex"); nullopt if unknown.
std::optional<ScalarKind> scalarFromName(const std::string& name);
// The kind whose host dtype is named `name` (NumPy's dtype.name); nullopt if none.
std::optional<ScalarKind> scalarFromDtypeName(std::string_view name);
// The kind of an array interface typestr ("<f4"; '|' and '=' read as '<'); nullopt for a
// big-endian or unknown one.
std::optional<ScalarKind> scalarFromTypestr(std::string_view typestr);
// The kind of a one-lane DLPack dtype; nullopt if none.
std::optional<ScalarKind> scalarFromDLPack(DLPackType type);
// Parses a vector type name ("float32x4", "uint8x1"): element kind and size; nullopt if unknown.
std::optional<std::pair<ScalarKind, int>> vectorFromName(const std::string& name);

// Interns types; owns them for the lifetime of the context.
class TypeContext {
 public:
  TypeContext();
  const Type* error() const { return error_; }
  const Type* none() const { return none_; }
  const Type* scalar(ScalarKind kind) const;
  const Type* array(ScalarKind element, int ndim, MemorySpace space = MemorySpace::Global);
  // `array` (an array of numbers in global memory) with the launch facts `facts` instead of its own.
  const Type* withFacts(const Type* array, unsigned facts);
  // `type` with no launch facts in it: an array's, and those of a tuple's or a view's arrays.
  const Type* withoutFacts(const Type* type);
  const Type* tuple(const std::vector<const Type*>& elements);
  // An array of non-scalar elements (a struct); a scalar `element` gives the scalar array.
  const Type* array(const Type* element, int ndim, MemorySpace space = MemorySpace::Global);
  // The struct type described by `fields` (kind, name, identity, align, fieldNames, elements,
  // origin); equal descriptions intern to one type (the first one's origin is kept).
  const Type* structType(Type fields);
  // The vector type of `size` (1..4) elements of `element` (a type vectorFromName accepts).
  const Type* vector(ScalarKind element, int size);
  // Atomic(element) aligned to `align` bytes (0: the element's own alignment).
  const Type* atomic(ScalarKind element, int align);
  // A reference to an atomically accessed `element`.
  const Type* atomicRef(ScalarKind element);
  // `shape` (1 to 8 positive extents) numbers of type `element` stored in place.
  const Type* inlineArray(ScalarKind element, const std::vector<int64_t>& shape);
  // The tile of `element` numbers with the power-of-2 extents `shape` (none: rank 0).
  const Type* tile(ScalarKind element, const std::vector<int64_t>& shape);
  // The partition view of `array` (an array of numbers) into tiles of `shape` padded with `padding`.
  const Type* tileView(const Type* array, const std::vector<int64_t>& shape, int padding);
  // WarpMask: a uint32 whose bit i is lane i.
  const Type* warpMask() const { return warpMask_; }

 private:
  const Type* intern(Type type);
  std::deque<Type> storage_;
  std::map<std::string, const Type*> byKey_;
  const Type* error_;
  const Type* none_;
  const Type* warpMask_;
  std::vector<const Type*> scalars_;
};

// Whether a value of `type` holds an Atomic (an Atomic, or a struct or tuple with one among
// its fields, however nested; arrays are descriptors and hold none). Such a value lives in
// memory, where other threads see its atomics: device code uses it in place and never copies it.
bool holdsAtomic(const Type* type);

// Renders a type as the user writes it: "float32", "array(float32, 2d)", "tuple(int32, float32)".
std::string toString(const Type* type);

}  // namespace weft::types
