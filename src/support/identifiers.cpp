#include "support/identifiers.h"

#include <algorithm>
#include <iterator>

namespace weft {
namespace {

// clang-format off
constexpr std::string_view kCxxKeywords[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch",
    "char", "char8_t", "char16_t", "char32_t", "class", "co_await", "co_return", "co_yield", "compl",
    "concept", "const", "consteval", "constexpr", "constinit", "const_cast", "continue", "decltype",
    "default", "delete", "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern",
    "false", "float", "for", "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new",
    "noexcept", "not", "not_eq", "nullptr", "operator", "or", "or_eq", "private", "protected", "public",
    "register", "reinterpret_cast", "requires", "return", "short", "signed", "sizeof", "static",
    "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local", "throw", "true",
    "try", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void", "volatile",
    "wchar_t", "while", "xor", "xor_eq"};
// clang-format on

// Math functions of <cmath>, glibc and CUDA.
// clang-format off
constexpr std::string_view kMathFunctions[] = {
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "canonicalize", "cbrt", "ceil", "copysign",
    "cos", "cosh", "cospi", "cyl_bessel_i0", "cyl_bessel_i1", "drem", "erf", "erfc", "erfcinv", "erfcx",
    "erfinv", "exp", "exp10", "exp2", "expm1", "fabs", "fdim", "fdivide", "finite", "floor", "fma", "fmax",
    "fmaximum", "fmaximum_mag", "fmaximum_mag_num", "fmaximum_num", "fmaxmag", "fmin", "fminimum",
    "fminimum_mag", "fminimum_mag_num", "fminimum_num", "fminmag", "fmod", "frexp", "fromfp", "fromfpx",
    "gamma", "getpayload", "hypot", "ilogb", "iscanonical", "isinf", "isnan", "issignaling", "j0", "j1", "jn",
    "ldexp", "lgamma", "llogb", "llrint", "llround", "log", "log10", "log1p", "log2", "logb", "lrint",
    "lround", "modf", "nan", "nearbyint", "nextafter", "nextdown", "nexttoward", "nextup", "norm", "norm3d",
    "norm4d", "normcdf", "normcdfinv", "pow", "rcbrt", "remainder", "remquo", "rhypot", "rint", "rnorm",
    "rnorm3d", "rnorm4d", "round", "roundeven", "rsqrt", "scalb", "scalbln", "scalbn", "setpayload",
    "setpayloadsig", "significand", "sin", "sincos", "sincospi", "sinh", "sinpi", "sqrt", "tan", "tanh",
    "tgamma", "totalorder", "totalordermag", "trunc", "ufromfp", "ufromfpx", "y0", "y1", "yn"};
// clang-format on
constexpr std::string_view kMathSuffixes[] = {"f", "l", "f32", "f64", "f128", "f32x", "f64x"};

// Other functions, objects, types, macros and namespaces the headers of a unit see at global
// scope (glibc and libstdc++ through <cmath>, <cstdio>, <cstring>, <string>; CUDA's device
// runtime under NVRTC and nvcc; weft's own; GNU mode's linux and unix), as an extern "C"
// function of the same name collides with them. tests/cpp/test_identifiers.cpp compiles every
// name of those headers that the rules here accept, on both targets. Each entry also stands for
// itself followed by any of kVariantSuffixes (the GNU variants) and kMathSuffixes (precisions).
// clang-format off
constexpr std::string_view kLibraryNames[] = {
    "L_ctermid", "L_cuserid", "L_tmpnam", "P_tmpdir", "a64l", "abort", "abs", "aligned_alloc", "alloca",
    "arc4random", "arc4random_buf", "arc4random_uniform", "asprintf", "assert", "assert_if_not_arithmetic",
    "assert_perror", "atexit", "atof", "atoi", "atol", "atoll", "bcmp", "bcopy", "be16toh", "be32toh",
    "be64toh", "blockDim", "blockIdx", "bsearch", "btowc", "bzero", "calloc", "canonicalize_file_name",
    "clearenv", "clearerr", "clock", "clock64", "ctermid", "cuda", "cuserid", "dim3", "div", "dprintf",
    "drand48", "duplocale", "ecvt", "erand48", "errno", "exit", "explicit_bzero", "fclose", "fcloseall",
    "fcvt", "fd_mask", "fd_set", "fdopen", "feof", "ferror", "fflush", "ffs", "ffsl", "ffsll", "fgetc",
    "fgetpos", "fgets", "fgetwc", "fgetws", "fileno", "flockfile", "fmemopen", "fopen", "fopencookie",
    "fprintf", "fputc", "fputs", "fputwc", "fputws", "fread", "free", "freelocale", "freopen", "fscanf",
    "fseek", "fseeko", "fsetpos", "ftell", "ftello", "ftrylockfile", "funlockfile", "fwide", "fwprintf",
    "fwrite", "fwscanf", "gcvt", "getc", "getchar", "getdelim", "getenv", "getline", "getloadavg", "getpt",
    "getsubopt", "getw", "getwc", "getwchar", "grantpt", "gridDim", "half", "half2", "htobe16", "htobe32",
    "htobe64", "htole16", "htole32", "htole64", "i386", "initstate", "isalnum", "isalpha", "isascii",
    "isblank", "iscntrl", "isctype", "isdigit", "isfinite", "isgraph", "isinf", "islower", "isnan", "isprint",
    "ispunct", "isspace", "issubnormal", "isupper", "isxdigit", "jrand48", "l64a", "labs", "lcong48", "ldiv",
    "le16toh", "le32toh", "le64toh", "lgamma_r", "lgammaf128_r", "lgammaf32_r", "lgammaf32x_r", "lgammaf64_r",
    "lgammaf64x_r", "lgammaf_r", "lgammal_r", "libraryPropertyType", "linux", "llabs", "lldiv", "llmax",
    "llmin", "localeconv", "lrand48", "main", "make_long1", "make_long2", "make_long3", "make_long4",
    "make_longlong1", "make_longlong2", "make_longlong3", "make_longlong4", "make_longlong4_16a",
    "make_longlong4_32a", "malloc", "math_errhandling", "max", "mblen", "mbrlen", "mbrtowc", "mbsinit",
    "mbsnrtowcs", "mbsrtowcs", "mbstowcs", "mbtowc", "memccpy", "memcmp", "memcpy", "memfrob", "memmem",
    "memmove", "mempcpy", "memset", "min", "mkdtemp", "mkostemp", "mkostemps", "mkstemp", "mkstemps",
    "mktemp", "mrand48", "newlocale", "nrand48", "nv", "nv_bfloat16", "nv_bfloat162", "nv_half", "nv_half2",
    "obstack_printf", "obstack_vprintf", "offsetof", "on_exit", "open_memstream", "open_wmemstream", "pclose",
    "perror", "popen", "posix_memalign", "posix_openpt", "printf", "program_invocation_name",
    "program_invocation_short_name", "pselect", "pthread_cleanup_pop", "pthread_cleanup_pop_restore",
    "pthread_cleanup_push", "pthread_cleanup_push_defer", "ptsname", "putc", "putchar", "putenv", "puts",
    "putw", "putwc", "putwchar", "qecvt", "qfcvt", "qgcvt", "qsort", "quick_exit", "rand", "random",
    "realloc", "reallocarray", "realpath", "remove", "rename", "renameat", "renameat2", "rewind", "rpmatch",
    "scanf", "sched_priority", "secure_getenv", "seed48", "select", "setbuf", "setbuffer", "setenv",
    "setlinebuf", "setlocale", "setstate", "setvbuf", "sigabbrev_np", "sigdescr_np", "signbit", "signgam",
    "snprintf", "sprintf", "srand", "srand48", "srandom", "sscanf", "std", "stderr", "stdin", "stdout",
    "stpcpy", "stpncpy", "strcasecmp", "strcat", "strcmp", "strcoll", "strcpy", "strcspn", "strdup",
    "strdupa", "strerror", "strerrordesc_np", "strerrorname_np", "strfromd", "strfromf", "strfromf128",
    "strfromf32", "strfromf32x", "strfromf64x", "strfroml", "strfry", "strlen", "strncasecmp", "strncat",
    "strncmp", "strncpy", "strndup", "strndupa", "strnlen", "strsep", "strsignal", "strspn", "strtod",
    "strtof", "strtof128", "strtof32", "strtof32x", "strtof64x", "strtok", "strtol", "strtold", "strtoll",
    "strtoq", "strtoul", "strtoull", "strtouq", "strverscmp", "strxfrm", "swprintf", "swscanf", "system",
    "tempnam", "threadIdx", "tmpfile", "tmpnam", "toascii", "tolower", "toupper", "u_char", "u_int", "u_long",
    "u_short", "uint", "ullmax", "ullmin", "ulong", "umax", "umin", "ungetc", "ungetwc", "unix", "unlockpt",
    "unsetenv", "uselocale", "ushort", "va_arg", "va_copy", "va_end", "va_list", "va_start", "valloc",
    "vasprintf", "vdprintf", "vfprintf", "vfscanf", "vfwprintf", "vfwscanf", "vprintf", "vscanf", "vsnprintf",
    "vsprintf", "vsscanf", "vswprintf", "vswscanf", "vwprintf", "vwscanf", "warpSize", "wcpcpy", "wcpncpy",
    "wcrtomb", "wcscasecmp", "wcscat", "wcschrnul", "wcscmp", "wcscoll", "wcscpy", "wcscspn", "wcsdup",
    "wcsftime", "wcslen", "wcsncasecmp", "wcsncat", "wcsncmp", "wcsncpy", "wcsnlen", "wcsnrtombs",
    "wcsrtombs", "wcsspn", "wcstod", "wcstof", "wcstof128", "wcstof32", "wcstof32x", "wcstof64x", "wcstok",
    "wcstol", "wcstold", "wcstoll", "wcstombs", "wcstoq", "wcstoul", "wcstoull", "wcstouq", "wcswidth",
    "wcsxfrm", "wctob", "wctomb", "wcwidth", "weft", "wmemcmp", "wmemcpy", "wmemmove", "wmempcpy", "wmemset",
    "wprintf", "wscanf"};
// clang-format on
constexpr std::string_view kVariantSuffixes[] = {"_r", "_l", "_unlocked", "64", "_np"};

template <size_t N>
bool contains(const std::string_view (&list)[N], std::string_view name) {
  return std::find(std::begin(list), std::end(list), name) != std::end(list);
}

// Whether `name` is a library name, as it is or followed by suffixes (strtof64_l, lgammaf_r).
bool isListedName(std::string_view name) {
  if (contains(kLibraryNames, name) || contains(kMathFunctions, name)) return true;
  auto strips = [&](std::string_view suffix) {
    return name.size() > suffix.size() && name.ends_with(suffix) &&
           isListedName(name.substr(0, name.size() - suffix.size()));
  };
  return std::any_of(std::begin(kVariantSuffixes), std::end(kVariantSuffixes), strips) ||
         std::any_of(std::begin(kMathSuffixes), std::end(kMathSuffixes), strips);
}

bool isPlainCxxIdentifier(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9') || name[0] == '_' || contains(kCxxKeywords, name))
    return false;
  if (name.find("__") != std::string_view::npos) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// NAN, EOF, M_PI, INT_MAX, CUDART_VERSION: C macros are written in capitals (glibc's math
// constants also with a precision suffix: M_PIf, M_El, M_SQRT2f64).
bool looksLikeMacro(std::string_view name) {
  auto capitals = [](std::string_view part) {
    return std::none_of(part.begin(), part.end(), [](char c) { return c >= 'a' && c <= 'z'; });
  };
  return capitals(name) ||
         std::any_of(std::begin(kMathSuffixes), std::end(kMathSuffixes), [&](std::string_view suffix) {
           return name.size() > suffix.size() && name.ends_with(suffix) &&
                  capitals(name.substr(0, name.size() - suffix.size()));
         });
}

// CUDA's vector types (int2, ulonglong4, double4_32a) and their make_ functions.
bool isCudaVectorName(std::string_view name) {
  if (name.starts_with("make_")) name.remove_prefix(5);
  if (name.ends_with("_16a") || name.ends_with("_32a")) name.remove_suffix(4);
  if (name.starts_with("u")) name.remove_prefix(1);
  if (name.size() < 2 || name.back() < '1' || name.back() > '4') return false;
  name.remove_suffix(1);
  for (std::string_view scalar : {"char", "short", "int", "long", "longlong", "float", "double"}) {
    if (name == scalar) return true;
  }
  return false;
}

bool isLibraryName(std::string_view name) {
  if (isListedName(name) || isCudaVectorName(name)) return true;
  // glibc's narrowing operations (fadd, dmull, f32addf64...), and the CUDA runtime (cudaMalloc)
  // and driver (cuLaunchKernel, CUstream) APIs.
  for (std::string_view operation : {"add", "sub", "mul", "div", "fma", "sqrt"}) {
    for (std::string_view prefix : {"f", "d", "f32", "f32x", "f64", "f64x"}) {
      if (name.starts_with(prefix) && name.substr(prefix.size()).starts_with(operation)) {
        std::string_view rest = name.substr(prefix.size() + operation.size());
        if (rest.empty() || rest == "l" || contains(kMathSuffixes, rest)) return true;
      }
    }
  }
  return name.starts_with("cuda") || name.starts_with("CU") ||
         (name.size() > 2 && name.starts_with("cu") && name[2] >= 'A' && name[2] <= 'Z');
}

}  // namespace

std::string_view interopSymbolProblem(std::string_view name) {
  if (!isPlainCxxIdentifier(name))
    return "is not a plain C identifier (ASCII letters, digits and '_', no C++ keyword, no leading '_', no "
           "'__')";
  if (looksLikeMacro(name)) return "is spelled like a C macro (capitals, digits and '_' only)";
  if (name.ends_with("_t")) return "ends in '_t', which C and POSIX keep for type names";
  if (isLibraryName(name)) return "is already a name of the C, C++ or CUDA libraries";
  if (name.starts_with("weft_")) return "starts with 'weft_', which weft keeps for its own symbols";
  return {};
}

}  // namespace weft
