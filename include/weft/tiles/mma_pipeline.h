// The K loop of a tiled matrix product as one operation, so that the operand loads of later
// iterations overlap the tensor-core work of the current one:
//
//   mma_pipeline<SA, SB, Stages, Operand, KMajorB>(acc, a, b, begin, end, index_a, index_b)
//     == for k in [begin, end):
//          acc = mma(convert<Operand>(load(a at index_a(k), SA)), convert<Operand>(load(b at index_b(k), SB)), acc)
//
// with a and b 2-D spans, elements outside them zero; Operand is the spans' element type (the
// default, void) or tfloat32 for float spans (products in tf32). KMajorB says that b's K axis is
// the contiguous one (b is the transposed view of an N x K array, transposed_span: a K loop's b
// loaded with order=(1, 0)); it changes only how the ring stages b, never the result. Sema
// recognizes that loop in tile code (docs/tiles.md, "How mma runs") and codegen emits this call.
//
// On sm_80+, for tensor-core operands (float16, bfloat16, tfloat32, int8, uint8, double; float8
// e4m3 / e5m2 from sm_89 on, where mma.h has their instruction) whose staged rows are contiguous
// and start on 16 bytes, the operand tiles go from global to shared memory by cp.async (16-byte
// chunks, zero-filled outside the span, no registers on the way) into a ring of `Stages` stages
// in dynamic shared memory; while stage k is multiplied (mma.sync), the loads of stages
// k+1 .. k+Stages-1 are in flight. One barrier per K step. A stage holds a as stored (M x Kt rows,
// K contiguous) and b as stored: Kt x N rows (N contiguous), or with KMajorB N x Kt rows of its
// N x K array, whose fragments then come as a's do (ldmatrix for every type but double; the
// N-major 8-bit and 32-bit b fragments are read element by element). The chunks are XOR-swizzled
// (see swizzled_offset) so that the cp.async writes and the eight rows an ldmatrix reads fall in
// distinct banks. Fragments come from a stage as pipeline_fragments says (ldmatrix where the
// type allows); float operands of tf32 products round there, as convert<tfloat32> rounds them in
// the loop as written. The result has mma's tensor-core accumulator layout, the one a K loop of
// ct::mma keeps, and each accumulator element sums the same products in the same order, so the
// two paths give the same bits.
//
// Where the ring cannot take such operands (spans whose staged rows are not contiguous or start
// off 16 bytes, a K-major b whose K axis is not the contiguous one, a launch with less than
// Stages * mma_stage_bytes<A, SA, SB> bytes of dynamic shared memory) the warps read the same
// fragments straight from global memory (mma_loop_by_fragments: the same bits again, and little
// code to compile). Everywhere else (other element types, the CPU target, the emulated block,
// older GPUs) it runs the loop as written. weft's runtime launches tile kernels with the stages'
// bytes where the device has them.
#pragma once

#include "weft/tiles/mma.h"

