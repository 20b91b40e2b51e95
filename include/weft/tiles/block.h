// Block queries and hints: bid() and num_blocks() (the tile block's index and the grid), the
// assume_* hints, and host_launch, which runs a tile kernel's blocks on the CPU target.
#pragma once

#include "weft/tiles/config.h"

namespace weft::tiles {

// A block index or grid size (uint32 components).
struct dim3_t {
  uint32_t x, y, z;
};

// The index of the calling tile block in the grid. With WEFT_TILE_GROUP_ROWS (a kernel with a
// pipelined K loop, TileBlock::groupRows) the GPU runs the blocks of each x-y plane in groups of
// that many rows (values of x): the CTAs launched together share their a panels (x) and b
// panels (y) in L2 (planes of 2^32 blocks or more keep the grid's order). Every block index
// still occurs once; the order of blocks is unspecified.
WEFT_TILE_FN dim3_t bid() {
#if defined(WEFT_TARGET_HOST)
  const host::Dim3& b = host::current->blockIdx;
  return dim3_t{b.x, b.y, b.z};
#elif defined(WEFT_TILE_GROUP_ROWS)
  constexpr uint32_t kGroup = WEFT_TILE_GROUP_ROWS;
  if (static_cast<uint64_t>(gridDim.x) * gridDim.y * kGroup >> 32 != 0) return dim3_t{blockIdx.x, blockIdx.y, blockIdx.z};
  const uint32_t launched = blockIdx.x + blockIdx.y * gridDim.x, perGroup = kGroup * gridDim.y;
  const uint32_t first = launched / perGroup * kGroup, rows = gridDim.x - first < kGroup ? gridDim.x - first : kGroup;
  const uint32_t within = launched % perGroup;
  return dim3_t{first + within % rows, within / rows, blockIdx.z};
#else
  return dim3_t{blockIdx.x, blockIdx.y, blockIdx.z};
#endif
}

// The number of tile blocks of the grid along each axis.
WEFT_TILE_FN dim3_t num_blocks() {
#if defined(WEFT_TARGET_HOST)
  const host::Dim3& g = host::current->gridDim;
  return dim3_t{g.x, g.y, g.z};
#else
  return dim3_t{gridDim.x, gridDim.y, gridDim.z};
#endif
}

// Hints: x is a multiple of k / p is aligned to `bytes` / x lies in [lo, hi]. Each returns its
// argument; the compiler may assume the fact (undefined behaviour if it is false).
template <class T, class K>
WEFT_HD T assume_divisible(T x, K k) {
#if defined(__CUDA_ARCH__)
  __builtin_assume(x % k == 0);
#else
  (void)k;
#endif
  return x;
}
template <class T, class K>
WEFT_HD T* assume_aligned(T* p, K bytes) {
#if defined(__CUDA_ARCH__)
  __builtin_assume((reinterpret_cast<unsigned long long>(p) & (static_cast<unsigned long long>(bytes) - 1)) == 0);
#else
  (void)bytes;
#endif
  return p;
}
template <class T, class B>
WEFT_HD T assume_bounded(T x, B lo, B hi) {
#if defined(__CUDA_ARCH__)
  __builtin_assume(x >= static_cast<T>(lo) && x <= static_cast<T>(hi));
#else
  (void)lo;
  (void)hi;
#endif
  return x;
}

#if defined(WEFT_TARGET_HOST)
// Runs kernel(args...) once per tile block of `grid` (x fastest) on the calling thread, with
// bid() and num_blocks() answering as on the GPU: how C++ programs run tile kernels on the CPU
// (weft's own CPU target runs blocks in parallel instead). Under WEFT_TILES_EMULATE_BLOCK each
// block is kBlockThreads emulated threads.
template <class Kernel, class... Args>
void host_launch(dim3_t grid, Kernel kernel, Args... args) {
  const host::Dim3 gridDim{grid.x, grid.y, grid.z};
#if !defined(WEFT_TILES_EMULATE_BLOCK)
  host::ThreadContext context{};
  context.blockDim = host::Dim3{1, 1, 1};
  context.gridDim = gridDim;
  host::ThreadContext* saved = host::current;
  host::current = &context;
#endif
  for (uint32_t z = 0; z < grid.z; ++z) {
    for (uint32_t y = 0; y < grid.y; ++y) {
      for (uint32_t x = 0; x < grid.x; ++x) {
#if defined(WEFT_TILES_EMULATE_BLOCK)
        emulate::run_block(host::Dim3{x, y, z}, gridDim, kernel, args...);
#else
        context.blockIdx = host::Dim3{x, y, z};
        kernel(args...);
#endif
      }
    }
  }
#if !defined(WEFT_TILES_EMULATE_BLOCK)
  host::current = saved;
#endif
}
#endif

}  // namespace weft::tiles
