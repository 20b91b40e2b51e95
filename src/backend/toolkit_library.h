// The toolkit's shared libraries (NVRTC, nvJitLink), loaded at run time so that weft builds and
// imports without a CUDA toolkit.
#pragma once

#include <string>
#include <vector>

#include "backend/backend.h"

namespace weft::backend {

// Where to look for a library known by `names` (most preferred first): the toolkit's lib64/
// and lib/ folders (CUDA 13 keeps them in lib/), then the bare names for the loader's path.
std::vector<std::string> toolkitLibraryCandidates(const Toolchain& toolchain, const std::vector<std::string>& names);

// dlopens the first candidate that loads (never unloaded: these libraries keep process-wide
// state); nullptr after describing what was tried in `error` (`what` names the library).
void* openToolkitLibrary(const Toolchain& toolchain, const std::string& what, const std::vector<std::string>& names,
                         std::string& error);

}  // namespace weft::backend
