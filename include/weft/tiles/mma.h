// Matrix multiply-accumulate of tiles: mma(a, b, acc) = acc + a @ b (a: M x K, b: K x N,
// acc: M x N) and matmul(a, b). Element types: float16/bfloat16 -> float, tfloat32 -> float,
// int8/uint8 -> int32, double -> double, float -> float, float8 -> float (a and b of one type).
//
// Two paths, both staging a K-chunk of a (row-major, M x Kc) and of b transposed (N x Kc) in the
// shared scratch buffer, 16-byte chunks XOR-swizzled so that the eight rows an ldmatrix reads
// fall in distinct banks:
// - tensor cores (M, N, K multiples of the instruction's shape): the result is in
//   mma_layout, the accumulator layout of mma.sync (each warp owns a block of 16x8 (8x8 for
//   double) accumulator atoms; a lane holds rows g and g+8, columns 2*(lane%4)+{0,1} of each,
//   g = lane/4). sm_80+: ldmatrix + mma.sync m16n8k16 (f16, bf16), m16n8k8 (tf32), m16n8k32
//   (int8), m8n8k4 (f64); sm_89+ also m16n8k32 of float8 e4m3 / e5m2 (PTX ISA 8.4). Elsewhere
//   (older GPUs, the emulated block) the same fragments are exchanged by warp shuffles and
//   multiplied in scalar code, so every path agrees on layouts; fp8 tiles in device code for
//   sm_80..sm_88, which has no fp8 mma.sync, take the generic path below instead.
//   The layout leaves the operand staging to this header, so a TMA/wgmma path can replace it.
// - otherwise (small or odd shapes, float; fp8 before sm_89): every thread computes its
//   accumulator elements from shared memory; the result keeps acc's layout.
// The CPU target multiplies directly (its layouts are row-major). Products and sums are in the
// accumulator type (float for the 16-bit and 8-bit float types, int32 wrapping for int8), in K
// order everywhere but in the tensor cores themselves: the products of two fp8 values are exact
// in float, so the CPU target, the emulated block and the generic path give the same bits, while
// an mma.sync instruction sums its K products inside the tensor core, in its own order and
// precision (docs/tiles.md, "How mma runs", states the tolerance the tests check).
#pragma once

#include "weft/tiles/reduce.h"

namespace weft::tiles {

// The accumulator layout of the tensor-core path: an M x N tile over WarpsM x WarpsN warps, each
// owning (M/WarpsM) x (N/WarpsN) elements as atoms of AtomM x 8 (see the file comment); warps
// beyond WarpsM * WarpsN hold replicas. A warp's atom rows are consecutive, or with Interleaved
// WarpsM atoms apart (atom row i of warp row w starts at row (i * WarpsM + w) * AtomM): wgmma's
// accumulator order, where each warpgroup instruction covers 64 consecutive rows.
template <uint32_t M, uint32_t N, uint32_t AtomM, uint32_t WarpsM, uint32_t WarpsN, bool Interleaved = false>
struct mma_layout {
  static constexpr uint32_t kSize = M * N;
  static constexpr uint32_t kPerAtom = AtomM / 4;  // elements per lane in one atom
  static constexpr uint32_t kWarpRows = M / WarpsM, kWarpCols = N / WarpsN;
  static constexpr uint32_t kAtomsM = kWarpRows / AtomM, kAtomsN = kWarpCols / 8;
  static constexpr uint32_t kFragment = kAtomsM * kAtomsN * kPerAtom;
  static constexpr uint32_t kVector = 2;
  static constexpr uint32_t kWarps = WarpsM * WarpsN;
  static constexpr uint32_t kWarpsN = WarpsN;
  static constexpr uint32_t kWarpsM = WarpsM, kAtomM = AtomM;
  static constexpr bool kInterleaved = Interleaved;
  static_assert(kWarps * 32 <= kBlockThreads && kAtomsM * AtomM == kWarpRows && kAtomsN * 8 == kWarpCols,
                "an mma layout must tile its shape with the block's warps");

  // The first row of atom row `am` of warp `warp` (of the layout's kWarps).
  WEFT_HD static constexpr uint32_t atom_row(uint32_t warp, uint32_t am) {
    return Interleaved ? (am * WarpsM + warp / WarpsN) * AtomM : (warp / WarpsN) * kWarpRows + am * AtomM;
  }
  // The first column of warp `warp`'s atoms.
  WEFT_HD static constexpr uint32_t warp_col(uint32_t warp) { return (warp % WarpsN) * kWarpCols; }
  // The row-major index of fragment element k of `thread`.
  WEFT_HD static constexpr uint32_t index(uint32_t thread, uint32_t k) {
    uint32_t warp = (thread / 32) % kWarps, lane = thread % 32;
    uint32_t atom = k / kPerAtom, e = k % kPerAtom;
    uint32_t row = atom_row(warp, atom / kAtomsN) + lane / 4 + 8 * (e / 2);
    uint32_t col = warp_col(warp) + (atom % kAtomsN) * 8 + 2 * (lane % 4) + e % 2;
    return row * N + col;
  }
  // Whether `thread` owns its elements (warps past the layout's hold replicas).
  WEFT_HD static constexpr bool owner(uint32_t thread) { return thread / 32 < kWarps; }
};

// The layout of the rows of an mma_layout L (M x N): a tile of M elements, shape (M, 1) or (M),
// whose element i is held by every thread that holds row i of L (lane g + 4q holds rows g and
// g + 8 of each of its atom rows, the same in its four q lanes and in the WarpsN warps of a warp
// row). A reduction of L along its rows ends in it without an exchange, and broadcasting it back
// to an mma layout of the same rows (mma_layout_of_rows) moves no data.
template <class L>
struct mma_row_layout {
  using parent_layout = L;
  static constexpr uint32_t kRows = L::kSize / (L::kWarpCols * L::kWarpsN);
  static constexpr uint32_t kSize = kRows;
  static constexpr uint32_t kPerAtomRow = L::kAtomM / 8;  // rows a lane holds in one atom row
  static constexpr uint32_t kFragment = L::kAtomsM * kPerAtomRow;
  static constexpr uint32_t kVector = 1;

