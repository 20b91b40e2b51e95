// Row softmax with the C++ tile header: y[r, :] = exp(x[r, :] - max) / sum(exp(x[r, :] - max)).
//
// Launch configuration: one tile block per row, grid (rows, 1, 1), and cuda::tiles::kBlockThreads
// threads per block (WEFT_TILE_THREADS, 128 by default):
//     softmax_rows<kCols><<<rows, ct::kBlockThreads>>>(x, y, rows, cols);
// Each block loads its row as a (1, kCols) tile (cols <= kCols; the missing columns are padded
// with -inf, so exp gives 0 there and they change neither the max nor the sum), reduces it twice
// through the block's shared scratch buffer and stores the in-bounds columns.
//
// GPU:  nvcc -std=c++20 -arch=sm_90 -O3 -I include examples/cpp/tile_softmax.cu -o tile_softmax
//       (checks rows against a double-precision reference and prints the bandwidth).
// CPU:  g++ -std=c++20 -O2 -DWEFT_HOST -I include -x c++ examples/cpp/tile_softmax.cu -o tile_softmax
#include <weft/cuda_tile.h>

namespace ct = ::cuda::tiles;

template <uint32_t kCols>
__tile_global__ void softmax_rows(const float* x, float* y, int rows, int cols) {
  using E = ct::extents<int, ct::dynamic_extent, ct::dynamic_extent>;
  auto in = ct::make_partition_view<ct::shape<1, kCols>>(ct::tensor_span{x, E{rows, cols}}, ct::padding_neg_inf_t{});
  auto out = ct::make_partition_view<ct::shape<1, kCols>>(ct::tensor_span{y, E{rows, cols}});
  auto row = ct::load(in, ct::bid().x, 0);
  auto shifted = ct::exp(row - ct::max<1, true>(row));
  ct::store(out, shifted / ct::sum<1, true>(shifted), ct::bid().x, 0);
}

#if defined(__CUDACC_RTC__)
// NVRTC compiles the kernel alone.
template __global__ void softmax_rows<8192>(const float*, float*, int, int);
#else
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

// The largest |y - softmax(x)| over the given rows, against double precision.
double max_error(const std::vector<float>& x, const std::vector<float>& y, int cols, int firstRow, int rowCount) {
  double worst = 0;
  for (int r = firstRow; r < firstRow + rowCount; ++r) {
    double peak = -INFINITY, total = 0;
    for (int c = 0; c < cols; ++c) peak = std::fmax(peak, x[size_t(r) * cols + c]);
    for (int c = 0; c < cols; ++c) total += std::exp(double(x[size_t(r) * cols + c]) - peak);
    for (int c = 0; c < cols; ++c) {
      double expected = std::exp(double(x[size_t(r) * cols + c]) - peak) / total;
      worst = std::fmax(worst, std::fabs(expected - y[size_t(r) * cols + c]));
    }
  }
  return worst;
}

int main() {
#if defined(WEFT_TARGET_HOST)
  constexpr uint32_t kCols = 1024;
  const int rows = 33, cols = 1000;
#else
  constexpr uint32_t kCols = 8192;
  const int rows = 8192, cols = 8192;
#endif
  std::vector<float> x(size_t(rows) * cols), y(x.size());
  unsigned seed = 12345;
  for (float& v : x) {
    seed = seed * 1664525u + 1013904223u;
    v = static_cast<float>(seed >> 8) * 0x1p-24f * 20.0f - 10.0f;
  }
#if defined(WEFT_TARGET_HOST)
  ct::host_launch({static_cast<uint32_t>(rows), 1, 1}, softmax_rows<kCols>, x.data(), y.data(), rows, cols);
  double error = max_error(x, y, cols, 0, rows);
  std::printf("softmax %d x %d on the CPU: max error %.3g\n", rows, cols, error);
#else
  float *dx = nullptr, *dy = nullptr;
  size_t bytes = x.size() * sizeof(float);
  cudaMalloc(&dx, bytes);
  cudaMalloc(&dy, bytes);
  cudaMemcpy(dx, x.data(), bytes, cudaMemcpyHostToDevice);
  softmax_rows<kCols><<<rows, ct::kBlockThreads>>>(dx, dy, rows, cols);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  const int iterations = 20;
  cudaEventRecord(start);
  for (int i = 0; i < iterations; ++i) softmax_rows<kCols><<<rows, ct::kBlockThreads>>>(dx, dy, rows, cols);
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  cudaError_t status = cudaGetLastError();
  cudaMemcpy(y.data(), dy, bytes, cudaMemcpyDeviceToHost);
  double error = max_error(x, y, cols, 0, 64) + max_error(x, y, cols, rows - 64, 64);
  std::printf("softmax %d x %d on the GPU: %.1f GB/s (%.3f ms), max error %.3g, %s\n", rows, cols,
              2.0 * bytes / (ms / iterations * 1e-3) / 1e9, ms / iterations, error, cudaGetErrorString(status));
  cudaFree(dx);
  cudaFree(dy);
  if (status != cudaSuccess) return 2;
#endif
  return error < 1e-6 ? 0 : 1;
}
#endif
