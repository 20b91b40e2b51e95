// Interoperable units: the machine representation of every type in an interoperable function's
// or kernel's signature is checked against the CUDA C++ type the specification names, by
// static_asserts that nvcc evaluates, and NVRTC when weftc asks (codegen.h, kInteropAbiCheckMacro). Structs and tuples carry their own
// layout asserts (emit_structs.cpp), vectors theirs against CUDA's vector types (vector.h).
#include <set>

#include "codegen/cuda_emitter.h"

namespace weft::codegen {

using types::Type;
using types::TypeKind;

namespace {

// The arrays and complex numbers in `type` (through struct fields and tuple elements).
void collectInteropTypes(const Type* type, std::set<const Type*>& arrays, std::set<types::ScalarKind>& complexes) {
  switch (type->kind) {
    case TypeKind::Array: arrays.insert(type); break;
    case TypeKind::Scalar:
      if (types::isComplex(type->scalar)) complexes.insert(type->scalar);
      break;
    case TypeKind::Tuple:
    case TypeKind::Struct:
      for (const Type* element : type->elements) collectInteropTypes(element, arrays, complexes);
      break;
    case TypeKind::Error:
    case TypeKind::None:
    case TypeKind::Vector:
    case TypeKind::InlineArray:
    case TypeKind::Tile:
    case TypeKind::TileView:
    case TypeKind::WarpMask:
    case TypeKind::Atomic:
    case TypeKind::AtomicRef: break;
  }
}

}  // namespace

std::string CudaEmitter::interopAsserts() {
  std::set<const Type*> arrays;
  std::set<types::ScalarKind> complexes;
  for (const sema::TypedFunction& function : program_.functions) {
    if (!function.interop) continue;
    for (int param : function.params) collectInteropTypes(function.locals.at(param).type, arrays, complexes);
    collectInteropTypes(function.returnType, arrays, complexes);
  }
  if (arrays.empty() && complexes.empty()) return {};
  // nvcc drops libcu++'s unused globals; NVRTC keeps them (over 100 KB of cubin), so it checks
  // only when asked to (weftc does, compiling nothing). The CPU target may have no toolkit.
  std::string out = "#if !defined(WEFT_HOST) && (!defined(__CUDACC_RTC__) || defined(" + std::string(kInteropAbiCheckMacro) +
                    "))\n// The machine representations of the interoperable signatures, against the CUDA C++ types "
                    "the specification names.\n#include <weft/interop.h>\n";
  if (!complexes.empty()) out += "#include <cuda/std/complex>\n";
  for (types::ScalarKind kind : complexes) {
    std::string weft = types::cxxName(kind);
    std::string cuda = kind == types::ScalarKind::Complex64 ? "cuda::std::complex<float>" : "cuda::std::complex<double>";
    out += "static_assert(sizeof(" + weft + ") == sizeof(" + cuda + ") && alignof(" + weft + ") == alignof(" + cuda +
           "), \"" + types::pythonName(kind) + " is " + cuda + "\");\n";
  }
  int index = 0;
  for (const Type* array : arrays) {
    std::string element = array->element != nullptr ? typeName(array->element) : types::cxxName(array->scalar);
    std::string ndim = std::to_string(array->ndim);
    std::string weft = "weft_interop_array_" + std::to_string(index);
    std::string cuda = "weft_interop_descriptor_" + std::to_string(index++);
    out += "using " + weft + " = weft::Array<" + element + ", " + ndim + ">;\n";
    out += "using " + cuda + " = cuda::interoperable_array_descriptor<" + element + ", " + ndim + ">;\n";
    std::string what =
        quoted(types::toString(array) + " is cuda::interoperable_array_descriptor<" + element + ", " + ndim + ">");
    out += "static_assert(sizeof(" + weft + ") == sizeof(" + cuda + ") && alignof(" + weft + ") == alignof(" + cuda +
           "), " + what + ");\n";
    out += "#if !defined(__CUDACC_RTC__)\nstatic_assert(";
    const char* members[] = {"data", "shape", "strides"};
    for (size_t m = 0; m < 3; ++m) {
      out += std::string(m ? " && " : "") + "__builtin_offsetof(" + weft + ", " + members[m] + ") == __builtin_offsetof(" +
             cuda + ", " + members[m] + ")";
    }
    out += ", " + what + ");\n#endif\n";
  }
  return out + "#endif\n";
}

}  // namespace weft::codegen
