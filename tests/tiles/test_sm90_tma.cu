// sm_90a TMA copies and mbarriers (weft/tiles/sm90/tma.h, sync.h) against the global arrays they
// copy, on seeded random bits: 2-D loads of boxes partly or wholly outside the tensor (zero
// filled) with no swizzle and with the 32, 64 and 128-byte swizzles read back through
// smem_tile::offset (TMA writes the layout the wgmma descriptors read), a 3-D load (the bytes
// announced by mbarrier_expect_tx, the arrival after the copy), 2-D and 3-D stores in two bulk
// groups (tma_store_wait_read between them) that write only their boxes, a load multicast to
// both CTAs of each cluster, and a producer warp streaming more tiles than stages through an
// mbarrier_ring to three consumer warps (every phase wraps several times). The 2-D cases and
// their checks are test_sm90_tma_reference.h's, which test_sm90_layout.cu also runs on the host
// against emulated TMA. GPU only (sm_90a): tests/python/test_tile_header.py.
#include "tile_test.h"

#include <weft/tiles/sm90.h>

#include "test_sm90_tma_reference.h"

namespace s = ::weft::tiles::sm90;
using tma_reference::box_cols;
using tma_reference::box_offset;

// The block's dynamic shared memory from a 1024-byte boundary (the 128-byte swizzle's period).
__device__ unsigned char* aligned_shared() {
  extern __shared__ unsigned char raw[];
  return raw + (1024 - s::shared_address(raw) % 1024) % 1024;
}

// Loads the R x C box at column x, row y (one TMA copy per slab) and writes it to out row-major.
template <class T, uint32_t R, uint32_t C, s::swizzle Mode>
__global__ void load_kernel(const __grid_constant__ CUtensorMap map, T* out, int x, int y) {
  __shared__ uint64_t bar;
  unsigned char* tile = aligned_shared();
  constexpr uint32_t kBoxCols = box_cols<T, C, Mode>();
  if (threadIdx.x == 0) {
    s::tma_prefetch_descriptor(&map);
    s::mbarrier_init(&bar, 1);
    s::fence_mbarrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    s::mbarrier_arrive_expect_tx(&bar, R * C * sizeof(T));
    for (uint32_t slab = 0; slab < C / kBoxCols; ++slab) {
      s::tma_load(tile + slab * R * kBoxCols * sizeof(T), &map, &bar, x + int(slab * kBoxCols), y);
    }
  }
  s::mbarrier_wait(&bar, 0);
  for (uint32_t i = threadIdx.x; i < R * C; i += blockDim.x) {
    out[i] = *reinterpret_cast<const T*>(tile + box_offset<T, R, C, Mode>(i / C, i % C));
  }
}

// Loads the D x R x C box at (x, y, z) of a 3-D map (no swizzle) and writes it to out; the
// barrier learns the bytes by mbarrier_expect_tx.
template <class T, uint32_t D, uint32_t R, uint32_t C>
__global__ void load3d_kernel(const __grid_constant__ CUtensorMap map, T* out, int x, int y, int z) {
  __shared__ uint64_t bar;
  T* tile = reinterpret_cast<T*>(aligned_shared());
  if (threadIdx.x == 0) {
    s::mbarrier_init(&bar, 1);
    s::fence_mbarrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    // The transaction count first, the arrival after the copy is issued.
    s::mbarrier_expect_tx(&bar, D * R * C * sizeof(T));
    s::tma_load(tile, &map, &bar, x, y, z);
    s::mbarrier_arrive(&bar);
  }
  s::mbarrier_wait(&bar, 0);
  for (uint32_t i = threadIdx.x; i < D * R * C; i += blockDim.x) out[i] = tile[i];
}

