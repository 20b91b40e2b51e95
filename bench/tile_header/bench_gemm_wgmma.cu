// GPU benchmark of a warp-specialized persistent bf16 GEMM built from the Hopper building blocks
// (<weft/tiles/sm90.h>) against cuBLAS: C (bf16, M x N) = A (M x K) B (K x N), all row-major,
// fp32 accumulate. The CTAs (one per SM, in clusters of Cluster) walk the output tiles (BM x BN =
// 128 x 256, grouped by GROUP tile rows for L2 reuse). Warpgroup 0 gives its registers up
// (setmaxnreg.dec) and one elected thread streams the K blocks (BK = 64) of A and B by TMA
// (128-byte swizzle; B as it is, N-major) into a ring of STAGES mbarrier stages; warpgroups 1 and
// 2 take the registers (setmaxnreg.inc), each multiplying its 64 rows of the tile by the stage's
// B with four wgmma m64n256k16 per K block and releasing a stage once the next K block's wgmmas
// are issued and the stage's have completed. Variants, all measured in one run:
// - Cluster 2: the two CTAs of a cluster compute horizontally adjacent tiles and share A's
//   K blocks, each loading half and multicasting it to both; a stage is free once the consumers
//   of both CTAs released it (arrivals on the other CTA's barrier).
// - TMA epilogue: the accumulators go through shared memory (stmatrix into a 128-byte swizzled
//   64 x 64 chunk, two chunks per consumer in flight) to C by TMA stores; otherwise each thread
//   stores its bf16 pairs to C.
// - Split tail (clusters of one): the units past the last full wave (3000 x 3000 with 128 x 256
//   tiles is 288 units on 132 SMs: 24 past two full waves) are each split into equal runs of K
//   blocks, as many as the wave has CTAs for (5 each, 120 in all), so that the last wave keeps
//   every SM busy for a fifth of the time instead of 24 of them for all of it. A CTA with a later
//   run of a unit publishes its partial sums in a workspace slot and raises its flag (to the
//   launch's epoch, so flags are never reset); the CTA with the first run adds them once the
//   flags are up and stores the unit. The runs of a unit are in the last wave together, and a
//   CTA publishing waits for nothing: no CTA waits on one that cannot run. (Equal shares of all
//   the units' K blocks, stream-K proper, ran at half the speed and more: the CTAs running
//   together were at different K blocks, so their A and B panels no longer shared L2.)
// Every result is checked against cuBLAS's fp32 output (and sampled elements of that against a
// double-precision host sum). Build and run on an sm_90 GPU:
//   nvcc -std=c++20 -arch=sm_90a -O3 -I include bench/tile_header/bench_gemm_wgmma.cu -lcublas -o bench_wgmma
// Each figure is the mean of 20 launches after a warm-up; cuBLAS writes bf16 too. The exit
// status says whether every check passed.
#if !defined(STAGES)
#define STAGES 4
#endif
#if !defined(GROUP)
#define GROUP 8
#endif
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <weft/tiles/sm90.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "timing.h"

namespace s = ::weft::tiles::sm90;

constexpr uint32_t BM = 128, BN = 256, BK = 64, kStages = STAGES, kConsumers = 2;
using TileA = s::smem_tile<BM, BK, 2, s::swizzle::b128>;  // K-major
using TileB = s::smem_tile<BK, BN, 2, s::swizzle::b128>;  // N-major: four 64-column slabs
using TileC = s::smem_tile<64, 64, 2, s::swizzle::b128>;  // an epilogue chunk of one consumer
constexpr uint32_t kStageBytes = TileA::kBytes + TileB::kBytes;
constexpr uint32_t kEpilogueBytes = kConsumers * 2 * TileC::kBytes;
template <bool TmaEpilogue>
constexpr uint32_t kSharedBytes = kStages* kStageBytes + (TmaEpilogue ? kEpilogueBytes : 0) + 1024;

