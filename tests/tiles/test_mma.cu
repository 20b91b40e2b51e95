// Matrix multiply-accumulate against a double-precision reference on seeded random data: every
// operand type (float16, bfloat16, tfloat32, int8, uint8, double on the tensor-core path; float,
// and shapes the tensor cores do not take, on the generic path), accumulators that start
// non-zero in the blocked layout, a K loop over partition views with the accumulator in
// mma_accumulator_t, matmul, and results stored through pointer tiles (a layout conversion) and
// through a view (the accumulator layout's own stores); and mma_pipeline, the cp.async K loop, for
// every tensor-core operand type (float32 spans multiplied in tf32 too), with edge steps, against
// the reference and bit for bit against the loop as written, as is mma_pipeline's GPU fallback
// that reads the operand fragments from global memory (mma_loop_by_fragments), with b stored
// K x N and K-major (N x K, mma_pipeline's KMajorB: its ring stages bt's rows). float8 products
// (m16n8k32 on sm_89+) are exact in float: on the CPU target and the emulated block every path
// gives the bits of float sums in K order; the GPU's tensor cores sum in their own order and
// precision, checked within 2^-10 of the sum of the magnitudes.
#include "tile_test.h"

namespace ct = ::cuda::tiles;

// c[M x N] = acc0 + a[M x K] @ b[K x N] in one mma (Form 0), through matmul plus acc0 (Form 1),
// or as a K loop of KT-wide steps over views of a and b (Form 2, stored through a view).
template <class A, class C, uint32_t M, uint32_t N, uint32_t K, uint32_t KT, int Form>
__tile_global__ void mma_kernel(const A* a, const A* b, const C* acc0, C* c) {
  using IC = ct::tile<int32_t, ct::shape<M, N>>;
  auto acc = ct::load(acc0 + ct::iota<IC>());
  if constexpr (Form == 0) {
    auto x = ct::load(a + ct::iota<ct::tile<int32_t, ct::shape<M, K>>>());
    auto y = ct::load(b + ct::iota<ct::tile<int32_t, ct::shape<K, N>>>());
    auto r = ct::mma(x, y, acc);
    static_assert(decltype(r)::size() == M * N, "mma keeps the accumulator's shape");
    ct::store(c + ct::iota<IC>(), r);
  } else if constexpr (Form == 1) {
    auto x = ct::load(a + ct::iota<ct::tile<int32_t, ct::shape<M, K>>>());
    auto y = ct::load(b + ct::iota<ct::tile<int32_t, ct::shape<K, N>>>());
    ct::store(c + ct::iota<IC>(), ct::add(ct::matmul(x, y), acc));
  } else {
    auto as = ct::tensor_span{a, ct::extents<int, M, K>{}};
    auto bs = ct::tensor_span{b, ct::extents<int, K, N>{}};
    auto av = ct::make_partition_view<ct::shape<M, KT>>(as);
    auto bv = ct::make_partition_view<ct::shape<KT, N>>(bs);
    using ATile = ct::tile<A, ct::shape<M, KT>>;
    using BTile = ct::tile<A, ct::shape<KT, N>>;
    ct::mma_accumulator_t<ATile, BTile> sum = acc;
    for (uint32_t k = 0; k < K / KT; ++k) sum = ct::mma(ct::load(av, 0, k), ct::load(bv, k, 0), sum);
    auto cs = ct::tensor_span{c, ct::extents<int, M, N>{}};
    ct::store(ct::make_partition_view<ct::shape<M, N>>(cs), sum, 0, 0);
  }
}

// c = acc0 + a[M x K] @ b[K x N] by mma_pipeline in KT-wide steps (the last one zero-padded
// where KT does not divide K), of Operand products; c2 the same by the loop as written; c3 by
// mma_loop_by_fragments (the loop as written again where a tile block is one thread or the type
// has no tensor-core instruction).
// Interleaved: the accumulator starts in the TMA/wgmma path's layout (wgmma's atom order over all
// warps, mma_pipeline_tma.h), which mma and mma_pipeline keep. KMajorB: b is stored N x K and
// read through its K x N transposed view.
template <class A, class Operand, class C, uint32_t M, uint32_t N, uint32_t K, uint32_t KT, uint32_t Stages,
          bool Interleaved = false, bool KMajorB = false>
