#include "support/check.h"

namespace weft {

void failCheck(const char* condition, const char* file, int line, const std::string& detail) {
  throw InternalCompilerError(std::string("internal compiler error: ") + file + ":" + std::to_string(line) +
                              ": check `" + condition + "` failed" + (detail.empty() ? "" : ": " + detail));
}

}  // namespace weft
