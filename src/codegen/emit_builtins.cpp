// Builtin calls: each Builtin of sema/builtin_kinds.def maps to its helper column, a function
// of include/weft/device/ (intrinsics.h, numeric.h, math.h; SIMT ones in emit_simt.cpp).
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
  // fma of float16 computes in float64: a float16 product is exact there and the sum lies
  // within float64's precision of it, so rounding to float16 once more gives the fused
  // result; float32 would round a sum near a float16 halfway point twice.
  if (e.builtin == Builtin::Fma && e.type->isScalar() && e.type->scalar == ScalarKind::Float16) return ScalarKind::Float64;
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
std::string CudaEmitter::mathCall(const TypedExpr& e, std::string_view helper) {
  WEFT_CHECK(!e.operands.empty() && e.operands.size() <= 4, "a math function with a bad arity");
  useHeader(sema::BuiltinHeader::Math);
  ScalarKind precision = mathPrecision(e);
  std::string type = precision == ScalarKind::Float32 ? "float" : "double";
  std::string call = sequenced(e.operands, type, [&](const std::vector<std::string>& codes) {
    std::string out = std::string(helper) + "(";
    for (size_t i = 0; i < codes.size(); ++i) {
      WEFT_CHECK(e.operands[i]->type->isScalar() && !types::isComplex(e.operands[i]->type->scalar),
                 std::string(helper) + " of a non-real operand");
      if (i) out += ", ";
      out += e.operands[i]->type->scalar == precision ? codes[i] : "weft::cast<" + type + ">(" + codes[i] + ")";
    }
    return out + ")";
  });
  return convertScalar(call, precision, e.type);
}