namespace weft::tiles {

// A block index of a rank-N view or array, as mma_pipeline's index functions return it.
template <int N>
struct block_index {
  int64_t at[N];
};

// Bytes of one pipeline stage: an SA tile and an SB tile of element type A.
template <class A, class SA, class SB>
inline constexpr uint32_t mma_stage_bytes =
    static_cast<uint32_t>((SA::static_extent(0) * SA::static_extent(1) + SB::static_extent(0) * SB::static_extent(1)) *
                          sizeof(A));

namespace detail {

// Whether mma_pipeline has a cp.async path for operand type A (accumulator C, in layout L), these
// shapes and b's layout: tensor-core operands whose staged tile rows are whole 16-byte chunks (b
// fragments read by ldmatrix, the 16-bit types' and with KMajorB all but double's, come two atoms
// to an ldmatrix, so the warps' columns are multiples of 16).
template <class A, class C, class SA, class SB, class L, bool KMajorB>
WEFT_HD constexpr bool pipelines_operands() {
  using I = mma_instruction<A, C>;
  constexpr uint32_t M = static_cast<uint32_t>(SA::static_extent(0)), K = static_cast<uint32_t>(SA::static_extent(1));
  constexpr uint32_t N = static_cast<uint32_t>(SB::static_extent(1));
  if constexpr (I::kKind == 0 || !use_tensor_cores<A, C, M, N, K>()) {
    return false;
  } else {
    constexpr bool kWholeChunks = (K * sizeof(A)) % 16 == 0 && (KMajorB || (N * sizeof(A)) % 16 == 0);
    constexpr bool kLdmatrixB = KMajorB ? I::kKind != 6 : I::kKind == 1 || I::kKind == 2;
    constexpr bool kPairs = !kLdmatrixB || (N % 16 == 0 && L::kWarpCols % 16 == 0);
    return kWholeChunks && kPairs;
  }
}

// The K x N view of an N x K span (and the other way round): its transpose, no copy.
template <class Span>
WEFT_HD auto transposed_span(const Span& span) {
  using E = typename Span::extents_type;
  using T = extents<typename E::index_type, E::static_extent(1), E::static_extent(0)>;
  return tensor_span<typename Span::element_type, T>(span.data_handle(), T(span.extent(1), span.extent(0)),
                                                     span.stride(1), span.stride(0));
}

// The element type mma_pipeline multiplies for spans of Stored elements and the requested
// Operand (void: Stored).
template <class Stored, class Operand>
using pipeline_operand_t = conditional_t<is_same_v<Operand, void>, Stored, Operand>;

// The byte offset of byte `byte` of row `row` in a staged tile with RowBytes-byte rows: 16-byte
// chunks XOR-swizzled so that eight consecutive rows read at one column fall in eight different
// chunks of their 128-byte lines (rows of 128 bytes or more: by the row; shorter rows, several to
// a line: by the line, as swizzle() does).
template <uint32_t RowBytes>
WEFT_HD constexpr uint32_t swizzled_offset(uint32_t row, uint32_t byte) {
  if constexpr (RowBytes >= 128) {
    return row * RowBytes + (byte ^ ((row & 7u) << 4));
  } else {
    return swizzle(row * RowBytes + byte);
  }
}

// A word of Stored elements as an operand register of type A: float words round to tf32 for
// tf32 products (as convert<tfloat32> does); other words are the operand's bits already.
template <class A, class Stored, class Word>
WEFT_TILE_FN Word operand_word(Word w) {
  if constexpr (is_same_v<A, tfloat32> && is_same_v<Stored, float>) {
    return tf32_from_float(bit_cast<float>(w)).bits;
  } else {
    return w;
  }
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(WEFT_TILES_EMULATE_BLOCK)
// The block's dynamic shared memory: the pipeline's ring of stages.
WEFT_TILE_FN unsigned char* stage_ring() {
  extern __shared__ __align__(128) unsigned char ring[];
  return ring;
}

// Copies 16 bytes from `global` to the shared address `shared`, of which the first `bytes` come
// from global memory and the rest are zero; asynchronous until the group is waited for.
WEFT_TILE_FN void copy_async_16(uint32_t shared, const void* global, uint32_t bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(shared), "l"(global), "r"(bytes) : "memory");
}
WEFT_TILE_FN void commit_async_group() { asm volatile("cp.async.commit_group;" ::: "memory"); }
// Waits until at most `Pending` committed groups of this thread are still in flight.
template <int Pending>
WEFT_TILE_FN void wait_async_groups() {
  asm volatile("cp.async.wait_group %0;" ::"n"(Pending) : "memory");
}

// Bytes of dynamic shared memory the launch gave the block.
WEFT_TILE_FN uint32_t dynamic_shared_bytes() {
  uint32_t bytes;
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(bytes));
  return bytes;
}

// ldmatrix.x4 (.trans) at shared address `address` (lane l: row l % 8 of matrix l / 8).
template <bool Trans>
WEFT_TILE_FN void load_matrices_x4(uint32_t* out, uint32_t address) {
  if constexpr (Trans) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(out[0]), "=r"(out[1]), "=r"(out[2]), "=r"(out[3])
                 : "r"(address));
  } else {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(out[0]), "=r"(out[1]), "=r"(out[2]), "=r"(out[3])
                 : "r"(address));
  }
}

