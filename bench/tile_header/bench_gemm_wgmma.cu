// GPU benchmark of a warp-specialized persistent bf16 GEMM built from the Hopper building blocks
// (<weft/tiles/sm90.h>) against cuBLAS: C (bf16, M x N) = A (M x K) B (K x N), all row-major,
// fp32 accumulate. One CTA per SM walks the output tiles (BM x BN = 128 x 256, grouped by GROUP
// tile rows for L2 reuse). Warpgroup 0 gives its registers up (setmaxnreg.dec) and one elected
// thread streams the K blocks (BK = 64) of A and B by TMA (128-byte swizzle; B as it is, N-major)
// into a ring of STAGES mbarrier stages; warpgroups 1 and 2 take the registers
// (setmaxnreg.inc), each multiplying its 64 rows of the tile by the stage's B with four
// wgmma m64n256k16 per K block, releasing a stage once the next K block's wgmmas are issued and
// the stage's have completed; the accumulators go to C as bf16 pairs. Every result is checked
// against cuBLAS's fp32 output (and sampled elements against a double-precision host sum). Build
// and run on an sm_90 GPU:
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
constexpr uint32_t kStageBytes = TileA::kBytes + TileB::kBytes;
constexpr uint32_t kSharedBytes = kStages * kStageBytes + 1024;

// The output tile of the t-th step: GROUP tile rows at a time, down each column of the group.
__device__ void tile_of(int t, int tilesM, int tilesN, int& tm, int& tn) {
  const int perGroup = GROUP * tilesN, first = t / perGroup * GROUP, height = min(GROUP, tilesM - first);
  tm = first + t % perGroup % height;
  tn = t % perGroup / height;
}

