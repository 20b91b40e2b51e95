// NumPy in device code (issue 10, item 5): the scalar functions and constants numba-cuda
// supports, each mapped onto the math function or builtin of the same meaning, and for every
// other NumPy name a message that says what to use instead.
#include <cmath>
#include <limits>
#include <numbers>

#include "sema/checker.h"

namespace weft::sema {

namespace {

// NumPy ufuncs that are math functions under a name of the math module (or weft's own
// numpy.minimum-style builtins, below).
struct NumpyAlias {
  std::string_view numpy;
  std::string_view math;
};

constexpr NumpyAlias kMathAliases[] = {
    {"exp", "exp"},       {"exp2", "exp2"},       {"expm1", "expm1"},     {"log", "log"},
    {"log2", "log2"},     {"log10", "log10"},     {"log1p", "log1p"},     {"sqrt", "sqrt"},
    {"cbrt", "cbrt"},     {"sin", "sin"},         {"cos", "cos"},         {"tan", "tan"},
    {"arcsin", "asin"},   {"arccos", "acos"},     {"arctan", "atan"},     {"arctan2", "atan2"},
    {"sinh", "sinh"},     {"cosh", "cosh"},       {"tanh", "tanh"},       {"arcsinh", "asinh"},
    {"arccosh", "acosh"}, {"arctanh", "atanh"},   {"floor", "floor"},     {"ceil", "ceil"},
    {"trunc", "trunc"},   {"fabs", "fabs"},       {"copysign", "copysign"}, {"hypot", "hypot"},
    {"fmod", "fmod"},     {"isnan", "isnan"},     {"isinf", "isinf"},     {"isfinite", "isfinite"},
    {"power", "pow"},     {"float_power", "pow"}, {"deg2rad", "radians"}, {"radians", "radians"},
    {"rad2deg", "degrees"}, {"degrees", "degrees"}, {"nextafter", "nextafter"}, {"ldexp", "ldexp"},
};

// Two-operand ufuncs lowered as min/max are (their NaN rules differ from Python's min and max).
struct NumpyMinMax {
  std::string_view numpy;
  Intrinsic intrinsic;
  Builtin builtin;
};

constexpr NumpyMinMax kMinMax[] = {
    {"minimum", Intrinsic::Min, Builtin::NanMinimum},
    {"maximum", Intrinsic::Max, Builtin::NanMaximum},
    {"fmin", Intrinsic::Min, Builtin::Fmin},
    {"fmax", Intrinsic::Max, Builtin::Fmax},
};

// What to write instead of common NumPy functions device code lacks.
struct NumpyHint {
  std::string_view numpy;
  std::string_view instead;
};

constexpr NumpyHint kHints[] = {
    {"zeros", "cuda.local.array(shape, dtype) (or cuda.shared.array) and a loop that fills it"},
    {"empty", "cuda.local.array(shape, dtype) or cuda.shared.array(shape, dtype)"},
    {"ones", "cuda.local.array(shape, dtype) and a loop that fills it"},
    {"array", "cuda.local.array(shape, dtype), or a tuple"},
    {"arange", "range()"},
    {"sum", "a loop, or sum() of a tuple"},
    {"mean", "a loop that sums, then a division"},
    {"dot", "a loop over the elements"},
    {"round", "round(x) or round(x, ndigits)"},
    {"around", "round(x) or round(x, ndigits)"},
    {"sign", "(x > 0) - (x < 0)"},
    {"clip", "min(max(x, lo), hi)"},
    {"square", "x * x"},
    {"negative", "-x"},
    {"reciprocal", "1 / x"},
};

}  // namespace

Value resolveNumpyEntity(std::string_view member) {
  if (member == "pi") return floatConstant(std::numbers::pi);
  if (member == "e") return floatConstant(std::numbers::e);
  if (member == "euler_gamma") return floatConstant(std::numbers::egamma);
  if (member == "inf") return floatConstant(std::numeric_limits<double>::infinity());
  if (member == "nan") return floatConstant(std::numeric_limits<double>::quiet_NaN());
  for (const NumpyAlias& alias : kMathAliases) {
    if (alias.numpy != member) continue;
    Value v = resolveEntity("math." + std::string(alias.math));
    v.name = "numpy." + std::string(member);
    return v;
  }
  if (member == "abs" || member == "absolute") {
    Value v = resolvePythonBuiltin("abs");
    v.name = "numpy." + std::string(member);
    return v;
  }
  for (const NumpyMinMax& entry : kMinMax) {
    if (entry.numpy != member) continue;
    Value v;
    v.kind = Value::Kind::Intrinsic;
    v.intrinsic = entry.intrinsic;
    v.math = entry.builtin;
    v.name = "numpy." + std::string(member);
    return v;
  }
  return {};
}

std::string numpyInstead(std::string_view member) {
  for (const NumpyHint& hint : kHints)
    if (hint.numpy == member) return std::string(hint.instead);
  return "a math function (math.exp...), NumPy's scalar functions (docs/python.md lists them), or a loop";
}

}  // namespace weft::sema