// Stores `first` (R x C, row-major) as the box at (x0, y0) and then, through the same shared
// memory once the first store has read it, `second` at (x1, y1).
template <class T, uint32_t R, uint32_t C, s::swizzle Mode>
__global__ void store_kernel(const __grid_constant__ CUtensorMap map, const T* first, const T* second, int x0,
                             int y0, int x1, int y1) {
  unsigned char* tile = aligned_shared();
  constexpr uint32_t kBoxCols = box_cols<T, C, Mode>();
  for (int round = 0; round < 2; ++round) {
    const T* in = round == 0 ? first : second;
    for (uint32_t i = threadIdx.x; i < R * C; i += blockDim.x) {
      *reinterpret_cast<T*>(tile + box_offset<T, R, C, Mode>(i / C, i % C)) = in[i];
    }
    s::fence_proxy_async();
    __syncthreads();
    if (threadIdx.x == 0) {
      for (uint32_t slab = 0; slab < C / kBoxCols; ++slab) {
        s::tma_store(&map, tile + slab * R * kBoxCols * sizeof(T),
                     (round == 0 ? x0 : x1) + int(slab * kBoxCols), round == 0 ? y0 : y1);
      }
      s::tma_store_commit();
      s::tma_store_wait_read<0>();
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) s::tma_store_wait<0>();
}

// Stores the D x R x C box `in` at (x, y, z) of a 3-D map (no swizzle).
template <class T, uint32_t D, uint32_t R, uint32_t C>
__global__ void store3d_kernel(const __grid_constant__ CUtensorMap map, const T* in, int x, int y, int z) {
  T* tile = reinterpret_cast<T*>(aligned_shared());
  for (uint32_t i = threadIdx.x; i < D * R * C; i += blockDim.x) tile[i] = in[i];
  s::fence_proxy_async();
  __syncthreads();
  if (threadIdx.x == 0) {
    s::tma_store(&map, tile, x, y, z);
    s::tma_store_commit();
    s::tma_store_wait<0>();
  }
}

// Each cluster of two CTAs loads the R x C (128-byte swizzled) box at rows [R c, R c + R) for its
// cluster c: CTA r loads half the rows and multicasts them to both; each CTA writes the whole
// box to out[cluster][cta].
template <class T, uint32_t R, uint32_t C>
__global__ void __cluster_dims__(2, 1, 1) multicast_kernel(const __grid_constant__ CUtensorMap map, T* out) {
  using L = s::smem_tile<R, C, sizeof(T), s::swizzle::b128>;
  static_assert(L::kSlabs == 1 && R % 16 == 0, "one slab, halves of whole swizzle periods");
  __shared__ uint64_t bar;
  unsigned char* tile = aligned_shared();
  const uint32_t rank = s::cluster_ctarank(), cluster = blockIdx.x / 2;
  if (threadIdx.x == 0) {
    s::mbarrier_init(&bar, 1);
    s::fence_mbarrier_init();
  }
  // Both CTAs' barriers are initialized before either multicasts into the other.
  s::cluster_sync();
  if (threadIdx.x == 0) {
    s::mbarrier_arrive_expect_tx(&bar, R * C * sizeof(T));
    s::tma_load_multicast(tile + rank * (R / 2) * L::kSwizzleBytes, &map, &bar, uint16_t(0x3), 0,
                          int(cluster * R + rank * (R / 2)));
  }
  s::mbarrier_wait(&bar, 0);
  for (uint32_t i = threadIdx.x; i < R * C; i += blockDim.x) {
    out[(blockIdx.x * R + i / C) * C + i % C] = *reinterpret_cast<const T*>(tile + L::offset(i / C, i % C));
  }
  s::cluster_sync();
}

// Warp 0 (one elected lane) streams Tiles R x C tiles (rows [R t, R t + R)) through a ring of
// Stages stages; warps 1 to 3 copy each tile to out and release its stage.
template <class T, uint32_t R, uint32_t C, uint32_t Stages, uint32_t Tiles>
__global__ void ring_kernel(const __grid_constant__ CUtensorMap map, T* out) {
  using L = s::smem_tile<R, C, sizeof(T), s::swizzle::b128>;
  static_assert(L::kSlabs == 1, "one TMA box per tile");
  __shared__ s::mbarrier_ring<Stages> ring;
  unsigned char* stages = aligned_shared();
  constexpr uint32_t kConsumerWarps = 3;
  if (threadIdx.x == 0) ring.init(1, kConsumerWarps);
  __syncthreads();
  s::ring_position<Stages> position;
  const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp == 0) {
    if (s::elect_one()) {
      for (uint32_t t = 0; t < Tiles; ++t, position.advance()) {
        ring.acquire(position);
        ring.commit(position, L::kBytes);
        s::tma_load(stages + position.stage * L::kBytes, &map, ring.full_barrier(position), 0, int(t * R));
      }
    }
  } else {
    for (uint32_t t = 0; t < Tiles; ++t, position.advance()) {
      ring.wait(position);
      const unsigned char* tile = stages + position.stage * L::kBytes;
      for (uint32_t i = threadIdx.x - 32; i < R * C; i += 32 * kConsumerWarps) {
        out[(t * R + i / C) * C + i % C] = *reinterpret_cast<const T*>(tile + L::offset(i / C, i % C));
      }
      __syncwarp();
      if (lane == 0) ring.release(position);
    }
  }
}

