// GPU benchmark of the tile header's pipelined K loop (weft::tiles::mma_pipeline: cp.async into a
// ring of stages, ldmatrix, mma.sync) for bf16 GEMM with fp32 output against cuBLAS, over tile
// shapes and stage counts, square and odd sizes; every result is compared with cuBLAS's. Build on
// the GPU machine:
//   nvcc -std=c++20 -arch=sm_90 -O3 -I include bench/tile_header/bench_gemm_pipeline.cu -lcublas -o bench_gemm
// Each figure is the mean of 20 launches after a warm-up. -DWEFT_TILE_THREADS=N (default 256),
// -DMIN_BLOCKS=B (blocks per SM for __launch_bounds__, default 1) and
// -DCONFIGS='X(BM, BN, BK, STAGES) ...' choose what is measured; -DGROUP=G visits the output
// tiles in groups of G tile rows (L2 reuse), 0 (the default) row by row.
#if !defined(WEFT_TILE_THREADS)
#define WEFT_TILE_THREADS 256
#endif
#if !defined(MIN_BLOCKS)
#define MIN_BLOCKS 1
#endif
#if !defined(GROUP)
#define GROUP 0
#endif
#if !defined(CONFIGS)
#define CONFIGS X(128, 128, 32, 4) X(128, 128, 64, 3) X(128, 256, 32, 4) X(128, 256, 64, 3)
#endif
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <weft/cuda_tile.h>

#include "timing.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace wt = ::weft::tiles;

template <uint32_t BM, uint32_t BN, uint32_t BK, uint32_t Stages>
__global__ void __launch_bounds__(wt::kBlockThreads, MIN_BLOCKS) gemm(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, int m, int n, int k) {
  using E = wt::extents<int64_t, wt::dynamic_extent, wt::dynamic_extent>;
  auto as = wt::tensor_span{a, E{m, k}};
  auto bs = wt::tensor_span{b, E{k, n}};
  auto cv = wt::make_partition_view<wt::shape<BM, BN>>(wt::tensor_span{c, E{m, n}});
  using SA = wt::shape<BM, BK>;
  using SB = wt::shape<BK, BN>;
  using Acc = wt::mma_accumulator_t<wt::tile<__nv_bfloat16, SA>, wt::tile<__nv_bfloat16, SB>>;
  int64_t row = blockIdx.y, col = blockIdx.x;
  if constexpr (GROUP > 0) {
    // Consecutive blocks walk down a group of GROUP tile rows, then move one tile column on.
    const int64_t id = blockIdx.y * int64_t(gridDim.x) + blockIdx.x, perGroup = int64_t(GROUP) * gridDim.x;
    const int64_t first = id / perGroup * GROUP, height = min(int64_t(GROUP), int64_t(gridDim.y) - first);
    row = first + (id % perGroup) % height;
    col = (id % perGroup) / height;
  }
  Acc acc = wt::mma_pipeline<SA, SB, Stages>(
      wt::zeros<Acc>(), as, bs, int64_t(0), int64_t((k + BK - 1) / BK), [&](int64_t kk) { return wt::block_index<2>{{row, kk}}; },
      [&](int64_t kk) { return wt::block_index<2>{{kk, col}}; });
  wt::store(cv, acc, row, col);
}

struct Problem {
  int m, n, k;
  __nv_bfloat16 *x, *y;
  float *z, *want;
};

template <uint32_t BM, uint32_t BN, uint32_t BK, uint32_t Stages>
void run(const Problem& p, float blas) {
  constexpr uint32_t kShared = Stages * wt::mma_stage_bytes<__nv_bfloat16, wt::shape<BM, BK>, wt::shape<BK, BN>>;
  auto kernel = gemm<BM, BN, BK, Stages>;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kShared);
  dim3 grid((p.n + BN - 1) / BN, (p.m + BM - 1) / BM);
  cudaMemset(p.z, 0, size_t(p.m) * p.n * 4);
  float ms = time_ms([&] { kernel<<<grid, wt::kBlockThreads, kShared>>>(p.x, p.y, p.z, p.m, p.n, p.k); });
  std::vector<float> mine(size_t(p.m) * p.n), theirs(mine.size());
  cudaMemcpy(mine.data(), p.z, mine.size() * 4, cudaMemcpyDeviceToHost);
  cudaMemcpy(theirs.data(), p.want, theirs.size() * 4, cudaMemcpyDeviceToHost);
  double worst = 0;
  for (size_t i = 0; i < mine.size(); ++i) worst = std::max(worst, double(std::abs(mine[i] - theirs[i])));
  double flops = 2.0 * p.m * p.n * double(p.k);
  std::printf("  %3ux%3ux%2u x%u stages, %u threads, %u blocks/SM bound: %6.1f TFLOP/s = %5.1f%% of cuBLAS, max |diff| %.3g  %s\n", BM, BN, BK, Stages, wt::kBlockThreads, MIN_BLOCKS,
              flops / (ms * 1e-3) / 1e12, 100.0 * blas / ms, worst, cudaGetErrorString(cudaGetLastError()));
}

int main() {
  cublasHandle_t handle;
  cublasCreate(&handle);
  const int shapes[][3] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {3000, 3000, 4096}};
  for (auto [m, n, k] : shapes) {
    Problem p{m, n, k};
    cudaMalloc(&p.x, size_t(m) * k * 2);
    cudaMalloc(&p.y, size_t(k) * n * 2);
    cudaMalloc(&p.z, size_t(m) * n * 4);
    cudaMalloc(&p.want, size_t(m) * n * 4);
    std::vector<__nv_bfloat16> host(size_t(std::max(m, n)) * k);
    for (size_t i = 0; i < host.size(); ++i) host[i] = __float2bfloat16(float((i * 2654435761u) % 1000) / 1000.0f - 0.5f);
    cudaMemcpy(p.x, host.data(), size_t(m) * k * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(p.y, host.data(), size_t(k) * n * 2, cudaMemcpyHostToDevice);
    float alpha = 1, beta = 0;
    // Row-major C = A B is column-major C^T = B^T A^T.
    float blas = time_ms([&] {
      cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, p.y, CUDA_R_16BF, n, p.x, CUDA_R_16BF, k, &beta, p.want,
                   CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    });
    std::printf("bf16 GEMM %d x %d x %d: cuBLAS %6.1f TFLOP/s\n", m, n, k, 2.0 * m * n * double(k) / (blas * 1e-3) / 1e12);
#define X(BM, BN, BK, STAGES) run<BM, BN, BK, STAGES>(p, blas);
    CONFIGS
#undef X
    cudaFree(p.x);
    cudaFree(p.y);
    cudaFree(p.z);
    cudaFree(p.want);
  }
  cudaError_t status = cudaDeviceSynchronize();
  std::printf("status: %s\n", cudaGetErrorString(status));
  return status == cudaSuccess ? 0 : 1;
}
