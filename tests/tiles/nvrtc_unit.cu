// One unit with non-template kernels that use every part of the tile header, for NVRTC (no
// standard library headers, no -default-device) and nvcc: the test programs' kernels are
// templates that only their host main() instantiates, which NVRTC does not compile.
#if defined(__CUDACC__) && !defined(WEFT_HOST)
#include <cuda_fp8.h>
#endif
#include <weft/cuda_tile.h>

namespace ct = ::cuda::tiles;

using I64 = ct::tile<int32_t, ct::shape<8, 8>>;

__tile_global__ void elementwise_unit(const float* x, const double* y, weft::float16* h, weft::bfloat16* b, int8_t* i8,
                                      uint64_t* u64, bool* flags) {
  auto i = ct::iota<I64>();
  auto a = ct::load(x + i);
  auto d = ct::load(y + i);
  auto r = ct::fma(a, a, 1.0f, ct::round_toward_positive_t{}, ct::round_subnormals_to_zero_t{}) +
           ct::div(a, 3.0f, ct::round_approximate_t{}) - ct::sqrt(ct::abs(a), ct::round_toward_zero_t{}) * d;
  auto m = ct::where(r > 0.0, ct::exp(r, ct::round_approximate_t{}), ct::log2(ct::abs(r) + 1.0)) +
           ct::pow(ct::tanh(d), 2.0) + ct::max(d, ct::cos(d), ct::propagate_nan_t{}) + ct::rsqrt(d * d + 1.0) +
           ct::floor(d) + ct::ceil(d) + ct::exp2(d) + ct::sin(d) + ct::log(d * d + 1.0) + ct::min(d, 0.5);
  auto hm = ct::convert<weft::float16>(m);
  ct::store(h + i, ct::sub(hm, hm, ct::round_toward_negative_t{}) + hm * hm / hm);
  auto bm = ct::convert<weft::bfloat16>(m);
  ct::store(b + i, ct::mul(bm, bm, ct::round_toward_zero_t{}) - ct::neg(bm));
  auto q = ct::convert<int8_t>(m);
  ct::store(i8 + i, ct::shl(q, ct::convert<int8_t>(2)) ^ ct::shr(q, ct::convert<int8_t>(1)) | ct::bit_not(q) & q % ct::convert<int8_t>(3));
  auto u = ct::convert<uint64_t>(d) * ct::convert<uint64_t>(i);
  ct::store(u64 + i, u / (u + 1u) + (u << 3u));
  auto t32 = ct::convert<ct::tfloat32>(a);
  auto f8 = ct::convert<weft::float8e4m3>(ct::convert<float>(t32));
  ct::store(flags + i, (ct::convert<float>(f8) == a) | (ct::convert<float>(ct::convert<weft::float8e5m2>(a)) != a) |
                           (ct::full<ct::tile<bool, ct::shape<8, 8>>>(true) & (q <= 0)));
  ct::store(flags + 64 + i, ct::map([](float v, double w) { return v < w; }, a, d));
}

__tile_global__ void memory_unit(const float* x, float* y, long rows, long cols, long pitch) {
  auto span = ct::tensor_span(x, ct::extents<long, ct::dynamic_extent, ct::dynamic_extent>{rows, cols}, pitch, 1);
  auto view = ct::make_partition_view<ct::shape<16, 64>>(span, ct::padding_nan_t{});
  auto out = ct::tensor_span(y, ct::extents<long, ct::dynamic_extent, ct::dynamic_extent>{rows, cols}, pitch, 1);
  auto ov = ct::make_partition_view<ct::shape<16, 64>>(out);
  for (long j = 0; j < ct::num_tiles(view, 1); ++j) {
    auto t = ct::load(view, ct::bid().x, j);
    ct::store(ov, t * 2.0f, ct::bid().x, j);
  }
  auto p = y + ct::iota<ct::tile<int, ct::shape<128>>>() * 2;
  auto v = ct::load(p, ct::iota<ct::tile<int, ct::shape<128>>>() < 50, 1.0f);
  ct::store(p + 1, v, v > 0.0f);
}

