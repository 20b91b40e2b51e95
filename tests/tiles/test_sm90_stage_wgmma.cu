// The products of a prefetched tile loop on sm_90a (weft/tiles/mma_operands.h, loop_prefetch.h):
// S = q @ k_j^T with q's fragments loaded once (mma_a_operand) and k_j^T a view of its stage
// (K-major wgmma b), then O += p @ v_j with p = S * scale as 16-bit operands in registers
// (a_in_registers) and v_j a view of its stage (MN-major wgmma b), over the key blocks j of a
// loop whose loads are issued ahead, as weft's code generator emits the attention kernel; the
// key array's length is not a multiple of the block (zero-filled stage rows). Two warpgroups (128
// rows, a warp for each 16: WEFT_TILE_MMA_WHOLE_ROWS), d 64 and 128, key blocks of 32, 64 and
// 128. Launched with the stages' dynamic shared memory (wgmma from the stages) and without it
// (b read from the array into mma.sync atoms): both against a reference in double precision
// that rounds p as the kernel does. Operands are small multiples of 1/4, so S is exact in float.
// GPU only (sm_90a): tests/python/test_tile_header.py.
#define WEFT_TILE_THREADS 256
#define WEFT_TILE_MMA_WHOLE_ROWS 1
#include "tile_test.h"

#include <weft/tiles/arrays.h>
#include <weft/tiles/loop_prefetch.h>

#if !defined(__CUDACC_RTC__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#endif

namespace ct = ::cuda::tiles;

constexpr uint32_t kRows = 128;

// The stages of the two loads: 2 each, the second load's from a 1024-byte boundary.
template <class T, uint32_t N, uint32_t D>
constexpr uint32_t kStageBytes = 2 * N * D * sizeof(T);

// out (kRows x D) = sum over key blocks j of (q k_j^T * scale as T) v_j.
template <class T, uint32_t N, uint32_t D>
__tile_global__ void stage_products(weft::Array<T, 2> q, weft::Array<T, 2> k, weft::Array<T, 2> v, float* out,
                                    float scale, int blocks) {
  using Q = ct::tile<T, ct::shape<kRows, D>>;
  using S = ct::mma_accumulator_t<Q, ct::tile<T, ct::shape<D, N>>>;
  using O = ct::mma_accumulator_t<ct::tile<T, ct::shape<kRows, N>>, ct::tile<T, ct::shape<N, D>>>;
  const Q qt = ct::load_array<ct::shape<kRows, D>>(q, T(0), int64_t{0}, int64_t{0});
  const auto qf = ct::mma_a_operand<S>(qt);
  const auto at = [](int64_t j) { return ct::block_index<2>{{j, 0}}; };
  auto kl = ct::prefetch_load<ct::shape<N, D>, 2, 0u>(k, at);
  auto vl = ct::prefetch_load<ct::shape<N, D>, 2, kStageBytes<T, N, D>>(v, at);
  O acc = ct::full<O>(0.0f);
  ct::prefetch_start(0, blocks, kl, vl);
  for (int j = 0; j < blocks; ++j) {
    ct::prefetch_next(j, kl, vl);
    const S s = ct::mma(qf, ct::permute<1, 0>(kl.view(j)), ct::full<S>(0.0f));
    const ct::accumulator_layout_t<ct::tile<T, ct::shape<kRows, N>>, S> p = ct::convert<T>(s * scale);
    acc = ct::mma(p, vl.view(j), acc);
  }
  ct::prefetch_finish(kl, vl);
  ct::store(out + ct::iota<ct::tile<int32_t, ct::shape<kRows, D>>>(), acc);
}

#if !defined(__CUDACC_RTC__)
using namespace tile_test;

template <class T>
float round_to(float x) {
  if constexpr (std::is_same_v<T, weft::bfloat16>) {
    return __bfloat162float(__float2bfloat16_rn(x));
  } else {
    return __half2float(__float2half_rn(x));
  }
}

template <class T>
T encode(float x) {
  const float r = round_to<T>(x);
  T value;
  if constexpr (std::is_same_v<T, weft::bfloat16>) {
    const __nv_bfloat16 h = __float2bfloat16_rn(r);
    std::memcpy(&value, &h, 2);
  } else {
    const __half h = __float2half_rn(r);
    std::memcpy(&value, &h, 2);
  }
  return value;
}

template <class T, uint32_t N, uint32_t D>
void run(Random& random, const char* type, bool withStages) {
  const uint32_t keys = 3 * N - 5;  // the last block ends 5 rows early
  const int blocks = static_cast<int>((keys + N - 1) / N);
  const float scale = 1.0f / 16.0f;
  auto draw = [&] { return static_cast<float>(static_cast<int>(random.next() % 9) - 4) / 4.0f; };
  std::vector<float> qv(kRows * D), kv(keys * D), vv(keys * D);
  Buffer<T> qb(kRows * D), kb(keys * D), vb(keys * D);
  Buffer<float> out(kRows * D);
  for (uint32_t i = 0; i < kRows * D; ++i) qb[i] = encode<T>(qv[i] = draw());
  for (uint32_t i = 0; i < keys * D; ++i) kb[i] = encode<T>(kv[i] = draw());
  for (uint32_t i = 0; i < keys * D; ++i) vb[i] = encode<T>(vv[i] = draw());
  const weft::Array<T, 2> qa{qb.get(), {kRows, D}, {D, 1}};
  const weft::Array<T, 2> ka{kb.get(), {keys, D}, {D, 1}};
  const weft::Array<T, 2> va{vb.get(), {keys, D}, {D, 1}};
  // The stages and the 1024 bytes the ring may need to start on a boundary.
  const uint32_t bytes = withStages ? 2 * kStageBytes<T, N, D> + 1024 : 0;
  auto kernel = stage_products<T, N, D>;
  cuda_check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes), "smem");
  kernel<<<1, ct::kBlockThreads, bytes>>>(qa, ka, va, out.get(), scale, blocks);
  cuda_check(cudaGetLastError(), "launch");
  cuda_check(cudaDeviceSynchronize(), "stage products");
  const std::string what = std::string("stage products ") + type + " N " + std::to_string(N) + " d " +
                           std::to_string(D) + (withStages ? " (wgmma from stages)" : " (from the array)");
  std::vector<double> want(kRows * D, 0.0);
  for (uint32_t i = 0; i < kRows; ++i) {
    for (uint32_t key = 0; key < keys; ++key) {
      double s = 0;
      for (uint32_t c = 0; c < D; ++c) s += double(qv[i * D + c]) * kv[key * D + c];
      const double p = round_to<T>(static_cast<float>(s) * scale);
      for (uint32_t c = 0; c < D; ++c) want[i * D + c] += p * vv[key * D + c];
    }
  }
  int failures = 0;
  for (uint32_t i = 0; i < kRows * D && failures < 8; ++i) {
    if (!check(close(out[i], want[i], 1e-5),
               what + " element (" + std::to_string(i / D) + ", " + std::to_string(i % D) + "): " +
                   std::to_string(out[i]) + ", expected " + std::to_string(want[i]))) {
      ++failures;
    }
  }
}

int main() {
  Random random(seed());
  for (bool withStages : {true, false}) {
    run<weft::bfloat16, 64, 128>(random, "bf16", withStages);
    run<weft::bfloat16, 128, 64>(random, "bf16", withStages);
    run<weft::float16, 32, 128>(random, "f16", withStages);
    run<weft::float16, 64, 64>(random, "f16", withStages);
  }
  return finish("test_sm90_stage_wgmma");
}
#endif