// The operand fragments of one K slice (the instruction's K) of a stage for warp `warp` of the
// accumulator layout L, read from the staged a (M x Kt, row-major) at `stage` and b after it
// (Kt x N row-major; with KMajorB N x Kt row-major), per mma.h's fragment layouts (lane = 4g + q):
// - a: ldmatrix.x4 for all but double: the f16/bf16 (k16), tf32 (k8) and 8-bit (int8, fp8: k32)
//   a-fragments are each four 8 x 16-byte matrices, rows g and g + 8 at the slice's bytes 0-15 and
//   16-31; double (k4): a(g, q), one 64-bit load.
// - b: the 16-bit types by ldmatrix.x4.trans, two atoms a load; ldmatrix moves 16-bit halves, so
//   the others read their elements from the stage: tf32 b(q, g) and b(q + 4, g), the 8-bit types
//   the four bytes b(4q .. 4q + 3, g) and b(16 + 4q .. 16 + 4q + 3, g), double b(q, g).
// - b with KMajorB: a staged row holds a column of b (N x Kt), so its fragments are a's halves:
//   ldmatrix.x4 (not transposed) for all but double, two atoms a load, each two 8 x 16-byte
//   matrices at the slice's bytes 0-15 and 16-31 (16-bit: b(2q, 2q + 1, g) and 8 K rows on; 8-bit
//   b(4q .. 4q + 3, g) and 16 on; tf32 b(q, g) and b(q + 4, g)); double b(q, g), one 64-bit load.
template <class A, class C, class Stored, class L, uint32_t M, uint32_t Kt, uint32_t N, bool KMajorB>
struct pipeline_fragments {
  using I = mma_instruction<A, C>;
  static constexpr bool kDouble = I::kKind == 6, kSixteenBit = I::kKind == 1 || I::kKind == 2;
  using Word = conditional_t<kDouble, double, uint32_t>;
  static constexpr uint32_t kRowBytesA = Kt * sizeof(A), kRowBytesB = (KMajorB ? Kt : N) * sizeof(A);
  static constexpr uint32_t kBytesA = M * kRowBytesA;

  Word a[L::kAtomsM][kDouble ? 1 : 4], b[L::kAtomsN][kDouble ? 1 : 2];

  // The word of `Word`'s size at byte `byte` of staged row `row` (tile bytes from `tile`).
  template <class W, uint32_t RowBytes>
  WEFT_TILE_FN static W read(const unsigned char* tile, uint32_t row, uint32_t byte) {
    return *reinterpret_cast<const W*>(tile + swizzled_offset<RowBytes>(row, byte));
  }

  // Loads the fragments of the slice at K column `ks` of the stage at byte `offset` of the ring.
  WEFT_TILE_FN void load(uint32_t offset, uint32_t ks, uint32_t warp, uint32_t lane) {
    const unsigned char* stageA = stage_ring() + offset;
    const unsigned char* stageB = stageA + kBytesA;
    const uint32_t g = lane / 4, q = lane % 4, colBase = L::warp_col(warp);
    WEFT_UNROLL
    for (uint32_t am = 0; am < L::kAtomsM; ++am) {
      if constexpr (kDouble) {
        a[am][0] = read<double, kRowBytesA>(stageA, L::atom_row(warp, am) + g, (ks + q) * 8);
      } else {
        const uint32_t row = L::atom_row(warp, am) + lane % 16;
        const uint32_t address = static_cast<uint32_t>(__cvta_generic_to_shared(stageA));
        load_matrices_x4<false>(a[am], address + swizzled_offset<kRowBytesA>(row, ks * sizeof(A) + (lane / 16) * 16));
        WEFT_UNROLL
        for (uint32_t r = 0; r < 4; ++r) a[am][r] = operand_word<A, Stored>(a[am][r]);
      }
    }
    if constexpr (KMajorB && !kDouble) {
      WEFT_UNROLL
      for (uint32_t an = 0; an < L::kAtomsN; an += 2) {
        // Matrices 0..3: the slice's bytes 0-15 / 16-31 of atom an's 8 columns, then of atom an + 1's.
        const uint32_t row = colBase + (an + lane / 16) * 8 + lane % 8, byte = ks * sizeof(A) + (lane / 8 % 2) * 16;
        const uint32_t address = static_cast<uint32_t>(__cvta_generic_to_shared(stageB));
        uint32_t words[4];
        load_matrices_x4<false>(words, address + swizzled_offset<kRowBytesB>(row, byte));
        WEFT_UNROLL
        for (uint32_t r = 0; r < 4; ++r) b[an + r / 2][r % 2] = operand_word<A, Stored>(words[r]);
      }
    } else if constexpr (KMajorB) {
      WEFT_UNROLL
      for (uint32_t an = 0; an < L::kAtomsN; ++an) b[an][0] = read<double, kRowBytesB>(stageB, colBase + an * 8 + g, (ks + q) * 8);
    } else if constexpr (kSixteenBit) {
      WEFT_UNROLL
      for (uint32_t an = 0; an < L::kAtomsN; an += 2) {
        // Transposed matrices 0..3: K rows 0-7 / 8-15 of atom an, then of atom an + 1.
        const uint32_t k = ks + lane % 16, col = colBase + (an + lane / 16) * 8;
        const uint32_t address = static_cast<uint32_t>(__cvta_generic_to_shared(stageB));
        uint32_t words[4];
        load_matrices_x4<true>(words, address + swizzled_offset<kRowBytesB>(k, col * sizeof(A)));
        b[an][0] = words[0];
        b[an][1] = words[1];
        b[an + 1][0] = words[2];
        b[an + 1][1] = words[3];
      }
    } else {
      WEFT_UNROLL
      for (uint32_t an = 0; an < L::kAtomsN; ++an) {
        const uint32_t col = colBase + an * 8 + g;
        if constexpr (kDouble) {
          b[an][0] = read<double, kRowBytesB>(stageB, ks + q, col * 8);
        } else if constexpr (sizeof(A) == 4) {
          WEFT_UNROLL
          for (uint32_t r = 0; r < 2; ++r) {
            b[an][r] = operand_word<A, Stored>(read<uint32_t, kRowBytesB>(stageB, ks + q + 4 * r, col * 4));
          }
        } else {
          WEFT_UNROLL
          for (uint32_t r = 0; r < 2; ++r) {
            uint32_t word = 0;
            WEFT_UNROLL
            for (uint32_t e = 0; e < 4; ++e) {
              word |= uint32_t{read<unsigned char, kRowBytesB>(stageB, ks + 16 * r + 4 * q + e, col)} << (8 * e);
            }
            b[an][r] = word;
          }
        }
      }
    }
  }
};

