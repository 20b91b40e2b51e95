#include "backend/toolkit_library.h"

#include <dlfcn.h>

namespace weft::backend {

std::vector<std::string> toolkitLibraryCandidates(const Toolchain& toolchain, const std::vector<std::string>& names) {
  std::vector<std::string> candidates;
  if (!toolchain.cudaHome.empty())
    for (const char* folder : {"/lib64/", "/lib/"})
      for (const std::string& name : names) candidates.push_back(toolchain.cudaHome + folder + name);
  for (const std::string& name : names) candidates.push_back(name);
  return candidates;
}

void* openToolkitLibrary(const Toolchain& toolchain, const std::string& what, const std::vector<std::string>& names,
                         std::string& error) {
  for (const std::string& candidate : toolkitLibraryCandidates(toolchain, names)) {
    if (void* library = ::dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL)) return library;
  }
  std::string tried;
  for (const std::string& name : names) tried += (tried.empty() ? "" : ", ") + name;
  error = what + " not found (tried " + tried + " in " +
          (toolchain.cudaHome.empty() ? std::string("no CUDA toolkit") : toolchain.cudaHome + "/lib64, /lib") +
          " and on the loader path); install the CUDA toolkit or set CUDA_HOME";
  return nullptr;
}

}  // namespace weft::backend