  // The row held at fragment position k of `thread`.
  WEFT_HD static constexpr uint32_t index(uint32_t thread, uint32_t k) {
    uint32_t warp = (thread / 32) % L::kWarps, lane = thread % 32;
    return L::atom_row(warp, k / kPerAtomRow) + lane / 4 + 8 * (k % kPerAtomRow);
  }
  // One holder of each row: lane q == 0 of the warps of warp column 0.
  WEFT_HD static constexpr bool owner(uint32_t thread) {
    return thread / 32 < L::kWarps && (thread / 32) % L::kWarpsN == 0 && thread % 4 == 0;
  }
};

// The layout of the columns of an mma_layout L (M x N): a tile of N elements, shape (1, N) or (N),
// whose element j is held by every thread that holds column j of L (lane 4g + q holds columns
// 2q and 2q + 1 of each of its atom columns, the same in its eight g lanes and in the WarpsM
// warps of a warp column). Each thread computes an iota in it without an exchange, and
// broadcasting it to an mma layout of the same columns moves no data: the counterpart of
// mma_row_layout for the (1, N) operands of element-wise operations on an accumulator.
template <class L>
struct mma_column_layout {
  using parent_layout = L;
  static constexpr uint32_t kSize = L::kWarpCols * L::kWarpsN;
  static constexpr uint32_t kFragment = L::kAtomsN * 2;
  static constexpr uint32_t kVector = 2;

  // The column held at fragment position k of `thread`.
  WEFT_HD static constexpr uint32_t index(uint32_t thread, uint32_t k) {
    uint32_t warp = (thread / 32) % L::kWarps, lane = thread % 32;
    return L::warp_col(warp) + (k / 2) * 8 + 2 * (lane % 4) + k % 2;
  }
  // One holder of each column: lanes g == 0 of the warps of warp row 0.
  WEFT_HD static constexpr bool owner(uint32_t thread) { return thread / 32 < L::kWarpsN && thread % 32 < 4; }
};

namespace detail {

template <class L>
inline constexpr bool is_mma_layout = false;
template <uint32_t M, uint32_t N, uint32_t AtomM, uint32_t WarpsM, uint32_t WarpsN, bool Interleaved>
inline constexpr bool is_mma_layout<mma_layout<M, N, AtomM, WarpsM, WarpsN, Interleaved>> = true;

template <class Tile, class Acc, bool Rows = is_mma_layout<typename Acc::layout_type>>
struct rows_tile {
  using type = Tile;
};
template <class Tile, class Acc>
struct rows_tile<Tile, Acc, true> {
  using type = tile<typename Tile::element_type, typename Tile::shape_type, mma_row_layout<typename Acc::layout_type>>;
};

template <class Tile, class Acc, bool Columns = is_mma_layout<typename Acc::layout_type>>
struct columns_tile {
  using type = Tile;
};
template <class Tile, class Acc>
struct columns_tile<Tile, Acc, true> {
  using type = tile<typename Tile::element_type, typename Tile::shape_type, mma_column_layout<typename Acc::layout_type>>;
};

// Whether L is M x N (a tile shape S of rank 2 with those extents).
template <class L, class S>
WEFT_HD constexpr bool layout_of_shape() {
  if constexpr (S::rank() == 2) {
    return S::static_extent(0) == L::kWarpRows * L::kWarpsM && S::static_extent(1) == L::kWarpCols * L::kWarpsN;
  } else {
    return false;
  }
}

// An accumulator's rows or columns broadcast to the accumulator's shape spread in its layout.
template <class L, class S>
struct broadcast_home<mma_row_layout<L>, S> {
  using type = conditional_t<layout_of_shape<L, S>(), L, void>;
};
template <class L, class S>
struct broadcast_home<mma_column_layout<L>, S> {
  using type = conditional_t<layout_of_shape<L, S>(), L, void>;
};

// Whether the column layouts LX and LC hold every column at the same fragment positions of the
// same threads: column layouts of accumulators of one width and warp columns (a thread's warp
// column is its warp number modulo WarpsN in every such grid).
template <class LX, class LC>
inline constexpr bool same_columns = false;
template <uint32_t M1, uint32_t M2, uint32_t N, uint32_t AtomM1, uint32_t AtomM2, uint32_t WarpsM1, uint32_t WarpsM2,
          uint32_t WarpsN, bool Interleaved1, bool Interleaved2>
inline constexpr bool same_columns<mma_column_layout<mma_layout<M1, N, AtomM1, WarpsM1, WarpsN, Interleaved1>>,
                                   mma_column_layout<mma_layout<M2, N, AtomM2, WarpsM2, WarpsN, Interleaved2>>> = true;

// Whether the row layouts LX and LR hold every row at the same fragment positions of the same
// threads: row layouts of accumulators of one height, atom and warp grid (their widths differ).
template <class LX, class LR>
inline constexpr bool same_rows = false;
template <uint32_t M, uint32_t N1, uint32_t N2, uint32_t AtomM, uint32_t WarpsM, uint32_t WarpsN, bool Interleaved>
inline constexpr bool same_rows<mma_row_layout<mma_layout<M, N1, AtomM, WarpsM, WarpsN, Interleaved>>,
                                mma_row_layout<mma_layout<M, N2, AtomM, WarpsM, WarpsN, Interleaved>>> = true;

#if !defined(WEFT_TILES_SERIAL)
// The mma layouts' rows: a reduction along the columns combines a thread's elements of each of
// its rows, then the row's four lanes by xor shuffles, then (with several warp columns) the
// warps' partials through the scratch buffer, in warp-column order; every holder of a row ends
// with its result. A row tile broadcast to the layout's shape travels to the row layout first
// (free when it is there already) and is copied to each atom's positions of the row.
template <uint32_t M, uint32_t N, uint32_t AtomM, uint32_t WarpsM, uint32_t WarpsN, bool Interleaved>
struct row_reduction<mma_layout<M, N, AtomM, WarpsM, WarpsN, Interleaved>> {
  using L = mma_layout<M, N, AtomM, WarpsM, WarpsN, Interleaved>;
  using LR = mma_row_layout<L>;
  static constexpr bool kRows = true;

