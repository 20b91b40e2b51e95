// nvJitLink, loaded at run time: links relocatable device code (weft units compiled as LTO-IR,
// CUDA C++ compiled by NVRTC or nvcc) into one cubin.
#include <dlfcn.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/toolkit_library.h"

namespace weft::backend {
namespace {

using NvJitLinkHandle = struct NvJitLinkOpaque*;

// The entry points of the loaded library, generated from nvjitlink_functions.def.
struct NvJitLinkTable {
#define WEFT_NVJITLINK_FUNCTION(name, result, params) result(*name) params = nullptr;
#include "backend/nvjitlink_functions.def"
};

std::optional<NvJitLinkTable> loadNvJitLink(const Toolchain& toolchain, std::string& error) {
  void* library = openToolkitLibrary(toolchain, "nvJitLink", {"libnvJitLink.so.13", "libnvJitLink.so"}, error);
  if (!library) return std::nullopt;
  NvJitLinkTable table;
#define WEFT_NVJITLINK_FUNCTION(name, result, params)                                    \
  table.name = reinterpret_cast<decltype(table.name)>(::dlsym(library, #name));          \
  if (!table.name) {                                                                     \
    error = "the nvJitLink library lacks " #name " (weft needs CUDA 13's nvJitLink)";    \
    return std::nullopt;                                                                 \
  }
#include "backend/nvjitlink_functions.def"
  return table;
}

// nvJitLinkInputType's values.
int inputType(LinkInput::Kind kind) {
  switch (kind) {
    case LinkInput::Kind::Cubin: return 1;
    case LinkInput::Kind::Ptx: return 2;
    case LinkInput::Kind::LtoIr: return 3;
    case LinkInput::Kind::Fatbin: return 4;
    case LinkInput::Kind::Object: return 5;
    case LinkInput::Kind::Library: return 6;
  }
  return 0;
}

// The linker's error log (empty when it has none).
std::string errorLog(const NvJitLinkTable& link, NvJitLinkHandle handle) {
  size_t size = 0;
  std::string log;
  if (link.nvJitLinkGetErrorLogSize(handle, &size) == 0 && size > 1) {
    log.resize(size);
    link.nvJitLinkGetErrorLog(handle, log.data());
    log.resize(size - 1);  // NUL-terminated
  }
  return log;
}

}  // namespace

Artifact linkWithNvJitLink(const Toolchain& toolchain, const std::vector<LinkInput>& inputs, sema::GpuTarget target) {
  Artifact artifact;
  std::optional<NvJitLinkTable> link = loadNvJitLink(toolchain, artifact.log);
  if (!link) return artifact;
  bool lto = false;
  for (const LinkInput& input : inputs) lto = lto || input.kind == LinkInput::Kind::LtoIr;
  std::vector<std::string> optionStrings = {"-arch=" + sema::targetName(target)};
  if (lto) optionStrings.push_back("-lto");
  std::vector<const char*> options;
  for (const std::string& option : optionStrings) options.push_back(option.c_str());
  NvJitLinkHandle handle = nullptr;
  if (int status = link->nvJitLinkCreate(&handle, static_cast<uint32_t>(options.size()), options.data()); status != 0) {
    artifact.log = "nvJitLinkCreate failed with status " + std::to_string(status);
    return artifact;
  }
  bool ok = true;
  for (const LinkInput& input : inputs) {
    if (link->nvJitLinkAddData(handle, inputType(input.kind), input.bytes.data(), input.bytes.size(),
                               input.name.c_str()) != 0) {
      artifact.log = "nvJitLink cannot add " + input.name + ":\n" + errorLog(*link, handle);
      ok = false;
      break;
    }
  }
  if (ok && link->nvJitLinkComplete(handle) != 0) {
    artifact.log = "nvJitLink failed:\n" + errorLog(*link, handle);
    ok = false;
  }
  size_t size = 0;
  if (ok && link->nvJitLinkGetLinkedCubinSize(handle, &size) == 0) {
    artifact.bytes.resize(size);
    artifact.ok = link->nvJitLinkGetLinkedCubin(handle, artifact.bytes.data()) == 0;
  }
  if (ok && !artifact.ok) artifact.log = "nvJitLink produced no cubin:\n" + errorLog(*link, handle);
  link->nvJitLinkDestroy(&handle);
  return artifact;
}

}  // namespace weft::backend