// The t-th work unit's tile row and its Cluster tile columns' first: GROUP tile rows at a time,
// down each column of the group.
__device__ void unit_of(int t, int tilesM, int columns, int& tm, int& column) {
  const int perGroup = GROUP * columns, first = t / perGroup * GROUP, height = min(GROUP, tilesM - first);
  tm = first + t % perGroup % height;
  column = t % perGroup / height;
}

// Split tail: how many runs each unit past the last full wave of `ctas` is split into.
__device__ int tail_runs(int units, int ctas, int kBlocks) {
  const int tail = units % ctas;
  return tail == 0 ? 1 : max(1, min(kBlocks, ctas / tail));
}

// Calls f(unit, k0, k1) for each run of K blocks [k0, k1) of one work unit that CTA `cta` of
// `ctas` computes, in order: the whole units cta, cta + ctas, ... and, with SplitTail, of the
// units past the last full wave its run (if any) instead: run cta % r of unit cta / r of them,
// r = tail_runs.
template <bool SplitTail, class F>
__device__ void for_each_run(int cta, int ctas, int units, int kBlocks, F f) {
  const int whole = SplitTail ? units - units % ctas : units;
  for (int unit = cta; unit < whole; unit += ctas) f(unit, 0, kBlocks);
  if constexpr (SplitTail) {
    const int runs = tail_runs(units, ctas, kBlocks);
    if (cta < (units - whole) * runs) {
      const int j = cta % runs;
      f(whole + cta / runs, kBlocks * j / runs, kBlocks * (j + 1) / runs);
    }
  }
}

// Two floats as a bf16x2 register (the first in the low half).
__device__ uint32_t pack_bfloat16x2(float lo, float hi) {
  __nv_bfloat162 pair = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<uint32_t*>(&pair);
}

// Waits at named barrier `id` for the 128 threads of a warpgroup.
__device__ void warpgroup_sync(uint32_t id) {
  asm volatile("bar.sync %0, 128;" ::"r"(id) : "memory");
}