#if !defined(__CUDACC_RTC__)
using namespace tile_test;
using tma_reference::fill;

template <int Rank>
CUtensorMap tensor_map(const void* base, uint32_t elementBytes, const uint64_t (&extents)[Rank],
                       const uint32_t (&box)[Rank], s::swizzle mode) {
  CUtensorMap map;
  const char* error = nullptr;
  CUresult status = s::make_tensor_map<Rank>(&map, base, elementBytes, extents, box, mode, &error);
  if (status != CUDA_SUCCESS) {
    std::printf("make_tensor_map failed (%d): %s\n", int(status), error);
    std::exit(2);
  }
  return map;
}

template <class Kernel>
void set_shared(Kernel kernel, uint32_t bytes) {
  cuda_check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)), "smem");
}

void synchronize(const char* what) {
  cuda_check(cudaGetLastError(), what);
  cuda_check(cudaDeviceSynchronize(), what);
}

std::string at(const char* what, long a, long b) {
  return std::string(what) + " (" + std::to_string(a) + ", " + std::to_string(b) + ")";
}

// A 2-D load of an R x C box at (x, y) of an H x W array, compared with the array (zero outside).
template <class T, uint32_t R, uint32_t C, s::swizzle Mode>
void run_load(Random& random, uint32_t H, uint32_t W, int x, int y) {
  Buffer<T> global(size_t(H) * W), out(R * C);
  fill(random, global);
  CUtensorMap map = tensor_map<2>(global.get(), sizeof(T), {H, W}, {R, box_cols<T, C, Mode>()}, Mode);
  const uint32_t bytes = R * C * sizeof(T) + 1024;
  set_shared(load_kernel<T, R, C, Mode>, bytes);
  load_kernel<T, R, C, Mode><<<1, 128, bytes>>>(map, out.get(), x, y);
  synchronize("tma load");
  tma_reference::check_load<T, R, C, Mode>(out.get(), global.get(), H, W, x, y);
}

void run_load3d(Random& random) {
  constexpr uint32_t D = 2, R = 8, C = 8, Z = 3, H = 20, W = 40;
  Buffer<float> global(Z * H * W), out(D * R * C);
  fill(random, global);
  CUtensorMap map = tensor_map<3>(global.get(), 4, {Z, H, W}, {D, R, C}, s::swizzle::none);
  const int x = 36, y = 5, z = 1;  // the box's last 4 columns lie outside
  set_shared(load3d_kernel<float, D, R, C>, 2048 + 1024);
  load3d_kernel<float, D, R, C><<<1, 128, 2048 + 1024>>>(map, out.get(), x, y, z);
  synchronize("tma load 3d");
  for (uint32_t i = 0; i < D * R * C; ++i) {
    const uint32_t d = i / (R * C), r = i / C % R, c = i % C;
    const bool inside = x + c < W;
    const float expected = inside ? global[((z + d) * H + y + r) * W + x + c] : 0.0f;
    check(same_bits(out[i], expected), at("tma load 3d", d * R + r, c));
  }
}

template <class T, uint32_t R, uint32_t C, s::swizzle Mode>
void run_store(Random& random, uint32_t H, uint32_t W, int x0, int y0, int x1, int y1) {
  Buffer<T> global(size_t(H) * W), first(R * C), second(R * C);
  fill(random, global);
  fill(random, first);
  fill(random, second);
  std::vector<T> before(global.get(), global.get() + global.size());
  CUtensorMap map = tensor_map<2>(global.get(), sizeof(T), {H, W}, {R, box_cols<T, C, Mode>()}, Mode);
  const uint32_t bytes = R * C * sizeof(T) + 1024;
  set_shared(store_kernel<T, R, C, Mode>, bytes);
  store_kernel<T, R, C, Mode><<<1, 128, bytes>>>(map, first.get(), second.get(), x0, y0, x1, y1);
  synchronize("tma store");
  tma_reference::check_store<T, R, C, Mode>(global.get(), before.data(), first.get(), second.get(), H, W, x0, y0,
                                            x1, y1);
}

