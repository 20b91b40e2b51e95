// Internal invariants: a failed WEFT_CHECK is a weft bug, reported as an internal compiler
// error (never exit(), never abort the user's interpreter).
#pragma once

#include <stdexcept>
#include <string>

namespace weft {

// Thrown by WEFT_CHECK; the Python layer turns it into weft.InternalCompilerError whose text
// names the failing pass and asks for a bug report with the reproducer.
class InternalCompilerError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

[[noreturn]] void failCheck(const char* condition, const char* file, int line, const std::string& detail);

}  // namespace weft

#define WEFT_CHECK(cond, detail)                                   \
  do {                                                             \
    if (!(cond)) ::weft::failCheck(#cond, __FILE__, __LINE__, (detail)); \
  } while (false)