// Copies Rows x Cols tiles of a row-major matrix (a 2-D span with unit column stride) into
// staged tiles by cp.async, each thread every kBlockThreads-th 16-byte chunk. The thread's chunk
// positions are computed once: a tile wholly inside the matrix then costs an add per chunk; an
// edge tile checks each chunk and zero-fills what lies outside.
template <uint32_t Rows, uint32_t Cols, class T>
struct tile_stager {
  static constexpr uint32_t kPerChunk = 16 / sizeof(T), kChunksPerRow = Cols / kPerChunk, kChunks = Rows * kChunksPerRow;
  static constexpr uint32_t kRowBytes = Cols * sizeof(T);
  static constexpr uint32_t kRounds = (kChunks + kBlockThreads - 1) / kBlockThreads;
  // Rows after which swizzled_offset repeats its pattern (8 rows, or 8 lines of shorter rows).
  static constexpr uint32_t kSwizzleRows = kRowBytes >= 128 ? 8 : 8 * 128 / kRowBytes;
  // Whether every round covers whole rows and the same swizzle pattern, so that round r's
  // chunk is the first round's moved by r * kRowsPerRound rows.
  static constexpr uint32_t kRowsPerRound = kBlockThreads / kChunksPerRow;
  static constexpr bool kRegular = kChunks % kBlockThreads == 0 && kBlockThreads % kChunksPerRow == 0 &&
                                   kRowsPerRound % kSwizzleRows == 0;

  uint32_t row, chunk;  // the thread's chunk of the first round
  int64_t offset;       // its element offset from the tile's first element
  uint32_t shared;      // its byte offset in the staged tile

  template <class Span>
  WEFT_TILE_FN explicit tile_stager(const Span& span)
      : row(thread_rank() / kChunksPerRow),
        chunk(thread_rank() % kChunksPerRow),
        offset(static_cast<int64_t>(row) * static_cast<int64_t>(span.stride(0)) + chunk * kPerChunk),
        shared(swizzled_offset<kRowBytes>(row, chunk * 16)) {}

