// support/identifiers: interoperable functions keep their Python names as extern "C" symbols,
// so interopSymbolProblem() must reject every name that collides with the headers a unit sees.
// The exhaustive tests declare every identifier of those headers that it accepts as an
// interoperable function and compile the unit for the CPU target and through NVRTC.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "support/identifiers.h"

#ifndef WEFT_SOURCE_DIR
#error "WEFT_SOURCE_DIR must name the repository (CMake defines it for weft_tests)"
#endif

namespace weft {
namespace {

namespace fs = std::filesystem;

backend::Toolchain localToolchain() {
  return backend::discoverToolchain(std::string(WEFT_SOURCE_DIR) + "/include");
}

// What `command` prints on stdout; `ok` tells whether it exited with 0.
std::string output(const std::string& command, bool& ok) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    ok = false;
    return out;
  }
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  ok = pclose(pipe) == 0;
  return out;
}

bool isWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Adds every identifier-shaped word of `text` (numbers' digits and suffixes aside).
void addIdentifiers(const std::string& text, std::set<std::string>& names) {
  for (size_t i = 0; i < text.size();) {
    if (!isWordChar(text[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && isWordChar(text[end])) ++end;
    if (text[i] < '0' || text[i] > '9') names.insert(text.substr(i, end - i));
    i = end;
  }
}

const char kHeaders[] =
    "#include <weft/device/runtime.h>\n#include <weft/device/fp16.h>\n#include <weft/device/vector.h>\n"
    "#include <weft/device/simt.h>\n#include <weft/device/atomics.h>\n#include <weft/device/print.h>\n";

// A unit that declares every name of `names` that interopSymbolProblem() accepts as an
// interoperable function, as codegen emits one.
std::string unitOfAccepted(const std::set<std::string>& names, bool gpu, size_t& accepted) {
  std::string unit = kHeaders;
  if (gpu) unit += "#include <weft/interop.h>\n#include <cuda/std/complex>\n";
  accepted = 0;
  for (const std::string& name : names) {
    if (!interopSymbolProblem(name).empty()) continue;
    unit += "WEFT_INTEROP_FN float " + name + "(float v_x_0) { return v_x_0; }\n";
    ++accepted;
  }
  return unit;
}

// The identifiers of the headers the CPU target's unit includes: those left after
// preprocessing, and the macros (-dM).
std::set<std::string> hostHeaderIdentifiers(const backend::Toolchain& toolchain) {
  fs::path source = fs::temp_directory_path() / ("weft_identifiers_" + std::to_string(getpid()) + ".cpp");
  std::ofstream(source) << kHeaders;
  std::set<std::string> names;
  for (const char* mode : {" -E -P", " -E -dM"}) {
    bool ok = false;
    std::string text = output(toolchain.hostCompiler + " -std=c++20 -DWEFT_HOST -I" +
                                  toolchain.weftIncludeDir + mode + " -x c++ " + source.string(),
                              ok);
    EXPECT_TRUE(ok) << mode;
    addIdentifiers(text, names);
  }
  fs::remove(source);
  return names;
}

// The identifiers of the toolkit headers that NVRTC and nvcc's device pass see in a unit.
std::set<std::string> cudaHeaderIdentifiers(const backend::Toolchain& toolchain) {
  const char* prefixes[] = {"cuda_fp",
                            "cuda_bf",
                            "vector_",
                            "device_",
                            "driver_",
                            "builtin_",
                            "sm_",
                            "texture_",
                            "surface_",
                            "cuda_runtime",
                            "cuda_device_runtime",
                            "library_types",
                            "host_defines",
                            "math_"};
  std::set<std::string> names;
  for (const std::string& folder : toolchain.cudaIncludeDirs) {
    for (const fs::path& dir : {fs::path(folder), fs::path(folder) / "crt"}) {
      if (!fs::is_directory(dir)) continue;
      for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
        std::string file = entry.path().filename().string();
        bool wanted = dir.filename() == "crt";
        for (const char* prefix : prefixes) wanted = wanted || file.starts_with(prefix);
        if (!wanted || !entry.is_regular_file()) continue;
        std::ifstream in(entry.path());
        addIdentifiers(std::string(std::istreambuf_iterator<char>(in), {}), names);
      }
    }
  }
  return names;
}

TEST(InteropSymbols, ProblemsAreNamed) {
  EXPECT_EQ(interopSymbolProblem("saxpy"), "");
  EXPECT_EQ(interopSymbolProblem("Gemm_X1"), "");
  EXPECT_EQ(interopSymbolProblem("float5"), "");
  EXPECT_EQ(interopSymbolProblem("make_pair"), "");
  EXPECT_NE(interopSymbolProblem("int").find("not a plain C identifier"), std::string_view::npos);
  EXPECT_NE(interopSymbolProblem("_x").find("not a plain C identifier"), std::string_view::npos);
  EXPECT_NE(interopSymbolProblem("a__b").find("not a plain C identifier"), std::string_view::npos);
  EXPECT_NE(interopSymbolProblem("caf\xc3\xa9").find("not a plain C identifier"), std::string_view::npos);
  for (const char* macro : {"NAN", "EOF", "INFINITY", "M_PI", "X1", "GEMM_2D"})
    EXPECT_NE(interopSymbolProblem(macro).find("like a C macro"), std::string_view::npos) << macro;
  for (const char* type : {"int32_t", "size_t", "cudaStream_t", "my_t"})
    EXPECT_NE(interopSymbolProblem(type).find("'_t'"), std::string_view::npos) << type;
  for (const char* library :
       {"errno",       "stdin",      "sqrtf",          "sqrtf64",  "lgammaf_r",  "strtof64_l",
        "fadd",        "f32addf64",  "half",           "int2",     "ulonglong4", "double4_32a",
        "make_float4", "threadIdx",  "warpSize",       "weft",     "std",        "cuda",
        "main",        "cudaMalloc", "cuLaunchKernel", "CUstream", "linux"})
    EXPECT_NE(interopSymbolProblem(library).find("C, C++ or CUDA libraries"), std::string_view::npos)
        << library;
  EXPECT_NE(interopSymbolProblem("weft_scale").find("weft_"), std::string_view::npos);
}

TEST(InteropSymbols, EveryAcceptedHeaderNameCompilesOnTheHost) {
  backend::Toolchain toolchain = localToolchain();
  if (toolchain.hostCompiler.empty()) GTEST_SKIP() << "no host C++ compiler";
  std::set<std::string> names = hostHeaderIdentifiers(toolchain);
  std::set<std::string> cuda = cudaHeaderIdentifiers(toolchain);
  names.insert(cuda.begin(), cuda.end());
  ASSERT_GT(names.size(), 2000u);
  size_t accepted = 0;
  std::string unit = unitOfAccepted(names, false, accepted);
  EXPECT_GT(accepted, 500u);
  fs::path source = fs::temp_directory_path() / ("weft_interop_names_" + std::to_string(getpid()) + ".cpp");
  std::ofstream(source) << unit;
  bool ok = false;
  std::string log = output(toolchain.hostCompiler + " -std=c++20 -DWEFT_HOST -I" + toolchain.weftIncludeDir +
                               " -fsyntax-only -fmax-errors=50 -x c++ " + source.string() + " 2>&1",
                           ok);
  fs::remove(source);
  EXPECT_TRUE(ok) << log;
}

TEST(InteropSymbols, EveryAcceptedHeaderNameCompilesWithNvrtc) {
  backend::Toolchain toolchain = localToolchain();
  if (backend::nvrtcVersion(toolchain).empty()) GTEST_SKIP() << "NVRTC is not installed";
  std::set<std::string> names = cudaHeaderIdentifiers(toolchain);
  if (!toolchain.hostCompiler.empty()) {
    std::set<std::string> host = hostHeaderIdentifiers(toolchain);
    names.insert(host.begin(), host.end());
  }
  ASSERT_GT(names.size(), 2000u);
  size_t accepted = 0;
  std::string unit = unitOfAccepted(names, true, accepted);
  EXPECT_GT(accepted, 500u);
  backend::CompileOptions options;
  options.target = {90};
  options.output = backend::DeviceCode::Ptx;
  backend::Artifact artifact = backend::compileWithNvrtc(toolchain, unit, "interop_names.cu", options);
  EXPECT_TRUE(artifact.ok) << artifact.log.substr(0, 4000);
}

}  // namespace
}  // namespace weft