__global__ void __launch_bounds__(384, 1)
    gemm(const __grid_constant__ CUtensorMap mapA, const __grid_constant__ CUtensorMap mapB, __nv_bfloat16* c,
         int m, int n, int k) {
  extern __shared__ unsigned char raw[];
  unsigned char* stages = raw + (1024 - s::shared_address(raw) % 1024) % 1024;
  __shared__ s::mbarrier_ring<kStages> ring;
  const int tilesM = (m + BM - 1) / BM, tilesN = (n + BN - 1) / BN, kBlocks = (k + BK - 1) / BK;
  const uint32_t warpgroup = threadIdx.x / 128;
  if (threadIdx.x == 0) {
    s::tma_prefetch_descriptor(&mapA);
    s::tma_prefetch_descriptor(&mapB);
    // The empty barriers take one arrival per consumer warp.
    ring.init(1, kConsumers * 4);
  }
  __syncthreads();
  s::ring_position<kStages> position;
  if (warpgroup == 0) {
    s::setmaxnreg_dec<40>();
    if (threadIdx.x < 32 && s::elect_one()) {
      for (int t = blockIdx.x; t < tilesM * tilesN; t += gridDim.x) {
        int tm, tn;
        tile_of(t, tilesM, tilesN, tm, tn);
        for (int kb = 0; kb < kBlocks; ++kb, position.advance()) {
          ring.acquire(position);
          ring.commit(position, kStageBytes);
          unsigned char* stage = stages + position.stage * kStageBytes;
          s::tma_load(stage, &mapA, ring.full_barrier(position), kb * BK, tm * BM);
          for (uint32_t slab = 0; slab < TileB::kSlabs; ++slab) {
            s::tma_load(stage + TileA::kBytes + slab * TileB::kSlabBytes, &mapB, ring.full_barrier(position),
                        tn * BN + slab * TileB::kSlabCols, kb * BK);
          }
        }
      }
    }
    return;
  }
  s::setmaxnreg_inc<232>();
  const uint32_t consumer = warpgroup - 1, t = threadIdx.x % 128, lane = threadIdx.x % 32;
  float acc[BN / 2] = {};
  for (int tile = blockIdx.x; tile < tilesM * tilesN; tile += gridDim.x) {
    int tm, tn;
    tile_of(tile, tilesM, tilesN, tm, tn);
    s::ring_position<kStages> previous = position;
    for (int kb = 0; kb < kBlocks; ++kb) {
      ring.wait(position);
      const uint32_t a = s::shared_address(stages + position.stage * kStageBytes), b = a + TileA::kBytes;
      s::wgmma_fence();
#pragma unroll
      for (uint32_t step = 0; step < BK / 16; ++step) {
        s::wgmma<s::wgmma_type::bf16, BN, true>(acc, TileA::k_major_descriptor(a, step, 64 * consumer),
                                                TileB::mn_major_descriptor(b, step), kb > 0 || step > 0);
      }
      s::wgmma_commit();
      // The previous K block's wgmmas have completed: its stage is free.
      s::wgmma_wait<1>();
      if (kb > 0 && lane == 0) ring.release(previous);
      previous = position;
      position.advance();
    }
    s::wgmma_wait<0>();
    s::wgmma_fence_operands(acc);
    if (kBlocks > 0 && lane == 0) ring.release(previous);
    const int row0 = tm * BM + 64 * consumer, col0 = tn * BN;
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
}

struct Problem {
  int m, n, k;
  __nv_bfloat16 *a, *b, *c, *blasC;
  float* want;
};

// splitmix64 of i: seeded test data in [-1, 1).
float value(uint64_t i) {
  uint64_t z = i * 0x9e3779b97f4a7c15ull + 20261124ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return float(z >> 40) / float(1 << 23) - 1.0f;
}

bool run(cublasHandle_t handle, int m, int n, int k, int sms) {
  Problem p{m, n, k};
  cudaMalloc(&p.a, size_t(m) * k * 2);
  cudaMalloc(&p.b, size_t(k) * n * 2);
  cudaMalloc(&p.c, size_t(m) * n * 2);
  cudaMalloc(&p.blasC, size_t(m) * n * 2);
  cudaMalloc(&p.want, size_t(m) * n * 4);
  std::vector<__nv_bfloat16> ha(size_t(m) * k), hb(size_t(k) * n);
  for (size_t i = 0; i < ha.size(); ++i) ha[i] = __float2bfloat16(value(i));
  for (size_t i = 0; i < hb.size(); ++i) hb[i] = __float2bfloat16(value(i + ha.size()));
  cudaMemcpy(p.a, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(p.b, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice);
  cudaMemset(p.c, 0, size_t(m) * n * 2);

  CUtensorMap mapA, mapB;
  if (s::make_tensor_map<2>(&mapA, p.a, 2, {uint64_t(m), uint64_t(k)}, {BM, BK}, s::swizzle::b128) !=
          CUDA_SUCCESS ||
      s::make_tensor_map<2>(&mapB, p.b, 2, {uint64_t(k), uint64_t(n)}, {BK, TileB::kSlabCols},
                            s::swizzle::b128) != CUDA_SUCCESS) {
    std::printf("make_tensor_map failed for %d x %d x %d (K and N must be multiples of 8)\n", m, n, k);
    return false;
  }
  cudaFuncSetAttribute(gemm, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes);
  const int tiles = ((m + BM - 1) / BM) * ((n + BN - 1) / BN);
  const int grid = std::min(tiles, sms);
  float ms = time_ms([&] { gemm<<<grid, 384, kSharedBytes>>>(mapA, mapB, p.c, m, n, k); });
  cudaError_t status = cudaDeviceSynchronize();

  float alpha = 1, beta = 0;
  // Row-major C = A B is column-major C^T = B^T A^T.
  float blas = time_ms([&] {
    cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, p.b, CUDA_R_16BF, n, p.a, CUDA_R_16BF, k,
                 &beta, p.blasC, CUDA_R_16BF, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  });
  cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, p.b, CUDA_R_16BF, n, p.a, CUDA_R_16BF, k,
               &beta, p.want, CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  std::vector<__nv_bfloat16> mine(size_t(m) * n);
  std::vector<float> want(mine.size());
  cudaMemcpy(mine.data(), p.c, mine.size() * 2, cudaMemcpyDeviceToHost);
  cudaMemcpy(want.data(), p.want, want.size() * 4, cudaMemcpyDeviceToHost);
  // bf16 output: within 2^-8 of the fp32 result, relative, plus a little for the sums' order.
  size_t bad = 0;
  double worst = 0;
  for (size_t i = 0; i < mine.size(); ++i) {
    const double got = __bfloat162float(mine[i]), ref = want[i], error = std::fabs(got - ref);
    worst = std::max(worst, error / std::max(1.0, std::fabs(ref)));
    bad += !(error <= std::fabs(ref) * 0x1p-8 + 1e-2);
  }
  // The reference itself, at sampled elements, against a double-precision sum.
  size_t badReference = 0;
  for (int sample = 0; sample < 64; ++sample) {
    const int i = int((uint64_t(sample) * 7919u) % m), j = int((uint64_t(sample) * 104729u) % n);
    double sum = 0;
    for (int kk = 0; kk < k; ++kk) {
      sum += double(__bfloat162float(ha[size_t(i) * k + kk])) * __bfloat162float(hb[size_t(kk) * n + j]);
    }
    badReference += !(std::fabs(want[size_t(i) * n + j] - sum) <= 1e-3 * std::max(1.0, std::fabs(sum)));
  }
  const double flops = 2.0 * m * n * double(k);
  std::printf(
      "bf16 GEMM %5d x %5d x %5d: wgmma %6.1f TFLOP/s, cuBLAS %6.1f TFLOP/s (%5.1f%%); %zu of %zu elements "
      "off "
      "(worst relative %.3g), reference %s; %s\n",
      m, n, k, flops / (ms * 1e-3) / 1e12, flops / (blas * 1e-3) / 1e12, 100.0 * blas / ms, bad, mine.size(),
      worst, badReference == 0 ? "ok" : "WRONG", cudaGetErrorString(status));
  cudaFree(p.a);
  cudaFree(p.b);
  cudaFree(p.c);
  cudaFree(p.blasC);
  cudaFree(p.want);
  return status == cudaSuccess && bad == 0 && badReference == 0;
}

int main() {
  cublasHandle_t handle;
  cublasCreate(&handle);
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const int shapes[][3] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {3000, 3000, 4096}, {200, 136, 72}};
  bool ok = true;
  for (auto [m, n, k] : shapes) ok = run(handle, m, n, k, sms) && ok;
  std::printf("%s\n", ok ? "0 failures" : "FAILED");
  return ok ? 0 : 1;
}
