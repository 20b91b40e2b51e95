// sm_90a wgmma (weft/tiles/sm90/wgmma.h) from swizzled shared-memory tiles (sm90/layout.h)
// against a double-precision reference on seeded random data: every operand type (float16,
// bfloat16, tfloat32, float8 e4m3 and e5m2, fp32 accumulate), N from 8 to 256, the 128, 64 and
// 32-byte swizzles, K-major and MN-major B, tiles of several swizzle slabs, two warpgroups on the
// rows of one A tile, accumulating onto and overwriting the accumulator, one commit group per K
// step with wgmma_wait<1>, A from registers in the documented fragment layout, and the
// documented accumulator fragment layout. The threads write the operands to shared memory
// through smem_tile::offset (test_sm90_tma.cu checks that TMA writes the same layout). GPU only
// (sm_90a): tests/python/test_tile_header.py.
#include "tile_test.h"

#include <weft/tiles/sm90.h>

#if !defined(__CUDACC_RTC__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#endif

namespace s = ::weft::tiles::sm90;

// The shared-memory tiles of A (M x K, K-major, M = 64 per warpgroup) and B (K x N, K-major or
// MN-major).
template <s::wgmma_type T, uint32_t Warpgroups, uint32_t N, uint32_t K, s::swizzle Mode, bool MnMajorB>
struct operands {
  static constexpr uint32_t kBytes = s::wgmma_element_bytes(T);
  using A = s::smem_tile<64 * Warpgroups, K, kBytes, Mode>;
  using B = std::conditional_t<MnMajorB, s::smem_tile<K, N, kBytes, Mode>, s::smem_tile<N, K, kBytes, Mode>>;
  static constexpr uint32_t kSharedBytes = A::kBytes + B::kBytes + 1024;
};

// d (M x N, row-major) = a (M x K, row-major) b (K x N, row-major) + (accumulate ? c : 0); each
// warpgroup computes 64 rows. Pipelined: one commit group per K step, at most one in flight.
// RegistersA: A's fragments go from global memory to registers (wgmma_a_row / wgmma_a_col).
template <s::wgmma_type T, uint32_t Warpgroups, uint32_t N, uint32_t K, s::swizzle Mode, bool MnMajorB,
          bool Pipelined, bool RegistersA>
__global__ void __launch_bounds__(128 * Warpgroups)
    wgmma_kernel(const unsigned char* a, const unsigned char* b, const float* c, float* d, bool accumulate) {
  using O = operands<T, Warpgroups, N, K, Mode, MnMajorB>;
  constexpr uint32_t M = 64 * Warpgroups, E = O::kBytes;
  extern __shared__ unsigned char raw[];
  unsigned char* tileA = raw + (1024 - s::shared_address(raw) % 1024) % 1024;
  unsigned char* tileB = tileA + O::A::kBytes;
  for (uint32_t i = threadIdx.x; i < M * K; i += blockDim.x) {
    memcpy(tileA + O::A::offset(i / K, i % K), a + i * E, E);
  }
  for (uint32_t i = threadIdx.x; i < K * N; i += blockDim.x) {
    const uint32_t k = i / N, n = i % N;
    memcpy(tileB + (MnMajorB ? O::B::offset(k, n) : O::B::offset(n, k)), b + i * E, E);
  }
  s::fence_proxy_async();
  __syncthreads();

  const uint32_t warpgroup = threadIdx.x / 128, t = threadIdx.x % 128;
  float acc[N / 2];
#pragma unroll
  for (uint32_t i = 0; i < N / 2; ++i)
    acc[i] = c[(64 * warpgroup + s::wgmma_row(t, i)) * N + s::wgmma_col(t, i)];
  const uint32_t baseA = s::shared_address(tileA), baseB = s::shared_address(tileB);
  constexpr uint32_t kSteps = K / s::wgmma_k(T);
  uint32_t fragments[kSteps][4];
  if constexpr (RegistersA) {
#pragma unroll
    for (uint32_t step = 0; step < kSteps; ++step) {
#pragma unroll
      for (uint32_t j = 0; j < 4; ++j) {
        uint32_t word = 0;
        for (uint32_t e = 0; e < 4 / E; ++e) {
          const uint32_t row = 64 * warpgroup + s::wgmma_a_row(t, j);
          const uint32_t col = step * s::wgmma_k(T) + s::wgmma_a_col(T, t, j, e);
          uint32_t element = 0;
          memcpy(&element, a + (row * K + col) * E, E);
          word |= element << (8 * E * e);
        }
        fragments[step][j] = word;
      }
    }
  }
  s::wgmma_fence();
#pragma unroll
  for (uint32_t step = 0; step < kSteps; ++step) {
    const uint64_t descriptorB =
        MnMajorB ? O::B::mn_major_descriptor(baseB, step) : O::B::k_major_descriptor(baseB, step);
    if constexpr (RegistersA) {
      s::wgmma<T, N, MnMajorB>(acc, fragments[step], descriptorB, accumulate || step > 0);
    } else {
      s::wgmma<T, N, MnMajorB>(acc, O::A::k_major_descriptor(baseA, step, 64 * warpgroup), descriptorB,
                               accumulate || step > 0);
    }
    if constexpr (Pipelined) {
      s::wgmma_commit();
      s::wgmma_wait<1>();
    }
  }
  s::wgmma_commit();
  s::wgmma_wait<0>();
  s::wgmma_fence_operands(acc);
#pragma unroll
  for (uint32_t i = 0; i < N / 2; ++i)
    d[(64 * warpgroup + s::wgmma_row(t, i)) * N + s::wgmma_col(t, i)] = acc[i];
}