  // The reduction of t (M x N) along its columns with `op`, of shape SO ((M, 1) or (M)).
  template <class SO, class T, class S, class Op>
  WEFT_TILE_FN static tile<T, SO, LR> reduce(const tile<T, S, L>& t, Op& op) {
    tile<T, SO, LR> out;
    WEFT_UNROLL
    for (uint32_t am = 0; am < L::kAtomsM; ++am) {
      WEFT_UNROLL
      for (uint32_t h = 0; h < LR::kPerAtomRow; ++h) {
        const T* atom = &t.frag_[am * L::kAtomsN * L::kPerAtom + 2 * h];
        T r = op(atom[0], atom[1]);
        WEFT_UNROLL
        for (uint32_t an = 1; an < L::kAtomsN; ++an) r = op(op(r, atom[an * L::kPerAtom]), atom[an * L::kPerAtom + 1]);
        r = op(r, shfl_xor(r, 1u));
        out.frag_[am * LR::kPerAtomRow + h] = op(r, shfl_xor(r, 2u));
      }
    }
    if constexpr (WarpsN > 1) {
      static_assert(M * WarpsN <= scratch_capacity<T>, "a row reduction's partials must fit the scratch buffer");
      T* buffer = scratch_as<T>();
      const uint32_t rank = thread_rank();
      block_sync();
      if (rank / 32 < L::kWarps && rank % 4 == 0) {
        WEFT_UNROLL
        for (uint32_t k = 0; k < LR::kFragment; ++k) buffer[LR::index(rank, k) * WarpsN + (rank / 32) % WarpsN] = out.frag_[k];
      }
      block_sync();
      WEFT_UNROLL
      for (uint32_t k = 0; k < LR::kFragment; ++k) {
        const T* partials = &buffer[LR::index(rank, k) * WarpsN];
        T r = partials[0];
        WEFT_UNROLL
        for (uint32_t w = 1; w < WarpsN; ++w) r = op(r, partials[w]);
        out.frag_[k] = r;
      }
    }
    return out;
  }
};

template <uint32_t M, uint32_t N, uint32_t AtomM, uint32_t WarpsM, uint32_t WarpsN, bool Interleaved>
struct row_broadcast<mma_layout<M, N, AtomM, WarpsM, WarpsN, Interleaved>> {
  using L = mma_layout<M, N, AtomM, WarpsM, WarpsN, Interleaved>;
  using LR = mma_row_layout<L>;
  static constexpr bool kRows = true;

  // x (M x 1) broadcast to S (M x N) in L.
  template <class S, class T, class XS, class LX>
  WEFT_TILE_FN static tile<T, S, L> spread(const tile<T, XS, LX>& x) {
    tile<T, XS, LR> rows;
    if constexpr (same_rows<LX, LR>) {
      // The rows of another accumulator of these rows and warp grid: the same fragments.
      WEFT_UNROLL
      for (uint32_t k = 0; k < LR::kFragment; ++k) rows.frag_[k] = x.frag_[k];
    } else {
      rows = relayout<LR>(x);
    }
    tile<T, S, L> out;
    WEFT_UNROLL
    for (uint32_t k = 0; k < L::kFragment; ++k) {
      out.frag_[k] = rows.frag_[(k / L::kPerAtom / L::kAtomsN) * LR::kPerAtomRow + (k % L::kPerAtom) / 2];
    }
    return out;
  }
};
// A column tile (1 x N or N) broadcast to S (M x N) in L: it travels to the column layout first
// (free when it is there already) and is copied to each atom's positions of the column.
template <uint32_t M, uint32_t N, uint32_t AtomM, uint32_t WarpsM, uint32_t WarpsN, bool Interleaved>
struct column_broadcast<mma_layout<M, N, AtomM, WarpsM, WarpsN, Interleaved>> {
  using L = mma_layout<M, N, AtomM, WarpsM, WarpsN, Interleaved>;
  using LC = mma_column_layout<L>;
  static constexpr bool kColumns = true;

