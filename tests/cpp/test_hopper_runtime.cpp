// The Hopper path's runtime pieces: launch attributes (clusters) validated before the driver
// sees them, TMA tensor maps described from array arguments, cached and appended to a launch's
// parameters (with a fake cuTensorMapEncodeTiled where there is no driver), and on an H100 a
// unit compiled for sm_90a, a 2-CTA cluster launch and a kernel that loads through a tensor map.
#include <array>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/argument_packing.h"
#include "runtime/loaded_kernels.h"
#include "runtime/runtime.h"
#include "runtime/tensor_maps.h"
#include "runtime_test_support.h"

namespace weft::runtime {
namespace {

using TensorMapRequest = codegen::EmittedUnit::TensorMap;

LaunchConfig clusterConfig(std::array<uint32_t, 3> grid, std::array<uint32_t, 3> cluster) {
  LaunchConfig config;
  config.grid = grid;
  config.block = {32, 1, 1};
  config.cluster = cluster;
  return config;
}

TEST(LaunchValidation, ClustersDivideTheGridOnDevicesThatHaveThem) {
  DeviceLimits hopper;
  hopper.clusters = true;
  using Kind = LaunchError::Kind;
  EXPECT_NO_THROW(validateLaunch("k", clusterConfig({8, 2, 1}, {2, 1, 1}), hopper, 1024, 0));
  EXPECT_NO_THROW(validateLaunch("k", clusterConfig({8, 2, 1}, {0, 0, 0}), hopper, 1024, 0));  // none
  EXPECT_LAUNCH_ERROR(validateLaunch("k", clusterConfig({7, 1, 1}, {2, 1, 1}), hopper, 1024, 0), Kind::Value,
                      "kernel 'k': cluster (2, 1, 1) does not divide grid (7, 1, 1) along x");
  EXPECT_LAUNCH_ERROR(validateLaunch("k", clusterConfig({16, 1, 1}, {16, 1, 1}), hopper, 1024, 0),
                      Kind::Value, "cluster (16, 1, 1) has 16 blocks; at most 8 are allowed");
  EXPECT_LAUNCH_ERROR(validateLaunch("k", clusterConfig({4, 1, 1}, {2, 0, 1}), hopper, 1024, 0), Kind::Value,
                      "has no blocks along y");
  DeviceLimits ampere;
  EXPECT_LAUNCH_ERROR(validateLaunch("k", clusterConfig({8, 1, 1}, {2, 1, 1}), ampere, 1024, 0), Kind::Value,
                      "the device has no thread block clusters (they need compute capability 9.0)");
}

// A row-major float32 matrix of `rows` x `columns` elements with rows `pitch` elements apart.
ArrayValue matrix(uintptr_t data, int64_t rows, int64_t columns, int64_t pitch,
                  ScalarKind dtype = ScalarKind::Float32) {
  return arrayArgument(reinterpret_cast<void*>(data), dtype, {rows, columns}, {pitch, 1}).array;
}

TensorMapRequest request(std::vector<uint32_t> box, uint8_t swizzle = 0) {
  TensorMapRequest result;
  result.box = std::move(box);
  result.swizzle = swizzle;
  return result;
}

TEST(TensorMaps, DescribeAnArrayInTheDriversTerms) {
  std::string problem;
  TensorMapRequest wanted = request({64, 32}, 3);
  wanted.l2Promotion = 2;
  wanted.oobFill = 1;
  std::optional<TensorMapKey> key = describeTensorMap(matrix(0x10000, 300, 200, 208), wanted, problem);
  ASSERT_TRUE(key) << problem;
  EXPECT_EQ(key->address, 0x10000u);
  EXPECT_EQ(key->dataType, 7);  // CU_TENSOR_MAP_DATA_TYPE_FLOAT32
  EXPECT_EQ(key->rank, 2u);
  // Dimension 0 is the innermost: the array's columns.
  EXPECT_EQ(key->dims[0], 200u);
  EXPECT_EQ(key->dims[1], 300u);
  EXPECT_EQ(key->strides[0], 208u * 4);
  EXPECT_EQ(key->box[0], 32u);
  EXPECT_EQ(key->box[1], 64u);
  EXPECT_EQ(key->elementStrides[0], 1u);
  EXPECT_EQ(key->elementStrides[1], 1u);
  EXPECT_EQ(key->swizzle, 3);
  EXPECT_EQ(key->l2Promotion, 2);
  EXPECT_EQ(key->oobFill, 1);
  // Three dimensions of bfloat16 with element strides.
  TensorMapRequest strided = request({2, 8, 64});
  strided.elementStrides = {1, 2, 1};
  ArrayValue cube =
      arrayArgument(reinterpret_cast<void*>(0x20000), ScalarKind::BFloat16, {4, 16, 64}, {16 * 64, 64, 1})
          .array;
  key = describeTensorMap(cube, strided, problem);
  ASSERT_TRUE(key) << problem;
  EXPECT_EQ(key->dataType, 9);  // BFLOAT16
  EXPECT_EQ(key->dims[2], 4u);
  EXPECT_EQ(key->strides[0], 128u);
  EXPECT_EQ(key->strides[1], 2048u);
  EXPECT_EQ(key->box[2], 2u);
  EXPECT_EQ(key->elementStrides[1], 2u);
}

TEST(TensorMaps, ArraysTmaCannotAddressSayWhy) {
  auto why = [](const ArrayValue& array, const TensorMapRequest& wanted) {
    std::string problem;
    EXPECT_FALSE(describeTensorMap(array, wanted, problem)) << "described";
    return problem;
  };
  TensorMapRequest box = request({8, 8});
  EXPECT_EQ(why(matrix(0x10000, 10, 7, 7), box),
            "the stride of dimension 0 is 28 bytes, not a multiple of 16 below 2**40");
  EXPECT_EQ(why(matrix(0x10004, 10, 8, 8), box), "its data pointer is not 16-byte aligned");
  ArrayValue columns =
      arrayArgument(reinterpret_cast<void*>(0x10000), ScalarKind::Float32, {8, 8}, {1, 8}).array;
  EXPECT_EQ(why(columns, box), "its last dimension is not contiguous (stride 8 elements)");
  ArrayValue sixD = arrayArgument(reinterpret_cast<void*>(0x10000), ScalarKind::Float32, {2, 2, 2, 2, 2, 4},
                                  {64, 32, 16, 8, 4, 1})
                        .array;
  EXPECT_EQ(why(sixD, request({1, 1, 1, 1, 1, 4})), "it has 6 dimensions; TMA takes 1 to 5");
  EXPECT_EQ(why(matrix(0x10000, 8, 8, 8, ScalarKind::Complex128), box),
            "TMA has no data type for its elements");
  EXPECT_EQ(why(matrix(0x10000, 8, 8, 8), request({8, 2})),
            "its box's last dimension has 8 bytes, not a multiple of 16");
  EXPECT_EQ(why(matrix(0x10000, 64, 64, 64), request({8, 64}, 2)),
            "its box's last dimension has 256 bytes, more than the 64-byte swizzle span");
  EXPECT_EQ(why(matrix(0x10000, 8, 8, 8), request({300, 8})),
            "its box has 300 elements along dimension 0; TMA takes 1 to 256");
  TensorMapRequest nanFill = request({8, 8});
  nanFill.oobFill = 1;
  EXPECT_EQ(why(matrix(0x10000, 8, 8, 8, ScalarKind::Int32), nanFill),
            "the NaN fill needs floating-point elements");
  ArrayValue empty = matrix(0x10000, 0, 8, 8);
  EXPECT_EQ(why(empty, box), "dimension 0 has 0 elements; TMA takes 1 to 2**32");
  ArrayValue records = matrix(0x10000, 8, 8, 8);
  records.elementStruct = std::make_shared<sema::StructSource>();
  EXPECT_EQ(why(records, box), "its elements are structs, which TMA cannot copy");
}

// A fake cuTensorMapEncodeTiled: counts its calls, writes the address and box into the map, and
// refuses address 0xbad0.
int encodeCalls = 0;
CUresult fakeEncode(CUtensorMap* map, int, unsigned int, void* address, const uint64_t*, const uint64_t*,
                    const uint32_t* box, const uint32_t*, int, int, int, int) {
  ++encodeCalls;
  if (reinterpret_cast<uintptr_t>(address) == 0xbad0) return 1;  // CUDA_ERROR_INVALID_VALUE
  *map = CUtensorMap{};
  map->opaque[0] = reinterpret_cast<uintptr_t>(address);
  map->opaque[1] = box[0];
  return 0;
}

TensorMapKey keyFor(uintptr_t address, uint32_t box = 32) {
  std::string problem;
  std::optional<TensorMapKey> key =
      describeTensorMap(matrix(address, 64, 64, 64), request({16, box}), problem);
  EXPECT_TRUE(key) << problem;
  return key.value_or(TensorMapKey{});
}

TEST(TensorMaps, TheCacheEncodesEachKeyOnceAndKeepsTheRecentOnes) {
  encodeCalls = 0;
  TensorMapCache cache(&fakeEncode, 2);
  CUtensorMap map;
  std::string problem;
  ASSERT_TRUE(cache.lookup(keyFor(0x1000), map, problem)) << problem;
  EXPECT_EQ(map.opaque[0], 0x1000u);
  ASSERT_TRUE(cache.lookup(keyFor(0x1000), map, problem));
  EXPECT_EQ(encodeCalls, 1);  // a hit
  // Every field is in the key: the same array with another box is another map.
  ASSERT_TRUE(cache.lookup(keyFor(0x1000, 16), map, problem));
  EXPECT_EQ(map.opaque[1], 16u);
  EXPECT_EQ(encodeCalls, 2);
  EXPECT_NE(TensorMapKeyHash()(keyFor(0x1000)), TensorMapKeyHash()(keyFor(0x1000, 16)));
  EXPECT_EQ(TensorMapKeyHash()(keyFor(0x1000)), TensorMapKeyHash()(keyFor(0x1000)));
  // Bounded: a third key evicts the least recently used (0x1000 with box 32).
  ASSERT_TRUE(cache.lookup(keyFor(0x1000), map, problem));
  ASSERT_TRUE(cache.lookup(keyFor(0x2000), map, problem));
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(encodeCalls, 3);
  ASSERT_TRUE(cache.lookup(keyFor(0x1000), map, problem));
  EXPECT_EQ(encodeCalls, 3);  // still cached: it was used last
  ASSERT_TRUE(cache.lookup(keyFor(0x1000, 16), map, problem));
  EXPECT_EQ(encodeCalls, 4);  // evicted, encoded again
  // A refusal is reported and not cached.
  EXPECT_FALSE(cache.lookup(keyFor(0xbad0), map, problem));
  EXPECT_EQ(problem, "cuTensorMapEncodeTiled refused it (CUresult 1)");
  EXPECT_EQ(cache.size(), 2u);
}

TEST(TensorMaps, ALaunchEncodesTheMapsOfItsArrayArgumentsAndMasksTheOthers) {
  encodeCalls = 0;
  types::TypeContext types;
  FrontEndResult frontEnd;
  // (n: int32, a: float32[:, :], b: float32[:, :]) after a ConstExpr argument.
  frontEnd.parameterTypes = {types.scalar(ScalarKind::Int32), types.array(ScalarKind::Float32, 2),
                             types.array(ScalarKind::Float32, 2)};
  frontEnd.parameterNames = {"n", "a", "b"};
  frontEnd.argumentToParam = {-1, 0, 1, 2};
  ParameterLayout layout("k", frontEnd);
  TensorMapRequest first = request({16, 32});
  first.parameter = 1;
  TensorMapRequest second = request({16, 32});
  second.parameter = 2;
  TensorMapCache cache(&fakeEncode);
  std::vector<ArgumentValue> arguments = {
      intArgument(ScalarKind::Int64, 16), intArgument(ScalarKind::Int64, 3),
      arrayArgument(reinterpret_cast<void*>(0x3000), ScalarKind::Float32, {64, 64}, {64, 1}),
      arrayArgument(reinterpret_cast<void*>(0x4000), ScalarKind::Float32, {64, 63}, {63, 1})};
  TensorMapParameters maps = encodeTensorMaps(cache, {first, second}, layout, arguments);
  ASSERT_EQ(maps.maps.size(), 2u);
  EXPECT_EQ(maps.mask, 1u);  // b's rows are 252 bytes apart
  EXPECT_EQ(maps.maps[0].opaque[0], 0x3000u);
  EXPECT_EQ(maps.maps[1].opaque[0], 0u);  // zero: the kernel must not use it
  ASSERT_EQ(maps.problems.size(), 1u);
  EXPECT_EQ(maps.problems[0],
            "tensor map 1: the stride of dimension 0 is 252 bytes, not a multiple of 16 below 2**40");
  // Launching again with the same arrays hits the cache.
  maps = encodeTensorMaps(cache, {first, second}, layout, arguments);
  EXPECT_EQ(encodeCalls, 1);
  EXPECT_EQ(maps.mask, 1u);
}

// On the GPU (compute capability 9.0): hand-written units with the parameter ABI of
// include/weft/device/array.h, and the tensor map parameters the runtime appends.
constexpr const char* kHopperUnit = R"(
template <typename T, int N> struct Array { T* data; unsigned long long shape[N]; unsigned long long strides[N]; };
struct alignas(64) TensorMap { unsigned long long opaque[16]; };

// setmaxnreg exists on sm_90a only: a baseline compile takes the other branch.
extern "C" __global__ void __launch_bounds__(128, 1) weft_gpu_specific(Array<int, 1> out) {
#if __CUDA_ARCH_SPECIFIC__ == 900 || defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("setmaxnreg.inc.sync.aligned.u32 240;\n");
  out.data[threadIdx.x] = 90111;
#else
  out.data[threadIdx.x] = 90901;
#endif
}

extern "C" __global__ void weft_gpu_cluster_rank(Array<int, 1> out) {
  unsigned rank, cluster;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(cluster));
  if (threadIdx.x == 0) {
    out.data[2 * blockIdx.x] = (int)rank;
    out.data[2 * blockIdx.x + 1] = (int)cluster;
  }
}

// Copies `in` to `out` a 16 x 32 tile per block: through TMA when map 0 is valid (its bit in
// `mask`), else element by element (the fallback path). took[0]: the mask block 0 saw.
extern "C" __global__ void weft_gpu_tma_copy(Array<float, 2> in, Array<float, 2> out, Array<int, 1> took,
                                             const __grid_constant__ TensorMap map, unsigned mask) {
  __shared__ alignas(128) float tile[16][32];
  __shared__ alignas(8) unsigned long long barrier;
  const int row0 = blockIdx.y * 16, column0 = blockIdx.x * 32;
  if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0) took.data[0] = (int)mask;
  if (mask & 1u) {
    unsigned bar = (unsigned)__cvta_generic_to_shared(&barrier);
    unsigned destination = (unsigned)__cvta_generic_to_shared(&tile[0][0]);
    if (threadIdx.x == 0) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
      asm volatile("fence.proxy.async.shared::cta;");
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(16 * 32 * 4) : "memory");
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
          ::"r"(destination), "l"(&map), "r"(column0), "r"(row0), "r"(bar) : "memory");
    }
    asm volatile(
        "{\n.reg .pred done;\nwait%=:\nmbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n@!done bra wait%=;\n}\n"
        ::"r"(bar) : "memory");
  } else {
    for (int i = threadIdx.x; i < 16 * 32; i += blockDim.x) {
      unsigned long long r = row0 + i / 32, c = column0 + i % 32;
      tile[i / 32][i % 32] = r < in.shape[0] && c < in.shape[1] ? in.data[r * in.strides[0] + c * in.strides[1]] : 0.0f;
    }
    __syncthreads();
  }
  for (int i = threadIdx.x; i < 16 * 32; i += blockDim.x) {
    unsigned long long r = row0 + i / 32, c = column0 + i % 32;
    if (r < out.shape[0] && c < out.shape[1]) out.data[r * out.strides[0] + c * out.strides[1]] = tile[i / 32][i % 32];
  }
}
)";

