// Test helpers of the runtime's tests: the environment and a temporary directory for a test's
// lifetime, weft's include directory, and launch arguments.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "scoped_test_state.h"

#include "runtime/runtime.h"

#ifndef WEFT_SOURCE_DIR
#define WEFT_SOURCE_DIR "."
#endif

namespace weft::runtime {

namespace fs = std::filesystem;
using types::ScalarKind;

using test::ScopedEnvironment;
using test::TemporaryDirectory;

inline std::string includeDir() { return std::string(WEFT_SOURCE_DIR) + "/include"; }

// The kernels' entries (cubins, shared objects) of the disk cache in `directory`: not the one
// that remembers the headers' hash (headersHash).
inline std::vector<fs::path> kernelCacheEntries(const std::string& directory) {
  std::vector<fs::path> found;
  for (const auto& entry : fs::directory_iterator(directory))
    if (entry.path().extension() == ".bin" && !entry.path().filename().string().starts_with("headers-"))
      found.push_back(entry.path());
  return found;
}

inline ArgumentValue arrayArgument(void* data, ScalarKind dtype, std::vector<int64_t> shape, std::vector<int64_t> strides) {
  ArgumentValue argument;
  argument.kind = ArgumentValue::Kind::Array;
  argument.array.data = data;
  argument.array.dtype = dtype;
  argument.array.ndim = static_cast<int>(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    argument.array.shape[d] = shape[d];
    argument.array.strides[d] = strides[d];
  }
  return argument;
}

inline ArgumentValue intArgument(ScalarKind kind, int64_t value) {
  ArgumentValue argument;
  argument.scalar = kind;
  argument.intValue = value;
  return argument;
}

inline ArgumentValue floatArgument(ScalarKind kind, double value, double imaginary = 0) {
  ArgumentValue argument;
  argument.scalar = kind;
  argument.floatValue = value;
  argument.imagValue = imaginary;
  return argument;
}

// Expects `statement` to throw LaunchError of `kind` whose message contains `text`.
#define EXPECT_LAUNCH_ERROR(statement, errorKind, text)                              \
  do {                                                                               \
    try {                                                                            \
      statement;                                                                     \
      ADD_FAILURE() << "no LaunchError from " #statement;                            \
    } catch (const LaunchError& error) {                                             \
      EXPECT_EQ(error.kind(), errorKind) << error.what();                            \
      EXPECT_NE(std::string(error.what()).find(text), std::string::npos) << error.what(); \
    }                                                                                \
  } while (false)

// A test on the GPU, skipped without one, with its own disk cache.
struct GpuFixture : ::testing::Test {
  TemporaryDirectory cacheDirectory;
  ScopedEnvironment cacheDir{"WEFT_CACHE_DIR", cacheDirectory.path().c_str()};
  ScopedEnvironment cacheSwitch{"WEFT_CACHE", nullptr};
  Compiler compiler{includeDir()};
  void SetUp() override {
    if (!compiler.gpuAvailable()) GTEST_SKIP() << "no GPU";
  }
};

}  // namespace weft::runtime