  template <class S, class T, class XS, class LX>
  WEFT_TILE_FN static tile<T, S, L> spread(const tile<T, XS, LX>& x) {
    tile<T, XS, LC> columns;
    if constexpr (same_columns<LX, LC>) {
      WEFT_UNROLL
      for (uint32_t k = 0; k < LC::kFragment; ++k) columns.frag_[k] = x.frag_[k];
    } else {
      columns = relayout<LC>(x);
    }
    tile<T, S, L> out;
    WEFT_UNROLL
    for (uint32_t k = 0; k < L::kFragment; ++k) out.frag_[k] = columns.frag_[(k / L::kPerAtom) % L::kAtomsN * 2 + k % 2];
    return out;
  }
};
#endif


// The tensor-core instruction for a-element type A and accumulator C: kKind 0 none, 1 f16,
// 2 bf16, 3 tf32, 4 s8, 5 u8, 6 f64, 7 e4m3, 8 e5m2; its K and atom rows; elements per 32-bit operand register
// (f64: one per 64-bit register); kHalfK: the K columns of a0 (a2 holds the next kHalfK).
template <class A, class C>
struct mma_instruction {
  static constexpr int kKind = 0;
  static constexpr uint32_t kK = 1, kAtomM = 16, kPerRegister = 1, kHalfK = 1;
};
#define WEFT_TILES_MMA_INSTRUCTION(A, C, kind, k, atomM, perRegister) \
  template <>                                                         \
  struct mma_instruction<A, C> {                                      \
    static constexpr int kKind = kind;                                \
    static constexpr uint32_t kK = k, kAtomM = atomM;                 \
    static constexpr uint32_t kPerRegister = perRegister;             \
    static constexpr uint32_t kHalfK = atomM == 16 ? k / 2 : k;       \
  };
#if defined(WEFT_TILES_FLOAT16)
WEFT_TILES_MMA_INSTRUCTION(::weft::float16, float, 1, 16, 16, 2)
#endif
#if defined(WEFT_TILES_BFLOAT16)
WEFT_TILES_MMA_INSTRUCTION(::weft::bfloat16, float, 2, 16, 16, 2)
#endif
WEFT_TILES_MMA_INSTRUCTION(tfloat32, float, 3, 8, 16, 1)
WEFT_TILES_MMA_INSTRUCTION(signed char, int, 4, 32, 16, 4)
WEFT_TILES_MMA_INSTRUCTION(unsigned char, int, 5, 32, 16, 4)
WEFT_TILES_MMA_INSTRUCTION(double, double, 6, 4, 8, 1)
// fp8 mma.sync needs sm_89 (ptxas rejects it for older targets): device code for sm_80..sm_88
// has no fp8 instruction, so its fp8 products take mma's generic path. The fragments are int8's.
#if defined(WEFT_TILES_FLOAT8) && !(defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 890)
WEFT_TILES_MMA_INSTRUCTION(::weft::float8e4m3, float, 7, 32, 16, 4)
WEFT_TILES_MMA_INSTRUCTION(::weft::float8e5m2, float, 8, 32, 16, 4)
#endif
#undef WEFT_TILES_MMA_INSTRUCTION

// The accumulator type of a-element type A (the rules of ct::mma).
template <class A>
struct mma_accumulator_of {
  using type = void;
};
#define WEFT_TILES_MMA_ACCUMULATOR(A, C) \
  template <>                            \
  struct mma_accumulator_of<A> {         \
    using type = C;                      \
  };
#if defined(WEFT_TILES_FLOAT16)
WEFT_TILES_MMA_ACCUMULATOR(::weft::float16, float)
#endif
#if defined(WEFT_TILES_BFLOAT16)
WEFT_TILES_MMA_ACCUMULATOR(::weft::bfloat16, float)
#endif
#if defined(WEFT_TILES_FLOAT8)
WEFT_TILES_MMA_ACCUMULATOR(::weft::float8e4m3, float)
WEFT_TILES_MMA_ACCUMULATOR(::weft::float8e5m2, float)
#endif
WEFT_TILES_MMA_ACCUMULATOR(tfloat32, float)
WEFT_TILES_MMA_ACCUMULATOR(float, float)
WEFT_TILES_MMA_ACCUMULATOR(double, double)
WEFT_TILES_MMA_ACCUMULATOR(signed char, int)
WEFT_TILES_MMA_ACCUMULATOR(unsigned char, int)
#undef WEFT_TILES_MMA_ACCUMULATOR

// The warp grid of an M x N accumulator: as many warps as there are atoms (up to the block's),
// arranged so that each warp's part is as square as possible in elements (the fewest operand
// fragments per product).
template <uint32_t M, uint32_t N, uint32_t AtomM>
struct mma_warp_grid {
  static constexpr uint32_t kWarps = kBlockThreads / 32 > 0 ? kBlockThreads / 32 : 1;
  static constexpr uint32_t kAtomsM = max_of(1u, M / AtomM), kAtomsN = max_of(1u, N / 8);
  // Warps along N for `rows` of them along M: as many as fit.
  WEFT_HD static constexpr uint32_t columns_for(uint32_t rows) { return min_of(kAtomsN, kWarps / rows); }
  // How far a warp's part, (M / rows) x (N / columns_for(rows)), is from square: the ratio of its
  // longer side to its shorter (both are powers of 2).
  WEFT_HD static constexpr uint64_t skew(uint32_t rows) {
    uint64_t height = uint64_t{M / rows} * columns_for(rows), width = N;  // both sides times columns
    return height > width ? height / width : width / height;
  }
  // The most warps, then the squarest part.
  WEFT_HD static constexpr uint32_t choose_rows() {
    uint32_t best = 1;
    for (uint32_t rows = 2; rows <= min_of(kAtomsM, kWarps); rows *= 2) {
      uint32_t used = rows * columns_for(rows), bestUsed = best * columns_for(best);
      if (used > bestUsed || (used == bestUsed && skew(rows) < skew(best))) best = rows;
    }
    return best;
  }
#if defined(WEFT_TILE_MMA_WHOLE_ROWS)
  // Each warp owns whole rows (sema's TileBlock::mmaWholeRows, for kernels that reduce an
  // accumulator's rows): row reductions and broadcasts stay within a warp, and a product's
  // accumulator is the next product's a-operand in registers (mma_operands.h).
  static constexpr uint32_t kM = min_of(kAtomsM, kWarps);
  static constexpr uint32_t kN = 1;
#else
  static constexpr uint32_t kM = choose_rows();
  static constexpr uint32_t kN = columns_for(kM);
#endif
};

// Bytes of one staged K-chunk row per element, and the chunk length: the longest power of 2 up
// to K whose a and b^T rows fit the scratch buffer together (0: none fits).
template <class A, uint32_t M, uint32_t N, uint32_t K, uint32_t MinChunk>
WEFT_HD constexpr uint32_t mma_chunk() {
  uint32_t chunk = K;
  while (chunk >= MinChunk && (M + N) * chunk * sizeof(A) > kScratchBytes) chunk /= 2;
  return chunk >= MinChunk ? chunk : 0;
}

// Whether a, b, acc of these types and shape use the tensor-core path.
template <class A, class C, uint32_t M, uint32_t N, uint32_t K>
WEFT_HD constexpr bool use_tensor_cores() {
#if defined(WEFT_TILES_SERIAL)
  return false;
#else
  using I = mma_instruction<A, C>;
  return I::kKind != 0 && M % I::kAtomM == 0 && N % 8 == 0 && K % I::kK == 0 && mma_chunk<A, M, N, K, I::kK>() != 0;
#endif
}

template <class A, class C, uint32_t M, uint32_t N>
using tensor_core_layout_t = mma_layout<M, N, mma_instruction<A, C>::kAtomM, mma_warp_grid<M, N, mma_instruction<A, C>::kAtomM>::kM,
                                        mma_warp_grid<M, N, mma_instruction<A, C>::kAtomM>::kN>;

// Whether L is a tensor-core accumulator layout of atoms AtomM x 8 (any warp grid).
template <class L, uint32_t AtomM>
inline constexpr bool is_mma_layout_of = false;
template <uint32_t M, uint32_t N, uint32_t AtomM, uint32_t WarpsM, uint32_t WarpsN, bool Interleaved>
inline constexpr bool is_mma_layout_of<mma_layout<M, N, AtomM, WarpsM, WarpsN, Interleaved>, AtomM> = true;

// The layout of mma's result for accumulator layout LC: on the tensor-core path, LC where it is
// already a tensor-core layout of the instruction's atoms (a pipelined K loop's), else
// tensor_core_layout_t; LC elsewhere.
template <class A, class C, uint32_t M, uint32_t N, uint32_t K, class LC>
using mma_result_layout_t =
    conditional_t<use_tensor_cores<A, C, M, N, K>(),
                  conditional_t<is_mma_layout_of<LC, mma_instruction<A, C>::kAtomM>, LC, tensor_core_layout_t<A, C, M, N>>,
                  LC>;

// The 16-byte chunks of the staging buffer, XOR-swizzled by their 128-byte line (bits 4-6 of a
// byte offset take bits 7-9): eight rows read at one column land in eight different chunks.
WEFT_HD constexpr uint32_t swizzle(uint32_t byte) {
  return byte ^ (((byte >> 7) & 7u) << 4);
}

// An element of a or b as the accumulator's arithmetic type.
template <class C, class A>
WEFT_HD C product_operand(A x) {
  if constexpr (is_same_v<C, int>) {
    return static_cast<int>(x);
  } else if constexpr (is_same_v<A, C>) {
    return x;
  } else {
    return static_cast<C>(to_float(x));
  }
}
// acc + x * y in the accumulator type (int32 wraps).
template <class C>
WEFT_HD C multiply_add(C acc, C x, C y) {
  if constexpr (is_same_v<C, int>) {
    return static_cast<int>(static_cast<unsigned>(acc) + static_cast<unsigned>(x) * static_cast<unsigned>(y));
  } else {
    return acc + x * y;
  }
}

#if !defined(WEFT_TILES_SERIAL)
// Writes the K-chunk [k0, k0 + Kc) of a (M x K, row-major) to the staging rows of `base` (M rows
// of Kc elements).
template <uint32_t M, uint32_t K, uint32_t Kc, class A, class LA>
WEFT_TILE_FN void stage_rows(unsigned char* base, const tile<A, shape<M, K>, LA>& a, uint32_t k0) {
  constexpr uint32_t kRowBytes = Kc * sizeof(A);
  const uint32_t t = thread_rank();
  if (LA::owner(t)) {
    // Pieces of consecutive elements within one row and one chunk, at most 16 bytes.
    constexpr uint32_t kPiece = min_of(min_of(LA::kVector, Kc), static_cast<uint32_t>(16 / sizeof(A)));
    WEFT_UNROLL
    for (uint32_t k = 0; k < LA::kFragment; k += kPiece) {
      uint32_t i = LA::index(t, k), row = i / K, col = i % K;
      if (col - k0 < Kc) {
        element_pack<A, kPiece> pack;
        WEFT_UNROLL
        for (uint32_t v = 0; v < kPiece; ++v) pack.v[v] = a.frag_[k + v];
        *reinterpret_cast<element_pack<A, kPiece>*>(base + swizzle(row * kRowBytes + (col - k0) * sizeof(A))) = pack;
      }
    }
  }
}

// Writes the K-chunk [k0, k0 + Kc) of a (M x K, row-major) to the staging rows of `base` (M rows
// of Kc elements) and of b (K x N) transposed to the rows of `base + M * Kc` (N rows).
template <uint32_t M, uint32_t N, uint32_t K, uint32_t Kc, class A, class LA, class LB>
WEFT_TILE_FN void stage_chunk(unsigned char* base, const tile<A, shape<M, K>, LA>& a, const tile<A, shape<K, N>, LB>& b,
                              uint32_t k0) {
  constexpr uint32_t kRowBytes = Kc * sizeof(A);
  const uint32_t t = thread_rank();
  stage_rows<M, K, Kc>(base, a, k0);
  if (LB::owner(t)) {
    unsigned char* bt = base + M * kRowBytes;
    WEFT_UNROLL
    for (uint32_t k = 0; k < LB::kFragment; ++k) {
      uint32_t i = LB::index(t, k), row = i / N, col = i % N;
      if (row - k0 < Kc) *reinterpret_cast<A*>(bt + swizzle(col * kRowBytes + (row - k0) * sizeof(A))) = b.frag_[k];
    }
  }
}

// ldmatrix .x4 / .x2 of b16 8x8 matrices: lane l gives the row address of row l % 8 of matrix
// l / 8 (an offset into the scratch buffer); matrix i's register in lane l holds the word at
// column 4 * (l % 4) bytes of row l / 4.
template <uint32_t X>
WEFT_TILE_FN void load_matrices(uint32_t* out, uint32_t rowOffset) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  uint32_t address = static_cast<uint32_t>(__cvta_generic_to_shared(scratch() + rowOffset));
  if constexpr (X == 4) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(out[0]), "=r"(out[1]), "=r"(out[2]), "=r"(out[3])
                 : "r"(address));
  } else {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(out[0]), "=r"(out[1]) : "r"(address));
  }