struct HopperFixture : GpuFixture {
  void SetUp() override {
    GpuFixture::SetUp();
    if (IsSkipped()) return;
    if (compiler.gpuArchitecture() < 90) GTEST_SKIP() << "needs compute capability 9.0";
  }
  FrontEndResult unit(const std::string& symbol, std::vector<const types::Type*> params) {
    FrontEndResult frontEnd;
    frontEnd.ok = true;
    frontEnd.unit.source = kHopperUnit;
    frontEnd.unit.kernelSymbol = symbol;
    frontEnd.unit.hostEntrySymbol = symbol + "_host";
    frontEnd.kernelName = symbol.substr(9);
    frontEnd.parameterTypes = std::move(params);
    for (size_t i = 0; i < frontEnd.parameterTypes.size(); ++i)
      frontEnd.parameterNames.push_back("p" + std::to_string(i));
    return frontEnd;
  }
  std::vector<int> run(const FrontEndResult& frontEnd, const LaunchConfig& config, size_t count) {
    uintptr_t out = compiler.allocate(count * sizeof(int));
    compiler.memset(out, 0, count * sizeof(int));
    compiler.load(frontEnd, Target::Gpu, CompilerOptions{})
        ->launch(config, {arrayArgument(reinterpret_cast<void*>(out), ScalarKind::Int32,
                                        {static_cast<int64_t>(count)}, {1})});
    std::vector<int> result(count);
    compiler.copyToHost(result.data(), out, count * sizeof(int));
    compiler.free(out);
    return result;
  }
};