  // Starts copying the tile whose first element is (row0, col0) to the staged tile at shared
  // address `stage`.
  template <class Span>
  WEFT_TILE_FN void copy(const Span& span, uint32_t stage, int64_t row0, int64_t col0) const {
    const int64_t rows = static_cast<int64_t>(span.extent(0)), cols = static_cast<int64_t>(span.extent(1));
    const int64_t stride = static_cast<int64_t>(span.stride(0));
    const T* data = span.data_handle();
    if (kRegular && row0 >= 0 && col0 >= 0 && row0 + Rows <= rows && col0 + Cols <= cols) {
      const T* origin = data + row0 * stride + col0 + offset;
      WEFT_UNROLL
      for (uint32_t round = 0; round < kRounds; ++round) {
        copy_async_16(stage + shared + round * kRowsPerRound * kRowBytes, origin + round * kRowsPerRound * stride, 16);
      }
      return;
    }
    const uint32_t t = thread_rank();
    WEFT_UNROLL
    for (uint32_t round = 0; round < kRounds; ++round) {
      const uint32_t c = round * kBlockThreads + t;
      if (kChunks % kBlockThreads == 0 || c < kChunks) {
        const uint32_t r = c / kChunksPerRow, k = c % kChunksPerRow;
        const int64_t at = row0 + r, col = col0 + static_cast<int64_t>(k * kPerChunk);
        // Chunks start at multiples of kPerChunk: a chunk is wholly left of the matrix or starts in it.
        const int64_t left = cols - col;
        const bool inside = at >= 0 && at < rows && col >= 0 && left > 0;
        const uint32_t bytes = !inside ? 0u : left >= kPerChunk ? 16u : static_cast<uint32_t>(left * sizeof(T));
        copy_async_16(stage + swizzled_offset<kRowBytes>(r, k * 16), inside ? data + at * stride + col : data, bytes);
      }
    }
  }
};
#endif

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(WEFT_TILES_EMULATE_BLOCK)
// Stores an M x N tile in an mma layout (a K loop's accumulator, or what the code after the loop
// made of it) at block index `index` of a 2-D span through the ring: the owners write their
// pairs of columns into rows padded by 8 elements (pairs of 8 rows by 4 lanes fall on distinct
// banks), then the block writes whole rows in 16-byte pieces, so every 32-byte sector is written
// whole (the pairs alone fill half of each). Only where the tile lies inside the span with
// contiguous rows starting on 16 bytes and the ring holds it; returns whether it stored. The ring
// is free before and after (the barriers around it), as between pipelines.
template <class T, class S, class L, class Span>
WEFT_TILE_FN bool store_through_ring(const Span& span, const tile<T, S, L>& value, const int64_t* index) {
  constexpr uint32_t M = static_cast<uint32_t>(S::static_extent(0)), N = static_cast<uint32_t>(S::static_extent(1));
  constexpr uint32_t kRowBytes = N * sizeof(T), kPitch = (N + 8) * sizeof(T);
  if constexpr (kRowBytes % 16 != 0 || kPitch % 16 != 0) {
    return false;
  } else {
    const int64_t row0 = index[0] * M, col0 = index[1] * N;
    T* const origin = span.data_handle() + row0 * static_cast<int64_t>(span.stride(0)) + col0;
    const bool fits = row0 >= 0 && col0 >= 0 && row0 + M <= static_cast<int64_t>(span.extent(0)) &&
                      col0 + N <= static_cast<int64_t>(span.extent(1)) && span.stride(1) == 1 &&
                      (static_cast<uint64_t>(span.stride(0)) * sizeof(T)) % 16 == 0 && aligned_to(origin, 16);
    if (!fits || dynamic_shared_bytes() < M * kPitch) return false;
    unsigned char* staged = stage_ring();
    const uint32_t t = thread_rank();
    block_sync();
    if (L::owner(t)) {
      WEFT_UNROLL
      for (uint32_t k = 0; k < L::kFragment; k += 2) {
        const uint32_t j = L::index(t, k);
        store_vector<2>(reinterpret_cast<T*>(staged + (j / N) * kPitch) + j % N, &value.frag_[k]);
      }
    }
    block_sync();
    constexpr uint32_t kPer = 16 / sizeof(T), kChunksPerRow = kRowBytes / 16, kChunks = M * kChunksPerRow;
    WEFT_UNROLL
    for (uint32_t c0 = 0; c0 < kChunks; c0 += kBlockThreads) {
      const uint32_t c = c0 + t;
      if (kChunks % kBlockThreads == 0 || c < kChunks) {
        const uint32_t r = c / kChunksPerRow, k = c % kChunksPerRow;
        *reinterpret_cast<uint4*>(origin + static_cast<int64_t>(r) * static_cast<int64_t>(span.stride(0)) + k * kPer) =
            *reinterpret_cast<const uint4*>(staged + r * kPitch + k * 16);
      }
    }
    block_sync();
    return true;
  }
}
#endif

