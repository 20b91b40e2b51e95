// GPU benchmark of the tile header (not a test): a float4 copy (the bandwidth reference),
// tile vec_add with 1-D tiles of several sizes, row softmax of 8192 x 8192 float32, and a bf16
// GEMM through ct::mma (mma.sync) against cuBLAS. Build on the GPU machine:
//   nvcc -std=c++20 -arch=sm_90 -O3 -I include bench/tile_header/bench_tiles.cu -lcublas -o bench_tiles
// Each figure is the mean of 20 launches after a warm-up.
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <weft/cuda_tile.h>

#include "timing.h"

#include <cstdio>
#include <vector>

namespace ct = ::cuda::tiles;

__global__ void copy_kernel(const float4* in, float4* out, size_t n4) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n4; i += size_t(gridDim.x) * blockDim.x) out[i] = in[i];
}

template <uint32_t kTile>
__tile_global__ void vec_add(const float* a, const float* b, float* c, int n) {
  auto va = ct::make_partition_view<ct::shape<kTile>>(ct::tensor_span{a, ct::extents{n}});
  auto vb = ct::make_partition_view<ct::shape<kTile>>(ct::tensor_span{b, ct::extents{n}});
  auto vc = ct::make_partition_view<ct::shape<kTile>>(ct::tensor_span{c, ct::extents{n}});
  auto i = ct::bid().x;
  ct::store(vc, ct::load(va, i) + ct::load(vb, i), i);
}

template <uint32_t kCols>
__tile_global__ void softmax_rows(const float* x, float* y, int rows, int cols) {
  using E = ct::extents<int, ct::dynamic_extent, ct::dynamic_extent>;
  auto in = ct::make_partition_view<ct::shape<1, kCols>>(ct::tensor_span{x, E{rows, cols}}, ct::padding_neg_inf_t{});
  auto out = ct::make_partition_view<ct::shape<1, kCols>>(ct::tensor_span{y, E{rows, cols}});
  auto row = ct::load(in, ct::bid().x, 0);
  auto shifted = ct::exp(row - ct::max<1, true>(row));
  ct::store(out, shifted / ct::sum<1, true>(shifted), ct::bid().x, 0);
}

template <uint32_t BM, uint32_t BN, uint32_t BK>
__tile_global__ void gemm(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, int m, int n, int k) {
  using E = ct::extents<int, ct::dynamic_extent, ct::dynamic_extent>;
  auto av = ct::make_partition_view<ct::shape<BM, BK>>(ct::tensor_span{a, E{m, k}});
  auto bv = ct::make_partition_view<ct::shape<BK, BN>>(ct::tensor_span{b, E{k, n}});
  auto cv = ct::make_partition_view<ct::shape<BM, BN>>(ct::tensor_span{c, E{m, n}});
  using Acc = ct::mma_accumulator_t<ct::tile<__nv_bfloat16, ct::shape<BM, BK>>, ct::tile<__nv_bfloat16, ct::shape<BK, BN>>>;
  Acc acc = ct::zeros<Acc>();
  auto row = ct::bid().y, col = ct::bid().x;
  for (int kk = 0; kk < k / int(BK); ++kk) acc = ct::mma(ct::load(av, row, kk), ct::load(bv, kk, col), acc);
  ct::store(cv, acc, row, col);
}

