// The TMA store of a tile kernel's epilogue on sm_90a:
//
//   store_array_tma(tma, array, value, i0, i1) == store_array(array, value, i0, i1)
//
// where `tma` holds the kernel's tensor map of the 2-D `array` (a kernel parameter: weft's runtime
// encodes it at each launch, EmittedUnit::tensorMaps, docs/architecture.md "Tensor maps") and
// whether it is valid. Sema marks the stores that may take it (src/sema/tile_pipeline.cpp): tiles
// held in the accumulator layout of a K loop that took the TMA/wgmma path (mma_pipeline_tma.h).
//
// On sm_90a, for an M x N tile of 16-bit or 32-bit elements (sm90::store_tiles_fit) in an mma
// layout of 16-row atoms (the accumulator's, or what element-wise code made of it), with the map
// valid, block indices that are not negative of a tile that starts inside the array (an array
// shorter than 2^30 along both axes), and M * N * sizeof(T) bytes of dynamic shared memory from a
// 1024-byte boundary, the block writes its fragments into the ring (the K loop's stages, free
// between pipelines) as the map's boxes lay them out: slabs of M rows of 128 bytes, 128-byte
// swizzled (smem_tile), with stmatrix for 16-bit elements and 8-byte stores for 32-bit ones. Each
// writer fences its writes for the async proxy, and after a barrier one thread stores each slab
// by TMA (elements outside the array are not written), then waits until the writes are done
// before a last barrier frees the ring and lets the block read the array again.
//
// TMA stores fault ("illegal instruction") at a negative coordinate or an innermost coordinate
// that is not a multiple of 16 bytes: the first column of every slab is the tile's, a multiple of
// N elements (whole 128-byte slabs), plus whole slabs, and negative block indices, which a kernel
// may pass, take store_array. So do invalid maps (arrays TMA cannot address: views whose rows are
// not 16-byte multiples apart or whose base is misaligned), a launch without the shared memory,
// tiles wholly past the array's end (which store nothing either way), other layouts and element
// types, other architectures, and the CPU target.
#pragma once

#include "weft/tiles/arrays.h"
#include "weft/tiles/sm90/layout.h"
#include "weft/tiles/sm90/tensor_map_type.h"

