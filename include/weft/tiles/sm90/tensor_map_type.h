// The kernel parameter type of a TMA tensor map, for every compilation of weft's generated code
// (a tile kernel with a pipelined K loop declares its maps whatever the architecture; only
// sm_90a code reads them), and the boxes those maps describe (a K loop's operands, a TMA store's
// array), which weft's code generator and sema read too (host C++).
#pragma once

#include "weft/device/config.h"

namespace weft::tiles::sm90 {

// A CUtensorMap's bytes (same size and alignment) for device code compiled without <cuda.h>
// (NVRTC): a `const __grid_constant__ tensor_map` kernel parameter receives a CUtensorMap.
struct alignas(128) tensor_map {
  uint64_t opaque[16];
};

// The tensor maps of a pipelined K loop's operands (weft/tiles/mma_pipeline_tma.h) copy boxes of
// one 128-byte slab: the tile's rows (a: M; b: Kt of a K x N array, or N of an N x K one) by
// pipeline_box_columns elements of `elementBytes` bytes, 128-byte swizzled (kPipelineSwizzle:
// CUtensorMapSwizzle's number).
WEFT_HD constexpr uint32_t pipeline_box_columns(uint32_t elementBytes) {
  return 128 / elementBytes;
}
inline constexpr uint8_t kPipelineSwizzle = 3;

// Whether the TMA/wgmma path takes M x Kt by Kt x N tiles of `elementBytes`-byte elements (16-bit
// floats; fp8 with b K-major) in a tile block of `threads` threads: its warpgroups each own whole
// 64-row blocks of M (every warp 16-row atoms), M at most 256; Kt is whole 128-byte slabs, at
// most 256 (a box's rows, b's stored K x N); N a multiple of 64 up to 256 (one wgmma: whole slabs
// of 16-bit b stored K x N, or at most a box's rows of b stored N x K). Sema reads it too, so
// that only loops the path can take ask for tensor maps.
WEFT_HD constexpr bool pipeline_tiles_fit(uint32_t threads, uint32_t m, uint32_t kt, uint32_t n, uint32_t elementBytes) {
  return threads >= 128 && m % (16 * (threads / 32)) == 0 && m <= 256 && (kt * elementBytes) % 128 == 0 && kt <= 256 &&
         n % 64 == 0 && n <= 256;
}

// The tensor map of a TMA store's array (weft/tiles/store_tma.h): boxes of the tile's rows by one
// kStoreSlabBytes slab of its columns, 128-byte swizzled (CUtensorMapSwizzle's number); the tile
// is stored slab by slab.
inline constexpr uint32_t kStoreSlabBytes = 128;
inline constexpr uint8_t kStoreSwizzle = 3;

// Whether a TMA store takes an m x n tile of `elementBytes`-byte elements: 16-bit or 32-bit ones
// (stmatrix or 8-byte stores into the box), rows in whole swizzle periods (8) up to one box (256),
// columns in whole slabs (so every slab's first column is a multiple of 16 bytes, as TMA stores
// need). Sema reads it too, so that only stores the header can take ask for a tensor map.
WEFT_HD constexpr bool store_tiles_fit(uint32_t m, uint32_t n, uint32_t elementBytes) {
  return (elementBytes == 2 || elementBytes == 4) && m % 8 == 0 && m >= 8 && m <= 256 && n > 0 &&
         n * elementBytes % kStoreSlabBytes == 0;
}

}  // namespace weft::tiles::sm90