template <uint32_t Cluster, bool TmaEpilogue, bool SplitTail>
__global__ void __launch_bounds__(384, 1)
    gemm(const __grid_constant__ CUtensorMap mapA, const __grid_constant__ CUtensorMap mapB,
         const __grid_constant__ CUtensorMap mapC, __nv_bfloat16* c, int m, int n, int k, float* workspace,
         int* flags, int epoch) {
  static_assert(Cluster == 1 || Cluster == 2, "clusters of one or two CTAs");
  static_assert(Cluster == 1 || !SplitTail, "split tails with clusters of one");
  extern __shared__ unsigned char raw[];
  unsigned char* stages = raw + (1024 - s::shared_address(raw) % 1024) % 1024;
  __shared__ s::mbarrier_ring<kStages> ring;
  const int tilesM = (m + BM - 1) / BM, tilesN = (n + BN - 1) / BN, kBlocks = (k + BK - 1) / BK;
  // A cluster computes Cluster horizontally adjacent tiles (past N: zeros, not stored).
  const int columns = (tilesN + Cluster - 1) / Cluster, units = tilesM * columns;
  const uint32_t rank = Cluster > 1 ? s::cluster_ctarank() : 0;
  const int firstUnit = int(blockIdx.x / Cluster), unitStride = int(gridDim.x / Cluster);
  const uint32_t warpgroup = threadIdx.x / 128;
  if (threadIdx.x == 0) {
    s::tma_prefetch_descriptor(&mapA);
    s::tma_prefetch_descriptor(&mapB);
    if constexpr (TmaEpilogue) s::tma_prefetch_descriptor(&mapC);
    // A stage is free once every consumer warp of every CTA of the cluster released it.
    ring.init(1, Cluster * kConsumers * 4);
  }
  if constexpr (Cluster > 1) {
    s::cluster_sync();  // the other CTA's barriers are initialized before anything reaches them
  } else {
    __syncthreads();
  }
  s::ring_position<kStages> position;
  if (warpgroup == 0) {
    s::setmaxnreg_dec<40>();
    if (threadIdx.x < 32 && s::elect_one()) {
      for_each_run<SplitTail>(firstUnit, unitStride, units, kBlocks, [&](int unit, int k0, int k1) {
        int tm, column;
        unit_of(unit, tilesM, columns, tm, column);
        const int tn = column * int(Cluster) + int(rank);
        for (int kb = k0; kb < k1; ++kb, position.advance()) {
          ring.acquire(position);
          ring.commit(position, kStageBytes);
          unsigned char* stage = stages + position.stage * kStageBytes;
          // A in two boxes of half the tile's rows; in a cluster, each CTA loads one for both.
          constexpr uint32_t kRows = BM / 2;
          if constexpr (Cluster > 1) {
            s::tma_load_multicast(stage + rank * kRows * TileA::kSwizzleBytes, &mapA,
                                  ring.full_barrier(position), uint16_t(0x3), kb * BK,
                                  tm * BM + int(rank * kRows));
          } else {
            for (uint32_t half = 0; half < 2; ++half) {
              s::tma_load(stage + half * kRows * TileA::kSwizzleBytes, &mapA, ring.full_barrier(position),
                          kb * BK, tm * BM + int(half * kRows));
            }
          }
          for (uint32_t slab = 0; slab < TileB::kSlabs; ++slab) {
            s::tma_load(stage + TileA::kBytes + slab * TileB::kSlabBytes, &mapB, ring.full_barrier(position),
                        tn * BN + slab * TileB::kSlabCols, kb * BK);
          }
        }
      });
    }
    return;
  }
  s::setmaxnreg_inc<232>();
  const uint32_t consumer = warpgroup - 1, t = threadIdx.x % 128, lane = threadIdx.x % 32;
  unsigned char* chunks = stages + kStages * kStageBytes + consumer * 2 * TileC::kBytes;
  uint32_t chunk = 0;  // the epilogue chunks this consumer has stored
  // Frees the stage at `p` in every CTA of the cluster (one arrival per warp).
  auto release = [&](const s::ring_position<kStages>& p) {
    if (lane == 0) {
      if constexpr (Cluster > 1) {
        for (uint32_t cta = 0; cta < Cluster; ++cta) s::mbarrier_arrive_cluster(&ring.empty[p.stage], cta);
      } else {
        ring.release(p);
      }
    }
  };
  float acc[BN / 2] = {};
  // Split tail: this consumer's slot of CTA `cta`'s partial sums, element i of thread t at i * 128 + t.
  const auto slot = [&](int cta) { return workspace + (size_t(cta) * kConsumers + consumer) * (BN / 2) * 128; };
  const auto flag = [&](int cta) { return flags + cta * int(kConsumers) + int(consumer); };
  for_each_run<SplitTail>(firstUnit, unitStride, units, kBlocks, [&](int unit, int k0, int k1) {
    int tm, column;
    unit_of(unit, tilesM, columns, tm, column);
    const int tn = column * int(Cluster) + int(rank);
    s::ring_position<kStages> previous = position;
    for (int kb = k0; kb < k1; ++kb) {
      ring.wait(position);
      const uint32_t a = s::shared_address(stages + position.stage * kStageBytes), b = a + TileA::kBytes;
      s::wgmma_fence();
#pragma unroll
      for (uint32_t step = 0; step < BK / 16; ++step) {
        s::wgmma<s::wgmma_type::bf16, BN, true>(acc, TileA::k_major_descriptor(a, step, 64 * consumer),
                                                TileB::mn_major_descriptor(b, step), kb > k0 || step > 0);
      }
      s::wgmma_commit();
      // The previous K block's wgmmas have completed: its stage is free.
      s::wgmma_wait<1>();
      if (kb > k0) release(previous);
      previous = position;
      position.advance();
    }
    s::wgmma_wait<0>();
    s::wgmma_fence_operands(acc);
    if (k1 > k0) release(previous);
    if constexpr (SplitTail) {
      if (k0 > 0) {
        // A later run of a unit: its partial sums for the CTA that stores the unit.
        float* mine = slot(int(blockIdx.x));
#pragma unroll
        for (uint32_t i = 0; i < BN / 2; ++i) __stcg(mine + i * 128 + t, acc[i]);
        __threadfence();
        warpgroup_sync(1 + consumer);
        if (t == 0) asm volatile("st.release.gpu.global.b32 [%0], %1;" ::"l"(flag(int(blockIdx.x))), "r"(epoch) : "memory");
        return;
      }
      // The unit's later runs: the partials of the CTAs after this one.
      const int runs = k1 < kBlocks ? tail_runs(units, int(gridDim.x), kBlocks) : 1;
      for (int cta = int(blockIdx.x) + 1; cta < int(blockIdx.x) + runs; ++cta) {
        if (t == 0) {
          int raised = 0;
          do {
            asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(raised) : "l"(flag(cta)) : "memory");
          } while (raised != epoch);
        }
        warpgroup_sync(1 + consumer);
        const float* theirs = slot(cta);
#pragma unroll
        for (uint32_t i = 0; i < BN / 2; ++i) acc[i] += __ldcg(theirs + i * 128 + t);
      }
    }
    const int row0 = tm * BM + 64 * int(consumer), col0 = tn * BN;
    if constexpr (TmaEpilogue) {
      // Four 64-column chunks through two buffers: a buffer is rewritten once the store of two
      // chunks ago has read it.
#pragma unroll
      for (uint32_t q = 0; q < BN / 64; ++q, ++chunk) {
        unsigned char* buffer = chunks + chunk % 2 * TileC::kBytes;
        if (t == 0) s::tma_store_wait_read<1>();
        warpgroup_sync(1 + consumer);
        // stmatrix x4: matrices (rows 0-7 | 8-15 of this warp) x (columns 16 p + 0-7 | 8-15).
#pragma unroll
        for (uint32_t p = 0; p < 4; ++p) {
          const uint32_t i = 32 * q + 8 * p;  // acc[i .. i + 7]: columns 64 q + 16 p + 0 .. 15
          const uint32_t r[4] = {pack_bfloat16x2(acc[i], acc[i + 1]), pack_bfloat16x2(acc[i + 2], acc[i + 3]),
                                 pack_bfloat16x2(acc[i + 4], acc[i + 5]),
                                 pack_bfloat16x2(acc[i + 6], acc[i + 7])};
          const uint32_t matrix = lane / 8, row = t / 32 * 16 + matrix % 2 * 8 + lane % 8;
          s::stmatrix<4>(buffer + TileC::offset(row, 16 * p + matrix / 2 * 8), r);
        }
        s::fence_proxy_async();
        warpgroup_sync(1 + consumer);
        if (t == 0) {
          s::tma_store(&mapC, buffer, col0 + int(64 * q), row0);
          s::tma_store_commit();
        }
      }
    } else {
#pragma unroll
      for (uint32_t i = 0; i < BN / 2; i += 2) {
        const int row = row0 + int(s::wgmma_row(t, i)), col = col0 + int(s::wgmma_col(t, i));
        if (row < m && col < n) {
          // n is a multiple of 8 (TMA's row pitch), so col + 1 < n and the pair is 4-byte aligned.
          *reinterpret_cast<__nv_bfloat162*>(c + size_t(row) * n + col) =
              __floats2bfloat162_rn(acc[i], acc[i + 1]);
        }
      }
    }
  });
  if constexpr (TmaEpilogue) {
    if (t == 0) s::tma_store_wait<0>();
  }
  if constexpr (Cluster > 1) {
    // No CTA leaves while the other may still arrive on its barriers.
    s::cluster_arrive();
    s::cluster_wait();
  }
}