// The loop as written: mma of the padded loads (converted to the operand type A), step by step.
template <class SA, class SB, class A, class Result, class SpanA, class SpanB, class K, class IndexA, class IndexB>
WEFT_TILE_OUTLINED_FN Result mma_loop_as_written(Result out, const SpanA& a, const SpanB& b, K begin, K end, IndexA index_a,
                                                 IndexB index_b) {
  using Stored = typename SpanA::value_type;
  const auto operand = [](const auto& tile) {
    if constexpr (is_same_v<A, Stored>) {
      return tile;
    } else {
      return ::weft::tiles::convert<A>(tile);
    }
  };
  for (K k = begin; k < end; ++k) {
    const block_index<2> ia = index_a(k), ib = index_b(k);
    out = mma(operand(load_padded<SA>(a, Stored(0), ia.at)), operand(load_padded<SB>(b, Stored(0), ib.at)), out);
  }
  return out;
}

#if !defined(WEFT_TILES_SERIAL)
// A 2-D span's elements as operand-register bits, zero outside it (as load_padded pads). Its
// fields are copied once, so that every access reads them from registers.
template <class Stored>
struct padded_operand {
  const Stored* data;
  int64_t rows, cols, rowStride, colStride;

  template <class Span>
  WEFT_TILE_FN explicit padded_operand(const Span& span)
      : data(span.data_handle()),
        rows(static_cast<int64_t>(span.extent(0))),
        cols(static_cast<int64_t>(span.extent(1))),
        rowStride(static_cast<int64_t>(span.stride(0))),
        colStride(static_cast<int64_t>(span.stride(1))) {}

  // Whether element (row, col) lies in the span.
  WEFT_TILE_FN bool inside(int64_t row, int64_t col) const { return row >= 0 && col >= 0 && row < rows && col < cols; }

  // The bits of element (row, col), or 0 (a zero's bits) outside.
  WEFT_TILE_FN uint32_t bits(int64_t row, int64_t col) const {
    using Bits = conditional_t<sizeof(Stored) == 1, unsigned char, conditional_t<sizeof(Stored) == 2, unsigned short, uint32_t>>;
    return inside(row, col) ? bit_cast<Bits>(data[row * rowStride + col * colStride]) : 0u;
  }

  // One operand register of type A (Word: 32 bits, or a double for f64): Count elements from
  // (row, col) on by (rowStep, colStep), packed from the low bits up as mma.sync takes them.
  template <class A, class Word, uint32_t Count>
  WEFT_TILE_FN Word word(int64_t row, int64_t col, int64_t rowStep, int64_t colStep) const {
    if constexpr (is_same_v<Word, double>) {
      return inside(row, col) ? data[row * rowStride + col * colStride] : 0.0;
    } else {
      uint32_t w = 0;
      WEFT_UNROLL
      for (uint32_t e = 0; e < Count; ++e) w |= bits(row + e * rowStep, col + e * colStep) << (8 * sizeof(Stored) * e);
      return operand_word<A, Stored>(w);
    }
  }
};

