// SIMT: sema of the collectives, atomics, print and array options (types, diagnostics, the
// fiber requirement), and the CPU runner's warp rendezvous and block votes driven by a
// hand-written entry that uses include/weft/device/simt.h and atomics.h as generated code does.
#define WEFT_HOST 1

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <vector>

#include "runtime/cpu_runner.h"
#include "runtime/runtime.h"
#include "sema_test_support.h"
#include "weft/device/atomics.h"
#include "weft/device/print.h"
#include "weft/device/runtime.h"
#include "weft/device/simt.h"

namespace weft {
namespace {

using testing::checkKernel;

std::string kernelSource(const std::string& body) {
  return "from cuda import device\nimport math\n\n@device.kernel\ndef k(a: device.int32[:], f: "
         "device.float32[:]):\n" +
         body;
}

TEST(SimtSema, CollectivesType) {
  auto checked = checkKernel(kernelSource("    i = device.tid(1)\n"
                                          "    m = device.ballot_sync(0xffffffff, lambda: a[i] > 0)\n"
                                          "    v = device.shfl_down_sync(m, f[i], 1)\n"
                                          "    n = device.syncthreads_count(lambda: v > 0)\n"
                                          "    lanes, same = device.match_all_sync(m, a[i])\n"
                                          "    a[i] = n + device.popc(m) + device.clz(lanes)\n"
                                          "    f[i] = v + math.erf(v) + device.fma(v, v, 1.0)\n"),
                             "k", {"int32[:]", "float32[:]"});
  ASSERT_TRUE(checked->ok()) << checked->errors;
  EXPECT_NE(checked->dump.find("BallotSync"), std::string::npos) << checked->dump;
}

TEST(SimtSema, AtomicsAndFencesType) {
  auto checked = checkKernel(kernelSource("    r = device.AtomicRef(a, 0)\n"
                                          "    old = r.add(1, memory='relaxed', scope='block')\n"
                                          "    a[1] = old + r.cas(1, 2) + device.lanemask_lt()\n"
                                          "    device.threadfence('acq_rel', 'device')\n"),
                             "k", {"int32[:]", "float32[:]"});
  ASSERT_TRUE(checked->ok()) << checked->errors;
}

struct BadCase {
  std::string body;
  std::string kind;
};

TEST(SimtSema, DiagnosticsHaveKinds) {
  const BadCase cases[] = {
      {"    device.AtomicRef(a, 0).add(1, memory='strong')\n", "MemoryOrder"},
      {"    device.threadfence(scope='grid')\n", "ThreadScope"},
      {"    a[0] = device.AtomicRef(a, 0).load(memory='acq_rel')\n", "MemoryOrderInvalid"},
      {"    device.AtomicRef(a, 0).store(1, memory='acquire')\n", "MemoryOrderInvalid"},
      {"    device.AtomicRef(f, 0).or_(1)\n", "AtomicDtype"},
      {"    x = device.Atomic(device.int32)\n", "AtomicTypeUse"},
      {"    a[0] = device.syncthreads_count(1)\n", "PredicateExpected"},
      {"    a[0] = device.all_sync(1, lambda x: x)\n", "PredicateExpected"},
      {"    f[0] = device.shfl_sync(1, f, 0)\n", "WarpValueType"},
      {"    s = device.shared_array(4, device.int32, order='X')\n", "ArrayOption"},
      {"    s = device.shared_array(4, device.int32, align=48)\n", "ArrayOption"},
      {"    print(f)\n", "PrintArgument"},
      {"    print(1, end=2)\n", "PrintOption"},
  };
  for (const BadCase& c : cases) {
    auto checked = checkKernel(kernelSource(c.body), "k", {"int32[:]", "float32[:]"});
    ASSERT_FALSE(checked->ok()) << c.body;
    ASSERT_FALSE(checked->kinds().empty());
    EXPECT_EQ(checked->kinds().front(), c.kind) << c.body << checked->errors;
    EXPECT_NE(checked->errors.find("test.py:6:"), std::string::npos) << checked->errors;
  }
}

// ---- the CPU runner's collectives, through the device headers ----

struct WarpArgs {
  int32_t* shuffled;
  uint32_t* ballots;
  int32_t* counts;
  int32_t* sums;
};

void warpEntry(host::ThreadContext* context, void** args) {
  host::current = context;
  auto* out = static_cast<WarpArgs*>(args[0]);
  int32_t t = static_cast<int32_t>(thread_idx_x());
  int32_t v = t * 7 % 13;
  out->shuffled[t] = shuffle<Shuffle::Xor>(0xffffffffu, v, 5);
  out->ballots[t] = ballot_sync(0xffffffffu, v > 6);
  out->counts[t] = syncthreads_count(v % 2 == 0);
  int32_t sum = v;
  for (int offset = 16; offset > 0; offset /= 2) sum += shuffle<Shuffle::Down>(0xffffffffu, sum, offset);
  if (lane_id() == 0) atomic_add<kRelaxed, kDevice>(atomic_ref_of(out->sums[0]), sum);
}

TEST(SimtRunner, WarpCollectivesAndBlockVotesKeepGpuMeaning) {
  constexpr int kThreads = 96;
  std::vector<int32_t> shuffled(kThreads), counts(kThreads), sums(1);
  std::vector<uint32_t> ballots(kThreads);
  WarpArgs args{shuffled.data(), ballots.data(), counts.data(), sums.data()};
  void* pointers[] = {&args};
  runtime::GridLaunch launch;
  launch.entry = &warpEntry;
  launch.arguments = pointers;
  launch.grid = host::Dim3{3, 1, 1};
  launch.block = host::Dim3{kThreads, 1, 1};
  runtime::BlockRunner runner;
  runner.run(launch);
  int expectedCount = 0, expectedSum = 0;
  for (int t = 0; t < kThreads; ++t) {
    expectedCount += (t * 7 % 13) % 2 == 0;
    expectedSum += t * 7 % 13;
  }
  for (int t = 0; t < kThreads; ++t) {
    int warp = t / 32 * 32;
    EXPECT_EQ(shuffled[t], (warp + ((t % 32) ^ 5)) * 7 % 13) << t;
    uint32_t ballot = 0;
    for (int lane = 0; lane < 32; ++lane) ballot |= ((warp + lane) * 7 % 13 > 6 ? 1u : 0u) << lane;
    EXPECT_EQ(ballots[t], ballot) << t;
    EXPECT_EQ(counts[t], expectedCount) << t;
  }
  EXPECT_EQ(sums[0], 3 * expectedSum);
}

void divergentEntry(host::ThreadContext* context, void** args) {
  host::current = context;
  auto* out = static_cast<uint32_t*>(args[0]);
  uint32_t lane = static_cast<uint32_t>(lane_id());
  if (lane < 12) {
    out[lane] = activemask(1);
  } else {
    syncwarp(0xfffff000u);
    out[lane] = activemask(2);
  }
}

TEST(SimtRunner, ActivemaskReturnsTheConvergedLanes) {
  std::vector<uint32_t> out(32);
  void* pointers[] = {out.data()};
  runtime::GridLaunch launch;
  launch.entry = &divergentEntry;
  launch.arguments = pointers;
  launch.block = host::Dim3{32, 1, 1};
  runtime::BlockRunner runner;
  runner.run(launch);
  for (uint32_t lane = 0; lane < 32; ++lane) EXPECT_EQ(out[lane], lane < 12 ? 0xfffu : 0xfffff000u) << lane;
}

void deadlockEntry(host::ThreadContext* context, void**) {
  host::current = context;
  if (lane_id() < 8) {
    syncwarp(0xffffffffu);
  } else {
    syncthreads();
  }
}

TEST(SimtRunner, ACollectiveThatCannotCompleteIsReported) {
  runtime::GridLaunch launch;
  launch.entry = &deadlockEntry;
  launch.block = host::Dim3{32, 1, 1};
  runtime::BlockRunner runner;
  EXPECT_THROW(runner.run(launch), runtime::CudaError);
}

TEST(SimtHeaders, BitIntrinsicsAndPrintSuffix) {
  EXPECT_EQ(popc(uint32_t{0xf0f0}), 8);
  EXPECT_EQ(popc(int64_t{-1}), 64);
  EXPECT_EQ(brev(uint8_t{0x01}), 0x80);
  EXPECT_EQ(brev(uint32_t{0x1}), 0x80000000u);
  EXPECT_EQ(clz(int16_t{1}), 15);
  EXPECT_EQ(clz(uint64_t{0}), 64);
  EXPECT_EQ(ffs(int32_t{0}), 0);
  EXPECT_EQ(ffs(uint64_t{1} << 40), 41);
  EXPECT_STREQ(float_suffix(2.0), ".0");
  EXPECT_STREQ(float_suffix(2.5), "");
  EXPECT_STREQ(float_suffix(1e7), "");
}

TEST(SimtHeaders, AtomicsReturnTheOldValue) {
  // Plain host code: no simulated thread is current (the runner tests above leave theirs).
  host::current = nullptr;
  double d = 1.0;
  EXPECT_EQ((atomic_max<kSeqCst, kSystem>(atomic_ref_of(d), 3.0)), 1.0);
  EXPECT_EQ((atomic_nanmin<kSeqCst, kSystem>(atomic_ref_of(d), std::nan(""))), 3.0);
  EXPECT_EQ(d, 3.0);
  EXPECT_EQ((atomic_min<kSeqCst, kSystem>(atomic_ref_of(d), std::nan(""))), 3.0);
  EXPECT_TRUE(std::isnan(d));
  uint8_t byte = 200;
  EXPECT_EQ((atomic_cas<kAcqRel, kBlock>(atomic_ref_of(byte), uint8_t{200}, uint8_t{7})), 200);
  EXPECT_EQ(byte, 7);
  Atomic<int64_t, 16> counter{5};
  static_assert(alignof(Atomic<int64_t, 16>) == 16 && alignof(Atomic<int32_t, 0>) == 4);
  EXPECT_EQ((atomic_sub<kRelaxed, kThread>(atomic_ref_of(counter), int64_t{7})), 5);
  EXPECT_EQ(counter.value, -2);
}

TEST(SimtHeaders, WarpMaskLanes) {
  uint32_t mask = 0x80000005u;
  EXPECT_TRUE(lane_bit(mask, 0));
  EXPECT_FALSE(lane_bit(mask, 1));
  EXPECT_TRUE(lane_bit(mask, 31));
  EXPECT_FALSE(lane_bit(mask, 32));  // lanes outside the warp read as clear
  EXPECT_FALSE(lane_bit(0xffffffffu, -1));
  EXPECT_EQ(with_lane_bit(mask, 1, true), 0x80000007u);
  EXPECT_EQ(with_lane_bit(mask, 31, false), 0x5u);
  EXPECT_EQ(with_lane_bit(mask, 0, true), mask);
  EXPECT_EQ(with_lane_bit(mask, 40, true), mask);  // and are never set
}

}  // namespace
}  // namespace weft