struct Problem {
  int m, n, k;
  __nv_bfloat16 *a, *b, *c;
  CUtensorMap mapA, mapB, mapC;
  std::vector<float> want;  // cuBLAS, fp32
  float* workspace;         // split tail: a slot of partial sums for each CTA's consumers
  int* flags;               // split tail: a flag for each slot, raised to the launch's epoch
  int epoch = 0;            // launches so far
};

// The split tail's slots for up to this many CTAs (132 SMs on the H100).
constexpr int kMaxCtas = 1024;

// splitmix64 of i: seeded test data in [-1, 1).
float value(uint64_t i) {
  uint64_t z = i * 0x9e3779b97f4a7c15ull + 20261124ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return float(z >> 40) / float(1 << 23) - 1.0f;
}

// Runs and checks one variant; returns whether every element is right.
template <uint32_t Cluster, bool TmaEpilogue, bool SplitTail = false>
bool run_variant(Problem& p, float blas) {
  auto kernel = gemm<Cluster, TmaEpilogue, SplitTail>;
  constexpr uint32_t kBytes = kSharedBytes<TmaEpilogue>;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kBytes);
  if constexpr (Cluster > 1) cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = Cluster;
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.blockDim = dim3(384);
  config.dynamicSmemBytes = kBytes;
  config.attrs = &attribute;
  config.numAttrs = 1;
  // As many clusters as fit at once, and no more than there are work units.
  int clusters = 0;
  config.gridDim = dim3(Cluster);
  cudaOccupancyMaxActiveClusters(&clusters, kernel, &config);
  const int tilesM = (p.m + BM - 1) / BM, tilesN = (p.n + BN - 1) / BN;
  const int units = tilesM * ((tilesN + int(Cluster) - 1) / int(Cluster));
  // Split tail: one CTA an SM (the runs of a unit wait for each other in the last wave).
  const int ctas = SplitTail ? clusters : std::min(clusters, units);
  config.gridDim = dim3(uint32_t(std::min(kMaxCtas, std::max(1, ctas))) * Cluster);
  cudaMemset(p.c, 0, size_t(p.m) * p.n * 2);
  float ms = time_ms([&] {
    cudaLaunchKernelEx(&config, kernel, p.mapA, p.mapB, p.mapC, p.c, p.m, p.n, p.k, p.workspace, p.flags, ++p.epoch);
  });
  cudaError_t status = cudaDeviceSynchronize();
  std::vector<__nv_bfloat16> mine(size_t(p.m) * p.n);
  cudaMemcpy(mine.data(), p.c, mine.size() * 2, cudaMemcpyDeviceToHost);
  // bf16 output: within 2^-8 of the fp32 result, relative, plus a little for the sums' order.
  size_t bad = 0;
  double worst = 0;
  for (size_t i = 0; i < mine.size(); ++i) {
    const double got = __bfloat162float(mine[i]), ref = p.want[i], error = std::fabs(got - ref);
    worst = std::max(worst, error / std::max(1.0, std::fabs(ref)));
    bad += !(error <= std::fabs(ref) * 0x1p-8 + 1e-2);
  }
  const double flops = 2.0 * p.m * p.n * double(p.k);
  std::printf(
      "  cluster %u, %s epilogue%s, %d CTAs: %6.1f TFLOP/s = %5.1f%% of cuBLAS; %zu of %zu elements off (worst "
      "relative %.3g); %s\n",
      Cluster, TmaEpilogue ? "TMA" : "direct", SplitTail ? ", split tail" : "", config.gridDim.x, flops / (ms * 1e-3) / 1e12,
      100.0 * blas / ms, bad, mine.size(), worst, cudaGetErrorString(status));
  return status == cudaSuccess && bad == 0;
}