__tile_global__ void mma_pipeline_kernel(const A* a, const A* b, const C* acc0, C* c, C* c2, C* c3) {
  using IC = ct::tile<int32_t, ct::shape<M, N>>;
  using SA = ct::shape<M, KT>;
  using SB = ct::shape<KT, N>;
  using Wgmma = ct::tile<C, ct::shape<M, N>, ct::mma_layout<M, N, 16, ct::kBlockThreads / 32, 1, true>>;
  const auto start = ct::load(acc0 + ct::iota<IC>());
  const auto acc = [&] {
    if constexpr (Interleaved) {
      return Wgmma(start);
    } else {
      return start;
    }
  }();
  auto as = ct::tensor_span{a, ct::extents<int, M, K>{}};
  const auto bs = [&] {
    if constexpr (KMajorB) {
      return ct::detail::transposed_span(ct::tensor_span{b, ct::extents<int, N, K>{}});
    } else {
      return ct::tensor_span{b, ct::extents<int, K, N>{}};
    }
  }();
  const auto index_a = [](uint32_t k) { return ct::block_index<2>{{0, k}}; };
  const auto index_b = [](uint32_t k) { return ct::block_index<2>{{k, 0}}; };
  constexpr uint32_t kSteps = (K + KT - 1) / KT;
  auto piped = ct::mma_pipeline<SA, SB, Stages, Operand, KMajorB>(acc, as, bs, 0u, kSteps, index_a, index_b);
  using A2 = ct::detail::pipeline_operand_t<A, Operand>;
  auto plain = ct::detail::mma_loop_as_written<SA, SB, A2>(decltype(piped)(acc), as, bs, 0u, kSteps, index_a, index_b);
  ct::store(c + ct::iota<IC>(), piped);
  ct::store(c2 + ct::iota<IC>(), plain);
#if defined(WEFT_TILES_SERIAL)
  ct::store(c3 + ct::iota<IC>(), plain);
#else
  // Without the type's instruction (fp8 before sm_89) there are no fragments to read.
  if constexpr (ct::detail::use_tensor_cores<A2, C, M, N, KT>()) {
    ct::store(c3 + ct::iota<IC>(), ct::detail::mma_loop_by_fragments<SA, SB, A2>(decltype(piped)(acc), as, bs, 0u, kSteps,
                                                                                 index_a, index_b));
  } else {
    ct::store(c3 + ct::iota<IC>(), plain);
  }
#endif
}

#if !defined(__CUDACC_RTC__)
using namespace tile_test;

template <class A>
inline constexpr bool is_float8 =
#if defined(WEFT_TILES_FLOAT8)
    std::is_same_v<A, weft::float8e4m3> || std::is_same_v<A, weft::float8e5m2>;
#else
    false;
#endif

// The allowed |result - reference| of a float accumulation of products of A whose magnitudes
// (|start| plus every |product|) sum to `magnitude`.
template <class A, class C>
double mma_tolerance(double magnitude) {
  if constexpr (std::is_integral_v<C>) {
    return 0.0;
  } else if constexpr (std::is_same_v<C, double>) {
    return 1e-13 * magnitude;
  } else if constexpr (is_float8<A>) {
    return 0x1p-10 * magnitude;  // the tensor cores' fp8 sums (on the host: bit checks below)
  } else {
    return 1e-5 * magnitude;
  }
}

// An fp8 result on the CPU target or the emulated block against `ordered`, the float sum of the
// start and the products in K order: the same bits.
template <class A>
void check_ordered(float got, float ordered, const std::string& what) {
#if defined(WEFT_TARGET_HOST)
  if constexpr (is_float8<A>) {
    check(std::memcmp(&got, &ordered, sizeof(float)) == 0,
          what + "not the float sum in K order: " + std::to_string(got) + ", expected " + std::to_string(ordered));
  }
#else
  (void)got, (void)ordered, (void)what;
#endif
}