#else
  const uint32_t lane = thread_rank() % 32;
  WEFT_UNROLL
  for (uint32_t m = 0; m < X; ++m) {
    uint32_t row = shfl_idx(rowOffset, 8 * m + lane / 4);
    out[m] = *reinterpret_cast<const uint32_t*>(scratch() + row + 4 * (lane % 4));
  }
#endif
}

// The a-fragment (16-bit and 8-bit types) of atom row `am` of warp `warp` of layout L at byte
// `kByte` of the K-chunk rows staged by stage_rows (RowBytes bytes a row) in the scratch buffer:
// matrices 0..3 are rows 0-7 / 8-15 of the atom at bytes 0-15 / 16-31 of its K step.
template <class L, uint32_t RowBytes>
WEFT_TILE_FN void staged_a_fragment(uint32_t* af, uint32_t warp, uint32_t am, uint32_t kByte, uint32_t lane) {
  uint32_t row = L::atom_row(warp, am) + lane % 8 + ((lane / 8) % 2) * 8;
  load_matrices<4>(af, swizzle(row * RowBytes + kByte + (lane / 16) * 16));
}

// Element `e` of a 32-bit operand register as the accumulator type.
template <class A, class C>
WEFT_TILE_FN C register_element(uint32_t word, uint32_t e) {
  if constexpr (sizeof(A) == 1) {
    return product_operand<C>(bit_cast<A>(static_cast<unsigned char>(word >> (8 * e))));
  } else if constexpr (sizeof(A) == 2) {
    return product_operand<C>(bit_cast<A>(static_cast<unsigned short>(word >> (16 * e))));
  } else {
    return product_operand<C>(bit_cast<A>(word));
  }
}