bool run(cublasHandle_t handle, int m, int n, int k) {
  Problem p{m, n, k};
  float* want = nullptr;
  __nv_bfloat16* blasC = nullptr;
  cudaMalloc(&p.a, size_t(m) * k * 2);
  cudaMalloc(&p.b, size_t(k) * n * 2);
  cudaMalloc(&p.c, size_t(m) * n * 2);
  cudaMalloc(&blasC, size_t(m) * n * 2);
  cudaMalloc(&want, size_t(m) * n * 4);
  cudaMalloc(&p.workspace, size_t(kMaxCtas) * kConsumers * (BN / 2) * 128 * 4);
  cudaMalloc(&p.flags, size_t(kMaxCtas) * kConsumers * 4);
  cudaMemset(p.flags, 0, size_t(kMaxCtas) * kConsumers * 4);
  std::vector<__nv_bfloat16> ha(size_t(m) * k), hb(size_t(k) * n);
  for (size_t i = 0; i < ha.size(); ++i) ha[i] = __float2bfloat16(value(i));
  for (size_t i = 0; i < hb.size(); ++i) hb[i] = __float2bfloat16(value(i + ha.size()));
  cudaMemcpy(p.a, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(p.b, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice);
  const uint64_t M = uint64_t(m), N = uint64_t(n), K = uint64_t(k);
  const char* error = nullptr;
  if (s::make_tensor_map<2>(&p.mapA, p.a, 2, {M, K}, {BM / 2, BK}, s::swizzle::b128, &error) != CUDA_SUCCESS ||
      s::make_tensor_map<2>(&p.mapB, p.b, 2, {K, N}, {BK, TileB::kSlabCols}, s::swizzle::b128, &error) !=
          CUDA_SUCCESS ||
      s::make_tensor_map<2>(&p.mapC, p.c, 2, {M, N}, {64, 64}, s::swizzle::b128, &error) != CUDA_SUCCESS) {
    std::printf("make_tensor_map failed for %d x %d x %d: %s\n", m, n, k, error);
    return false;
  }
  float alpha = 1, beta = 0;
  // Row-major C = A B is column-major C^T = B^T A^T.
  float blas = time_ms([&] {
    cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, p.b, CUDA_R_16BF, n, p.a, CUDA_R_16BF, k,
                 &beta, blasC, CUDA_R_16BF, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  });
  cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, p.b, CUDA_R_16BF, n, p.a, CUDA_R_16BF, k,
               &beta, want, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  p.want.resize(size_t(m) * n);
  cudaMemcpy(p.want.data(), want, p.want.size() * 4, cudaMemcpyDeviceToHost);
  // The reference itself, at sampled elements, against a double-precision sum.
  size_t badReference = 0;
  for (int sample = 0; sample < 64; ++sample) {
    const int i = int((uint64_t(sample) * 7919u) % m), j = int((uint64_t(sample) * 104729u) % n);
    double sum = 0;
    for (int kk = 0; kk < k; ++kk) {
      sum += double(__bfloat162float(ha[size_t(i) * k + kk])) * __bfloat162float(hb[size_t(kk) * n + j]);
    }
    badReference += !(std::fabs(p.want[size_t(i) * n + j] - sum) <= 1e-3 * std::max(1.0, std::fabs(sum)));
  }
  const double flops = 2.0 * m * n * double(k);
  std::printf("bf16 GEMM %d x %d x %d: cuBLAS %6.1f TFLOP/s, reference %s\n", m, n, k,
              flops / (blas * 1e-3) / 1e12, badReference == 0 ? "ok" : "WRONG");
  bool ok = badReference == 0;
  ok = run_variant<1, false>(p, blas) && ok;
  ok = run_variant<1, true>(p, blas) && ok;
  ok = run_variant<2, false>(p, blas) && ok;
  ok = run_variant<2, true>(p, blas) && ok;
  ok = run_variant<1, false, true>(p, blas) && ok;
  ok = run_variant<1, true, true>(p, blas) && ok;
  cudaFree(p.a);
  cudaFree(p.workspace);
  cudaFree(p.flags);
  cudaFree(p.b);
  cudaFree(p.c);
  cudaFree(blasC);
  cudaFree(want);
  return ok;
}

int main() {
  cublasHandle_t handle;
  cublasCreate(&handle);
  // Square sizes, an odd size (M and N not multiples of the tile), a small one with an odd
  // number of tile columns (the second CTA of a cluster computes a tile past N).
  const int shapes[][3] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {3000, 3000, 4096}, {200, 136, 72}};
  bool ok = true;
  for (auto [m, n, k] : shapes) ok = run(handle, m, n, k) && ok;
  std::printf("%s\n", ok ? "0 failures" : "FAILED");
  return ok ? 0 : 1;
}