TEST_F(HopperFixture, AUnitThatAsksForArchSpecificFeaturesRunsItsSm90aCode) {
  FrontEndResult specific = unit("weft_gpu_specific", {compiler.types().array(ScalarKind::Int32, 1)});
  specific.unit.features = sema::FeatureSet::Specific;
  FrontEndResult baseline = specific;
  baseline.unit.features = sema::FeatureSet::Baseline;
  LaunchConfig config;
  config.block = {128, 1, 1};
  const int expected = compiler.gpuArchitecture() == 90 ? 90111 : 90901;
  for (int value : run(specific, config, 128)) ASSERT_EQ(value, expected);
  // The same source without the request: another cubin, for sm_90, without setmaxnreg.
  for (int value : run(baseline, config, 128)) ASSERT_EQ(value, 90901);
  EXPECT_EQ(kernelCacheEntries(cacheDirectory.path()).size(), 2u);
}

TEST_F(HopperFixture, AClusterLaunchGroupsBlocks) {
  FrontEndResult frontEnd = unit("weft_gpu_cluster_rank", {compiler.types().array(ScalarKind::Int32, 1)});
  LaunchConfig config;
  config.grid = {8, 1, 1};
  config.block = {32, 1, 1};
  config.cluster = {2, 1, 1};
  std::vector<int> ranks = run(frontEnd, config, 16);
  for (int block = 0; block < 8; ++block) {
    EXPECT_EQ(ranks[2 * block], block % 2) << block;
    EXPECT_EQ(ranks[2 * block + 1], block / 2) << block;
  }
  // Without a cluster every block is its own.
  config.cluster = {0, 0, 0};
  ranks = run(frontEnd, config, 16);
  for (int block = 0; block < 8; ++block) EXPECT_EQ(ranks[2 * block], 0) << block;
}

