// sm_90a synchronization and warp-level building blocks (weft/tiles/sm90/sync.h, wgmma.h) on
// seeded random data: mbarrier phases (try_wait false until the last arrival, parity flipping
// over several phases), arrivals on other CTAs' mbarriers, cluster ranks, the cluster barrier
// and distributed shared memory through map_to_cta, elect.sync picking one lane per warp,
// setmaxnreg moving registers between warpgroups of a running kernel, and
// stmatrix x1 / x2 / x4, plain and transposed. GPU only (sm_90a): tests/python/test_tile_header.py.
#include "tile_test.h"

#include <weft/tiles/sm90.h>

namespace s = ::weft::tiles::sm90;

// Phases of an mbarrier expecting one arrival per warp (4 warps): before warp 3 arrives the phase
// is incomplete, after it complete. Records try_wait's answers in ok[2 phase] and ok[2 phase + 1].
__global__ void phases_kernel(int* ok, int phases) {
  __shared__ uint64_t bar;
  const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) s::mbarrier_init(&bar, 4);
  __syncthreads();
  for (int phase = 0; phase < phases; ++phase) {
    const uint32_t parity = uint32_t(phase) & 1u;
    if (warp < 3 && lane == 0) s::mbarrier_arrive(&bar);
    __syncthreads();
    if (threadIdx.x == 0) ok[2 * phase] = !s::mbarrier_try_wait(&bar, parity);
    __syncthreads();
    if (warp == 3 && lane == 0) s::mbarrier_arrive(&bar);
    s::mbarrier_wait(&bar, parity);
    if (threadIdx.x == 0) ok[2 * phase + 1] = s::mbarrier_try_wait(&bar, parity);
    __syncthreads();
  }
}

// Clusters of 4 CTAs: each CTA writes its value into slot[rank] of every CTA of its cluster
// (distributed shared memory), arrives once on every CTA's mbarrier, and after the cluster
// barrier reports its slots; out[block] = {rank, nctarank, slot[0..3], mbarrier done}.
__global__ void __cluster_dims__(4, 1, 1) cluster_kernel(const int* values, int* out) {
  __shared__ int slot[4];
  __shared__ uint64_t bar;
  const uint32_t rank = s::cluster_ctarank(), count = s::cluster_nctarank();
  if (threadIdx.x == 0) {
    s::mbarrier_init(&bar, count);
    s::fence_mbarrier_init();
  }
  s::cluster_sync();
  if (threadIdx.x < count) *s::map_to_cta(&slot[rank], threadIdx.x) = values[blockIdx.x];
  if (threadIdx.x == 0) {
    for (uint32_t cta = 0; cta < count; ++cta) s::mbarrier_arrive_cluster(&bar, cta);
  }
  s::cluster_arrive();
  s::cluster_wait();
  s::mbarrier_wait(&bar, 0);
  if (threadIdx.x == 0) {
    int* row = out + blockIdx.x * 7;
    row[0] = int(rank);
    row[1] = int(count);
    for (int i = 0; i < 4; ++i) row[2 + i] = slot[i];
    row[6] = s::mbarrier_try_wait(&bar, 0);
  }
  // No CTA leaves while another may still write to its shared memory.
  s::cluster_sync();
}

// Each warp counts its elected lanes and records the last one.
__global__ void elect_kernel(int* count, int* lane) {
  if (s::elect_one()) {
    atomicAdd(&count[threadIdx.x / 32], 1);
    lane[threadIdx.x / 32] = int(threadIdx.x % 32);
  }
}

// Three warpgroups: the first gives registers up (setmaxnreg_dec<40>) and copies, the others take
// them (setmaxnreg_inc<232>) and compute from 64 values per thread.
__global__ void __launch_bounds__(384, 1) setmaxnreg_kernel(const float* in, float* out) {
  const uint32_t t = threadIdx.x;
  if (t < 128) {
    s::setmaxnreg_dec<40>();
    out[t] = in[t];
  } else {
    s::setmaxnreg_inc<232>();
    float v[64];
    for (int i = 0; i < 64; ++i) v[i] = in[(t + i) % 384] * float(i + 1);
    for (int round = 0; round < 4; ++round) {
      for (int i = 0; i < 64; ++i) v[i] = v[i] * 0.5f + v[(i + 17) % 64];
    }
    float sum = 0;
    for (int i = 0; i < 64; ++i) sum += v[i];
    out[t] = sum;
  }
}

// One warp: register j of lane l holds elements (l / 4, 2 (l % 4)) and (l / 4, 2 (l % 4) + 1)
// of matrix j of `in` (Count 8 x 8 matrices of 16-bit values); stmatrix stores them to shared
// memory (matrix j at byte 128 j, rows 16 bytes apart), which is copied to out.
template <uint32_t Count, bool Trans>
__global__ void stmatrix_kernel(const uint16_t* in, uint16_t* out) {
  __shared__ __align__(128) uint16_t tile[4 * 64];
  const uint32_t lane = threadIdx.x;
  uint32_t r[Count];
  for (uint32_t j = 0; j < Count; ++j) {
    const uint16_t* element = in + j * 64 + lane / 4 * 8 + lane % 4 * 2;
    r[j] = uint32_t(element[0]) | uint32_t(element[1]) << 16;
  }
  s::stmatrix<Count, Trans>(tile + lane / 8 % Count * 64 + lane % 8 * 8, r);
  __syncwarp();
  for (uint32_t i = lane; i < Count * 64; i += 32) out[i] = tile[i];
}