template <class A>
A operand_value(Random& random) {
  if constexpr (std::is_same_v<A, signed char>) {
    return static_cast<A>(static_cast<int>(random.next() % 255) - 127);
  } else if constexpr (std::is_same_v<A, unsigned char>) {
    return static_cast<A>(random.next() % 256);
  } else {
    return from_double<A>(random.uniform(-2.0, 2.0));
  }
}

template <class A, class C, uint32_t M, uint32_t N, uint32_t K, uint32_t KT = K, int Form = 0>
void run_mma(Random& random) {
  Buffer<A> a(M * K), b(K * N);
  Buffer<C> acc(M * N), c(M * N);
  for (uint32_t i = 0; i < M * K; ++i) a[i] = operand_value<A>(random);
  for (uint32_t i = 0; i < K * N; ++i) b[i] = operand_value<A>(random);
  for (uint32_t i = 0; i < M * N; ++i) acc[i] = std::is_integral_v<C> ? C(random.next() % 1000) : from_double<C>(random.uniform(-4, 4));
  launch({1, 1, 1}, mma_kernel<A, C, M, N, K, KT, Form>, static_cast<const A*>(a.get()), static_cast<const A*>(b.get()),
         static_cast<const C*>(acc.get()), c.get());
  std::string what = std::string("mma ") + type_name<A>() + " " + std::to_string(M) + "x" + std::to_string(N) + "x" +
                     std::to_string(K) + " form " + std::to_string(Form);
  for (uint32_t i = 0; i < M; ++i) {
    for (uint32_t j = 0; j < N; ++j) {
      double sum = as_double(acc[i * N + j]), magnitude = std::fabs(sum);
      float ordered = static_cast<float>(sum);
      for (uint32_t k = 0; k < K; ++k) {
        double p = as_double(a[i * K + k]) * as_double(b[k * N + j]);
        sum += p;
        magnitude += std::fabs(p);
        ordered += static_cast<float>(p);
      }
      double got = as_double(c[i * N + j]);
      std::string at = " element (" + std::to_string(i) + ", " + std::to_string(j) + "): ";
      check(std::fabs(got - sum) <= mma_tolerance<A, C>(magnitude),
            what + at + std::to_string(got) + ", expected " + std::to_string(sum));
      // matmul (Form 1) sums the products from zero, then adds the start.
      if constexpr (Form != 1) check_ordered<A>(static_cast<float>(got), ordered, what + at);
    }
  }
}

// mma_pipeline_kernel against the double reference of the Operand values (float spans round to
// tf32 for tf32 products) and against the loop as written, bit for bit, as the fragment loop is.
// On the GPU the launch gives the stages their dynamic shared memory, so the cp.async path runs.
template <class A, class Operand, class C, uint32_t M, uint32_t N, uint32_t K, uint32_t KT, uint32_t Stages = 3,
          bool Interleaved = false, bool KMajorB = false>
void run_mma_pipeline(Random& random) {
  using A2 = ct::detail::pipeline_operand_t<A, Operand>;
  Buffer<A> a(M * K), b(K * N);
  Buffer<C> acc(M * N), c(M * N), c2(M * N), c3(M * N);
  for (uint32_t i = 0; i < M * K; ++i) a[i] = operand_value<A>(random);
  for (uint32_t i = 0; i < K * N; ++i) b[i] = operand_value<A>(random);
  for (uint32_t i = 0; i < M * N; ++i) acc[i] = std::is_integral_v<C> ? C(random.next() % 1000) : from_double<C>(random.uniform(-4, 4));
  const auto kernel = mma_pipeline_kernel<A, Operand, C, M, N, K, KT, Stages, Interleaved, KMajorB>;
#if defined(WEFT_TARGET_HOST)
  launch({1, 1, 1}, kernel, static_cast<const A*>(a.get()), static_cast<const A*>(b.get()), static_cast<const C*>(acc.get()),
         c.get(), c2.get(), c3.get());
#else
  const uint32_t bytes = Stages * ct::mma_stage_bytes<A2, ct::shape<M, KT>, ct::shape<KT, N>>;
  cuda_check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)), "shared");
  kernel<<<1, ct::kBlockThreads, bytes>>>(a.get(), b.get(), acc.get(), c.get(), c2.get(), c3.get());
  cuda_check(cudaGetLastError(), "launch");
  cuda_check(cudaDeviceSynchronize(), "kernel");
