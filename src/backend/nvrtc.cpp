// NVRTC, loaded at run time: `import weft` and the CPU target work without a CUDA toolkit.
#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/toolkit_library.h"

namespace weft::backend {
namespace {

using NvrtcProgram = struct NvrtcProgramOpaque*;

// The entry points of one loaded NVRTC library, generated from nvrtc_functions.def.
struct NvrtcTable {
#define WEFT_NVRTC_FUNCTION(name, result, params) result(*name) params = nullptr;
#include "backend/nvrtc_functions.def"
};

const std::vector<std::string> kNvrtcNames = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};

std::optional<NvrtcTable> loadNvrtc(const Toolchain& toolchain, std::string& error) {
  void* library = openToolkitLibrary(toolchain, "NVRTC", kNvrtcNames, error);
  if (!library) return std::nullopt;
  NvrtcTable table;
#define WEFT_NVRTC_FUNCTION(name, result, params)                                         \
  table.name = reinterpret_cast<decltype(table.name)>(::dlsym(library, #name));           \
  if (!table.name) {                                                                      \
    error = "NVRTC library lacks " #name;                                                 \
    return std::nullopt;                                                                  \
  }
#include "backend/nvrtc_functions.def"
  return table;
}

}  // namespace

std::vector<std::string> nvrtcOptions(const Toolchain& toolchain, const CompileOptions& options) {
  std::vector<std::string> result;
  bool virtualArch = options.output != DeviceCode::Cubin;
  result.push_back("-arch=" + sema::targetName(options.target, virtualArch ? "compute_" : "sm_"));
  if (options.relocatable || options.output == DeviceCode::LtoIr) result.push_back("-rdc=true");
  if (options.output == DeviceCode::LtoIr) result.push_back("-dlto");
  if (options.output == DeviceCode::CheckOnly) result.push_back("-fdevice-syntax-only");
  result.push_back("-std=c++20");
  // Functions without an execution space are device functions: weft's headers are plain C++
  // shared with the host target, so they need no __device__ annotations.
  result.push_back("-default-device");
  if (!toolchain.weftIncludeDir.empty()) result.push_back("-I" + toolchain.weftIncludeDir);
  for (const std::string& folder : options.includeDirs) result.push_back("-I" + folder);
  // For cuda_fp16.h and friends, and libcu++ (the interoperable units' ABI check), which only
  // programs that use them include.
  for (const std::string& folder : toolchain.cudaIncludeDirs) result.push_back("-I" + folder);
  for (const std::string& define : options.defines) result.push_back("-D" + define);
  if (options.fastMath) result.push_back("--use_fast_math");
  // Line tables (no effect on the generated code): with the unit's #line directives,
  // compute-sanitizer and cuda-gdb name the Python file and line of a fault.
  result.push_back("-lineinfo");
  if (!options.debug) result.push_back("-DNDEBUG");
  if (options.checks) result.push_back("-DWEFT_CHECKS");
  return result;
}

namespace {

// Whether NVRTC compiles an empty program for `target`: how weft learns which `a`/`f` variants
// this NVRTC accepts (nvrtcGetSupportedArchs lists architecture numbers only).
bool acceptsTarget(const NvrtcTable& nvrtc, sema::GpuTarget target) {
  NvrtcProgram program = nullptr;
  if (nvrtc.nvrtcCreateProgram(&program, "", "probe.cu", 0, nullptr, nullptr) != 0) return false;
  std::string option = "-arch=" + sema::targetName(target, "compute_");
  const char* options[] = {option.c_str(), "-fdevice-syntax-only"};
  bool accepted = nvrtc.nvrtcCompileProgram(program, 2, options) == 0;
  nvrtc.nvrtcDestroyProgram(&program);
  return accepted;
}

std::vector<int> supportedArchitectures(const NvrtcTable& nvrtc) {
  int count = 0;
  if (nvrtc.nvrtcGetNumSupportedArchs(&count) != 0 || count <= 0) return {};
  std::vector<int> archs(static_cast<size_t>(count));
  if (nvrtc.nvrtcGetSupportedArchs(archs.data()) != 0) return {};
  return archs;
}

std::vector<sema::GpuTarget> supportedTargets(const NvrtcTable& nvrtc) {
  std::vector<int> archs = supportedArchitectures(nvrtc);
  std::vector<sema::GpuTarget> targets;
  for (sema::GpuTarget target : sema::knownTargets()) {
    if (std::find(archs.begin(), archs.end(), target.arch) == archs.end()) continue;
    if (target.features == sema::FeatureSet::Baseline || acceptsTarget(nvrtc, target)) targets.push_back(target);
  }
  return targets;
}

std::string versionOf(const NvrtcTable& nvrtc) {
  int major = 0, minor = 0;
  if (nvrtc.nvrtcVersion(&major, &minor) != 0) return {};
  return std::to_string(major) + "." + std::to_string(minor);
}

// The message of a target NVRTC refuses, listing the targets it compiles for.
std::string refusal(const NvrtcTable& nvrtc, sema::GpuTarget target) {
  std::string list;
  for (sema::GpuTarget supported : supportedTargets(nvrtc)) list += (list.empty() ? "" : " ") + sema::targetName(supported);
  return "NVRTC " + versionOf(nvrtc) + " cannot compile for " + sema::targetName(target) + "; it compiles for " + list;
}

}  // namespace

Artifact compileWithNvrtc(const Toolchain& toolchain, const std::string& source, const std::string& name,
                          const CompileOptions& options) {
  Artifact artifact;
  std::optional<NvrtcTable> nvrtc = loadNvrtc(toolchain, artifact.log);
  if (!nvrtc) return artifact;
  std::vector<int> archs = supportedArchitectures(*nvrtc);
  if (std::find(archs.begin(), archs.end(), options.target.arch) == archs.end()) {
    artifact.refused = true;
    artifact.log = refusal(*nvrtc, options.target);
    return artifact;
  }
  NvrtcProgram program = nullptr;
  int status = nvrtc->nvrtcCreateProgram(&program, source.c_str(), name.c_str(), 0, nullptr, nullptr);
  if (status != 0) {
    artifact.log = std::string("nvrtcCreateProgram failed: ") + nvrtc->nvrtcGetErrorString(status);
    return artifact;
  }
  std::vector<std::string> optionStrings = nvrtcOptions(toolchain, options);
  std::vector<const char*> optionPointers;
  for (const std::string& option : optionStrings) optionPointers.push_back(option.c_str());
  int compiled = nvrtc->nvrtcCompileProgram(program, static_cast<int>(optionPointers.size()), optionPointers.data());
  size_t logSize = 0;
  if (nvrtc->nvrtcGetProgramLogSize(program, &logSize) == 0 && logSize > 1) {
    artifact.log.resize(logSize);
    nvrtc->nvrtcGetProgramLog(program, artifact.log.data());
    artifact.log.resize(logSize - 1);  // the log is NUL-terminated
  }
  if (compiled != 0) {
    if (artifact.log.empty()) artifact.log = std::string("nvrtcCompileProgram failed: ") + nvrtc->nvrtcGetErrorString(compiled);
    nvrtc->nvrtcDestroyProgram(&program);
    // The architecture is listed, but this NVRTC may predate its `a`/`f` variant.
    if (options.target.features != sema::FeatureSet::Baseline && !acceptsTarget(*nvrtc, options.target)) {
      artifact.refused = true;
      artifact.log = refusal(*nvrtc, options.target);
    }
    return artifact;
  }
  size_t size = 0;
  const char* getter = "nvrtcGetCUBIN";
  switch (options.output) {
    case DeviceCode::Cubin:
      status = nvrtc->nvrtcGetCUBINSize(program, &size);
      if (status == 0) status = nvrtc->nvrtcGetCUBIN(program, artifact.bytes.assign(size, '\0').data());
      break;
    case DeviceCode::Ptx:
      getter = "nvrtcGetPTX";
      status = nvrtc->nvrtcGetPTXSize(program, &size);
      if (status == 0) status = nvrtc->nvrtcGetPTX(program, artifact.bytes.assign(size, '\0').data());
      // PTX comes NUL-terminated; the text is what callers want.
      if (status == 0 && !artifact.bytes.empty() && artifact.bytes.back() == '\0') artifact.bytes.pop_back();
      break;
    case DeviceCode::LtoIr:
      getter = "nvrtcGetLTOIR";
      status = nvrtc->nvrtcGetLTOIRSize(program, &size);
      if (status == 0) status = nvrtc->nvrtcGetLTOIR(program, artifact.bytes.assign(size, '\0').data());
      break;
    case DeviceCode::CheckOnly: break;
  }
  if (status != 0) {
    artifact.bytes.clear();
    artifact.log += std::string(getter) + " failed: " + nvrtc->nvrtcGetErrorString(status);
  } else {
    artifact.ok = true;
  }
  nvrtc->nvrtcDestroyProgram(&program);
  return artifact;
}

std::string nvrtcVersion(const Toolchain& toolchain) {
  std::string error;
  std::optional<NvrtcTable> nvrtc = loadNvrtc(toolchain, error);
  return nvrtc ? versionOf(*nvrtc) : std::string();
}

std::vector<sema::GpuTarget> nvrtcSupportedTargets(const Toolchain& toolchain) {
  std::string error;
  std::optional<NvrtcTable> nvrtc = loadNvrtc(toolchain, error);
  return nvrtc ? supportedTargets(*nvrtc) : std::vector<sema::GpuTarget>();
}

std::string nvrtcIdentity(const Toolchain& toolchain) {
  for (const std::string& candidate : toolkitLibraryCandidates(toolchain, kNvrtcNames)) {
    struct stat status {};
    if (candidate.find('/') != std::string::npos && ::stat(candidate.c_str(), &status) == 0)
      return candidate + ":" + std::to_string(status.st_size) + ":" + std::to_string(status.st_mtim.tv_sec) + "." +
             std::to_string(status.st_mtim.tv_nsec);
  }
  return nvrtcVersion(toolchain);
}

}  // namespace weft::backend
