// C and C++ identifiers: which Python names can be interoperable functions' extern "C" symbols,
// the only user-chosen names weft prints as written (every other one goes through
// codegen's userName()).
#pragma once

#include <string_view>

namespace weft {

// Why `name` cannot be the extern "C" symbol of an interoperable function or kernel, as a
// phrase completing "'name' becomes the extern \"C\" symbol 'name', which ..."; empty when it
// can. A symbol must be a plain C identifier (ASCII letters, digits and '_', no C++ keyword,
// nothing C++ reserves: a leading '_' or "__" anywhere), must not be spelled like a macro
// (capitals only) or a type (a "_t" suffix), must not be a name the C, C++ and CUDA headers a
// unit sees already declare (sqrtf, printf, qsort, threadIdx, half, std, weft...), and must not
// start with "weft_", which weft keeps for its own symbols.
std::string_view interopSymbolProblem(std::string_view name);

}  // namespace weft
