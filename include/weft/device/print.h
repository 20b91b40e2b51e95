// print() in device code: codegen turns each call into one printf whose format sema built
// from the arguments (with no value arguments, the text itself, printed with "%s") (string literals inline,
// %lld/%llu for integers, %g for floats, %s for bools), so the pieces of one print() never interleave with
// another thread's. The CPU target flushes after each call so that output captured at the file descriptor
// (pytest's capfd, a pipe) appears in order with the host's own.
#pragma once

#include "weft/device/config.h"

#if !defined(__CUDACC_RTC__)
#include <cstdio>
#endif

namespace weft {

// The text printed after a float's %g: ".0" when %g shows an integral value without an
// exponent, as Python shows 2.0.
WEFT_HD const char* float_suffix(double x) {
  bool integral = x == static_cast<double>(static_cast<long long>(x));
  return integral && x < 1e6 && x > -1e6 ? ".0" : "";
}

// Host and device (an interoperable function may print on the host).
template <class... Arguments>
WEFT_HD void print(const char* format, Arguments... arguments) {
  if constexpr (sizeof...(Arguments) == 0) {
    printf("%s", format);
  } else {
    printf(format, arguments...);
  }
#if defined(WEFT_TARGET_HOST)
  std::fflush(stdout);
#endif
}

}  // namespace weft