__tile_global__ void shape_reduce_unit(const float* x, float* y, int* z) {
  using T = ct::tile<float, ct::shape<16, 256>>;
  auto t = ct::load(x + ct::iota<ct::tile<int, ct::shape<16, 256>>>());
  auto softmax = ct::exp(t - ct::max<1, true>(t));
  auto normalized = softmax / ct::sum<1, true>(softmax);
  auto perm = ct::permute<1, 0>(ct::reshape<ct::shape<64, 64>>(normalized));
  auto joined = ct::cat<0>(ct::extract<ct::shape<32, 64>>(perm, 1, 0), ct::broadcast_to<ct::shape<32, 64>>(ct::min<0, true>(perm)));
  ct::store(y + ct::iota<ct::tile<int, ct::shape<64, 64>>>(), ct::transpose(joined));
  auto c = ct::cumsum<0>(ct::expand_dims<0>(ct::prod<1>(t)));
  ct::store(y + 5000 + ct::iota<ct::tile<int, ct::shape<1, 16>>>(), c);
  ct::store(z + ct::iota<ct::tile<int, ct::shape<16>>>(), ct::argmax<1>(t) + ct::argmin<1>(t));
  z[20] = ct::sum(ct::cumprod<1>(ct::convert<int>(t)));
  z[21] = ct::argmax(t);
  z[22] = ct::reduce<0>(ct::convert<int>(ct::reshape<ct::shape<4096>>(t)), [](int a, int b) { return a | b; }, 0);
  z[23] = ct::scan<0>(ct::iota<ct::tile<int, ct::shape<32>>>(), [](int a, int b) { return a > b ? a : b; }).frag_[0];
}

__tile_global__ void atomic_unit(int* counters, float* sums, double* d, unsigned long long* bits) {
  auto i = ct::iota<ct::tile<int, ct::shape<64>>>();
  auto p = counters + i % 8;
  auto old = ct::atomic_add(p, 1, ct::memory_order_relaxed_t{}, ct::thread_scope_block_t{});
  old = old + ct::atomic_max(p, i, ct::memory_order_acquire_t{}, ct::thread_scope_device_t{});
  old = old + ct::atomic_min(p, i, i > 3, ct::memory_order_release_t{}, ct::thread_scope_system_t{});
  old = old + ct::atomic_exchange(p, old) + ct::atomic_cas(p, old, i, ct::memory_order_acq_rel_t{});
  ct::atomic_store(counters + 16 + i, old, ct::memory_order_release_t{});
  auto f = ct::atomic_add(sums + i % 4, 0.5f) + ct::atomic_max(sums + 4 + i % 4, 2.0f) + ct::atomic_min(sums + 8, 1.0f);
  ct::atomic_add(d + i % 2, ct::convert<double>(f), ct::thread_scope_device_t{});
  auto u = ct::convert<unsigned long long>(i);
  auto b = ct::atomic_and(bits + i % 3, u) | ct::atomic_or(bits + 3 + i * 0, u) | ct::atomic_xor(bits + 4 + i * 0, u, i < 10);
  ct::store(bits + 8 + i, b + ct::atomic_load(bits + i % 3, ct::memory_order_acquire_t{}, ct::thread_scope_system_t{}));
}

template <class A, int M, int N, int K>
__device__ void mma_case(const A* a, const A* b, typename ct::detail::mma_accumulator_of<A>::type* c) {
  auto x = ct::load(a + ct::iota<ct::tile<int, ct::shape<M, K>>>());
  auto y = ct::load(b + ct::iota<ct::tile<int, ct::shape<K, N>>>());
  auto acc = ct::matmul(x, y);
  acc = ct::mma(x, y, acc);
  ct::store(c + ct::iota<ct::tile<int, ct::shape<M, N>>>(), acc);
}

__tile_global__ void mma_unit(const weft::float16* h, const weft::bfloat16* bf, const ct::tfloat32* t, const int8_t* i8,
                              const uint8_t* u8, const double* d, const float* f, const weft::float8e5m2* f8, float* cf,
                              int* ci, double* cd) {
  mma_case<weft::float16, 64, 64, 32>(h, h, cf);
  mma_case<weft::bfloat16, 32, 64, 16>(bf, bf, cf);
  mma_case<ct::tfloat32, 64, 32, 16>(t, t, cf);
  mma_case<int8_t, 32, 32, 64>(i8, i8, ci);
  mma_case<uint8_t, 16, 16, 32>(u8, u8, ci);
  mma_case<double, 16, 16, 8>(d, d, cd);
  mma_case<float, 16, 16, 16>(f, f, cf);
  mma_case<weft::float8e5m2, 16, 16, 32>(f8, f8, cf);
  mma_case<weft::float16, 8, 4, 2>(h, h, cf);
}