int main() {
  // Bandwidth: copy, vec_add.
  const int n = 1 << 28;
  float *a, *b, *c;
  cudaMalloc(&a, size_t(n) * 4);
  cudaMalloc(&b, size_t(n) * 4);
  cudaMalloc(&c, size_t(n) * 4);
  cudaMemset(a, 0, size_t(n) * 4);
  cudaMemset(b, 0, size_t(n) * 4);
  float copy = time_ms([&] { copy_kernel<<<132 * 16, 256>>>(reinterpret_cast<const float4*>(a), reinterpret_cast<float4*>(c), size_t(n) / 4); });
  double copyBw = 2.0 * n * 4 / (copy * 1e-3) / 1e9;
  std::printf("copy (float4):            %8.1f GB/s\n", copyBw);
  auto report = [&](const char* name, float ms) {
    double bw = 3.0 * n * 4 / (ms * 1e-3) / 1e9;
    std::printf("%-25s %8.1f GB/s  (%.1f%% of copy)\n", name, bw, 100.0 * bw / copyBw);
  };
  report("tile vec_add, tile 1024:", time_ms([&] { vec_add<1024><<<n / 1024, ct::kBlockThreads>>>(a, b, c, n); }));
  report("tile vec_add, tile 2048:", time_ms([&] { vec_add<2048><<<n / 2048, ct::kBlockThreads>>>(a, b, c, n); }));
  report("tile vec_add, tile 4096:", time_ms([&] { vec_add<4096><<<n / 4096, ct::kBlockThreads>>>(a, b, c, n); }));
  report("tile vec_add, tile 8192:", time_ms([&] { vec_add<8192><<<n / 8192, ct::kBlockThreads>>>(a, b, c, n); }));

  // Row softmax 8192 x 8192 float32 (bytes read + written).
  {
    const int rows = 8192, cols = 8192;
    float ms = time_ms([&] { softmax_rows<8192><<<rows, ct::kBlockThreads>>>(a, c, rows, cols); });
    std::printf("softmax 8192x8192 f32:    %8.1f GB/s  (%.1f%% of copy)\n", 2.0 * rows * cols * 4 / (ms * 1e-3) / 1e9,
                100.0 * (2.0 * rows * cols * 4 / (ms * 1e-3) / 1e9) / copyBw);
  }
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);

  // bf16 GEMM, fp32 output: ct::mma vs cuBLAS.
  cublasHandle_t handle;
  cublasCreate(&handle);
  for (int size : {4096, 8192}) {
    __nv_bfloat16 *x, *y;
    float* z;
    cudaMalloc(&x, size_t(size) * size * 2);
    cudaMalloc(&y, size_t(size) * size * 2);
    cudaMalloc(&z, size_t(size) * size * 4);
    std::vector<__nv_bfloat16> host(size_t(size) * size);
    for (size_t i = 0; i < host.size(); ++i) host[i] = __float2bfloat16(float((i * 2654435761u) % 1000) / 1000.0f - 0.5f);
    cudaMemcpy(x, host.data(), host.size() * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(y, host.data(), host.size() * 2, cudaMemcpyHostToDevice);
    double flops = 2.0 * size * size * double(size);
    float tile = time_ms([&] { gemm<128, 128, 32><<<dim3(size / 128, size / 128), ct::kBlockThreads>>>(x, y, z, size, size, size); });
    float tile64 = time_ms([&] { gemm<64, 64, 32><<<dim3(size / 64, size / 64), ct::kBlockThreads>>>(x, y, z, size, size, size); });
    std::vector<float> mine(16);
    cudaMemcpy(mine.data(), z, 16 * 4, cudaMemcpyDeviceToHost);
    float alpha = 1, beta = 0;
    float blas = time_ms([&] {
      cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, size, size, size, &alpha, y, CUDA_R_16BF, size, x, CUDA_R_16BF, size,
                   &beta, z, CUDA_R_32F, size, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    });
    std::vector<float> theirs(16);
    cudaMemcpy(theirs.data(), z, 16 * 4, cudaMemcpyDeviceToHost);
    double worst = 0;
    for (int i = 0; i < 16; ++i) worst = std::max(worst, double(std::abs(mine[i] - theirs[i])));
    std::printf("bf16 GEMM %d^3: ct::mma 128x128x32 %6.1f TFLOP/s, 64x64x32 %6.1f TFLOP/s, cuBLAS %6.1f TFLOP/s "
                "(%.1f%%), max |diff| of 16 outputs %.3g\n",
                size, flops / (tile * 1e-3) / 1e12, flops / (tile64 * 1e-3) / 1e12, flops / (blas * 1e-3) / 1e12,
                100.0 * blas / tile, worst);
    cudaFree(x);
    cudaFree(y);
    cudaFree(z);
  }
  cudaError_t status = cudaDeviceSynchronize();
  std::printf("status: %s\n", cudaGetErrorString(status));
  return status == cudaSuccess ? 0 : 1;
}
