// Runtime: argument packing, launch validation, the CPU block runner (through a hand-written
// host translation unit, and directly with kernels written against the device headers), and
// behaviour without a GPU.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cfenv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/argument_packing.h"
#include "runtime/cpu_runner.h"
#include "runtime/loaded_kernels.h"
#include "runtime/runtime.h"
#include "runtime_test_support.h"
#include "support/check.h"
#include "weft/device/atomics.h"
#include "weft/device/intrinsics.h"

namespace weft::runtime {
namespace {

template <typename T>
T read(const unsigned char* storage, size_t offset) {
  T value;
  std::memcpy(&value, storage + offset, sizeof value);
  return value;
}


TEST(HalfFloat, RoundsToNearestEven) {
  EXPECT_EQ(halfBitsFromFloat(1.0f), 0x3c00);
  EXPECT_EQ(halfBitsFromFloat(-2.0f), 0xc000);
  EXPECT_EQ(halfBitsFromFloat(0.0f), 0x0000);
  EXPECT_EQ(halfBitsFromFloat(-0.0f), 0x8000);
  EXPECT_EQ(halfBitsFromFloat(65504.0f), 0x7bff);
  EXPECT_EQ(halfBitsFromFloat(65520.0f), 0x7c00);  // rounds up to infinity
  EXPECT_EQ(halfBitsFromFloat(1e9f), 0x7c00);
  EXPECT_EQ(halfBitsFromFloat(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(halfBitsFromFloat(std::ldexp(1.0f, -25)), 0x0000);  // a tie: rounds to even
  EXPECT_EQ(halfBitsFromFloat(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(halfBitsFromFloat(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(halfBitsFromFloat(1.0f + std::ldexp(1.0f, -11)), 0x3c00);  // tie to even
  EXPECT_EQ(halfBitsFromFloat(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);  // tie to even, up
  EXPECT_EQ(halfBitsFromFloat(0.1f), 0x2e66);
  EXPECT_EQ(halfBitsFromFloat(INFINITY), 0x7c00);
  uint16_t nan = halfBitsFromFloat(NAN);
  EXPECT_EQ(nan & 0x7c00, 0x7c00);
  EXPECT_NE(nan & 0x3ff, 0);
}

// The parameters of a hand-made kernel: (a: float32[:], n: int32, m: float64[:, :], z: complex128,
// flag: bool, h: float16, c: complex64, u: uint8).
struct PackingFixture : ::testing::Test {
  types::TypeContext types;
  FrontEndResult frontEnd;
  PackingFixture() {
    frontEnd.parameterTypes = {types.array(ScalarKind::Float32, 1), types.scalar(ScalarKind::Int32),
                               types.array(ScalarKind::Float64, 2), types.scalar(ScalarKind::Complex128),
                               types.scalar(ScalarKind::Bool),      types.scalar(ScalarKind::Float16),
                               types.scalar(ScalarKind::Complex64), types.scalar(ScalarKind::UInt8)};
    frontEnd.parameterNames = {"a", "n", "m", "z", "flag", "h", "c", "u"};
  }
  std::vector<ArgumentValue> goodArguments(float* a, double* m) {
    ArgumentValue flag;
    flag.scalar = ScalarKind::Bool;
    flag.intValue = 1;
    return {arrayArgument(a, ScalarKind::Float32, {7}, {3}),
            intArgument(ScalarKind::Int64, -123456),
            arrayArgument(m, ScalarKind::Float64, {4, 5}, {5, -1}),
            floatArgument(ScalarKind::Complex128, 1.5, -2.25),
            flag,
            floatArgument(ScalarKind::Float64, 0.5),
            intArgument(ScalarKind::Int32, 3),
            intArgument(ScalarKind::Int64, 255)};
  }
};

TEST_F(PackingFixture, LayoutFollowsTheCxxParameterAbi) {
  ParameterLayout layout("k", frontEnd);
  ASSERT_EQ(layout.count(), 8u);
  EXPECT_EQ(layout.offset(0), 0u);    // {float*, shape[1], strides[1]}: 24 bytes
  EXPECT_EQ(layout.offset(1), 24u);   // int32
  EXPECT_EQ(layout.offset(2), 32u);   // 8-aligned, {double*, shape[2], strides[2]}: 40 bytes
  EXPECT_EQ(layout.offset(3), 80u);   // complex128 aligned to 16
  EXPECT_EQ(layout.offset(4), 96u);   // bool
  EXPECT_EQ(layout.offset(5), 98u);   // float16 aligned to 2
  EXPECT_EQ(layout.offset(6), 104u);  // complex64 aligned to 8
  EXPECT_EQ(layout.offset(7), 112u);  // uint8
  EXPECT_EQ(layout.bytes(), 128u);
}

TEST_F(PackingFixture, PacksValues) {
  ParameterLayout layout("k", frontEnd);
  float a[21];
  double m[20];
  alignas(16) unsigned char storage[256];
  std::memset(storage, 0xcd, sizeof storage);
  void* pointers[8] = {};
  layout.pack(goodArguments(a, m), storage, pointers);
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(pointers[i], storage + layout.offset(i));
  EXPECT_EQ(read<float*>(storage, 0), a);
  EXPECT_EQ(read<uint64_t>(storage, 8), 7u);
  EXPECT_EQ(read<uint64_t>(storage, 16), 3u);  // strides in elements
  EXPECT_EQ(read<int32_t>(storage, 24), -123456);
  EXPECT_EQ(read<double*>(storage, 32), m);
  EXPECT_EQ(read<uint64_t>(storage, 40), 4u);
  EXPECT_EQ(read<uint64_t>(storage, 48), 5u);
  EXPECT_EQ(read<uint64_t>(storage, 56), 5u);
  EXPECT_EQ(read<int64_t>(storage, 64), -1);  // negative strides keep their bits
  EXPECT_EQ(read<double>(storage, 80), 1.5);
  EXPECT_EQ(read<double>(storage, 88), -2.25);
  EXPECT_EQ(read<uint8_t>(storage, 96), 1);
  EXPECT_EQ(read<uint16_t>(storage, 98), 0x3800);  // 0.5 as a half
  EXPECT_EQ(read<float>(storage, 104), 3.0f);
  EXPECT_EQ(read<float>(storage, 108), 0.0f);
  EXPECT_EQ(read<uint8_t>(storage, 112), 255);
}

TEST_F(PackingFixture, ConstExprArgumentsAreSkipped) {
  frontEnd.parameterTypes = {types.scalar(ScalarKind::Float32), types.scalar(ScalarKind::Int64)};
  frontEnd.parameterNames = {"x", "y"};
  frontEnd.argumentToParam = {0, -1, 1};
  ParameterLayout layout("k", frontEnd);
  alignas(16) unsigned char storage[16];
  void* pointers[2];
  ArgumentValue constant;
  constant.kind = ArgumentValue::Kind::Array;  // whatever it is, it is not packed
  layout.pack({floatArgument(ScalarKind::Float32, 2.5), constant, intArgument(ScalarKind::Int64, -9)}, storage,
              pointers);
  EXPECT_EQ(read<float>(storage, 0), 2.5f);
  EXPECT_EQ(read<int64_t>(storage, 8), -9);
  EXPECT_LAUNCH_ERROR(layout.pack({floatArgument(ScalarKind::Float32, 1)}, storage, pointers),
                      LaunchError::Kind::Type, "takes 3 arguments, got 1");
}

TEST_F(PackingFixture, WrongArgumentsAreLaunchErrorsNamingTheParameter) {
  ParameterLayout layout("my_kernel", frontEnd);
  float a[21];
  double m[20];
  alignas(16) unsigned char storage[256];
  void* pointers[8];
  auto withArgument = [&](size_t index, ArgumentValue value) {
    std::vector<ArgumentValue> arguments = goodArguments(a, m);
    arguments[index] = value;
    layout.pack(arguments, storage, pointers);
  };
  using Kind = LaunchError::Kind;
  EXPECT_LAUNCH_ERROR(withArgument(0, arrayArgument(m, ScalarKind::Float64, {7}, {1})), Kind::Type,
                      "kernel 'my_kernel', parameter 'a': expected array(float32, 1d), got array(float64, 1d)");
  EXPECT_LAUNCH_ERROR(withArgument(2, arrayArgument(m, ScalarKind::Float64, {20}, {1})), Kind::Type,
                      "parameter 'm': expected array(float64, 2d), got array(float64, 1d)");
  EXPECT_LAUNCH_ERROR(withArgument(0, floatArgument(ScalarKind::Float32, 1)), Kind::Type,
                      "expected array(float32, 1d), got float32");
  EXPECT_LAUNCH_ERROR(withArgument(1, arrayArgument(a, ScalarKind::Float32, {7}, {1})), Kind::Type,
                      "parameter 'n': expected a int32 scalar, got array(float32, 1d)");
  EXPECT_LAUNCH_ERROR(withArgument(1, floatArgument(ScalarKind::Float64, 1.5)), Kind::Type,
                      "parameter 'n': expected int32, got float64");
  EXPECT_LAUNCH_ERROR(withArgument(1, intArgument(ScalarKind::Int64, int64_t{1} << 31)), Kind::Value,
                      "2147483648 does not fit in int32");
  EXPECT_LAUNCH_ERROR(withArgument(7, intArgument(ScalarKind::Int64, -1)), Kind::Value, "-1 does not fit in uint8");
  EXPECT_LAUNCH_ERROR(withArgument(7, intArgument(ScalarKind::Int64, 256)), Kind::Value, "256 does not fit in uint8");
  EXPECT_LAUNCH_ERROR(withArgument(4, intArgument(ScalarKind::Int32, 1)), Kind::Type,
                      "parameter 'flag': expected bool, got int32");
  EXPECT_LAUNCH_ERROR(withArgument(5, floatArgument(ScalarKind::Complex64, 1, 1)), Kind::Type,
                      "a complex value cannot become a real parameter");
  EXPECT_LAUNCH_ERROR(withArgument(2, arrayArgument(m, ScalarKind::Float64, {4, -5}, {5, 1})), Kind::Value,
                      "negative extent");
}

TEST_F(PackingFixture, UnsignedSixtyFourBitValuesKeepTheirBits) {
  frontEnd.parameterTypes = {types.scalar(ScalarKind::UInt64), types.scalar(ScalarKind::Int64)};
  frontEnd.parameterNames = {"big", "signed_"};
  ParameterLayout layout("k", frontEnd);
  alignas(16) unsigned char storage[16];
  void* pointers[2];
  ArgumentValue big = intArgument(ScalarKind::UInt64, static_cast<int64_t>(~uint64_t{0}));
  layout.pack({big, intArgument(ScalarKind::Int64, -5)}, storage, pointers);
  EXPECT_EQ(read<uint64_t>(storage, 0), ~uint64_t{0});
  EXPECT_LAUNCH_ERROR(layout.pack({big, big}, storage, pointers), LaunchError::Kind::Value,
                      "18446744073709551615 does not fit in int64");
}

TEST(LaunchValidation, RejectsConfigurationsBeforeTheDriverSeesThem) {
  DeviceLimits limits;
  auto config = [](std::array<uint32_t, 3> grid, std::array<uint32_t, 3> block, uint32_t shared = 0) {
    LaunchConfig result;
    result.grid = grid;
    result.block = block;
    result.sharedBytes = shared;
    return result;
  };
  using Kind = LaunchError::Kind;
  EXPECT_NO_THROW(validateLaunch("k", config({1000, 2, 3}, {32, 32, 1}, 1024), limits, 1024, 0));
  EXPECT_LAUNCH_ERROR(validateLaunch("k", config({1, 1, 1}, {64, 32, 1}), limits, 1024, 0), Kind::Value,
                      "kernel 'k': block (64, 32, 1) has 2048 threads; the device allows at most 1024 per block");
  EXPECT_LAUNCH_ERROR(validateLaunch("k", config({1, 1, 1}, {1, 1, 65}), limits, 1024, 0), Kind::Value,
                      "at most 64 threads along z");
  EXPECT_LAUNCH_ERROR(validateLaunch("k", config({0, 1, 1}, {1, 1, 1}), limits, 1024, 0), Kind::Value,
                      "has no blocks along x");
  EXPECT_LAUNCH_ERROR(validateLaunch("k", config({1, 1, 1}, {1, 0, 1}), limits, 1024, 0), Kind::Value,
                      "has no threads along y");
  EXPECT_LAUNCH_ERROR(validateLaunch("k", config({1, 70000, 1}, {1, 1, 1}), limits, 1024, 0), Kind::Value,
                      "at most 65535 blocks along y");
  EXPECT_LAUNCH_ERROR(validateLaunch("k", config({1, 1, 1}, {512, 1, 1}), limits, 256, 0), Kind::Value,
                      "this kernel can run at most 256 per block");
  EXPECT_LAUNCH_ERROR(validateLaunch("k", config({1, 1, 1}, {1, 1, 1}, 232000), limits, 1024, 1024), Kind::Value,
                      "232000 bytes of dynamic shared memory requested (plus 1024 bytes of shared_arrays)");
}

TEST(NoGpu, EverythingDegradesToErrors) {
  Compiler compiler(includeDir());
  if (compiler.gpuAvailable()) GTEST_SKIP() << "a GPU is present";
  EXPECT_FALSE(compiler.gpuAvailable());  // asking twice is fine
  EXPECT_FALSE(compiler.isDevicePointer(0x1000));
  try {
    compiler.gpuArchitecture();
    ADD_FAILURE() << "gpuArchitecture() without a GPU";
  } catch (const CudaError& error) {
    EXPECT_NE(std::string(error.what()).find("no CUDA GPU is available"), std::string::npos) << error.what();
  }
  EXPECT_THROW(compiler.allocate(16), CudaError);
  EXPECT_THROW(compiler.synchronize(0), CudaError);
  FrontEndResult frontEnd;
  frontEnd.ok = true;
  EXPECT_THROW(compiler.load(frontEnd, Target::Gpu, CompilerOptions{}), CudaError);
}

// A hand-written host TU as codegen would emit it for the CPU target: block sums with shared
// memory and barriers, a variant where half the threads leave early, and a 3-D saxpy without
// barriers. Array descriptors follow include/weft/device/array.h.
constexpr const char* kHostUnit = R"(
#include <weft/device/host_context.h>
#include <cstdint>

namespace {
template <typename T, int N> struct Array { T* data; uint64_t shape[N]; uint64_t strides[N]; };
}

// Tree reduction over the block: out[block] = sum(in[block*blockDim : ...]); shared memory is
// [static partial sums: blockDim floats][dynamic: one counter of barrier rounds].
extern "C" void weft_block_sum(weft::host::ThreadContext* ctx, void** args) {
  auto& in = *static_cast<Array<float, 1>*>(args[0]);
  auto& out = *static_cast<Array<float, 1>*>(args[1]);
  float* partial = reinterpret_cast<float*>(ctx->sharedMemory);
  int* rounds = reinterpret_cast<int*>(ctx->sharedMemory + 256 * sizeof(float));
  unsigned t = ctx->threadIdx.x;
  uint64_t i = uint64_t{ctx->blockIdx.x} * ctx->blockDim.x + t;
  partial[t] = i < in.shape[0] ? in.data[i * in.strides[0]] : 0.0f;
  ctx->barrier(ctx);
  for (unsigned stride = ctx->blockDim.x / 2; stride > 0; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
    if (t == 0) ++*rounds;
    ctx->barrier(ctx);
  }
  if (t == 0) out.data[ctx->blockIdx.x * out.strides[0]] = partial[0] + 1000.0f * static_cast<float>(*rounds);
}

// Threads of the upper half return before the barriers; the lower half reduces its values.
extern "C" void weft_early_exit(weft::host::ThreadContext* ctx, void** args) {
  auto& in = *static_cast<Array<int64_t, 1>*>(args[0]);
  auto& out = *static_cast<Array<int64_t, 1>*>(args[1]);
  int64_t* partial = reinterpret_cast<int64_t*>(ctx->sharedMemory);
  unsigned t = ctx->threadIdx.x;
  unsigned half = ctx->blockDim.x / 2;
  if (t >= half) return;
  partial[t] = in.data[uint64_t{ctx->blockIdx.x} * half + t];
  ctx->barrier(ctx);
  for (unsigned stride = half / 2; stride > 0; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
    ctx->barrier(ctx);
  }
  if (t == 0) out.data[ctx->blockIdx.x] = partial[0];
}

// y[z][y][x] = a * x[z][y][x] + y[z][y][x] on a 3-D grid of 3-D blocks, no barriers.
// Counts its launches in the library: kernels that share one loaded library share the count.
static int32_t launches = 0;
extern "C" void weft_count_launches(weft::host::ThreadContext* ctx, void** args) {
  auto& out = *static_cast<Array<int32_t, 1>*>(args[0]);
  if (ctx->threadIdx.x == 0 && ctx->blockIdx.x == 0) out.data[0] = ++launches;
}

extern "C" void weft_saxpy3d(weft::host::ThreadContext* ctx, void** args) {
  float a = *static_cast<float*>(args[0]);
  auto& x = *static_cast<Array<double, 3>*>(args[1]);
  auto& y = *static_cast<Array<double, 3>*>(args[2]);
  uint64_t i = uint64_t{ctx->blockIdx.x} * ctx->blockDim.x + ctx->threadIdx.x;
  uint64_t j = uint64_t{ctx->blockIdx.y} * ctx->blockDim.y + ctx->threadIdx.y;
  uint64_t k = uint64_t{ctx->blockIdx.z} * ctx->blockDim.z + ctx->threadIdx.z;
  if (k >= x.shape[0] || j >= x.shape[1] || i >= x.shape[2]) return;
  double value = x.data[k * x.strides[0] + j * x.strides[1] + i * x.strides[2]];
  y.data[k * y.strides[0] + j * y.strides[1] + i * y.strides[2]] += a * value;
}

)";

FrontEndResult hostUnit(const std::string& entry, std::vector<const types::Type*> params,
                        uint64_t staticShared) {
  FrontEndResult frontEnd;
  frontEnd.ok = true;
  frontEnd.unit.source = kHostUnit;
  frontEnd.unit.kernelSymbol = entry;
  frontEnd.unit.hostEntrySymbol = entry;
  frontEnd.unit.hostSharedBytes = staticShared;
  frontEnd.kernelName = entry.substr(5);
  frontEnd.parameterTypes = std::move(params);
  for (size_t i = 0; i < frontEnd.parameterTypes.size(); ++i)
    frontEnd.parameterNames.push_back("p" + std::to_string(i));
  return frontEnd;
}

struct CpuRunnerFixture : ::testing::Test {
  TemporaryDirectory cacheDirectory;
  ScopedEnvironment cacheDir{"WEFT_CACHE_DIR", cacheDirectory.path().c_str()};
  ScopedEnvironment cacheSwitch{"WEFT_CACHE", nullptr};
  std::mt19937 generator{12345};
};

TEST_F(CpuRunnerFixture, BlockReductionWithBarriersAndSharedMemory) {
  Compiler compiler(includeDir());
  types::TypeContext& types = compiler.types();
  const types::Type* floats = types.array(ScalarKind::Float32, 1);
  FrontEndResult frontEnd = hostUnit("weft_block_sum", {floats, floats}, 256 * sizeof(float));
  std::shared_ptr<LoadedKernel> kernel = compiler.load(frontEnd, Target::Cpu, CompilerOptions{});
  EXPECT_EQ(kernel->target(), Target::Cpu);

  const uint32_t blocks = 37, threads = 256;
  const size_t n = blocks * threads - 100;  // the last block is partial
  std::uniform_real_distribution<float> values(-1.0f, 1.0f);
  std::vector<float> input(2 * n);  // a strided view: every other element
  for (float& value : input) value = values(generator);
  std::vector<float> output(blocks, -1.0f);
  LaunchConfig config;
  config.grid = {blocks, 1, 1};
  config.block = {threads, 1, 1};
  config.sharedBytes = sizeof(int);
  kernel->launch(config, {arrayArgument(input.data(), ScalarKind::Float32, {static_cast<int64_t>(n)}, {2}),
                          arrayArgument(output.data(), ScalarKind::Float32, {blocks}, {1})});
  for (uint32_t b = 0; b < blocks; ++b) {
    double expected = 0;
    for (size_t i = b * threads; i < std::min<size_t>(n, (b + 1) * threads); ++i) expected += input[2 * i];
    // 8 rounds of barriers, counted in zero-initialized dynamic shared memory.
    EXPECT_NEAR(output[b], expected + 8000.0, 1e-3) << "block " << b;
  }
}

TEST_F(CpuRunnerFixture, SpecializationsOfOneUnitShareItsCodeButNotTheirParameters) {
  Compiler compiler(includeDir());
  types::TypeContext& types = compiler.types();
  FrontEndResult first = hostUnit("weft_count_launches", {types.array(ScalarKind::Int32, 1)}, 0);
  // Another specialization that generated the same unit (another module's copy of the kernel):
  // its parameter has another name.
  FrontEndResult second = first;
  second.parameterNames = {"count"};
  std::shared_ptr<LoadedKernel> a = compiler.load(first, Target::Cpu, CompilerOptions{});
  std::shared_ptr<LoadedKernel> b = compiler.load(second, Target::Cpu, CompilerOptions{});
  std::vector<int32_t> count(1, -1);
  std::vector<ArgumentValue> arguments = {arrayArgument(count.data(), ScalarKind::Int32, {1}, {1})};
  LaunchConfig config;
  config.grid = {3, 1, 1};
  config.block = {32, 1, 1};
  a->launch(config, arguments);
  EXPECT_EQ(count[0], 1);
  b->launch(config, arguments);  // the library a loaded counts it: it was not loaded again
  EXPECT_EQ(count[0], 2);
  std::vector<float> floats(1);
  arguments = {arrayArgument(floats.data(), ScalarKind::Float32, {1}, {1})};
  EXPECT_LAUNCH_ERROR(a->launch(config, arguments), LaunchError::Kind::Type, "parameter 'p0': expected");
  EXPECT_LAUNCH_ERROR(b->launch(config, arguments), LaunchError::Kind::Type, "parameter 'count': expected");
}

TEST_F(CpuRunnerFixture, FinishedThreadsCountAsArrivedAtBarriers) {
  Compiler compiler(includeDir());
  types::TypeContext& types = compiler.types();
  const types::Type* ints = types.array(ScalarKind::Int64, 1);
  FrontEndResult frontEnd = hostUnit("weft_early_exit", {ints, ints}, 64 * sizeof(int64_t));
  std::shared_ptr<LoadedKernel> kernel = compiler.load(frontEnd, Target::Cpu, CompilerOptions{});
  const uint32_t blocks = 9, threads = 128;
  std::uniform_int_distribution<int64_t> values(-1000000, 1000000);
  std::vector<int64_t> input(blocks * threads / 2);
  for (int64_t& value : input) value = values(generator);
  std::vector<int64_t> output(blocks, 0);
  LaunchConfig config;
  config.grid = {blocks, 1, 1};
  config.block = {threads, 1, 1};
  kernel->launch(config, {arrayArgument(input.data(), ScalarKind::Int64, {static_cast<int64_t>(input.size())}, {1}),
                          arrayArgument(output.data(), ScalarKind::Int64, {blocks}, {1})});
  for (uint32_t b = 0; b < blocks; ++b)
    EXPECT_EQ(output[b], std::accumulate(input.begin() + b * 64, input.begin() + (b + 1) * 64, int64_t{0}));
}

TEST_F(CpuRunnerFixture, ThreeDimensionalGridWithoutBarriers) {
  Compiler compiler(includeDir());
  types::TypeContext& types = compiler.types();
  const types::Type* doubles = types.array(ScalarKind::Float64, 3);
  FrontEndResult frontEnd =
      hostUnit("weft_saxpy3d", {types.scalar(ScalarKind::Float32), doubles, doubles}, 0);
  std::shared_ptr<LoadedKernel> kernel = compiler.load(frontEnd, Target::Cpu, CompilerOptions{});
  const int64_t depth = 5, rows = 13, columns = 21;
  std::uniform_real_distribution<double> values(-10.0, 10.0);
  std::vector<double> x(depth * rows * columns), y(x.size());
  for (double& value : x) value = values(generator);
  for (double& value : y) value = values(generator);
  std::vector<double> expected = y;
  for (size_t i = 0; i < x.size(); ++i) expected[i] += 1.5f * x[i];
  LaunchConfig config;
  config.grid = {3, 4, 3};
  config.block = {8, 4, 2};
  kernel->launch(config, {floatArgument(ScalarKind::Float32, 1.5),
                          arrayArgument(x.data(), ScalarKind::Float64, {depth, rows, columns}, {rows * columns, columns, 1}),
                          arrayArgument(y.data(), ScalarKind::Float64, {depth, rows, columns}, {rows * columns, columns, 1})});
  for (size_t i = 0; i < y.size(); ++i) ASSERT_DOUBLE_EQ(y[i], expected[i]) << "element " << i;
}

TEST_F(CpuRunnerFixture, AForkedChildRunsGridsWithoutTheParentsThreads) {
  Compiler compiler(includeDir());
  types::TypeContext& types = compiler.types();
  const types::Type* ints = types.array(ScalarKind::Int64, 1);
  FrontEndResult frontEnd = hostUnit("weft_early_exit", {ints, ints}, 64 * sizeof(int64_t));
  std::shared_ptr<LoadedKernel> kernel = compiler.load(frontEnd, Target::Cpu, CompilerOptions{});
  std::vector<int64_t> input(4 * 64), output(4);
  std::iota(input.begin(), input.end(), int64_t{-50});
  LaunchConfig config;
  config.grid = {4, 1, 1};
  config.block = {128, 1, 1};
  std::vector<ArgumentValue> arguments = {arrayArgument(input.data(), ScalarKind::Int64, {256}, {1}),
                                          arrayArgument(output.data(), ScalarKind::Int64, {4}, {1})};
  kernel->launch(config, arguments);  // the pool's threads exist now
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    output.assign(4, 0);
    kernel->launch(config, arguments);
    bool ok = true;
    for (int b = 0; b < 4; ++b)
      ok = ok && output[b] == std::accumulate(input.begin() + b * 64, input.begin() + (b + 1) * 64, int64_t{0});
    ::_exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST_F(CpuRunnerFixture, LaunchErrorsOnTheCpuTarget) {
  Compiler compiler(includeDir());
  types::TypeContext& types = compiler.types();
  const types::Type* floats = types.array(ScalarKind::Float32, 1);
  FrontEndResult frontEnd = hostUnit("weft_block_sum", {floats, floats}, 1024);
  std::shared_ptr<LoadedKernel> kernel = compiler.load(frontEnd, Target::Cpu, CompilerOptions{});
  std::vector<float> data(16);
  std::vector<ArgumentValue> arguments = {arrayArgument(data.data(), ScalarKind::Float32, {16}, {1}),
                                          arrayArgument(data.data(), ScalarKind::Float32, {16}, {1})};
  LaunchConfig config;
  config.block = {2048, 1, 1};
  EXPECT_LAUNCH_ERROR(kernel->launch(config, arguments), LaunchError::Kind::Value, "kernel 'block_sum': block");
  config.block = {16, 1, 1};
  arguments[1] = arrayArgument(data.data(), ScalarKind::Int32, {16}, {1});
  EXPECT_LAUNCH_ERROR(kernel->launch(config, arguments), LaunchError::Kind::Type,
                      "parameter 'p1': expected array(float32, 1d), got array(int32, 1d)");
}

TEST_F(CpuRunnerFixture, SharedObjectsAreCachedOnDiskAndDamagedOnesRebuilt) {
  types::TypeContext types;
  const types::Type* floats = types.array(ScalarKind::Float32, 1);
  FrontEndResult frontEnd = hostUnit("weft_block_sum", {floats, floats}, 1024);
  std::vector<float> input(256), output(1);
  std::uniform_real_distribution<float> values(0.0f, 1.0f);
  for (float& value : input) value = values(generator);
  float expected = std::accumulate(input.begin(), input.end(), 0.0f) + 8000.0f;
  LaunchConfig config;
  config.block = {256, 1, 1};
  config.sharedBytes = 4;
  std::vector<ArgumentValue> arguments = {arrayArgument(input.data(), ScalarKind::Float32, {256}, {1}),
                                          arrayArgument(output.data(), ScalarKind::Float32, {1}, {1})};
  {
    Compiler compiler(includeDir());
    compiler.load(frontEnd, Target::Cpu, CompilerOptions{})->launch(config, arguments);
    EXPECT_NEAR(output[0], expected, 1e-2);
  }
  std::vector<fs::path> entries = kernelCacheEntries(cacheDirectory.path());
  ASSERT_EQ(entries.size(), 1u);
  fs::file_time_type built = fs::last_write_time(entries[0]);
  {
    output[0] = 0;
    Compiler compiler(includeDir());
    compiler.load(frontEnd, Target::Cpu, CompilerOptions{})->launch(config, arguments);
    EXPECT_NEAR(output[0], expected, 1e-2);
    EXPECT_EQ(fs::last_write_time(entries[0]), built);  // reused, not rebuilt
  }
  fs::resize_file(entries[0], 100);  // damaged
  {
    output[0] = 0;
    Compiler compiler(includeDir());
    compiler.load(frontEnd, Target::Cpu, CompilerOptions{})->launch(config, arguments);
    EXPECT_NEAR(output[0], expected, 1e-2);
    EXPECT_GT(fs::file_size(entries[0]), 100u);
  }
  {
    // Other options make another entry: the key hashes the compiler's arguments.
    CompilerOptions debug;
    debug.debug = true;
    Compiler compiler(includeDir());
    compiler.load(frontEnd, Target::Cpu, debug);
    EXPECT_EQ(kernelCacheEntries(cacheDirectory.path()).size(), 2u);
    CompilerOptions unchecked;
    unchecked.boundsCheck = BoundsCheck::Never;
    compiler.load(frontEnd, Target::Cpu, unchecked);
    EXPECT_EQ(kernelCacheEntries(cacheDirectory.path()).size(), 3u);
  }
}

// Where checks run: debug everywhere; bounds on the CPU target by default, everywhere or
// nowhere on request. WEFT_DEBUG and WEFT_BOUNDSCHECK, when set, decide for every kernel.
TEST(KernelOptions, TheEnvironmentDecidesWhenSet) {
  ScopedEnvironment debugVariable("WEFT_DEBUG", nullptr);
  ScopedEnvironment boundsVariable("WEFT_BOUNDSCHECK", nullptr);
  CompilerOptions plain = kernelOptions(false, true, std::nullopt);
  EXPECT_FALSE(plain.debug);
  EXPECT_TRUE(plain.fastMath);
  EXPECT_EQ(plain.boundsCheck, BoundsCheck::CpuOnly);
  EXPECT_TRUE(runsChecks(plain, Target::Cpu));
  EXPECT_FALSE(runsChecks(plain, Target::Gpu));
  EXPECT_TRUE(runsChecks(kernelOptions(true, false, std::nullopt), Target::Gpu));
  EXPECT_TRUE(runsChecks(kernelOptions(false, false, true), Target::Gpu));
  EXPECT_FALSE(runsChecks(kernelOptions(false, false, false), Target::Cpu));
  EXPECT_TRUE(runsChecks(kernelOptions(true, false, false), Target::Cpu));
  {
    ScopedEnvironment on("WEFT_DEBUG", "1");
    EXPECT_TRUE(kernelOptions(false, false, std::nullopt).debug);
  }
  {
    ScopedEnvironment off("WEFT_DEBUG", "0");
    EXPECT_FALSE(kernelOptions(true, false, std::nullopt).debug);
  }
  {
    ScopedEnvironment off("WEFT_BOUNDSCHECK", "0");
    EXPECT_EQ(kernelOptions(false, false, true).boundsCheck, BoundsCheck::Never);
  }
  {
    ScopedEnvironment on("WEFT_BOUNDSCHECK", "1");
    EXPECT_EQ(kernelOptions(false, false, std::nullopt).boundsCheck, BoundsCheck::Always);
  }
  {
    ScopedEnvironment empty("WEFT_BOUNDSCHECK", "");
    EXPECT_EQ(kernelOptions(false, false, false).boundsCheck, BoundsCheck::Never);
  }
  ScopedEnvironment bad("WEFT_DEBUG", "yes");
  try {
    kernelOptions(false, false, std::nullopt);
    ADD_FAILURE() << "WEFT_DEBUG=yes was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_EQ(std::string(error.what()), "WEFT_DEBUG must be 1 or 0 (or unset), not 'yes'");
  }
}

// The report of a failed check: the site's file, line and source, then the kernel, function,
// block and thread, and for an index the indices and shape.
TEST(KernelChecks, FailuresReadAsPythonMessages) {
  std::vector<codegen::EmittedUnit::CheckSite> sites(2);
  sites[0] = {"/src/k.py", 12, "helper", "return a[i, j]", ""};
  sites[1] = {"/src/k.py", 20, "k", "assert n > 0, 'empty'", "empty"};
  ErrorRecord record{};
  record.kind = static_cast<uint32_t>(CheckKind::Bounds);
  record.site = 0;
  record.detail = 1;
  record.block[0] = 3;
  record.thread[2] = 1;
  record.rank = record.indexCount = 2;
  record.index[0] = 1;
  record.index[1] = -9;
  record.shape[0] = 4;
  record.shape[1] = 8;
  record.axisIndex = -9;
  record.axisSize = 8;
  KernelCheckError bounds = checkFailure("k", sites, record);
  EXPECT_EQ(bounds.kind(), KernelCheckError::Kind::Index);
  EXPECT_EQ(
      std::string(bounds.what()),
      "/src/k.py:12: index -9 is out of bounds for axis 1 with size 8\n"
      "    return a[i, j]\n"
      "in kernel 'k', function 'helper', block (3, 0, 0), thread (0, 0, 1): index (1, -9) into an array of "
      "shape (4, 8)");
  record.indexCount = 0;
  record.rank = 1;
  EXPECT_NE(std::string(checkFailure("k", sites, record).what())
                .find(": an index of a slicing into an array of shape (4,)"),
            std::string::npos);
  record.kind = static_cast<uint32_t>(CheckKind::Assert);
  record.site = 1;
  KernelCheckError assertion = checkFailure("k", sites, record);
  EXPECT_EQ(assertion.kind(), KernelCheckError::Kind::Assertion);
  EXPECT_EQ(
      std::string(assertion.what()),
      "/src/k.py:20: empty\n    assert n > 0, 'empty'\nin kernel 'k', block (3, 0, 0), thread (0, 0, 1)");
  record.kind = static_cast<uint32_t>(CheckKind::View);
  record.detail = static_cast<uint32_t>(ViewFailure::ZeroStep);
  EXPECT_EQ(checkFailure("k", sites, record).kind(), KernelCheckError::Kind::Value);
  EXPECT_NE(std::string(checkFailure("k", sites, record).what()).find("k.py:20: slice step cannot be zero"),
            std::string::npos);
  record.kind = static_cast<uint32_t>(CheckKind::ZeroDivision);
  EXPECT_EQ(checkFailure("k", sites, record).kind(), KernelCheckError::Kind::ZeroDivision);
  record.site = 2;
  EXPECT_THROW(checkFailure("k", sites, record), InternalCompilerError);
}

// A unit whose constructor sets flush-to-zero in the thread that loads it, as crtfastmath.o
// does, and whose kernel records whether its threads keep a subnormal product.
constexpr const char* kFlushingUnit = R"(
#include <weft/device/host_context.h>
#include <cstdint>

__attribute__((constructor)) static void weft_test_set_flush_to_zero() {
#if defined(__x86_64__)
  unsigned mxcsr;
  __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
  mxcsr |= 0x8040;
  __asm__ volatile("ldmxcsr %0" : : "m"(mxcsr));
#else
  unsigned long fpcr;
  __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
  __asm__ volatile("msr fpcr, %0" : : "r"(fpcr | (1ul << 24)));
#endif
}

namespace {
template <typename T, int N> struct Array { T* data; uint64_t shape[N]; uint64_t strides[N]; };
}

extern "C" void weft_subnormal_probe(weft::host::ThreadContext* ctx, void** args) {
  auto& kept = *static_cast<Array<int32_t, 1>*>(args[0]);
  volatile float tiny = 1e-40f, one = 1.0f;
  volatile double tiny64 = 1e-310, one64 = 1.0;
  uint64_t i = uint64_t{ctx->blockIdx.x} * ctx->blockDim.x + ctx->threadIdx.x;
  kept.data[i] = (tiny * one != 0.0f) + 2 * (tiny64 * one64 != 0.0);
}
)";

bool keepsSubnormals() {
  volatile float tiny = 1e-40f, one = 1.0f;
  return tiny * one != 0.0f;
}

TEST_F(CpuRunnerFixture, LoadingLeavesTheThreadsFloatControlAndKernelsRunWithTheirOwn) {
  Compiler compiler(includeDir());
  FrontEndResult frontEnd;
  frontEnd.ok = true;
  frontEnd.unit.source = kFlushingUnit;
  frontEnd.unit.kernelSymbol = frontEnd.unit.hostEntrySymbol = "weft_subnormal_probe";
  frontEnd.kernelName = "subnormal_probe";
  frontEnd.parameterTypes = {compiler.types().array(ScalarKind::Int32, 1)};
  frontEnd.parameterNames = {"kept"};
  const uint32_t blocks = 16, threads = 64;
  std::vector<int32_t> kept(blocks * threads);
  LaunchConfig config;
  config.grid = {blocks, 1, 1};
  config.block = {threads, 1, 1};
  std::fenv_t start;
  std::fegetenv(&start);
  ASSERT_TRUE(keepsSubnormals());
  // Plain, fastmath, plain again: the last launch's blocks run where the fastmath ones ran.
  for (bool fastMath : {false, true, false}) {
    CompilerOptions options;
    options.fastMath = fastMath;
    std::shared_ptr<LoadedKernel> kernel = compiler.load(frontEnd, Target::Cpu, options);
    bool keptAfterLoad = keepsSubnormals();
    std::fesetenv(&start);  // the other tests run with the environment they started with
    EXPECT_TRUE(keptAfterLoad) << "loading the library made this thread flush subnormals";
    kept.assign(kept.size(), -1);
    kernel->launch(config, {arrayArgument(kept.data(), ScalarKind::Int32, {blocks * threads}, {1})});
    for (size_t i = 0; i < kept.size(); ++i)
      ASSERT_EQ(kept[i], fastMath ? 0 : 3) << "thread " << i << (fastMath ? " (fastmath)" : "");
    EXPECT_TRUE(keepsSubnormals());
  }
}

TEST_F(CpuRunnerFixture, DisabledCacheLeavesNoFiles) {
  ScopedEnvironment off("WEFT_CACHE", "0");
  types::TypeContext types;
  FrontEndResult frontEnd = hostUnit("weft_saxpy3d", {}, 0);
  {
    Compiler compiler(includeDir());
    EXPECT_NE(compiler.load(frontEnd, Target::Cpu, CompilerOptions{}), nullptr);
  }
  EXPECT_TRUE(fs::is_empty(cacheDirectory.path()));
}

TEST_F(CpuRunnerFixture, HostCompilerErrorsAreReported) {
  Compiler compiler(includeDir());
  FrontEndResult frontEnd = hostUnit("weft_missing", {}, 0);
  frontEnd.unit.source = "this is not C++";
  try {
    compiler.load(frontEnd, Target::Cpu, CompilerOptions{});
    ADD_FAILURE() << "no error";
  } catch (const CudaError& error) {
    EXPECT_NE(std::string(error.what()).find("kernel 'missing': the host C++ compiler failed"), std::string::npos)
        << error.what();
  }
}

// ---- the block runner itself, with kernels written against the device headers ----

struct RunnerArgs {
  int32_t* flags;
  float* values;
  double* sums;
  int64_t depth;
};

RunnerArgs& runnerArgs(void** args) {
  return *static_cast<RunnerArgs*>(args[0]);
}

GridLaunch gridOf(host::KernelEntry entry, void** arguments, uint32_t blocks, uint32_t threads) {
  GridLaunch launch;
  launch.entry = entry;
  launch.arguments = arguments;
  launch.grid = host::Dim3{blocks, 1, 1};
  launch.block = host::Dim3{threads, 1, 1};
  launch.kernelName = "test";
  return launch;
}

// Each thread fills a local array far larger than a default fiber stack, meets the others at a
// barrier and sums it.
constexpr size_t kBigLocal = 1 << 18;  // floats: 1 MiB
void bigLocalEntry(host::ThreadContext* context, void** args) {
  host::current = context;
  RunnerArgs& a = runnerArgs(args);
  float local[kBigLocal];
  int32_t i = tid_x();
  for (size_t k = 0; k < kBigLocal; ++k) local[k] = a.values[i] * static_cast<float>(k % 3);
  syncthreads();
  double total = 0;
  for (size_t k = 0; k < kBigLocal; ++k) total += local[k];
  a.sums[i] = total;
}

TEST(BlockRunner, SizesStacksFromTheKernelsLocalArrays) {
  std::mt19937 generator(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> values(3 * 24);
  for (float& v : values) v = uniform(generator);
  std::vector<double> sums(values.size());
  RunnerArgs args{nullptr, values.data(), sums.data(), 0};
  void* pointers[] = {&args};
  GridLaunch launch = gridOf(&bigLocalEntry, pointers, 3, 24);
  launch.localArrayBytes = kBigLocal * sizeof(float);
  BlockRunner runner;
  runner.run(launch);
  double per = 0;
  for (size_t k = 0; k < kBigLocal; ++k) per += static_cast<double>(k % 3);
  for (size_t i = 0; i < values.size(); ++i) EXPECT_NEAR(sums[i], values[i] * per, 1e-6 * per) << i;
}

// Recursion with 4 KiB frames until the stack runs out.
int64_t burn(int64_t depth) {
  volatile char frame[4096];
  frame[depth % 4096] = static_cast<char>(depth);
  if (depth == 0) return frame[0];
  return burn(depth - 1) + frame[depth % 4096];
}

void overflowEntry(host::ThreadContext* context, void** args) {
  host::current = context;
  RunnerArgs& a = runnerArgs(args);
  a.sums[tid_x()] = static_cast<double>(burn(a.depth));
}

TEST(BlockRunner, RefusesLocalArraysBeyondItsLimit) {
  std::vector<double> sums(1);
  RunnerArgs args{nullptr, nullptr, sums.data(), 0};
  void* pointers[] = {&args};
  GridLaunch launch = gridOf(&overflowEntry, pointers, 1, 1);
  launch.localArrayBytes = (uint64_t{64} << 20) + 1;
  BlockRunner runner;
  try {
    runner.run(launch);
    ADD_FAILURE() << "no error";
  } catch (const CudaError& error) {
    EXPECT_NE(std::string(error.what()).find("67108865 bytes of local arrays per thread"), std::string::npos)
        << error.what();
  }
}

TEST(BlockRunner, AStackOverflowStopsTheGridWithAnError) {
  std::vector<double> sums(64);
  RunnerArgs args{nullptr, nullptr, sums.data(), 1 << 20};
  void* pointers[] = {&args};
  BlockRunner runner;
  try {
    runner.run(gridOf(&overflowEntry, pointers, 2, 32));
    ADD_FAILURE() << "no error";
  } catch (const CudaError& error) {
    EXPECT_NE(std::string(error.what()).find("overflowed its"), std::string::npos) << error.what();
  }
  args.depth = 8;  // the runner and its stacks serve the next grid
  runner.run(gridOf(&overflowEntry, pointers, 2, 32));
  for (double sum : sums) EXPECT_EQ(sum, static_cast<double>(burn(8)));
}

// Thread 0 of each block spins on an atomic flag that the block's last thread sets; nothing
// else in the kernel lets another thread run.
void spinEntry(host::ThreadContext* context, void** args) {
  host::current = context;
  RunnerArgs& a = runnerArgs(args);
  uint32_t b = block_idx_x();
  if (thread_idx_x() == 0) {
    while (atomic_load<kAcquire, kBlock>(atomic_ref_of(a.flags[b])) == 0) {
    }
    a.sums[b] = a.values[b] * 2;
  }
  if (thread_idx_x() == block_dim_x() - 1) {
    a.values[b] = static_cast<float>(b) + 0.5f;
    atomic_store<kRelease, kBlock>(atomic_ref_of(a.flags[b]), int32_t{1});
  }
}

TEST(BlockRunner, SpinWaitsOnAtomicsLetTheOtherThreadsRun) {
  std::vector<int32_t> flags(5, 0);
  std::vector<float> values(5);
  std::vector<double> sums(5);
  RunnerArgs args{flags.data(), values.data(), sums.data(), 0};
  void* pointers[] = {&args};
  BlockRunner runner;
  runner.run(gridOf(&spinEntry, pointers, 5, 200));
  for (int b = 0; b < 5; ++b) EXPECT_EQ(sums[b], 2 * (b + 0.5)) << b;
}

// Block b waits for block b + 1 (which may not have started) before it publishes its suffix sum.
void chainEntry(host::ThreadContext* context, void** args) {
  host::current = context;
  RunnerArgs& a = runnerArgs(args);
  if (thread_idx_x() != 0) return;
  uint32_t b = block_idx_x();
  double after = 0;
  if (b + 1 < grid_dim_x()) {
    while (atomic_load<kAcquire, kDevice>(atomic_ref_of(a.flags[b + 1])) == 0) {
    }
    after = a.sums[b + 1];
  }
  a.sums[b] = after + a.values[b];
  atomic_store<kRelease, kDevice>(atomic_ref_of(a.flags[b]), int32_t{1});
}

TEST(BlockRunner, ABlockCanWaitForABlockThatHasNotStarted) {
  constexpr uint32_t kBlocks = 40;
  std::mt19937 generator(11);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<int32_t> flags(kBlocks, 0);
  std::vector<float> values(kBlocks);
  for (float& v : values) v = uniform(generator);
  std::vector<double> sums(kBlocks);
  RunnerArgs args{flags.data(), values.data(), sums.data(), 0};
  void* pointers[] = {&args};
  BlockRunner runner;
  runner.run(gridOf(&chainEntry, pointers, kBlocks, 32));
  double expected = 0;
  for (int b = kBlocks - 1; b >= 0; --b) {
    expected += values[b];
    EXPECT_NEAR(sums[b], expected, 1e-12) << b;
  }
}

// Thread 5 of block 1 fails; every other thread polls a flag nobody sets.
void failOrWaitEntry(host::ThreadContext* context, void** args) {
  host::current = context;
  RunnerArgs& a = runnerArgs(args);
  if (block_idx_x() == 1 && thread_idx_x() == 5) throw std::runtime_error("thread 5 of block 1 failed");
  while (atomic_load<kRelaxed, kDevice>(atomic_ref_of(a.flags[0])) == 0) {
  }
}

TEST(BlockRunner, TheFirstFailureCancelsTheRestOfTheGrid) {
  std::vector<int32_t> flags(1, 0);
  RunnerArgs args{flags.data(), nullptr, nullptr, 0};
  void* pointers[] = {&args};
  BlockRunner runner;
  try {
    runner.run(gridOf(&failOrWaitEntry, pointers, 6, 16));
    ADD_FAILURE() << "no error";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "thread 5 of block 1 failed");
  }
}

// Loops until flags[0] is set, letting nothing else run: only the checkpoint can stop it.
void loopEntry(host::ThreadContext* context, void** args) {
  host::current = context;
  RunnerArgs& a = runnerArgs(args);
  WEFT_LOOP_TICKS(ticks);
  while (a.flags[0] == 0) {
    WEFT_LOOP_CHECKPOINT(ticks);
  }
}

TEST(BlockRunner, TheInterruptCheckStopsALaunchThatNeverEnds) {
  std::vector<int32_t> flags(1, 0);
  RunnerArgs args{flags.data(), nullptr, nullptr, 0};
  void* pointers[] = {&args};
  BlockRunner runner;
  int checks = 0;
  runner.setInterruptCheck([&] { return ++checks == 3; });
  EXPECT_THROW(runner.run(gridOf(&loopEntry, pointers, 1, 8)), Interrupted);  // one block: the caller's
  EXPECT_EQ(checks, 3);
  checks = 0;
  EXPECT_THROW(runner.run(gridOf(&loopEntry, pointers, 9, 8)), Interrupted);  // every worker
  runner.setInterruptCheck({});
  flags[0] = 1;  // the same kernel now ends
  runner.run(gridOf(&loopEntry, pointers, 9, 8));
}

// GPU tests: skipped without a GPU, run on the device machine. The unit is hand-written CUDA
// C++ with the parameter ABI of include/weft/device/array.h.
constexpr const char* kGpuUnit = R"(
template <typename T, int N> struct Array { T* data; unsigned long long shape[N]; unsigned long long strides[N]; };

extern "C" __global__ void weft_gpu_scale(Array<float, 1> x, float a, Array<float, 1> y) {
  unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i < x.shape[0]) y.data[i * y.strides[0]] = a * x.data[i * x.strides[0]];
}

// Reverses the block's values through 64 KiB of dynamic shared memory (needs the opt-in).
extern "C" __global__ void weft_gpu_big_shared(Array<float, 1> out) {
  extern __shared__ float buffer[];
  unsigned t = threadIdx.x;
  buffer[16383 - t] = (float)t;
  __syncthreads();
  out.data[t] = buffer[16383 - (blockDim.x - 1 - t)];
}

extern "C" __global__ void weft_gpu_fault(Array<float, 1> x) {
  float* bad = (float*)0x8;
  bad[threadIdx.x * 1024 * 1024] = x.data[0];
}
)";

FrontEndResult gpuUnit(const std::string& symbol, std::vector<const types::Type*> params) {
  FrontEndResult frontEnd;
  frontEnd.ok = true;
  frontEnd.unit.source = kGpuUnit;
  frontEnd.unit.kernelSymbol = symbol;
  frontEnd.unit.hostEntrySymbol = symbol + "_host";
  frontEnd.kernelName = symbol.substr(9);
  frontEnd.parameterTypes = std::move(params);
  for (size_t i = 0; i < frontEnd.parameterTypes.size(); ++i) frontEnd.parameterNames.push_back("p" + std::to_string(i));
  return frontEnd;
}

TEST(GpuUnit, TheGpuTestsUnitCompilesForSm90) {
  // Keeps the GPU tests below honest on machines without a GPU (they only run on the device).
  backend::Toolchain toolchain = backend::discoverToolchain(includeDir());
  if (backend::nvrtcVersion(toolchain).empty()) GTEST_SKIP() << "NVRTC is not installed";
  backend::Artifact artifact = backend::compileWithNvrtc(toolchain, kGpuUnit, "gpu_unit.cu", backend::CompileOptions{});
  EXPECT_TRUE(artifact.ok) << artifact.log;
}

TEST_F(GpuFixture, DeviceMemoryRoundTrips) {
  EXPECT_GE(compiler.gpuArchitecture(), 50);
  std::mt19937 generator(7);
  std::vector<uint8_t> host(1000);
  for (uint8_t& byte : host) byte = static_cast<uint8_t>(generator());
  uintptr_t a = compiler.allocate(host.size());
  uintptr_t b = compiler.allocate(host.size());
  EXPECT_TRUE(compiler.isDevicePointer(a));
  EXPECT_FALSE(compiler.isDevicePointer(reinterpret_cast<uintptr_t>(host.data())));
  compiler.copyToDevice(a, host.data(), host.size());
  compiler.copyOnDevice(b, a, host.size());
  compiler.memset(b, 0xab, 10);
  std::vector<uint8_t> back(host.size());
  compiler.copyToHost(back.data(), b, back.size());
  for (size_t i = 0; i < back.size(); ++i) ASSERT_EQ(back[i], i < 10 ? 0xab : host[i]) << i;
  compiler.free(a);
  compiler.free(b);
  compiler.free(0);
}

TEST_F(GpuFixture, LaunchesAKernelAndCachesItsCubin) {
  types::TypeContext& types = compiler.types();
  const types::Type* floats = types.array(ScalarKind::Float32, 1);
  FrontEndResult frontEnd = gpuUnit("weft_gpu_scale", {floats, types.scalar(ScalarKind::Float32), floats});
  std::shared_ptr<LoadedKernel> kernel = compiler.load(frontEnd, Target::Gpu, CompilerOptions{});
  EXPECT_EQ(kernel->target(), Target::Gpu);
  const size_t n = 100000;
  std::vector<float> x(2 * n), y(n, 0.0f);
  std::mt19937 generator(8);
  std::uniform_real_distribution<float> values(-4.0f, 4.0f);
  for (float& value : x) value = values(generator);
  uintptr_t deviceX = compiler.allocate(x.size() * sizeof(float));
  uintptr_t deviceY = compiler.allocate(y.size() * sizeof(float));
  compiler.copyToDevice(deviceX, x.data(), x.size() * sizeof(float));
  LaunchConfig config;
  config.grid = {static_cast<uint32_t>((n + 255) / 256), 1, 1};
  config.block = {256, 1, 1};
  kernel->launch(config, {arrayArgument(reinterpret_cast<void*>(deviceX), ScalarKind::Float32, {static_cast<int64_t>(n)}, {2}),
                          floatArgument(ScalarKind::Float64, -2.5),
                          arrayArgument(reinterpret_cast<void*>(deviceY), ScalarKind::Float32, {static_cast<int64_t>(n)}, {1})});
  compiler.synchronize(0);
  compiler.copyToHost(y.data(), deviceY, y.size() * sizeof(float));
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(y[i], -2.5f * x[2 * i]) << i;
  compiler.free(deviceX);
  compiler.free(deviceY);
  EXPECT_EQ(kernelCacheEntries(cacheDirectory.path()).size(), 1u);
  // A second compiler finds the cubin on disk.
  Compiler second(includeDir());
  EXPECT_NE(second.load(frontEnd, Target::Gpu, CompilerOptions{}), nullptr);
}

TEST_F(GpuFixture, DynamicSharedMemoryAbove48KiBIsOptedInto) {
  FrontEndResult frontEnd = gpuUnit("weft_gpu_big_shared", {compiler.types().array(ScalarKind::Float32, 1)});
  std::shared_ptr<LoadedKernel> kernel = compiler.load(frontEnd, Target::Gpu, CompilerOptions{});
  uintptr_t out = compiler.allocate(256 * sizeof(float));
  LaunchConfig config;
  config.block = {256, 1, 1};
  config.sharedBytes = 64 * 1024;
  kernel->launch(config, {arrayArgument(reinterpret_cast<void*>(out), ScalarKind::Float32, {256}, {1})});
  std::vector<float> result(256);
  compiler.copyToHost(result.data(), out, result.size() * sizeof(float));
  for (int t = 0; t < 256; ++t) ASSERT_EQ(result[t], static_cast<float>(255 - t)) << t;
  config.sharedBytes = 4u << 20;
  EXPECT_LAUNCH_ERROR(kernel->launch(config, {arrayArgument(reinterpret_cast<void*>(out), ScalarKind::Float32, {256}, {1})}),
                      LaunchError::Kind::Value, "bytes of dynamic shared memory requested");
  compiler.free(out);
}

// Launches a kernel that writes to an invalid address and exits 0 when synchronize() reports
// it as a CudaError naming the kernel.
[[noreturn]] void faultAndExit(Compiler& compiler) {
  FrontEndResult frontEnd = gpuUnit("weft_gpu_fault", {compiler.types().array(ScalarKind::Float32, 1)});
  std::shared_ptr<LoadedKernel> kernel = compiler.load(frontEnd, Target::Gpu, CompilerOptions{});
  uintptr_t x = compiler.allocate(16);
  LaunchConfig config;
  config.block = {32, 1, 1};
  kernel->launch(config, {arrayArgument(reinterpret_cast<void*>(x), ScalarKind::Float32, {4}, {1})});
  try {
    compiler.synchronize(0);
  } catch (const CudaError& error) {
    std::string message = error.what();
    bool named = message.find("cuCtxSynchronize failed: CUDA_ERROR_") != std::string::npos &&
                 message.find("'gpu_fault'") != std::string::npos;
    std::fprintf(stderr, "%s\n", message.c_str());
    std::_Exit(named ? 0 : 2);
  }
  std::_Exit(3);
}

TEST_F(GpuFixture, AFaultSurfacesAtTheNextSynchronizeNamingTheKernel) {
  // The fault poisons the context for the rest of the process, so it runs in a fresh one.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(faultAndExit(compiler), ::testing::ExitedWithCode(0), "gpu_fault");
}

TEST(LaunchFacts, EachFactIsDecidedByItsOwnCondition) {
  // weft/tiles/span_facts.h's bits: aligned data 1, unit inner stride 2, aligned strides 4,
  // aligned extent 8. bfloat16 (2 bytes): 8 columns are 16 bytes.
  auto facts = [](uintptr_t data, std::vector<int64_t> shape, std::vector<int64_t> strides) {
    return arrayFacts(arrayArgument(reinterpret_cast<void*>(data), types::ScalarKind::BFloat16, shape, strides).array);
  };
  EXPECT_EQ(facts(0x1000, {4, 64}, {64, 1}), 15u);
  EXPECT_EQ(facts(0x1002, {4, 64}, {64, 1}), 14u);   // one element past a 16-byte boundary
  EXPECT_EQ(facts(0x1000, {4, 32}, {128, 2}), 13u);  // every other column
  EXPECT_EQ(facts(0x1000, {4, 61}, {61, 1}), 3u);    // odd rows: neither strides nor extent
  EXPECT_EQ(facts(0x1000, {4, 64}, {-64, 1}), 15u);  // a negative stride of whole 16 bytes
  EXPECT_EQ(facts(0x1000, {61}, {1}), 7u);           // 1-D: no outer strides
  ArgumentValue records = arrayArgument(reinterpret_cast<void*>(0x1000), types::ScalarKind::Float32, {4}, {1});
  records.array.elementStruct = std::make_shared<sema::StructSource>();
  EXPECT_EQ(arrayFacts(records.array), 0u);
  EXPECT_EQ(describeFacts(5u), "16-byte aligned data, outer strides of whole 16 bytes");
}

}  // namespace
}  // namespace weft::runtime
