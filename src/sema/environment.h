// What the host (Python, or weftc) tells sema about the world outside the function being
// compiled: global names, other functions' source, modules.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "support/source.h"

namespace weft::sema {

// A compile-time constant value (a global constant, a ConstExpr argument, a literal).
struct ConstValue {
  enum class Kind : uint8_t { None, Bool, Int, Float, Complex, Str, Tuple } kind = Kind::None;
  bool boolValue = false;
  // Int: a value of int64 or of uint64 (weft's ints stop there; Python's do not): intValue, or,
  // with aboveInt64, the uint64 whose bits intValue holds (INT64_MAX < value < 2**64).
  int64_t intValue = 0;
  bool aboveInt64 = false;
  double floatValue = 0;  // Float; Complex: real part
  double imagValue = 0;   // Complex
  std::string strValue;
  std::vector<ConstValue> elements;  // Tuple
  bool operator==(const ConstValue&) const = default;
};

// Renders a constant as Python would (repr).
std::string toString(const ConstValue& value);
// The Int constant `value`.
ConstValue intConstant(int64_t value);
// The Int constant `value` read as unsigned (aboveInt64 when it exceeds INT64_MAX).
ConstValue uint64Constant(uint64_t value);

class Environment;

// A Python function that device code can call (or the kernel itself).
struct FunctionSource {
  enum class Decorator : uint8_t { None, Func, Kernel };
  // The whole file (its name for diagnostics and #line), shared by every function and class of
  // it; the function is found by name and line.
  std::shared_ptr<const SourceFile> file;
  uint32_t line = 0;     // 1-based line of the function's first decorator or `def`
  std::string name;      // the function's __name__
  // A lambda (name "<lambda>"): a position inside its body (1-based line, 0-based byte column as
  // CPython's co_positions gives it), which tells apart lambdas that share a line.
  uint32_t bodyLine = 0;
  uint32_t bodyColumn = 0;
  // A lambda written in device code: the local variables of the function around it that its body
  // reads, passed to it as hidden trailing arguments (their values where the lambda is written).
  std::vector<std::string> capturedLocals;
  uint64_t identity = 0; // distinguishes functions (e.g. id() of the Python function)
  Decorator decorator = Decorator::None;
  // Which language a kernel is written in: the SIMT dialect, or tile code with the seed's
  // rules (weft.tiles) or cuTile Python's (weft.cutile). A face of the program, set on its
  // kernel (docs/tiles.md).
  enum class Face : uint8_t { Simt, Tiles, CuTile };
  Face face = Face::Simt;
  bool interop = false;
  std::shared_ptr<Environment> globals;  // the function's module globals
};

struct StructSource;

// A field of a record (a NumPy structured dtype), as the host describes it.
struct RecordField {
  std::string name;
  uint64_t offset = 0;         // bytes from the start of the record
  std::string dtype;           // a number type's dtype name ("float32"); empty: `record`
  std::vector<int64_t> shape;  // a sub-array field ('pos', numpy.float32, 3): (3,); empty: one value
  std::shared_ptr<StructSource> record;  // a nested record (dtype empty)
};

// A class decorated with @struct (or an aligned copy made by device.align, or a NumPy
// structured dtype): where its definition is, or, for a host-described record, its fields.
struct StructSource {
  std::string name;      // the class's __name__ (a record: "record")
  uint64_t identity = 0; // distinguishes classes (e.g. id() of the Python class)
  int align = 0;         // @struct(align=N) or device.align(cls, N); 0: natural alignment
  // A class: its file (found by name and line, as functions are; shared as FunctionSource::file)
  // and module globals, which resolve the field annotations and the methods.
  std::shared_ptr<const SourceFile> file;
  uint32_t line = 0;     // 1-based line of the class's first decorator or `class`
  std::shared_ptr<Environment> globals;
  // A record (no file, no globals): its fields in order and its size (NumPy's itemsize).
  std::vector<RecordField> fields;
  uint64_t itemSize = 0;
};

// A NumPy array's contents, which device code reads as constant data (numba's semantics: the
// value when the kernel is compiled).
struct ConstArray {
  std::string dtype;           // a number type's dtype name ("float32")
  std::vector<int64_t> shape;  // C order
  std::string bytes;           // the elements in C order, native byte order
};

// The meaning of a global name.
struct GlobalValue {
  enum class Kind : uint8_t {
    Undefined,    // no such global
    Constant,     // a number, bool, string, None or tuple of those: `constant`
    Function,     // a Python function (decorated or plain): `function`
    Module,       // a module sema knows by `qualifiedName`: "math", "weft", "cuda.device", "numpy"
    Entity,       // an entity of a known module, by `qualifiedName`: "weft.float32", "math.sqrt"
    Struct,       // a @struct class: `structClass`
    Array,        // a NumPy array of numbers: `array`
    Tuple,        // a tuple holding a function, type or module (and maybe constants): `elements`
    Unsupported,  // any other object; `qualifiedName` holds its Python type name for the message
  } kind = Kind::Undefined;
  ConstValue constant;
  std::shared_ptr<FunctionSource> function;
  std::string qualifiedName;
  std::shared_ptr<StructSource> structClass;
  std::shared_ptr<const ConstArray> array;
  std::vector<GlobalValue> elements;  // Tuple
  // The name is a variable of an enclosing function (a closure's cell), not a module global.
  bool captured = false;
};

// Resolves the free names of one Python function: the variables it captures from enclosing
// functions, then its module's globals (__globals__), then builtins.
class Environment {
 public:
  virtual ~Environment() = default;
  // The current value of global `name`.
  virtual GlobalValue lookup(std::string_view name) = 0;
};

}  // namespace weft::sema
