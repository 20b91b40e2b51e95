// Swizzled shared-memory tile layouts as TMA writes them, the wgmma shared-memory matrix
// descriptors that read them, and wgmma's register fragment layouts (docs/tiles.md, "Hopper
// building blocks (C++)"). constexpr and host-callable, so that host code (tests, a code
// generator) computes the same offsets.
//
// A smem_tile<Rows, Cols, ElementBytes, Swizzle> is a Rows x Cols tile whose Cols dimension is
// contiguous, stored as column slabs Swizzle bytes wide (TMA's box inner dimension cannot exceed
// the swizzle width): slab s holds columns [s * kSlabCols, (s + 1) * kSlabCols) of every row, rows
// kSwizzleBytes apart, slab after slab. Within a slab the 16-byte chunks of each 128-byte line are
// XORed with the line's index modulo 8, 4 or 2 (128B, 64B, 32B swizzle: address bits [4, 4+b) ^=
// bits [7, 7+b)), which is TMA's pattern for a box of kSlabCols x Rows landing at a slab start
// aligned to the pattern's period (1024, 512 or 256 bytes).
//
// The same tile is a wgmma operand in two ways:
// - K-major (A: M x K, or B stored N x K): Rows = M or N, Cols = K; one wgmma step reads 32 bytes
//   of K (k16 for 16-bit types, k8 for tf32, k32 for fp8);
// - MN-major (B stored K x N, 16-bit types only): Rows = K, Cols = N; one step reads 16 rows.
#pragma once

#include "weft/device/config.h"