void run_store3d(Random& random) {
  constexpr uint32_t D = 2, R = 4, C = 16, Z = 4, H = 6, W = 32;
  Buffer<uint16_t> global(Z * H * W), in(D * R * C);
  fill(random, global);
  fill(random, in);
  std::vector<uint16_t> before(global.get(), global.get() + global.size());
  CUtensorMap map = tensor_map<3>(global.get(), 2, {Z, H, W}, {D, R, C}, s::swizzle::none);
  const int x = 8, y = 3, z = 3;  // rows past 5 and planes past 3 lie outside
  store3d_kernel<uint16_t, D, R, C><<<1, 128, 4096>>>(map, in.get(), x, y, z);
  synchronize("tma store 3d");
  for (uint32_t i = 0; i < Z * H * W; ++i) {
    const long d = long(i / (H * W)) - z, r = long(i / W % H) - y, c = long(i % W) - x;
    const bool boxed = d >= 0 && d < D && r >= 0 && r < R && c >= 0 && c < C;
    check(global[i] == (boxed ? in[(d * R + r) * C + c] : before[i]), at("tma store 3d", i / W, i % W));
  }
}

void run_multicast(Random& random) {
  constexpr uint32_t R = 32, C = 64, Clusters = 3;
  Buffer<uint16_t> global(Clusters * R * C), out(2 * Clusters * R * C);
  fill(random, global);
  CUtensorMap map = tensor_map<2>(global.get(), 2, {Clusters * R, C}, {R / 2, C}, s::swizzle::b128);
  const uint32_t bytes = R * C * 2 + 1024;
  set_shared(multicast_kernel<uint16_t, R, C>, bytes);
  multicast_kernel<uint16_t, R, C><<<2 * Clusters, 128, bytes>>>(map, out.get());
  synchronize("tma multicast");
  for (uint32_t block = 0; block < 2 * Clusters; ++block) {
    for (uint32_t i = 0; i < R * C; ++i) {
      check(out[block * R * C + i] == global[block / 2 * R * C + i],
            at("tma multicast block, element", block, i));
    }
  }
}

void run_ring(Random& random) {
  constexpr uint32_t R = 16, C = 32, Stages = 3, Tiles = 11;
  Buffer<uint32_t> global(Tiles * R * C), out(Tiles * R * C);
  fill(random, global);
  CUtensorMap map = tensor_map<2>(global.get(), 4, {Tiles * R, C}, {R, C}, s::swizzle::b128);
  const uint32_t bytes = Stages * R * C * 4 + 1024;
  set_shared(ring_kernel<uint32_t, R, C, Stages, Tiles>, bytes);
  ring_kernel<uint32_t, R, C, Stages, Tiles><<<1, 128, bytes>>>(map, out.get());
  synchronize("mbarrier ring");
  for (uint32_t i = 0; i < Tiles * R * C; ++i)
    check(out[i] == global[i], at("mbarrier ring tile, element", i / (R * C), i % (R * C)));
}

int main() {
  Random random(seed());
  tma_reference::load_cases([&]<class T, uint32_t R, uint32_t C, s::swizzle Mode>(uint32_t H, uint32_t W, int x,
                                                                                  int y) {
    run_load<T, R, C, Mode>(random, H, W, x, y);
  });
  run_load3d(random);
  tma_reference::store_cases([&]<class T, uint32_t R, uint32_t C, s::swizzle Mode>(uint32_t H, uint32_t W, int x0,
                                                                                   int y0, int x1, int y1) {
    run_store<T, R, C, Mode>(random, H, W, x0, y0, x1, y1);
  });
  run_store3d(random);
  run_multicast(random);
  run_ring(random);
  return finish("test_sm90_tma");
}
#endif