#endif
  const auto value = [](A x) { return as_double(static_cast<A2>(ct::detail::scalar_convert<A2>(x))); };
  std::string what = std::string("mma_pipeline ") + type_name<A>() + " as " + type_name<A2>() + " " + std::to_string(M) +
                     "x" + std::to_string(N) + "x" + std::to_string(K) + " by " + std::to_string(KT) +
                     (Interleaved ? " interleaved" : "") + (KMajorB ? " b K-major" : "");
  for (uint32_t i = 0; i < M; ++i) {
    for (uint32_t j = 0; j < N; ++j) {
      double sum = as_double(acc[i * N + j]), magnitude = std::fabs(sum);
      float ordered = static_cast<float>(sum);
      for (uint32_t k = 0; k < K; ++k) {
        double p = value(a[i * K + k]) * value(b[KMajorB ? j * K + k : k * N + j]);
        sum += p;
        magnitude += std::fabs(p);
        ordered += static_cast<float>(p);
      }
      const C got = c[i * N + j], plain = c2[i * N + j], fragments = c3[i * N + j];
      std::string at = " element (" + std::to_string(i) + ", " + std::to_string(j) + "): ";
      check(std::fabs(as_double(got) - sum) <= mma_tolerance<A2, C>(magnitude),
            what + at + std::to_string(as_double(got)) + ", expected " + std::to_string(sum));
      check_ordered<A2>(static_cast<float>(as_double(got)), ordered, what + at);
      check(std::memcmp(&got, &plain, sizeof(C)) == 0, what + at + "differs from the loop as written");
      check(std::memcmp(&fragments, &plain, sizeof(C)) == 0, what + at + "by fragments differs from the loop as written");
    }
  }
}