namespace weft::tiles::sm90 {

// The swizzle of a TMA box in shared memory; the values are CUtensorMapSwizzle's.
enum class swizzle : uint32_t { none = 0, b32 = 1, b64 = 2, b128 = 3 };

// Bytes of one swizzled row segment: 32, 64 or 128 (16 without swizzle).
WEFT_HD constexpr uint32_t swizzle_bytes(swizzle mode) {
  return 16u << static_cast<uint32_t>(mode);
}

// The alignment a TMA box's shared-memory destination needs for the layouts here: the swizzle
// pattern's period (256, 512 or 1024 bytes; TMA's minimum of 128 without swizzle). TMA swizzles
// by the destination's address bits, so a box landing off its period is permuted differently.
WEFT_HD constexpr uint32_t swizzle_alignment(swizzle mode) {
  return 8 * swizzle_bytes(mode);
}

// The byte offset `offset` of a dense layout, swizzled (its slab starts at a multiple of
// swizzle_alignment(mode)).
WEFT_HD constexpr uint32_t swizzle_offset(swizzle mode, uint32_t offset) {
  const uint32_t mask = (1u << static_cast<uint32_t>(mode)) - 1u;
  return offset ^ (((offset >> 7) & mask) << 4);
}

// Why cuTensorMapEncodeTiled would refuse (or TMA misplace) the tiled map that make_tensor_map
// builds for the dense row-major Rank-D array at address `base` of `elementBytes`-byte elements
// with `extents`, copied in boxes of `box` (both outermost first) with `mode`; nullptr when the
// arguments are valid. The driver only answers CUDA_ERROR_INVALID_VALUE; this says which rule
// (cuda.h, cuTensorMapEncodeTiled) the arguments break.
template <int Rank>
WEFT_HD constexpr const char* tensor_map_error(uint64_t base, uint32_t elementBytes,
                                               const uint64_t (&extents)[Rank], const uint32_t (&box)[Rank],
                                               swizzle mode) {
  static_assert(Rank >= 1 && Rank <= 5, "tiled tensor maps have 1 to 5 dimensions");
  if (elementBytes != 1 && elementBytes != 2 && elementBytes != 4 && elementBytes != 8) {
    return "tensor map elements must have 1, 2, 4 or 8 bytes";
  }
  if (base % 16 != 0) return "a tensor map's array must start on a 16-byte boundary";
  uint64_t stride = elementBytes;  // bytes between consecutive indices of dimension d
  for (int d = Rank - 1; d >= 0; --d) {
    if (extents[d] == 0 || extents[d] > (uint64_t{1} << 32)) return "each tensor map extent must be 1 to 2^32";
    if (box[d] == 0 || box[d] > 256) return "each tensor map box dimension must be 1 to 256 elements";
    if (d < Rank - 1 && (stride % 16 != 0 || stride >= (uint64_t{1} << 40))) {
      return "a tensor map's row pitch (the inner extents times the element size) must be a multiple of 16 "
             "bytes below 2^40";
    }
    stride *= extents[d];
  }
  const uint64_t boxRowBytes = uint64_t{box[Rank - 1]} * elementBytes;
  if (boxRowBytes % 16 != 0) return "a tensor map box's innermost row must be a multiple of 16 bytes";
  if (mode != swizzle::none && boxRowBytes > swizzle_bytes(mode)) {
    return "a swizzled tensor map box's innermost row must not exceed the swizzle width (32, 64 or 128 bytes)";
  }
  return nullptr;
}

// The layout-type field of a wgmma matrix descriptor for `mode`.
WEFT_HD constexpr uint64_t descriptor_layout_type(swizzle mode) {
  switch (mode) {
    case swizzle::none: return 0;
    case swizzle::b32: return 3;
    case swizzle::b64: return 2;
    case swizzle::b128: return 1;
  }
  return 0;
}

// A wgmma shared-memory matrix descriptor: operand start address, leading and stride byte
// offsets (bytes, multiples of 16) and swizzle.
WEFT_HD constexpr uint64_t make_descriptor(uint32_t sharedAddress, uint32_t leadingBytes,
                                           uint32_t strideBytes, swizzle mode) {
  return static_cast<uint64_t>((sharedAddress >> 4) & 0x3fffu) |
         static_cast<uint64_t>((leadingBytes >> 4) & 0x3fffu) << 16 |
         static_cast<uint64_t>((strideBytes >> 4) & 0x3fffu) << 32 | descriptor_layout_type(mode) << 62;
}

// Bytes of K one wgmma instruction consumes from a K-major operand, for every operand type.
inline constexpr uint32_t kWgmmaStepBytes = 32;

// A Rows x Cols tile of ElementBytes-byte elements in swizzled column slabs (see above).
template <uint32_t Rows, uint32_t Cols, uint32_t ElementBytes, swizzle Mode>
struct smem_tile {
  static_assert(Mode != swizzle::none, "smem_tile describes the 32, 64 and 128-byte swizzles");
  static_assert(ElementBytes == 1 || ElementBytes == 2 || ElementBytes == 4, "elements of 1, 2 or 4 bytes");
  // Bytes of a row within one slab, and the columns they hold.
  static constexpr uint32_t kSwizzleBytes = swizzle_bytes(Mode);
  static constexpr uint32_t kSlabCols = kSwizzleBytes / ElementBytes;
  static_assert(Cols % kSlabCols == 0, "the tile's columns must fill whole swizzle slabs");
  static_assert(Rows % 8 == 0, "the tile's rows must be a multiple of 8 (one swizzle period)");
  static constexpr uint32_t kSlabs = Cols / kSlabCols;
  static constexpr uint32_t kSlabBytes = Rows * kSwizzleBytes;
  static constexpr uint32_t kBytes = kSlabs * kSlabBytes;
  // The alignment the tile's start needs: the swizzle pattern's period.
  static constexpr uint32_t kAlignment = swizzle_alignment(Mode);
  static constexpr swizzle kSwizzle = Mode;

  // The byte offset of element (row, col) from the tile's start.
  WEFT_HD static constexpr uint32_t offset(uint32_t row, uint32_t col) {
    return col / kSlabCols * kSlabBytes +
           swizzle_offset(Mode, row * kSwizzleBytes + col % kSlabCols * ElementBytes);
  }

  // The TMA box that fills one slab: kSlabCols x Rows (innermost first). Slab s is the box at
  // column s * kSlabCols, loaded to byte s * kSlabBytes.
  static constexpr uint32_t kBoxCols = kSlabCols;
  static constexpr uint32_t kBoxRows = Rows;