#if !defined(__CUDACC_RTC__)
using namespace tile_test;

// The bytes of v (exactly representable) as an operand of type T.
template <s::wgmma_type T>
void encode(float v, unsigned char* out) {
  if constexpr (T == s::wgmma_type::f16) {
    __half h = __float2half_rn(v);
    std::memcpy(out, &h, 2);
  } else if constexpr (T == s::wgmma_type::bf16) {
    __nv_bfloat16 h = __float2bfloat16_rn(v);
    std::memcpy(out, &h, 2);
  } else if constexpr (T == s::wgmma_type::tf32) {
    std::memcpy(out, &v, 4);
  } else if constexpr (T == s::wgmma_type::e4m3) {
    __nv_fp8_e4m3 h(v);
    std::memcpy(out, &h, 1);
  } else {
    __nv_fp8_e5m2 h(v);
    std::memcpy(out, &h, 1);
  }
}

const char* name_of(s::wgmma_type type) {
  switch (type) {
    case s::wgmma_type::f16: return "f16";
    case s::wgmma_type::bf16: return "bf16";
    case s::wgmma_type::tf32: return "tf32";
    case s::wgmma_type::e4m3: return "e4m3";
    case s::wgmma_type::e5m2: return "e5m2";
  }
  return "?";
}

template <s::wgmma_type T, uint32_t Warpgroups, uint32_t N, uint32_t K, s::swizzle Mode,
          bool MnMajorB = false, bool Pipelined = false, bool RegistersA = false>