namespace weft::tiles {

// The tensor map of a TMA store's array as the kernel received it (a box of the tile's rows by
// 128 bytes of columns, 128-byte swizzled: sm90::kStoreSlabBytes); `valid`: the runtime could
// encode it.
struct tma_store_map {
  const sm90::tensor_map* map = nullptr;
  bool valid = false;
};

namespace detail {

// Whether store_array_tma's TMA path takes tiles of T elements of shape S in layout L: 2-D, in an
// mma layout of 16-row atoms, of a shape and element size a store's tensor map takes.
template <class T, class S, class L>
WEFT_HD constexpr bool tma_stores() {
  if constexpr (S::rank() != 2 || !is_mma_layout_of<L, 16>) {
    return false;
  } else {
    return sm90::store_tiles_fit(static_cast<uint32_t>(S::static_extent(0)), static_cast<uint32_t>(S::static_extent(1)),
                                 static_cast<uint32_t>(sizeof(T)));
  }
}

// The shared-memory box of an M x N tile of T: slabs of 128-byte rows, 128-byte swizzled.
template <class T, uint32_t M, uint32_t N>
using store_box = sm90::smem_tile<M, N, sizeof(T), sm90::swizzle::b128>;

// Where the TMA path puts an mma layout L's fragments in the box (host C++ too, so that tests
// check it against L::index: tests/tiles/test_store_tma.cu). A lane holds each 16 x 8 atom's rows
// g and g + 8 at columns 2 (l % 4) and 2 (l % 4) + 1 (g = l / 4).
struct box_position {
  uint32_t row, col;
};

// 16-bit elements go by stmatrix of kStmatrixAtoms<L> atoms side by side (x4 for two, x2 for
// one), each 8 x 8 half of an atom a matrix: the registers of lane l are the pairs of fragment
// elements k, k + 2, ... of the first atom's (am, an) fragment position k.
template <class L>
inline constexpr uint32_t kStmatrixAtoms = L::kAtomsN % 2 == 0 ? 2 : 1;

// The row that lane `lane` of warp `warp` (of L's) addresses in the stmatrix of atom row `am` from
// atom column `an`: row lane % 8 of matrix lane / 8 % (2 kStmatrixAtoms<L>), where matrix 2 a + h
// is rows 8 h .. 8 h + 7 of atom an + a.
template <class L>
WEFT_HD constexpr box_position stmatrix_row(uint32_t warp, uint32_t lane, uint32_t am, uint32_t an) {
  const uint32_t q = lane / 8 % (2 * kStmatrixAtoms<L>);
  return {L::atom_row(warp, am) + q % 2 * 8 + lane % 8, L::warp_col(warp) + (an + q / 2) * 8};
}

// 32-bit elements go in 8-byte pairs: the position of the first of the pair `half` (fragment
// elements 2 half and 2 half + 1 of atom (am, an)) of lane `lane` of warp `warp`.
template <class L>
WEFT_HD constexpr box_position pair_position(uint32_t warp, uint32_t lane, uint32_t am, uint32_t an, uint32_t half) {
  return {L::atom_row(warp, am) + lane / 4 + 8 * half, L::warp_col(warp) + an * 8 + lane % 4 * 2};
}

#if defined(WEFT_TILES_WGMMA)

// Two 16-bit elements as one 32-bit register, the first in the low half (stmatrix's order).
template <class T>
WEFT_TILE_FN uint32_t pack_pair(const T* pair) {
  return bit_cast<uint32_t>(element_pack<T, 2>{{pair[0], pair[1]}});
}

// Writes the owners' fragments of `value` into `box` (store_box's layout; stmatrix_row,
// pair_position). The eight rows of an stmatrix matrix fall in eight different 16-byte chunks of
// the swizzle (no bank conflicts); the 8-byte pairs of 32-bit elements fill each 128-byte line of
// eight rows twice, as 256 bytes must.
template <class T, class S, class L>
WEFT_TILE_FN void stage_for_tma_store(unsigned char* box, const tile<T, S, L>& value) {
  constexpr uint32_t M = static_cast<uint32_t>(S::static_extent(0)), N = static_cast<uint32_t>(S::static_extent(1));
  using Box = store_box<T, M, N>;
  const uint32_t t = thread_rank(), warp = (t / 32) % L::kWarps, lane = t % 32;
  if (!L::owner(t)) return;
  WEFT_UNROLL
  for (uint32_t am = 0; am < L::kAtomsM; ++am) {
    if constexpr (sizeof(T) == 2) {
      constexpr uint32_t kAtoms = kStmatrixAtoms<L>;
      WEFT_UNROLL
      for (uint32_t an = 0; an < L::kAtomsN; an += kAtoms) {
        const uint32_t k = (am * L::kAtomsN + an) * L::kPerAtom;
        uint32_t r[2 * kAtoms];
        WEFT_UNROLL
        for (uint32_t j = 0; j < 2 * kAtoms; ++j) r[j] = pack_pair(&value.frag_[k + 2 * j]);
        const box_position p = stmatrix_row<L>(warp, lane, am, an);
        sm90::stmatrix<2 * kAtoms>(box + Box::offset(p.row, p.col), r);
      }
    } else {
      WEFT_UNROLL
      for (uint32_t an = 0; an < L::kAtomsN; ++an) {
        const uint32_t k = (am * L::kAtomsN + an) * L::kPerAtom;
        WEFT_UNROLL
        for (uint32_t half = 0; half < 2; ++half) {
          const box_position p = pair_position<L>(warp, lane, am, an, half);
          store_vector<2>(reinterpret_cast<T*>(box + Box::offset(p.row, p.col)), &value.frag_[k + 2 * half]);
        }
      }
    }
  }
}

// The TMA path of store_array_tma (see the file comment): the tile whose first element is
// (row0, col0), both non-negative and inside the array, through `box` (the ring from a 1024-byte
// boundary, with room for store_box<T, M, N>).
template <class T, class S, class L>
WEFT_TILE_FN void store_tile_tma(const sm90::tensor_map* map, unsigned char* box, const tile<T, S, L>& value,
                                 int32_t row0, int32_t col0) {
  constexpr uint32_t M = static_cast<uint32_t>(S::static_extent(0)), N = static_cast<uint32_t>(S::static_extent(1));
  using Box = store_box<T, M, N>;
  static_assert(Box::kBoxCols * sizeof(T) == sm90::kStoreSlabBytes && Box::kBoxRows == M &&
                    static_cast<uint8_t>(Box::kSwizzle) == sm90::kStoreSwizzle,
                "the slabs are the boxes of the kernel's tensor map");
  block_sync();  // the ring's earlier users (a K loop, a store through it) are done with it
  stage_for_tma_store(box, value);
  sm90::fence_proxy_async();
  block_sync();
  if (thread_rank() == 0) {
    WEFT_UNROLL
    for (uint32_t slab = 0; slab < Box::kSlabs; ++slab) {
      sm90::tma_store(map, box + slab * Box::kSlabBytes, col0 + static_cast<int32_t>(slab * Box::kSlabCols), row0);
    }
    sm90::tma_store_commit();
    // Done writing, not only reading the box: the block may read the array after the barrier.
    sm90::tma_store_wait<0>();
  }
  block_sync();
}
#endif

}  // namespace detail

// See the file comment.
template <class T, class S, class L, class I0, class I1>
WEFT_TILE_FN void store_array_tma(const tma_store_map& tma, const ::weft::Array<T, 2>& array, const tile<T, S, L>& value,
                                  I0 i0, I1 i1) {
#if defined(WEFT_TILES_WGMMA)
  if constexpr (detail::tma_stores<T, S, L>()) {
    constexpr uint32_t M = static_cast<uint32_t>(S::static_extent(0)), N = static_cast<uint32_t>(S::static_extent(1));
    constexpr uint64_t kFar = uint64_t{1} << 30;
    const uint64_t rows = array.shape[0], cols = array.shape[1];
    const int64_t r = static_cast<int64_t>(i0), c = static_cast<int64_t>(i1);
    // The tile's first element lies inside an array shorter than 2^30 along both axes: the
    // coordinates are int32, as TMA takes them, and not negative.
    const bool inside = rows < kFar && cols < kFar && r >= 0 && c >= 0 && static_cast<uint64_t>(r) < cdiv(rows, uint64_t{M}) &&
                        static_cast<uint64_t>(c) < cdiv(cols, uint64_t{N});
    unsigned char* ring = detail::stage_ring();
    const uint32_t pad = (1024u - sm90::shared_address(ring) % 1024u) % 1024u;
    if (tma.valid && inside && detail::dynamic_shared_bytes() >= pad + detail::store_box<T, M, N>::kBytes) {
      detail::store_tile_tma(tma.map, ring + pad, value, static_cast<int32_t>(r * M), static_cast<int32_t>(c * N));
      return;
    }
  }
#else
  (void)tma;
#endif
  store_array(array, value, i0, i1);
}

}  // namespace weft::tiles
