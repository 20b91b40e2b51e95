// C and C++ identifiers: which Python names can stand for themselves in the emitted C++ (struct
// members, interoperable functions' extern "C" symbols).
#pragma once

#include <string_view>

namespace weft {

// Whether `name` can be a C++ identifier as it is: ASCII letters, digits and '_', not starting
// with a digit, not a C++ keyword or alternative operator token, and not reserved for the
// implementation (a leading '_' followed by a capital, or "__" anywhere).
bool isPlainCxxIdentifier(std::string_view name);

// Whether `name` is a function or object of the C and CUDA libraries that weft's units can see
// (<cmath>, <cstdio>, <cstdlib>, <cstring>, CUDA's device runtime): an extern "C" symbol of
// that name would collide with it.
bool isCLibraryName(std::string_view name);

}  // namespace weft