// The loop as written for operands mma multiplies on the tensor cores, into Result's tensor-core
// layout: every warp reads its mma.sync operand fragments straight from the spans (zero outside
// them; the instruction's fragment layouts, as mma_atom states them) and multiplies them slice by
// slice as mma does, so each accumulator element sums the same products in the same order:
// mma_loop_as_written's bits, and the ring's. It stages nothing (no shared memory, no whole tiles
// in registers, one slice's code per K step), so it is mma_pipeline's fallback on the GPU:
// mma_loop_as_written there cost about as much compile time as the two pipelined paths together
// (docs/architecture.md, "Compile time of a K loop"). Inlined: it needs no registers beyond the
// accumulator's and a slice's few operand words, fewer than the pipelined paths it falls back from.
template <class SA, class SB, class A, class Result, class SpanA, class SpanB, class K, class IndexA, class IndexB>
WEFT_TILE_FN Result mma_loop_by_fragments(Result out, const SpanA& a, const SpanB& b, K begin, K end, IndexA index_a,
                                          IndexB index_b) {
  using C = typename Result::element_type;
  using L = typename Result::layout_type;
  using I = mma_instruction<A, C>;
  constexpr uint32_t M = static_cast<uint32_t>(SA::static_extent(0)), Kt = static_cast<uint32_t>(SA::static_extent(1));
  constexpr uint32_t N = static_cast<uint32_t>(SB::static_extent(1));
  static_assert(use_tensor_cores<A, C, M, N, Kt>() && is_mma_layout_of<L, I::kAtomM>,
                "mma_loop_by_fragments multiplies on the tensor cores into their accumulator layout");
  constexpr bool kDouble = I::kKind == 6;
  // Operand registers of an atom: a 4 and b 2 (f64: one each). Register r of a holds rows
  // g + 8 * (r % 2) at K columns (r / 2) * kHalfK + q * kPerRegister on; register r of b holds
  // column g at K rows r * kHalfK + q * kPerRegister on (lane = 4g + q).
  constexpr uint32_t kRegistersA = kDouble ? 1 : 4, kRegistersB = kDouble ? 1 : 2;
  using Word = conditional_t<kDouble, double, uint32_t>;
  const padded_operand<typename SpanA::value_type> pa(a), pb(b);
  const uint32_t t = thread_rank(), warp = (t / 32) % L::kWarps, lane = t % 32, g = lane / 4, q = lane % 4;
  WEFT_NO_UNROLL
  for (K k = begin; k < end; ++k) {
    const block_index<2> ia = index_a(k), ib = index_b(k);
    const int64_t rowA = ia.at[0] * M, colA = ia.at[1] * Kt, rowB = ib.at[0] * Kt, colB = ib.at[1] * N + L::warp_col(warp);
    WEFT_NO_UNROLL
    for (uint32_t ks = 0; ks < Kt; ks += I::kK) {
      Word fa[L::kAtomsM][kRegistersA];
      WEFT_UNROLL
      for (uint32_t am = 0; am < L::kAtomsM; ++am) {
        WEFT_UNROLL
        for (uint32_t r = 0; r < kRegistersA; ++r) {
          fa[am][r] = pa.template word<A, Word, I::kPerRegister>(rowA + L::atom_row(warp, am) + g + 8 * (r % 2),
                                                                 colA + ks + (r / 2) * I::kHalfK + q * I::kPerRegister, 0, 1);
        }
      }
      // One atom column's b fragment at a time: few registers besides the accumulator's.
      WEFT_UNROLL
      for (uint32_t an = 0; an < L::kAtomsN; ++an) {
        Word fb[kRegistersB];
        WEFT_UNROLL
        for (uint32_t r = 0; r < kRegistersB; ++r) {
          fb[r] = pb.template word<A, Word, I::kPerRegister>(rowB + ks + r * I::kHalfK + q * I::kPerRegister, colB + an * 8 + g,
                                                             1, 0);
        }
        WEFT_UNROLL
        for (uint32_t am = 0; am < L::kAtomsM; ++am) {
          mma_atom<A, C>(&out.frag_[(am * L::kAtomsN + an) * L::kPerAtom], fa[am], fb);
        }
      }
    }
  }
  return out;
}
#endif

}  // namespace detail

// See the file comment. IndexA and IndexB map a K step k (of the loop variable's type K) to the
// block_index<2> of its a and b tiles.
template <class SA, class SB, uint32_t Stages, class Operand = void, bool KMajorB = false, class C, class SC, class LC,
          class SpanA, class SpanB, class K, class IndexA, class IndexB>
