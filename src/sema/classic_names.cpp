// The classic CUDA Python front (`from weft import cuda`, numba-cuda's spelling): the names of
// module weft.cuda and its namespaces (shared, local, const, atomic) map onto weft's own
// intrinsics, so that a numba-cuda kernel compiles by changing only its import.
#include <utility>

#include "sema/checker.h"

namespace weft::sema {

namespace {

struct ClassicEntry {
  std::string_view module;  // "weft.cuda" or one of its namespaces
  std::string_view member;
  Intrinsic intrinsic;
};

constexpr ClassicEntry kClassic[] = {
    {"weft.cuda", "threadIdx", Intrinsic::ThreadIdx},
    {"weft.cuda", "blockIdx", Intrinsic::BlockIdx},
    {"weft.cuda", "blockDim", Intrinsic::BlockDim},
    {"weft.cuda", "gridDim", Intrinsic::GridDim},
    {"weft.cuda", "grid", Intrinsic::Tid},
    {"weft.cuda", "gridsize", Intrinsic::GridSize},
    {"weft.cuda", "syncthreads", Intrinsic::Syncthreads},
    {"weft.cuda", "warpsize", Intrinsic::WarpSize},
    {"weft.cuda", "laneid", Intrinsic::LaneId},
    {"weft.cuda.shared", "array", Intrinsic::SharedArray},
    {"weft.cuda.local", "array", Intrinsic::LocalArray},
    {"weft.cuda.const", "array_like", Intrinsic::ConstArrayLike},
};

// numba-cuda's cuda.atomic functions, each an AtomicRef method of the same name (inc and dec
// are the classic front's only), and compare_and_swap, cas on element 0.
constexpr std::string_view kAtomicOperations[] = {"add", "sub",    "max",    "min", "exch", "cas", "and_", "or_",
                                                  "xor", "nanmax", "nanmin", "inc", "dec",  "compare_and_swap"};

constexpr std::string_view kNamespaces[] = {"weft.cuda.shared", "weft.cuda.local", "weft.cuda.const", "weft.cuda.atomic",
                                            "weft.cuda.types",  "weft.cuda.fp16"};

// numba's names of number types (numba.cuda.types, also members of numba.cuda) that are not
// weft's own: python/weft/cuda.py binds the same names on the host.
constexpr std::pair<std::string_view, std::string_view> kNumbaScalarAliases[] = {
    {"boolean", "bool_"}, {"bool_", "bool_"},  {"byte", "uint8"},    {"intp", "int64"},    {"uintp", "uint64"},
    {"intc", "int32"},    {"uintc", "uint32"}, {"ssize_t", "int64"}, {"size_t", "uint64"}, {"double", "float64"},
    {"float_", "float32"}};

// numba's scalar and vector element types (numba-cuda has no vectors of float16, bool or complex).
constexpr std::string_view kNumbaNumbers[] = {"int8",   "int16",   "int32",   "int64",   "uint8",
                                              "uint16", "uint32",  "uint64",  "float32", "float64"};

// CUDA C's vector names as numba-cuda aliases them on 64-bit Linux (float4 is float32x4).
constexpr std::pair<std::string_view, std::string_view> kVectorAliases[] = {
    {"char", "int8"},     {"short", "int16"},   {"int", "int32"},   {"long", "int64"},
    {"longlong", "int64"}, {"uchar", "uint8"},  {"ushort", "uint16"}, {"uint", "uint32"},
    {"ulong", "uint64"},   {"ulonglong", "uint64"}, {"float", "float32"}, {"double", "float64"}};

bool isNumbaNumber(std::string_view name) {
  for (std::string_view number : kNumbaNumbers)
    if (name == number) return true;
  return false;
}

// weft's name ("float64", "float32x4") of numba's type `member` of weft.cuda or weft.cuda.types;
// empty when it names no type there.
std::string numbaTypeName(std::string_view member) {
  for (const auto& [alias, name] : kNumbaScalarAliases)
    if (member == alias) return std::string(name);
  if (isNumbaNumber(member) || member == "float16" || member == "complex64" || member == "complex128" ||
      member == "bfloat16")
    return std::string(member);
  if (member.size() < 2) return {};
  std::string_view count = member.substr(member.size() - 1);
  if (count < "1" || count > "4") return {};
  std::string_view base = member.substr(0, member.size() - 1);
  if (base.size() > 1 && base.back() == 'x' && isNumbaNumber(base.substr(0, base.size() - 1)))
    return std::string(member);
  for (const auto& [alias, name] : kVectorAliases)
    if (base == alias) return std::string(name) + "x" + std::string(count);
  return {};
}

Value moduleValue(std::string_view name) {
  Value v;
  v.kind = Value::Kind::Module;
  v.name = std::string(name);
  return v;
}

}  // namespace

std::string classicModule(std::string_view qualifiedName) {
  if (qualifiedName == "weft.cuda") return "weft.cuda";
  for (std::string_view name : kNamespaces)
    if (qualifiedName == name) return std::string(name);
  return {};
}

Value resolveClassicEntity(std::string_view module, std::string_view member) {
  if (module == "weft.cuda") {
    std::string qualified = std::string(module) + "." + std::string(member);
    if (!classicModule(qualified).empty()) return moduleValue(qualified);
  }
  if (module == "weft.cuda" || module == "weft.cuda.types") {
    std::string type = numbaTypeName(member);
    if (!type.empty()) {
      Value v = resolveEntity("weft." + type);
      v.name = "cuda." + std::string(member);
      return v;
    }
    if (module == "weft.cuda.types") return {};
  }
  for (const ClassicEntry& entry : kClassic) {
    if (entry.module == module && entry.member == member) {
      Value v;
      v.kind = Value::Kind::Intrinsic;
      v.intrinsic = entry.intrinsic;
      v.name = std::string(module.substr(5)) + "." + std::string(member);
      v.scalar = types::ScalarKind::Int32;  // thread positions read as int32, as in numba-cuda
      return v;
    }
  }
  if (module == "weft.cuda.atomic") {
    for (std::string_view operation : kAtomicOperations) {
      if (member != operation) continue;
      Value v;
      v.kind = Value::Kind::Intrinsic;
      v.intrinsic = Intrinsic::ClassicAtomic;
      v.name = "cuda.atomic." + std::string(member);
      return v;
    }
    return {};
  }
  if (module == "weft.cuda.fp16") {
    if (!isClassicFp16Function(member)) return {};
    Value v;
    v.kind = Value::Kind::Intrinsic;
    v.intrinsic = Intrinsic::ClassicFp16;
    v.name = "cuda.fp16." + std::string(member);
    return v;
  }
  // numba-cuda's other intrinsics (popc, fma, shfl_sync, ...) have the specification's names.
  if (module == "weft.cuda") {
    Value v = resolveEntity("weft." + std::string(member));
    if (v.kind == Value::Kind::Intrinsic) v.name = "cuda." + std::string(member);
    if (v.kind != Value::Kind::NumberType) return v;  // number types: numba's names only (above)
  }
  return {};
}

Value classicConstArrayLike(FunctionChecker& checker, const Value& callee, const syntax::CallExpr& e) {
  std::string what = callee.name + "()";
  if (e.args.size() != 1 || !e.keywords.empty()) {
    checker.sink.error(diag::ArgumentCount, e.loc, {what, "1 argument", std::to_string(e.args.size() + e.keywords.size())});
    return checker.errorValue();
  }
  Value array = checker.expr(*e.args[0]);
  if (array.kind == Value::Kind::Error) return array;
  if (array.kind == Value::Kind::RunTime && array.type()->isArray()) return array;
  checker.sink.error(diag::ConstArrayArgument, e.args[0]->loc, {what, checker.describe(array)});
  return checker.errorValue();
}

Value classicAtomicCall(FunctionChecker& checker, const Value& callee, const syntax::CallExpr& e) {
  std::string operation = callee.name.substr(std::string_view("cuda.atomic.").size());
  // compare_and_swap(array, old, value) is cas(array, 0, old, value) on a 1-d array (numba's).
  bool elementZero = operation == "compare_and_swap";
  size_t operands = operation == "cas" || elementZero ? 2 : 1;
  size_t expected = (elementZero ? 1 : 2) + operands;
  std::string what = callee.name + "()";
  if (!e.keywords.empty() || e.args.size() != expected) {
    checker.sink.error(diag::ArgumentCount, e.loc,
                       {what,
                        elementZero    ? "3 arguments (array, old, value)"
                        : operands == 2 ? "4 arguments (array, index, old, value)"
                                        : "3 arguments (array, index, value)",
                        std::to_string(e.args.size() + e.keywords.size())});
    return checker.errorValue();
  }
  syntax::ConstantExpr zero;
  zero.loc = e.args[0]->loc;
  zero.value.kind = syntax::ConstantValue::Kind::Int;
  zero.value.intDigits = "0";
  if (elementZero) {
    Value array = checker.expr(*e.args[0]);
    if (array.isError()) return array;
    if (array.kind != Value::Kind::RunTime || !array.type()->isArray() || array.type()->ndim != 1) {
      checker.sink.error(diag::ArgumentType, e.args[0]->loc, {"1", what, "a 1-d array", checker.describe(array)});
      return checker.errorValue();
    }
    operation = "cas";
  }
  // AtomicRef(array, index), then its method on the remaining arguments: the specification's
  // atomics check the dtypes and lower the operation.
  syntax::CallExpr refCall;
  refCall.loc = e.loc;
  refCall.func = e.func;
  refCall.args = {e.args[0], elementZero ? &zero : e.args[1]};
  Value atomicRef = resolveEntity("weft.AtomicRef");
  atomicRef.name = callee.name;
  Value ref = checker.simtCall(atomicRef, refCall);
  if (ref.isError()) return ref;
  Value method = checker.atomicMember(ref, operation, e.loc, true);
  if (method.isError()) return method;
  syntax::CallExpr methodCall;
  methodCall.loc = e.loc;
  methodCall.func = e.func;
  methodCall.args.assign(e.args.begin() + (elementZero ? 1 : 2), e.args.end());
  return checker.atomicMethod(method, methodCall);
}

}  // namespace weft::sema