TEST_F(HopperFixture, AKernelLoadsThroughTheTensorMapOfItsArgument) {
  types::TypeContext& types = compiler.types();
  const types::Type* floats = types.array(ScalarKind::Float32, 2);
  FrontEndResult frontEnd = unit("weft_gpu_tma_copy", {floats, floats, types.array(ScalarKind::Int32, 1)});
  TensorMapRequest map = request({16, 32});
  map.parameter = 0;
  frontEnd.unit.tensorMaps = {map};
  std::shared_ptr<LoadedKernel> kernel = compiler.load(frontEnd, Target::Gpu, CompilerOptions{});
  // 40 x 90 elements: the grid's 48 x 96 tiles overhang it (TMA fills zeros out of bounds).
  const int64_t rows = 40, columns = 90;
  for (int64_t pitch : {96, 91}) {  // 384-byte rows: TMA; 364-byte rows: the fallback
    std::vector<float> input(static_cast<size_t>(rows * pitch));
    std::mt19937 generator(static_cast<unsigned>(pitch));
    std::uniform_real_distribution<float> values(-8.0f, 8.0f);
    for (float& value : input) value = values(generator);
    uintptr_t in = compiler.allocate(input.size() * sizeof(float));
    uintptr_t out = compiler.allocate(static_cast<size_t>(rows * columns) * sizeof(float));
    uintptr_t took = compiler.allocate(sizeof(int));
    compiler.copyToDevice(in, input.data(), input.size() * sizeof(float));
    LaunchConfig config;
    config.grid = {3, 3, 1};
    config.block = {128, 1, 1};
    for (int repeat = 0; repeat < 2; ++repeat) {  // the second launch's map comes from the cache
      kernel->launch(
          config,
          {arrayArgument(reinterpret_cast<void*>(in), ScalarKind::Float32, {rows, columns}, {pitch, 1}),
           arrayArgument(reinterpret_cast<void*>(out), ScalarKind::Float32, {rows, columns}, {columns, 1}),
           arrayArgument(reinterpret_cast<void*>(took), ScalarKind::Int32, {1}, {1})});
    }
    std::vector<float> result(static_cast<size_t>(rows * columns));
    int mask = -1;
    compiler.copyToHost(result.data(), out, result.size() * sizeof(float));
    compiler.copyToHost(&mask, took, sizeof mask);
    EXPECT_EQ(mask, pitch == 96 ? 1 : 0) << pitch;
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < columns; ++c)
        ASSERT_EQ(result[static_cast<size_t>(r * columns + c)], input[static_cast<size_t>(r * pitch + c)])
            << r << ", " << c;
    compiler.free(in);
    compiler.free(out);
    compiler.free(took);
  }
}

// Keeps the GPU tests above honest on machines without a GPU: the unit compiles for sm_90
// and sm_90a.
TEST(HopperUnit, CompilesForSm90AndSm90a) {
  backend::Toolchain toolchain = backend::discoverToolchain(includeDir());
  if (backend::nvrtcVersion(toolchain).empty()) GTEST_SKIP() << "NVRTC is not installed";
  for (sema::FeatureSet features : {sema::FeatureSet::Baseline, sema::FeatureSet::Specific}) {
    backend::CompileOptions options;
    options.target = sema::jitTarget(90, features);
    backend::Artifact artifact = backend::compileWithNvrtc(toolchain, kHopperUnit, "hopper_unit.cu", options);
    EXPECT_TRUE(artifact.ok) << artifact.log;
  }
}

}  // namespace
}  // namespace weft::runtime