WEFT_TILE_FN auto mma_pipeline(const tile<C, SC, LC>& acc, const SpanA& a, const SpanB& b, K begin, K end,
                               IndexA index_a, IndexB index_b) {
  using Stored = typename SpanA::value_type;
  using A = detail::pipeline_operand_t<Stored, Operand>;
  static_assert(SpanA::rank() == 2 && SpanB::rank() == 2 && SA::rank() == 2 && SB::rank() == 2,
                "mma_pipeline multiplies 2-D tiles of 2-D spans");
  static_assert(detail::is_same_v<Stored, typename SpanB::value_type>, "mma_pipeline: a and b have one element type");
  static_assert(detail::is_same_v<A, Stored> || (detail::is_same_v<A, tfloat32> && detail::is_same_v<Stored, float>),
                "mma_pipeline: the operands are the spans' elements, or tfloat32 of float spans");
  static_assert(Stages >= 2, "mma_pipeline needs at least two stages");
  using Result = decltype(mma(tile<A, SA>{}, tile<A, SB>{}, acc));
  Result out = acc;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(WEFT_TILES_EMULATE_BLOCK)
  if constexpr (detail::pipelines_operands<A, C, SA, SB, typename Result::layout_type, KMajorB>()) {
    constexpr uint32_t M = static_cast<uint32_t>(SA::static_extent(0)), Kt = static_cast<uint32_t>(SA::static_extent(1));
    constexpr uint32_t N = static_cast<uint32_t>(SB::static_extent(1));
    constexpr uint32_t kStageBytes = mma_stage_bytes<A, SA, SB>;
    using L = typename Result::layout_type;
    using Fragments = detail::pipeline_fragments<A, C, Stored, L, M, Kt, N, KMajorB>;
    const auto rowsStartOn16 = [](const auto& span) {
      return span.stride(1) == 1 && detail::aligned_to(span.data_handle(), 16) &&
             (static_cast<uint64_t>(span.stride(0)) * sizeof(A)) % 16 == 0;
    };
    // b as the ring stages it: as it is (K x N), or K-major its N x K transpose.
    const auto stagedB = [&]() {
      if constexpr (KMajorB) {
        return detail::transposed_span(b);
      } else {
        return b;
      }
    }();
    if (detail::dynamic_shared_bytes() >= Stages * kStageBytes && rowsStartOn16(a) && rowsStartOn16(stagedB)) {
      const uint32_t t = detail::thread_rank(), warp = (t / 32) % L::kWarps, lane = t % 32;
      const uint32_t ring = static_cast<uint32_t>(__cvta_generic_to_shared(detail::stage_ring()));
      const int64_t steps = static_cast<int64_t>(end) - static_cast<int64_t>(begin);
      // The byte offset of K step `step`'s slot in the ring.
      const auto slot = [&](int64_t step) { return static_cast<uint32_t>(step % Stages) * kStageBytes; };
      const detail::tile_stager<M, Kt, Stored> stagerA(a);
      const detail::tile_stager<KMajorB ? N : Kt, KMajorB ? Kt : N, Stored> stagerB(stagedB);
      // Starts loading the operand tiles of K step `step` (if there is one) into its slot.
      const auto stage = [&](int64_t step) {
        if (step < steps) {
          const uint32_t base = ring + slot(step);
          const block_index<2> ia = index_a(static_cast<K>(static_cast<int64_t>(begin) + step));
          const block_index<2> ib = index_b(static_cast<K>(static_cast<int64_t>(begin) + step));
          stagerA.copy(a, base, ia.at[0] * M, ia.at[1] * Kt);
          if constexpr (KMajorB) {
            stagerB.copy(stagedB, base + Fragments::kBytesA, ib.at[1] * N, ib.at[0] * Kt);
          } else {
            stagerB.copy(stagedB, base + Fragments::kBytesA, ib.at[0] * Kt, ib.at[1] * N);
          }
        }
        detail::commit_async_group();  // empty groups too: wait_async_groups counts groups
      };
      // One slice's fragments at a time. (Double-buffering them, the next slice's loads before
      // this one's mma, measured slower on the H100 for bf16: more registers.)
      Fragments f;
      WEFT_UNROLL
      for (uint32_t s = 0; s + 1 < Stages; ++s) stage(s);
      WEFT_NO_UNROLL
      for (int64_t step = 0; step < steps; ++step) {
        detail::wait_async_groups<static_cast<int>(Stages) - 2>();
        detail::block_sync();  // stage `step` is in; every warp is done with stage step - 1
        stage(step + Stages - 1);  // into the slot of step - 1
        WEFT_UNROLL
        for (uint32_t slice = 0; slice < Kt / Fragments::I::kK; ++slice) {
          f.load(slot(step), slice * Fragments::I::kK, warp, lane);
          WEFT_UNROLL
          for (uint32_t am = 0; am < L::kAtomsM; ++am) {
            WEFT_UNROLL
            for (uint32_t an = 0; an < L::kAtomsN; ++an) {
              detail::mma_atom<A, C>(&out.frag_[(am * L::kAtomsN + an) * L::kPerAtom], f.a[am], f.b[an]);
            }
          }
        }
      }
      detail::wait_async_groups<0>();
      detail::block_sync();  // the ring is free for the next pipeline
      return out;
    }
    return detail::mma_loop_by_fragments<SA, SB, A>(out, a, b, begin, end, index_a, index_b);
  } else {
    return detail::mma_loop_as_written<SA, SB, A>(out, a, b, begin, end, index_a, index_b);
  }
#else
  return detail::mma_loop_as_written<SA, SB, A>(out, a, b, begin, end, index_a, index_b);
#endif
}

}  // namespace weft::tiles