int main() {
  Random random(seed());
  // Tensor-core shapes.
  run_mma<weft::float16, float, 16, 8, 16>(random);
  run_mma<weft::float16, float, 16, 16, 16>(random);
  run_mma<weft::float16, float, 64, 64, 32>(random);
  run_mma<weft::float16, float, 32, 128, 64>(random);
  run_mma<weft::float16, float, 128, 128, 32>(random);
  run_mma<weft::bfloat16, float, 64, 32, 64>(random);
  run_mma<ct::tfloat32, float, 32, 32, 16>(random);
  run_mma<ct::tfloat32, float, 16, 64, 32>(random);
  run_mma<signed char, int, 32, 64, 64>(random);
  run_mma<unsigned char, int, 16, 32, 32>(random);
  run_mma<double, double, 16, 16, 8>(random);
  run_mma<double, double, 32, 64, 16>(random);
  run_mma<double, double, 8, 8, 4>(random);
  // Shapes and types the tensor cores do not take.
  run_mma<float, float, 32, 32, 32>(random);
  run_mma<float, float, 2, 4, 8>(random);
  run_mma<float, float, 1, 1, 1>(random);
  run_mma<weft::float16, float, 8, 8, 16>(random);
  run_mma<weft::float16, float, 16, 16, 8>(random);
  run_mma<double, double, 4, 8, 2>(random);
  run_mma<signed char, int, 16, 8, 16>(random);
  run_mma<weft::float8e4m3, float, 16, 16, 16>(random);
  run_mma<weft::float8e5m2, float, 8, 8, 32>(random);
  run_mma<float, float, 64, 256, 128>(random);
  // float8 on the tensor cores (m16n8k32, sm_89+; the generic path on older GPUs).
  run_mma<weft::float8e4m3, float, 16, 16, 32>(random);
  run_mma<weft::float8e4m3, float, 16, 8, 32>(random);
  run_mma<weft::float8e4m3, float, 64, 64, 64>(random);
  run_mma<weft::float8e5m2, float, 32, 64, 128>(random);
  run_mma<weft::float8e4m3, float, 128, 128, 64>(random);
  // matmul plus the accumulator, and K loops over views.
  run_mma<weft::float16, float, 64, 64, 64, 64, 1>(random);
  run_mma<weft::bfloat16, float, 4, 4, 4, 4, 1>(random);
  run_mma<weft::float16, float, 64, 64, 128, 32, 2>(random);
  run_mma<ct::tfloat32, float, 32, 64, 64, 16, 2>(random);
  run_mma<double, double, 16, 32, 32, 8, 2>(random);
  run_mma<float, float, 8, 8, 16, 4, 2>(random);
  run_mma<weft::float8e5m2, float, 32, 32, 128, 32, 2>(random);
  run_mma<weft::float8e4m3, float, 64, 64, 64, 64, 1>(random);
  // mma_pipeline: every type, with a last step past K where KT does not divide it.
  run_mma_pipeline<weft::float16, void, float, 64, 64, 96, 32>(random);
  run_mma_pipeline<weft::bfloat16, void, float, 32, 64, 64, 16, 2>(random);
  run_mma_pipeline<ct::tfloat32, void, float, 64, 32, 64, 16>(random);
  run_mma_pipeline<float, ct::tfloat32, float, 64, 64, 40, 16>(random);
  run_mma_pipeline<float, ct::tfloat32, float, 16, 8, 16, 8, 4>(random);
  run_mma_pipeline<signed char, void, int, 64, 64, 96, 64>(random);
  run_mma_pipeline<unsigned char, void, int, 32, 16, 64, 32, 2>(random);
  run_mma_pipeline<double, void, double, 32, 32, 20, 8>(random);
  run_mma_pipeline<double, void, double, 8, 8, 8, 4, 4>(random);
  run_mma_pipeline<weft::float8e4m3, void, float, 64, 64, 96, 64>(random);
  run_mma_pipeline<weft::float8e5m2, void, float, 32, 16, 80, 32, 2>(random);
  run_mma_pipeline<weft::float8e4m3, void, float, 128, 64, 256, 128, 4>(random);
  // b K-major: every type, edge steps, and a tile whose warps' columns are not pairs of atoms
  // (the loop as written then).
  run_mma_pipeline<weft::float16, void, float, 64, 64, 96, 32, 3, false, true>(random);
  run_mma_pipeline<weft::bfloat16, void, float, 32, 64, 64, 16, 2, false, true>(random);
  run_mma_pipeline<float, ct::tfloat32, float, 64, 64, 40, 16, 3, false, true>(random);
  run_mma_pipeline<signed char, void, int, 64, 64, 96, 64, 3, false, true>(random);
  run_mma_pipeline<unsigned char, void, int, 32, 16, 64, 32, 2, false, true>(random);
  run_mma_pipeline<double, void, double, 32, 32, 20, 8, 3, false, true>(random);
  run_mma_pipeline<weft::float8e4m3, void, float, 64, 64, 96, 64, 3, false, true>(random);
  run_mma_pipeline<weft::float8e5m2, void, float, 32, 16, 80, 32, 2, false, true>(random);
  run_mma_pipeline<weft::float8e4m3, void, float, 128, 64, 256, 128, 4, false, true>(random);
  run_mma_pipeline<weft::float8e4m3, void, float, 16, 8, 64, 32, 2, false, true>(random);
  // The TMA/wgmma path's accumulator layout through the cp.async path and the loop as written
  // (its fallback): a warp's 16-row atoms one or two warp rows apart.
  if constexpr (ct::kBlockThreads > 1 && ct::kBlockThreads <= 256) {
    constexpr uint32_t kRows = 16 * ct::kBlockThreads / 32;
    run_mma_pipeline<weft::bfloat16, void, float, kRows, 64, 80, 64, 2, true>(random);
    run_mma_pipeline<weft::float16, void, float, 2 * kRows, 64, 64, 32, 3, true>(random);
    run_mma_pipeline<weft::float8e4m3, void, float, kRows, 64, 160, 128, 2, true, true>(random);
  }
  return finish("test_mma");
}
#endif