// One mma.sync of an m16 atom, `shape` its shape and types, `access` the accumulator
// registers' constraint ("+f" float, "+r" int32): c[0..3] += a[0..3] x b[0..1].
#define WEFT_TILES_MMA_SYNC_M16(shape, access)                                                           \
  asm volatile("mma.sync.aligned." shape " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};" \
               : access(c[0]), access(c[1]), access(c[2]), access(c[3])                                 \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]))

// One tensor-core multiply-accumulate of an atom: c (kPerAtom values) += a-fragment x b-fragment.
// Without mma.sync: the operand registers are gathered from their lanes with shuffles.
template <class A, class C, class Operand>
WEFT_TILE_FN void mma_atom(C* c, const Operand* a, const Operand* b) {
  using I = mma_instruction<A, C>;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (I::kKind == 1) {
    WEFT_TILES_MMA_SYNC_M16("m16n8k16.row.col.f32.f16.f16.f32", "+f");
  } else if constexpr (I::kKind == 2) {
    WEFT_TILES_MMA_SYNC_M16("m16n8k16.row.col.f32.bf16.bf16.f32", "+f");
  } else if constexpr (I::kKind == 3) {
    WEFT_TILES_MMA_SYNC_M16("m16n8k8.row.col.f32.tf32.tf32.f32", "+f");
  } else if constexpr (I::kKind == 4) {
    WEFT_TILES_MMA_SYNC_M16("m16n8k32.row.col.s32.s8.s8.s32", "+r");
  } else if constexpr (I::kKind == 5) {
    WEFT_TILES_MMA_SYNC_M16("m16n8k32.row.col.s32.u8.u8.s32", "+r");
  } else if constexpr (I::kKind == 7) {
    WEFT_TILES_MMA_SYNC_M16("m16n8k32.row.col.f32.e4m3.e4m3.f32", "+f");
  } else if constexpr (I::kKind == 8) {
    WEFT_TILES_MMA_SYNC_M16("m16n8k32.row.col.f32.e5m2.e5m2.f32", "+f");
  } else {
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
                 : "+d"(c[0]), "+d"(c[1])
                 : "d"(a[0]), "d"(b[0]));
  }