std::string CudaEmitter::builtinCall(const TypedExpr& e) {
  const sema::BuiltinInfo& info = sema::builtinInfo(e.builtin);
  std::string helper(info.helper);
  useHeader(info.header);
  // Thread positions and the barrier: the helper of no operand, of the builtin's own type.
  auto nullary = [&] {
    WEFT_CHECK(e.operands.empty(), helper + " takes no operand");
    return helper + "()";
  };
  switch (e.builtin) {
    case Builtin::ThreadIdxX:
    case Builtin::ThreadIdxY:
    case Builtin::ThreadIdxZ:
    case Builtin::BlockIdxX:
    case Builtin::BlockIdxY:
    case Builtin::BlockIdxZ:
    case Builtin::BlockDimX:
    case Builtin::BlockDimY:
    case Builtin::BlockDimZ:
    case Builtin::GridDimX:
    case Builtin::GridDimY:
    case Builtin::GridDimZ:
    case Builtin::TidX:
    case Builtin::TidY:
    case Builtin::TidZ:
    case Builtin::GridSizeX:
    case Builtin::GridSizeY:
    case Builtin::GridSizeZ:
    case Builtin::WarpSize:
    case Builtin::LaneId:
    case Builtin::Syncthreads: return nullary();
    case Builtin::Abs: {
      WEFT_CHECK(e.operands.size() == 1 && e.operands[0]->type->isScalar(), "abs takes one number");
      ScalarKind operand = e.operands[0]->type->scalar;
      ScalarKind native = operand == ScalarKind::Complex64    ? ScalarKind::Float32
                          : operand == ScalarKind::Complex128 ? ScalarKind::Float64
                                                              : operand;
      return convertScalar(helper + "(" + expr(*e.operands[0]) + ")", native, e.type);
    }
    case Builtin::Min:
    case Builtin::Max:
    case Builtin::NanMinimum:
    case Builtin::NanMaximum:
    case Builtin::Fmin:
    case Builtin::Fmax: {
      WEFT_CHECK(e.operands.size() >= 2 && e.type->isScalar(), "min/max takes two or more numbers");
      std::string type = typeName(e.type);
      // min(a, b, c) == min(min(a, b), c): the first of equal candidates wins either way.
      return sequenced(e.operands, type, [&](const std::vector<std::string>& codes) {
        std::string out = convert(codes[0], e.operands[0]->type, e.type);
        for (size_t i = 1; i < codes.size(); ++i) {
          out = helper + "<" + type + ">(" + out + ", " + convert(codes[i], e.operands[i]->type, e.type) + ")";
        }
        return out;
      });
    }
    case Builtin::Acos:
    case Builtin::Asin:
    case Builtin::Atan:
    case Builtin::Acosh:
    case Builtin::Asinh:
    case Builtin::Atanh:
    case Builtin::Cos:
    case Builtin::Sin:
    case Builtin::Tan:
    case Builtin::Cosh:
    case Builtin::Sinh:
    case Builtin::Tanh:
    case Builtin::Atan2:
    case Builtin::Exp:
    case Builtin::Exp2:
    case Builtin::Expm1:
    case Builtin::Fabs:
    case Builtin::Log:
    case Builtin::Log10:
    case Builtin::Log1p:
    case Builtin::Log2:
    case Builtin::Sqrt:
    case Builtin::Pow:
    case Builtin::Ceil:
    case Builtin::Floor:
    case Builtin::Copysign:
    case Builtin::Fmod:
    case Builtin::Erf:
    case Builtin::Erfc:
    case Builtin::Gamma:
    case Builtin::Lgamma:
    case Builtin::Trunc:
    case Builtin::Cbrt:
    case Builtin::Hypot:
    case Builtin::Remainder:
    case Builtin::Degrees:
    case Builtin::Radians:
    case Builtin::Nextafter:
    case Builtin::Ldexp:
    case Builtin::IsClose:
    case Builtin::Rint:
    case Builtin::RoundDigits:
    case Builtin::FrexpMantissa:
    case Builtin::FrexpExponent:
    case Builtin::ModfFraction:
    case Builtin::ModfWhole:
    case Builtin::Fma: return mathCall(e, helper);
    case Builtin::IsNan:
    case Builtin::IsInf:
    case Builtin::IsFinite:
      // A predicate asks about the operand at its own precision (weft::widen keeps narrow
      // floats' values exactly).
      WEFT_CHECK(e.operands.size() == 1 && e.operands[0]->type->isScalar(), helper + " takes one number");
      return convertScalar(helper + "(weft::widen(" + expr(*e.operands[0]) + "))", ScalarKind::Bool, e.type);
    case Builtin::ComplexPow:
    case Builtin::CmathExp:
    case Builtin::CmathLog:
    case Builtin::CmathLog10:
    case Builtin::CmathSqrt:
    case Builtin::CmathSin:
    case Builtin::CmathCos:
    case Builtin::CmathTan:
    case Builtin::CmathSinh:
    case Builtin::CmathCosh:
    case Builtin::CmathTanh:
    case Builtin::CmathAcos:
    case Builtin::CmathAsin:
    case Builtin::CmathAtan:
    case Builtin::CmathAcosh:
    case Builtin::CmathAsinh:
    case Builtin::CmathAtanh:
    case Builtin::CmathPhase:
    case Builtin::CmathIsNan:
    case Builtin::CmathIsInf:
    case Builtin::CmathIsFinite:
    case Builtin::CmathRect:
      // Operands already of the types the helper takes (sema converted them).
      return sequenced(e.operands, typeName(e.type), [&](const std::vector<std::string>& codes) {
        std::string out = helper + "(";
        for (size_t i = 0; i < codes.size(); ++i) out += (i ? ", " : "") + codes[i];
        return out + ")";
      });
    case Builtin::RealPart:
    case Builtin::ImagPart:
    case Builtin::Conjugate: return complexPart(e);
    case Builtin::MakeComplex:
      WEFT_CHECK(e.operands.size() == 2, "complex(re, im) takes two parts");
      return sequenced(e.operands, typeName(e.type),
                       [&](const std::vector<std::string>& parts) { return typeName(e.type) + "{" + parts[0] + ", " + parts[1] + "}"; });
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
    case Builtin::AtomicInc:
    case Builtin::AtomicDec:
    case Builtin::AtomicMax:
    case Builtin::AtomicNanmax:
    case Builtin::AtomicMin:
    case Builtin::AtomicNanmin:
    case Builtin::AtomicWait:
    case Builtin::AtomicNotify: return simtCall(e);
    case Builtin::AssertFail:
      WEFT_CHECK(e.operands.empty(), "AssertFail takes no operand");
      return helper + "(" + checkSite(e) + "u)";
  }
  WEFT_CHECK(false, "unknown builtin");
  return {};
}

}  // namespace weft::codegen
