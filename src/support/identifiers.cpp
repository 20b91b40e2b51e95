#include "support/identifiers.h"

#include <algorithm>
#include <iterator>
#include <string>

namespace weft {
namespace {

constexpr std::string_view kCxxKeywords[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch", "char",
    "char8_t", "char16_t", "char32_t", "class", "co_await", "co_return", "co_yield", "compl", "concept", "const",
    "consteval", "constexpr", "constinit", "const_cast", "continue", "decltype", "default", "delete", "do", "double",
    "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if",
    "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or",
    "or_eq", "private", "protected", "public", "register", "reinterpret_cast", "requires", "return", "short", "signed",
    "sizeof", "static", "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local",
    "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void",
    "volatile", "wchar_t", "while", "xor", "xor_eq"};

// The math functions, each also with an 'f' (float) and 'l' (long double) suffix.
constexpr std::string_view kMathFunctions[] = {
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "ceil", "copysign", "cos", "cosh", "erf",
    "erfc", "exp", "exp2", "expm1", "fabs", "fdim", "floor", "fma", "fmax", "fmin", "fmod", "frexp", "hypot", "ilogb",
    "ldexp", "lgamma", "llrint", "llround", "log", "log10", "log1p", "log2", "logb", "lrint", "lround", "modf", "nan",
    "nearbyint", "nextafter", "pow", "remainder", "remquo", "rint", "round", "scalbln", "scalbn", "sin", "sinh",
    "sqrt", "tan", "tanh", "tgamma", "trunc", "rsqrt", "sincos", "sincospi", "sinpi", "cospi", "exp10", "rcbrt",
    "erfinv", "erfcinv", "normcdf", "normcdfinv", "j0", "j1", "jn", "y0", "y1", "yn"};

constexpr std::string_view kLibraryFunctions[] = {
    "abs", "labs", "llabs", "div", "abort", "exit", "atexit", "malloc", "calloc", "realloc", "free", "memcpy",
    "memmove", "memset", "memcmp", "strlen", "strcmp", "strcpy", "printf", "fprintf", "sprintf", "snprintf", "puts",
    "putchar", "fflush", "assert", "isnan", "isinf", "isfinite", "signbit", "min", "max", "clock", "clock64", "main"};

template <size_t N>
bool contains(const std::string_view (&list)[N], std::string_view name) {
  return std::find(std::begin(list), std::end(list), name) != std::end(list);
}

}  // namespace

bool isPlainCxxIdentifier(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9') || contains(kCxxKeywords, name)) return false;
  if (name[0] == '_' && name.size() > 1 && name[1] >= 'A' && name[1] <= 'Z') return false;
  if (name.find("__") != std::string_view::npos) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

bool isCLibraryName(std::string_view name) {
  if (contains(kLibraryFunctions, name) || contains(kMathFunctions, name)) return true;
  if (name.size() > 1 && (name.back() == 'f' || name.back() == 'l'))
    return contains(kMathFunctions, name.substr(0, name.size() - 1));
  // The CUDA runtime (cudaMalloc) and driver (cuLaunchKernel) APIs.
  return name.starts_with("cuda") || (name.size() > 2 && name.starts_with("cu") && name[2] >= 'A' && name[2] <= 'Z');
}

}  // namespace weft