  // K-major operand: the descriptor of wgmma step `step` (K bytes [32 step, 32 step + 32)) of
  // the 8-row-aligned row block starting at `row` (A: a warpgroup's 64 rows; B: its N rows), the
  // tile starting at shared address `base`.
  WEFT_HD static constexpr uint64_t k_major_descriptor(uint32_t base, uint32_t step, uint32_t row = 0) {
    const uint32_t k = step * kWgmmaStepBytes;
    return make_descriptor(base + k / kSwizzleBytes * kSlabBytes + row * kSwizzleBytes + k % kSwizzleBytes,
                           16, 8 * kSwizzleBytes, Mode);
  }
  // MN-major operand (B, 16-bit elements): the descriptor of wgmma step `step` (rows
  // [16 step, 16 step + 16) of K) for the columns from `col` (a multiple of kSlabCols).
  WEFT_HD static constexpr uint64_t mn_major_descriptor(uint32_t base, uint32_t step, uint32_t col = 0) {
    return make_descriptor(base + col / kSlabCols * kSlabBytes + step * 16 * kSwizzleBytes, kSlabBytes,
                           8 * kSwizzleBytes, Mode);
  }
};

// The operand types of wgmma (the accumulator is fp32 for all of them).
enum class wgmma_type { f16, bf16, tf32, e4m3, e5m2 };

// Bytes of one operand element.
WEFT_HD constexpr uint32_t wgmma_element_bytes(wgmma_type type) {
  switch (type) {
    case wgmma_type::f16:
    case wgmma_type::bf16: return 2;
    case wgmma_type::tf32: return 4;
    case wgmma_type::e4m3:
    case wgmma_type::e5m2: return 1;
  }
  return 0;
}

// K of one instruction: 32 bytes of elements (k16, k8 for tf32, k32 for fp8).
WEFT_HD constexpr uint32_t wgmma_k(wgmma_type type) {
  return kWgmmaStepBytes / wgmma_element_bytes(type);
}

// The accumulator fragment of m64nN (fp32): thread t of the warpgroup (t = threadIdx.x % 128)
// holds N / 2 floats; its element i is D[wgmma_row(t, i)][wgmma_col(t, i)]. Warp w owns rows
// [16 w, 16 w + 16); within each 8-column block j = i / 4, lane l holds rows l / 4 and l / 4 + 8,
// columns 2 (l % 4) and 2 (l % 4) + 1 (the mma.sync m16n8 layout, repeated along N).
WEFT_HD constexpr uint32_t wgmma_row(uint32_t t, uint32_t i) {
  return t / 32 * 16 + t % 32 / 4 + i / 2 % 2 * 8;
}
// See wgmma_row.
WEFT_HD constexpr uint32_t wgmma_col(uint32_t t, uint32_t i) {
  return i / 4 * 8 + t % 4 * 2 + i % 2;
}

// The A fragment of a wgmma with A in registers (64 x wgmma_k(type)): thread t of the warpgroup
// holds four 32-bit registers, each packing 4 / wgmma_element_bytes(type) elements (the first in
// the low bits); element e of register j is A[wgmma_a_row(t, j)][wgmma_a_col(type, t, j, e)].
// Warp w owns rows [16 w, 16 w + 16): registers 0 and 2 hold row l / 4 of lane l, 1 and 3 row
// l / 4 + 8; registers 2 and 3 the second half of K (mma.sync's A fragment).
WEFT_HD constexpr uint32_t wgmma_a_row(uint32_t t, uint32_t j) {
  return t / 32 * 16 + t % 32 / 4 + j % 2 * 8;
}
// See wgmma_a_row.
WEFT_HD constexpr uint32_t wgmma_a_col(wgmma_type type, uint32_t t, uint32_t j, uint32_t e) {
  const uint32_t perRegister = 4 / wgmma_element_bytes(type);
  return j / 2 * 4 * perRegister + t % 4 * perRegister + e;
}

}  // namespace weft::tiles::sm90