#if !defined(__CUDACC_RTC__)
using namespace tile_test;

void synchronize(const char* what) {
  cuda_check(cudaGetLastError(), what);
  cuda_check(cudaDeviceSynchronize(), what);
}

void run_phases() {
  constexpr int kPhases = 5;
  Buffer<int> ok(2 * kPhases);
  phases_kernel<<<1, 128>>>(ok.get(), kPhases);
  synchronize("mbarrier phases");
  for (int p = 0; p < kPhases; ++p) {
    check(ok[2 * p] == 1, "mbarrier phase " + std::to_string(p) + " complete before its last arrival");
    check(ok[2 * p + 1] == 1, "mbarrier phase " + std::to_string(p) + " incomplete after its last arrival");
  }
}

void run_cluster(Random& random) {
  constexpr int kBlocks = 12;
  Buffer<int> values(kBlocks), out(kBlocks * 7);
  for (int i = 0; i < kBlocks; ++i) values[i] = int(random.next() % 1000000);
  cluster_kernel<<<kBlocks, 128>>>(values.get(), out.get());
  synchronize("cluster");
  for (int b = 0; b < kBlocks; ++b) {
    const int* row = &out[b * 7];
    const std::string what = "cluster block " + std::to_string(b);
    check(row[0] == b % 4, what + " rank " + std::to_string(row[0]));
    check(row[1] == 4, what + " nctarank " + std::to_string(row[1]));
    for (int i = 0; i < 4; ++i)
      check(row[2 + i] == values[b / 4 * 4 + i], what + " slot " + std::to_string(i));
    check(row[6] == 1, what + " remote mbarrier arrivals");
  }
}

void run_elect() {
  constexpr int kWarps = 8;
  Buffer<int> count(kWarps), lane(kWarps);
  elect_kernel<<<1, 32 * kWarps>>>(count.get(), lane.get());
  synchronize("elect");
  for (int w = 0; w < kWarps; ++w) {
    check(count[w] == 1, "elect.sync warp " + std::to_string(w) + " elected " + std::to_string(count[w]));
    check(lane[w] >= 0 && lane[w] < 32, "elect.sync warp " + std::to_string(w) + " lane");
  }
}

void run_setmaxnreg(Random& random) {
  Buffer<float> in(384), out(384);
  for (int i = 0; i < 384; ++i) in[i] = float(random.uniform(-1, 1));
  setmaxnreg_kernel<<<1, 384>>>(in.get(), out.get());
  synchronize("setmaxnreg");
  for (int t = 0; t < 384; ++t) {
    float expected = in[t];
    if (t >= 128) {
      float v[64];
      for (int i = 0; i < 64; ++i) v[i] = in[(t + i) % 384] * float(i + 1);
      for (int round = 0; round < 4; ++round) {
        for (int i = 0; i < 64; ++i) v[i] = v[i] * 0.5f + v[(i + 17) % 64];
      }
      expected = 0;
      for (int i = 0; i < 64; ++i) expected += v[i];
    }
    check(same_bits(out[t], expected), "setmaxnreg thread " + std::to_string(t));
  }
}

template <uint32_t Count, bool Trans>
void run_stmatrix(Random& random) {
  Buffer<uint16_t> in(Count * 64), out(Count * 64);
  for (uint32_t i = 0; i < Count * 64; ++i) in[i] = random.bits<uint16_t>();
  stmatrix_kernel<Count, Trans><<<1, 32>>>(in.get(), out.get());
  synchronize("stmatrix");
  for (uint32_t j = 0; j < Count; ++j) {
    for (uint32_t row = 0; row < 8; ++row) {
      for (uint32_t col = 0; col < 8; ++col) {
        const uint16_t got = Trans ? out[j * 64 + col * 8 + row] : out[j * 64 + row * 8 + col];
        check(got == in[j * 64 + row * 8 + col],
              "stmatrix x" + std::to_string(Count) + (Trans ? ".trans" : "") + " matrix " +
                  std::to_string(j) + " element (" + std::to_string(row) + ", " + std::to_string(col) + ")");
      }
    }
  }
}

int main() {
  Random random(seed());
  run_phases();
  run_cluster(random);
  run_elect();
  run_setmaxnreg(random);
  run_stmatrix<1, false>(random);
  run_stmatrix<2, false>(random);
  run_stmatrix<4, false>(random);
  run_stmatrix<1, true>(random);
  run_stmatrix<2, true>(random);
  run_stmatrix<4, true>(random);
  return finish("test_sm90_sync");
}
#endif