#else
  // The instruction's definition: lane (g, q) = (lane / 4, lane % 4) holds c rows g and g + 8,
  // columns 2q, 2q + 1; a(row, k) lives in lane (row % 8) * 4 + (k % kHalfK) / kPerRegister,
  // register row / 8 + 2 * (k / kHalfK); b(k, col) in lane col * 4 + (k % kHalfK) /
  // kPerRegister, register k / kHalfK; element k % kPerRegister of the register.
  const uint32_t lane = thread_rank() % 32;
  const uint32_t g = lane / 4, q = lane % 4;
  constexpr uint32_t kPerAtom = I::kAtomM / 4;
  WEFT_UNROLL
  for (uint32_t kk = 0; kk < I::kK; ++kk) {
    uint32_t laneOfK = (kk % I::kHalfK) / I::kPerRegister, element = kk % I::kPerRegister;
    WEFT_UNROLL
    for (uint32_t e = 0; e < kPerAtom; ++e) {
      uint32_t row = g + 8 * (e / 2), col = 2 * q + e % 2;
      Operand av = shfl_idx(a[(row / 8) + (I::kAtomM == 16 ? 2 * (kk / I::kHalfK) : 0)], (row % 8) * 4 + laneOfK);
      Operand bv = shfl_idx(b[kk / I::kHalfK], col * 4 + laneOfK);
      C x, y;
      if constexpr (I::kKind == 6) {
        x = av;
        y = bv;
      } else {
        x = register_element<A, C>(av, element);
        y = register_element<A, C>(bv, element);
      }
      c[e] = multiply_add(c[e], x, y);
    }
  }
#endif
}
#undef WEFT_TILES_MMA_SYNC_M16
#endif

}  // namespace detail

// acc + a @ b (see the file comment); the result is in the tensor cores' accumulator layout
// where they apply (the same type as acc when acc already has it), in acc's layout otherwise.
template <class A, class SA, class LA, class B, class SB, class LB, class C, class SC, class LC>
WEFT_TILE_FN auto mma(const tile<A, SA, LA>& a, const tile<B, SB, LB>& b, const tile<C, SC, LC>& acc) {
  static_assert(SA::rank() == 2 && SB::rank() == 2 && SC::rank() == 2 && SA::static_extent(1) == SB::static_extent(0) &&
                    SC::static_extent(0) == SA::static_extent(0) && SC::static_extent(1) == SB::static_extent(1),
                "ct::mma(a, b, acc): a is M x K, b is K x N and acc is M x N");
  constexpr uint32_t M = static_cast<uint32_t>(SA::static_extent(0));
  constexpr uint32_t K = static_cast<uint32_t>(SA::static_extent(1));
  constexpr uint32_t N = static_cast<uint32_t>(SB::static_extent(1));
  static_assert(detail::is_same_v<A, B>, "ct::mma: a and b must have one element type");
  static_assert(!detail::is_same_v<typename detail::mma_accumulator_of<A>::type, void>,
                "ct::mma takes float16, bfloat16, tfloat32, float8, int8, uint8, float or double operands");
  static_assert(detail::is_same_v<typename detail::mma_accumulator_of<A>::type, C>,
                "ct::mma: the accumulator must be float for float16/bfloat16/tfloat32/float8/float operands, int32 "
                "for int8/uint8 and double for double");
  using LR = detail::mma_result_layout_t<A, C, M, N, K, LC>;
  using Result = tile<C, shape<M, N>, LR>;
  Result out = tile<C, shape<M, N>, LC>(reshape<shape<M, N>>(acc));
#if defined(WEFT_TILES_SERIAL)
  for (uint32_t i = 0; i < M; ++i) {
    for (uint32_t j = 0; j < N; ++j) {
      C sum = out.frag_[i * N + j];
      for (uint32_t k = 0; k < K; ++k) {
        sum = detail::multiply_add(sum, detail::product_operand<C>(a.frag_[i * K + k]), detail::product_operand<C>(b.frag_[k * N + j]));
      }
      out.frag_[i * N + j] = sum;
    }
  }
#else
  constexpr bool kTensor = detail::use_tensor_cores<A, C, M, N, K>();
  using I = detail::mma_instruction<A, C>;
  constexpr uint32_t kChunk = detail::mma_chunk<A, M, N, K, kTensor ? I::kK : 1>();
  static_assert(kChunk != 0, "ct::mma: M + N is too large for one K step in WEFT_TILE_SCRATCH_BYTES: use smaller tiles");
  constexpr uint32_t kRowBytes = kChunk * sizeof(A);
  unsigned char* base = detail::scratch();
  const uint32_t t = detail::thread_rank();
  WEFT_NO_UNROLL
  for (uint32_t k0 = 0; k0 < K; k0 += kChunk) {
    detail::block_sync();
    detail::stage_chunk<M, N, K, kChunk>(base, reshape<shape<M, K>>(a), reshape<shape<K, N>>(b), k0);
    detail::block_sync();
    if constexpr (kTensor) {
      using L = LR;
      const uint32_t warp = (t / 32) % L::kWarps, lane = t % 32;
      const uint32_t colBase = L::warp_col(warp);
      constexpr uint32_t kBOffset = M * kRowBytes;
      WEFT_NO_UNROLL
      for (uint32_t ks = 0; ks < kChunk; ks += I::kK) {
        if constexpr (I::kKind == 6) {
          double af[L::kAtomsM], bf[L::kAtomsN];
          WEFT_UNROLL
          for (uint32_t am = 0; am < L::kAtomsM; ++am) {
            uint32_t row = L::atom_row(warp, am) + lane / 4;
            af[am] = *reinterpret_cast<const double*>(base + detail::swizzle(row * kRowBytes + (ks + lane % 4) * 8));
          }
          WEFT_UNROLL
          for (uint32_t an = 0; an < L::kAtomsN; ++an) {
            uint32_t col = colBase + an * 8 + lane / 4;
            bf[an] = *reinterpret_cast<const double*>(base + kBOffset + detail::swizzle(col * kRowBytes + (ks + lane % 4) * 8));
          }
          WEFT_UNROLL
          for (uint32_t am = 0; am < L::kAtomsM; ++am) {
            WEFT_UNROLL
            for (uint32_t an = 0; an < L::kAtomsN; ++an) {
              detail::mma_atom<A, C>(&out.frag_[(am * L::kAtomsN + an) * L::kPerAtom], &af[am], &bf[an]);
            }
          }
        } else {
          uint32_t af[L::kAtomsM][4], bf[L::kAtomsN][2];
          const uint32_t kByte = ks * sizeof(A);
          WEFT_UNROLL
          for (uint32_t am = 0; am < L::kAtomsM; ++am) detail::staged_a_fragment<L, kRowBytes>(af[am], warp, am, kByte, lane);
          WEFT_UNROLL
          for (uint32_t an = 0; an < L::kAtomsN; ++an) {
            uint32_t col = colBase + an * 8 + lane % 8;
            detail::load_matrices<2>(bf[an], kBOffset + detail::swizzle(col * kRowBytes + kByte + ((lane / 8) % 2) * 16));
          }
          WEFT_UNROLL
          for (uint32_t am = 0; am < L::kAtomsM; ++am) {
            WEFT_UNROLL
            for (uint32_t an = 0; an < L::kAtomsN; ++an) {
              detail::mma_atom<A, C>(&out.frag_[(am * L::kAtomsN + an) * L::kPerAtom], af[am], bf[an]);
            }
          }
        }
      }
    } else {
      constexpr uint32_t kBOffset = M * kRowBytes;
      WEFT_UNROLL
      for (uint32_t k = 0; k < LR::kFragment; ++k) {
        uint32_t i = LR::index(t, k), row = i / N, col = i % N;
        C sum = out.frag_[k];
        for (uint32_t kk = 0; kk < kChunk; ++kk) {
          A x = *reinterpret_cast<const A*>(base + detail::swizzle(row * kRowBytes + kk * sizeof(A)));
          A y = *reinterpret_cast<const A*>(base + kBOffset + detail::swizzle(col * kRowBytes + kk * sizeof(A)));
          sum = detail::multiply_add(sum, detail::product_operand<C>(x), detail::product_operand<C>(y));
        }
        out.frag_[k] = sum;
      }
    }
  }
#endif
  return out;
}

