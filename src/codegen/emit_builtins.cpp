// Builtin calls: each Builtin of sema/builtin_kinds.def maps to one helper of
// include/weft/device/ (intrinsics.h, numeric.h, math.h).
#include "codegen/cuda_emitter.h"
#include "support/check.h"

namespace weft::codegen {

using sema::Builtin;
using sema::TypedExpr;
using types::ScalarKind;
using types::Type;

namespace {

// The precision a math function computes in: the operands' floating type, else the result's
// floating type, else double (Python's math module computes in double).
ScalarKind mathPrecision(const TypedExpr& e) {
  for (const TypedExpr* operand : e.operands) {
    if (operand->type->isScalar() && types::isFloating(operand->type->scalar) &&
        operand->type->scalar != ScalarKind::Float16) {
      bool allSame = true;
      for (const TypedExpr* other : e.operands) allSame = allSame && other->type == operand->type;
      if (allSame) return types::isNarrowFloat(operand->type->scalar) ? ScalarKind::Float32 : operand->type->scalar;
    }
  }
  if (e.type->isScalar() && types::isNarrowFloat(e.type->scalar)) return ScalarKind::Float32;
  if (e.type->isScalar() &&
      (e.type->scalar == ScalarKind::Float32 || e.type->scalar == ScalarKind::Float64)) {
    return e.type->scalar;
  }
  return ScalarKind::Float64;
}

}  // namespace

// math.f(x...): operands converted to the computing precision, the result to the expression's
// type (e.g. math.floor returning an integer).
std::string CudaEmitter::mathCall(const TypedExpr& e, const char* function) {
  WEFT_CHECK(!e.operands.empty() && e.operands.size() <= 3, "a math function with a bad arity");
  ScalarKind precision = mathPrecision(e);
  const char* precisionName = precision == ScalarKind::Float32 ? "float" : "double";
  std::string type = precision == ScalarKind::Float32 ? "float" : "double";
  std::string call = sequenced(e.operands, type, [&](const std::vector<std::string>& codes) {
    std::string out = std::string("weft::math::") + function + "(";
    for (size_t i = 0; i < codes.size(); ++i) {
      WEFT_CHECK(e.operands[i]->type->isScalar() && !types::isComplex(e.operands[i]->type->scalar),
                 std::string("math.") + function + " of a non-real operand");
      if (i) out += ", ";
      out += e.operands[i]->type->scalar == precision
                 ? codes[i]
                 : "weft::cast<" + std::string(precisionName) + ">(" + codes[i] + ")";
    }
    return out + ")";
  });
  return convertScalar(call, precision, e.type);
}

std::string CudaEmitter::builtinCall(const TypedExpr& e) {
  auto intrinsic = [&](const char* name, ScalarKind native) {
    WEFT_CHECK(e.operands.empty(), std::string(name) + " takes no operand");
    return convertScalar(std::string("weft::") + name + "()", native, e.type);
  };
  auto predicate = [&](const char* name) {
    WEFT_CHECK(e.operands.size() == 1 && e.operands[0]->type->isScalar(),
               std::string(name) + " takes one number");
    return convertScalar(std::string("weft::math::") + name + "(weft::widen(" + expr(*e.operands[0]) + "))",
                         ScalarKind::Bool, e.type);
  };
  switch (e.builtin) {
    case Builtin::ThreadIdxX: return intrinsic("thread_idx_x", ScalarKind::UInt32);
    case Builtin::ThreadIdxY: return intrinsic("thread_idx_y", ScalarKind::UInt32);
    case Builtin::ThreadIdxZ: return intrinsic("thread_idx_z", ScalarKind::UInt32);
    case Builtin::BlockIdxX: return intrinsic("block_idx_x", ScalarKind::UInt32);
    case Builtin::BlockIdxY: return intrinsic("block_idx_y", ScalarKind::UInt32);
    case Builtin::BlockIdxZ: return intrinsic("block_idx_z", ScalarKind::UInt32);
    case Builtin::BlockDimX: return intrinsic("block_dim_x", ScalarKind::UInt32);
    case Builtin::BlockDimY: return intrinsic("block_dim_y", ScalarKind::UInt32);
    case Builtin::BlockDimZ: return intrinsic("block_dim_z", ScalarKind::UInt32);
    case Builtin::GridDimX: return intrinsic("grid_dim_x", ScalarKind::UInt32);
    case Builtin::GridDimY: return intrinsic("grid_dim_y", ScalarKind::UInt32);
    case Builtin::GridDimZ: return intrinsic("grid_dim_z", ScalarKind::UInt32);
    case Builtin::TidX: return intrinsic("tid_x", ScalarKind::Int32);
    case Builtin::TidY: return intrinsic("tid_y", ScalarKind::Int32);
    case Builtin::TidZ: return intrinsic("tid_z", ScalarKind::Int32);
    case Builtin::GridSizeX: return intrinsic("grid_size_x", ScalarKind::Int32);
    case Builtin::GridSizeY: return intrinsic("grid_size_y", ScalarKind::Int32);
    case Builtin::GridSizeZ: return intrinsic("grid_size_z", ScalarKind::Int32);
    case Builtin::WarpSize: return intrinsic("warp_size", ScalarKind::Int32);
    case Builtin::LaneId: return intrinsic("lane_id", ScalarKind::Int32);
    case Builtin::Syncthreads:
      WEFT_CHECK(e.operands.empty(), "syncthreads takes no operand");
      return "weft::syncthreads()";
    case Builtin::Abs: {
      WEFT_CHECK(e.operands.size() == 1 && e.operands[0]->type->isScalar(), "abs takes one number");
      ScalarKind operand = e.operands[0]->type->scalar;
      ScalarKind native = operand == ScalarKind::Complex64    ? ScalarKind::Float32
                          : operand == ScalarKind::Complex128 ? ScalarKind::Float64
                                                              : operand;
      return convertScalar("weft::abs(" + expr(*e.operands[0]) + ")", native, e.type);
    }
    case Builtin::Min:
    case Builtin::Max: {
      WEFT_CHECK(e.operands.size() >= 2 && e.type->isScalar(), "min/max takes two or more numbers");
      std::string type = typeName(e.type);
      std::string helper = (e.builtin == Builtin::Min ? "weft::min<" : "weft::max<") + type + ">(";
      // min(a, b, c) == min(min(a, b), c): the first of equal candidates wins either way.
      return sequenced(e.operands, type, [&](const std::vector<std::string>& codes) {
        std::string out = convert(codes[0], e.operands[0]->type, e.type);
        for (size_t i = 1; i < codes.size(); ++i) {
          out = helper + out + ", " + convert(codes[i], e.operands[i]->type, e.type) + ")";
        }
        return out;
      });
    }
    case Builtin::Acos: return mathCall(e, "acos");
    case Builtin::Asin: return mathCall(e, "asin");
    case Builtin::Atan: return mathCall(e, "atan");
    case Builtin::Acosh: return mathCall(e, "acosh");
    case Builtin::Asinh: return mathCall(e, "asinh");
    case Builtin::Atanh: return mathCall(e, "atanh");
    case Builtin::Cos: return mathCall(e, "cos");
    case Builtin::Sin: return mathCall(e, "sin");
    case Builtin::Tan: return mathCall(e, "tan");
    case Builtin::Cosh: return mathCall(e, "cosh");
    case Builtin::Sinh: return mathCall(e, "sinh");
    case Builtin::Tanh: return mathCall(e, "tanh");
    case Builtin::Atan2: return mathCall(e, "atan2");
    case Builtin::Exp: return mathCall(e, "exp");
    case Builtin::Expm1: return mathCall(e, "expm1");
    case Builtin::Fabs: return mathCall(e, "fabs");
    case Builtin::Log: return mathCall(e, "log");
    case Builtin::Log10: return mathCall(e, "log10");
    case Builtin::Log1p: return mathCall(e, "log1p");
    case Builtin::Log2: return mathCall(e, "log2");
    case Builtin::Sqrt: return mathCall(e, "sqrt");
    case Builtin::Pow: return mathCall(e, "pow");
    case Builtin::Ceil: return mathCall(e, "ceil");
    case Builtin::Floor: return mathCall(e, "floor");
    case Builtin::Copysign: return mathCall(e, "copysign");
    case Builtin::Fmod: return mathCall(e, "fmod");
    case Builtin::IsNan: return predicate("isnan");
    case Builtin::IsInf: return predicate("isinf");
    case Builtin::RealPart:
    case Builtin::ImagPart:
    case Builtin::Conjugate: return complexPart(e);
    case Builtin::MakeComplex:
      WEFT_CHECK(e.operands.size() == 2, "complex(re, im) takes two parts");
      return sequenced(e.operands, typeName(e.type),
                       [&](const std::vector<std::string>& parts) { return typeName(e.type) + "{" + parts[0] + ", " + parts[1] + "}"; });
    case Builtin::Erf: return mathCall(e, "erf");
    case Builtin::Erfc: return mathCall(e, "erfc");
    case Builtin::Gamma: return mathCall(e, "gamma");
    case Builtin::Lgamma: return mathCall(e, "lgamma");
    case Builtin::Trunc: return mathCall(e, "trunc");
    case Builtin::Cbrt: return mathCall(e, "cbrt");
    case Builtin::Hypot: return mathCall(e, "hypot");
    case Builtin::Remainder: return mathCall(e, "remainder");
    case Builtin::Fma: return mathCall(e, "fma");
    case Builtin::IsFinite: return predicate("isfinite");
    case Builtin::DynamicSharedArray:
    case Builtin::SyncthreadsCount:
    case Builtin::SyncthreadsAnd:
    case Builtin::SyncthreadsOr:
    case Builtin::ActiveMask:
    case Builtin::LanemaskLt:
    case Builtin::Syncwarp:
    case Builtin::AllSync:
    case Builtin::AnySync:
    case Builtin::EqSync:
    case Builtin::BallotSync:
    case Builtin::ShflSync:
    case Builtin::ShflUpSync:
    case Builtin::ShflDownSync:
    case Builtin::ShflXorSync:
    case Builtin::MatchAnySync:
    case Builtin::MatchAllSync:
    case Builtin::LaneBit:
    case Builtin::WithLaneBit:
    case Builtin::Popc:
    case Builtin::Brev:
    case Builtin::Clz:
    case Builtin::Ffs:
    case Builtin::Print:
    case Builtin::Threadfence:
    case Builtin::AtomicRefOf:
    case Builtin::AtomicLoad:
    case Builtin::AtomicStore:
    case Builtin::AtomicExch:
    case Builtin::AtomicCas:
    case Builtin::AtomicAdd:
    case Builtin::AtomicSub:
    case Builtin::AtomicAnd:
    case Builtin::AtomicOr:
    case Builtin::AtomicXor:
    case Builtin::AtomicMax:
    case Builtin::AtomicNanmax:
    case Builtin::AtomicMin:
    case Builtin::AtomicNanmin:
    case Builtin::AtomicWait:
    case Builtin::AtomicNotify: return simtCall(e);
    case Builtin::AssertFail:
      WEFT_CHECK(e.operands.empty(), "AssertFail takes no operand");
      return "weft::assert_failed(" + checkSite(e) + "u)";
  }
  WEFT_CHECK(false, "unknown builtin");
  return {};
}

}  // namespace weft::codegen