void run_wgmma(Random& random, bool accumulate = true) {
  using O = operands<T, Warpgroups, N, K, Mode, MnMajorB>;
  constexpr uint32_t M = 64 * Warpgroups, E = O::kBytes;
  // Quarters in [-2, 2]: exact in every operand type, so are their products and sums in fp32.
  auto draw = [&] { return static_cast<float>(static_cast<int>(random.next() % 17) - 8) / 4.0f; };
  std::vector<float> av(M * K), bv(K * N), cv(M * N);
  Buffer<unsigned char> a(M * K * E), b(K * N * E);
  Buffer<float> c(M * N), d(M * N);
  for (uint32_t i = 0; i < M * K; ++i) encode<T>(av[i] = draw(), &a[i * E]);
  for (uint32_t i = 0; i < K * N; ++i) encode<T>(bv[i] = draw(), &b[i * E]);
  for (uint32_t i = 0; i < M * N; ++i) c[i] = cv[i] = draw() * 8.0f;
  auto kernel = wgmma_kernel<T, Warpgroups, N, K, Mode, MnMajorB, Pipelined, RegistersA>;
  cuda_check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, O::kSharedBytes),
             "smem");
  kernel<<<1, 128 * Warpgroups, O::kSharedBytes>>>(a.get(), b.get(), c.get(), d.get(), accumulate);
  cuda_check(cudaGetLastError(), "launch");
  cuda_check(cudaDeviceSynchronize(), "wgmma kernel");
  const std::string what = std::string("wgmma ") + name_of(T) + " m" + std::to_string(M) + "n" +
                           std::to_string(N) + " K " + std::to_string(K) + " swizzle " +
                           std::to_string(s::swizzle_bytes(Mode)) +
                           (MnMajorB ? " MN-major B" : " K-major B") + (Pipelined ? " pipelined" : "") +
                           (RegistersA ? " A in registers" : "") + (accumulate ? "" : " overwrite");
  int failures = 0;
  for (uint32_t i = 0; i < M && failures < 8; ++i) {
    for (uint32_t j = 0; j < N; ++j) {
      double sum = accumulate ? cv[i * N + j] : 0.0;
      for (uint32_t k = 0; k < K; ++k) sum += double(av[i * K + k]) * bv[k * N + j];
      if (!check(close(d[i * N + j], sum, 1e-6),
                 what + " element (" + std::to_string(i) + ", " + std::to_string(j) +
                     "): " + std::to_string(d[i * N + j]) + ", expected " + std::to_string(sum))) {
        ++failures;
      }
    }
  }
}

int main() {
  Random random(seed());
  using W = s::wgmma_type;
  using Z = s::swizzle;
  // 16-bit operands, K-major B: every N, every swizzle, one and several slabs.
  run_wgmma<W::bf16, 1, 256, 64, Z::b128>(random);
  run_wgmma<W::bf16, 1, 128, 128, Z::b128>(random);
  run_wgmma<W::bf16, 2, 64, 64, Z::b128>(random);
  run_wgmma<W::f16, 1, 64, 64, Z::b64>(random);
  run_wgmma<W::f16, 1, 32, 32, Z::b32>(random);
  run_wgmma<W::f16, 1, 16, 64, Z::b128>(random, false);
  run_wgmma<W::bf16, 1, 8, 32, Z::b64>(random);
  // MN-major B (a row-major K x N matrix as it is), one and several slabs of N.
  run_wgmma<W::bf16, 1, 128, 64, Z::b128, true>(random);
  run_wgmma<W::bf16, 2, 256, 64, Z::b128, true>(random);
  run_wgmma<W::f16, 1, 64, 32, Z::b64, true>(random);
  run_wgmma<W::f16, 1, 32, 16, Z::b32, true>(random);
  // tf32 and fp8.
  run_wgmma<W::tf32, 1, 64, 32, Z::b128>(random);
  run_wgmma<W::tf32, 1, 128, 64, Z::b64>(random);
  run_wgmma<W::tf32, 1, 8, 16, Z::b64>(random, false);
  run_wgmma<W::e4m3, 1, 128, 128, Z::b128>(random);
  run_wgmma<W::e4m3, 2, 256, 256, Z::b128>(random);
  run_wgmma<W::e5m2, 1, 64, 64, Z::b64>(random);
  run_wgmma<W::e5m2, 1, 16, 32, Z::b32>(random);
  // One commit group per K step, one left in flight.
  run_wgmma<W::bf16, 1, 128, 128, Z::b128, false, true>(random);
  run_wgmma<W::f16, 1, 64, 64, Z::b128, true, true>(random);
  // A in registers.
  run_wgmma<W::bf16, 1, 128, 64, Z::b128, false, false, true>(random);
  run_wgmma<W::f16, 2, 64, 64, Z::b64, true, true, true>(random);
  run_wgmma<W::tf32, 1, 32, 32, Z::b128, false, false, true>(random);
  run_wgmma<W::e4m3, 1, 64, 128, Z::b128, false, false, true>(random);
  run_wgmma<W::e5m2, 1, 8, 64, Z::b64, false, false, true>(random, false);
  return finish("test_sm90_wgmma");
}
#endif