// The accumulator tile type of ct::mma(a, b, ...) for tiles A (M x K) and B (K x N): its layout is
// the one mma returns, so a loop `acc = ct::mma(a, b, acc)` converts nothing.
template <class ATile, class BTile>
using mma_accumulator_t = tile<typename detail::mma_accumulator_of<typename ATile::element_type>::type,
                               shape<static_cast<uint32_t>(ATile::shape_type::static_extent(0)),
                                     static_cast<uint32_t>(BTile::shape_type::static_extent(1))>,
                               detail::mma_result_layout_t<
                                   typename ATile::element_type,
                                   typename detail::mma_accumulator_of<typename ATile::element_type>::type,
                                   static_cast<uint32_t>(ATile::shape_type::static_extent(0)),
                                   static_cast<uint32_t>(BTile::shape_type::static_extent(1)),
                                   static_cast<uint32_t>(ATile::shape_type::static_extent(1)),
                                   default_layout_t<shape<static_cast<uint32_t>(ATile::shape_type::static_extent(0)),
                                                          static_cast<uint32_t>(BTile::shape_type::static_extent(1))>>>>;

// Tile (the shape of Acc) in the layout of accumulator tile type Acc: the type of a variable
// that holds a value computed element-wise from an accumulator (no conversion on assignment).
template <class Tile, class Acc>
using accumulator_layout_t = tile<typename Tile::element_type, typename Tile::shape_type, typename Acc::layout_type>;

// Tile (shape (M, 1) or (M)) in the row layout of accumulator tile type Acc (M x N) where Acc
// has an mma layout, else Tile: the type of a variable that holds a reduction of an
// accumulator's rows, or a value computed element-wise from such reductions.
template <class Tile, class Acc>
using accumulator_rows_t = typename detail::rows_tile<Tile, Acc>::type;

// Tile (shape (1, N) or (N)) in the column layout of accumulator tile type Acc (M x N) where Acc
// has an mma layout, else Tile: the type of a variable computed element-wise from iotas and
// scalars that is broadcast against an accumulator (a mask's column indices).
template <class Tile, class Acc>
using accumulator_columns_t = typename detail::columns_tile<Tile, Acc>::type;

// a @ b: mma with a zero accumulator of the natural type.
template <class A, class SA, class LA, class B, class SB, class LB>
WEFT_TILE_FN auto matmul(const tile<A, SA, LA>& a, const tile<B, SB, LB>& b) {
  static_assert(SA::rank() == 2 && SB::rank() == 2 && SA::static_extent(1) == SB::static_extent(0),
                "ct::matmul(a, b): a is M x K and b is K x N");
  using Acc = mma_accumulator_t<tile<A, SA, LA>, tile<B, SB, LB>>;
  return ::weft::tiles::mma(a, b, zeros<Acc>());
}

}  // namespace weft::tiles
