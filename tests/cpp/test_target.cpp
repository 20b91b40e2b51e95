// Target specialization: the SMSelector list matches the toolkit's NVRTC, and one emitted
// unit keeps a different branch of `if target(...)` in each lowering (host and per GPU
// architecture), combined into a fatbin that holds one cubin per architecture.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "codegen/codegen.h"
#include "sema/checker.h"
#include "sema_test_support.h"

#ifndef WEFT_SOURCE_DIR
#define WEFT_SOURCE_DIR "."
#endif

namespace weft {
namespace {

constexpr const char* kSource =
    "from cuda import device\n"
    "\n"
    "@device.kernel\n"
    "def k(a):\n"
    "    if device.target(device.is_exactly(device.sm80)):\n"
    "        a[0] = 80801\n"
    "    elif device.target(device.provides(device.sm90)):\n"
    "        a[0] = 90901\n"
    "    elif device.target(device.is_host):\n"
    "        a[0] = 12345\n"
    "    else:\n"
    "        a[0] = 77777\n";

backend::Toolchain toolchain() { return backend::discoverToolchain(WEFT_SOURCE_DIR "/include"); }

TEST(Target, SelectorsAreTheArchitecturesNvrtcSupports) {
  std::vector<int> nvrtc = backend::nvrtcSupportedArchitectures(toolchain());
  if (nvrtc.empty()) GTEST_SKIP() << "NVRTC not available";
  EXPECT_EQ(sema::supportedArchitectures(), nvrtc);
}

TEST(Target, EachArchitectureKeepsItsOwnBranch) {
  auto checked = testing::checkKernel(kSource, "k", {"int32[:]"});
  ASSERT_FALSE(checked->diagnostics.hasErrors()) << checked->errors;
  codegen::EmittedUnit unit = codegen::emitCuda(checked->program, checked->sources);
  EXPECT_NE(unit.source.find("#if __CUDA_ARCH__ == 800\n"), std::string::npos) << unit.source;
  EXPECT_NE(unit.source.find("#if __CUDA_ARCH__ >= 900\n"), std::string::npos) << unit.source;
  EXPECT_NE(unit.source.find("#if !__CUDA_ARCH__\n"), std::string::npos) << unit.source;
  backend::Toolchain tools = toolchain();
  if (backend::nvrtcVersion(tools).empty()) GTEST_SKIP() << "NVRTC not available";
  const std::pair<int, const char*> expected[] = {{75, "77777"}, {80, "80801"}, {90, "90901"}, {120, "90901"}};
  std::vector<std::pair<int, std::string>> cubins;
  for (const auto& [arch, constant] : expected) {
    backend::CompileOptions options;
    options.arch = arch;
    options.output = backend::DeviceCode::Ptx;
    backend::Artifact ptx = backend::compileWithNvrtc(tools, unit.source, "k.cu", options);
    ASSERT_TRUE(ptx.ok) << ptx.log;
    for (const char* other : {"80801", "90901", "12345", "77777"})
      EXPECT_EQ(ptx.bytes.find(other) != std::string::npos, std::strcmp(other, constant) == 0)
          << "sm_" << arch << " and " << other << "\n" << ptx.bytes;
    if (arch == 80 || arch == 90) {
      options.output = backend::DeviceCode::Cubin;
      backend::Artifact cubin = backend::compileWithNvrtc(tools, unit.source, "k.cu", options);
      ASSERT_TRUE(cubin.ok) << cubin.log;
      cubins.emplace_back(arch, cubin.bytes);
    }
  }
  backend::Artifact fatbin = backend::createFatbin(tools, cubins);
  ASSERT_TRUE(fatbin.ok) << fatbin.log;
  // The fatbin holds each cubin verbatim, after a header that names its architecture.
  for (const auto& [arch, cubin] : cubins) EXPECT_NE(fatbin.bytes.find(cubin), std::string::npos) << arch;
}

}  // namespace
}  // namespace weft
