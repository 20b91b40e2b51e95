// mma operands taken from where they already are, instead of being staged again in the scratch
// buffer for ldmatrix:
// - stage_view: a tile a loop prefetched (loop_prefetch.h), still in its stage in dynamic shared
//   memory, as the code generator passes it to mma (through reshape and permute, which only
//   change how the view reads its stage). As b, ldmatrix reads its fragments from the stage: a
//   stage of K x N rows (b row-major) by ldmatrix.trans, a stage of N x K rows (b transposed,
//   what a load with order=(..., 1, 0) of a row-major array stages) by ldmatrix, as mma.h's own
//   staging of b^T. Anything else converts the view to a tile first (the values are the same).
// - a in registers: a 16-bit tile computed element-wise from an accumulator whose warps own
//   whole rows is the a-operand's fragments already (a_in_registers); no shared memory.
// - mma_a_fragments: an a-operand the loop does not change, brought into each warp's fragments
//   once before the loop (mma_a_operand).
// The products are mma.h's: the same atoms in the same K order into the same accumulator
// layout, so every path gives the same bits.
//
// On sm_90a the two products of a register a-operand (mma_a_fragments, or a tile holding its
// a-fragments) and a stage run as wgmma (wgmma_reads_stage): a warpgroup's four warps own 64
// consecutive rows of the accumulator, 16 each, which is wgmma's accumulator order (mma.sync's
// m16n8 fragment repeated along N), and mma.sync's m16n8k16 a-fragment of a warp's 16 rows is
// wgmma's register a-fragment, so a is used as it is; b is read from the stage's 128-byte slabs
// (loop_prefetch.h) through a shared-memory descriptor: K-major from a stage of b^T's rows (N x
// K), MN-major from one of b's (K x N). The tensor cores sum each k16 step in their own order, as
// mma.sync's do, so the two instructions agree to rounding, not to the bit.
#pragma once

#include "weft/tiles/mma_pipeline.h"
#include "weft/tiles/mma_pipeline_tma.h"
#include "weft/tiles/shape_ops.h"

namespace weft::tiles {

// The tile of shape S that the stage of loop value `value` of the prefetched load `*load` holds
// (row-major rows of Load::kCols elements; Transposed: its last two axes exchanged, the others
// all 1). Made by prefetched_load::view; converts to a tile with to_tile().
template <class Load, class S, bool Transposed>
struct stage_view {
  using element_type = typename Load::T;
  using shape_type = S;
  const Load* load;
  int64_t value;

  // The tile the view shows.
  WEFT_TILE_FN auto to_tile() const {
    if constexpr (Transposed) {
      const auto rows = reshape<shape<Load::kRows, Load::kCols>>(load->read(value));
      return reshape<S>(::weft::tiles::permute<1, 0>(rows));
    } else {
      return reshape<S>(load->read(value));
    }
  }
};

namespace detail {
template <class S>
WEFT_HD constexpr bool leading_extents_are_one() {
  for (size_t d = 0; d + 2 < S::rank(); ++d) {
    if (S::static_extent(d) != 1) return false;
  }
  return S::rank() >= 2;
}
// Whether P exchanges the last two axes and keeps the others.
template <size_t... P>
WEFT_HD constexpr bool exchanges_last_two() {
  constexpr size_t order[] = {P..., 0};
  constexpr size_t n = sizeof...(P);
  if (n < 2 || order[n - 2] != n - 1 || order[n - 1] != n - 2) return false;
  for (size_t i = 0; i + 2 < n; ++i) {
    if (order[i] != i) return false;
  }
  return true;
}
}  // namespace detail

// A view reshaped: the same stage (rows keep their order); a transposed view only gains or loses
// leading axes of 1.
template <class S2, class Load, class S, bool Transposed>
WEFT_TILE_FN auto reshape(const stage_view<Load, S, Transposed>& v) {
  static_assert(detail::static_size<S2>() == detail::static_size<S>(), "ct::reshape keeps the number of elements");
  if constexpr (!Transposed ||
                (detail::leading_extents_are_one<S2>() && S2::static_extent(S2::rank() - 1) == S::static_extent(S::rank() - 1))) {
    return stage_view<Load, S2, Transposed>{v.load, v.value};
  } else {
    return reshape<S2>(v.to_tile());
  }
}

// A view permuted: exchanging the last two axes of a view whose other axes are 1 transposes it.
template <size_t... P, class Load, class S, bool Transposed>
WEFT_TILE_FN auto permute(const stage_view<Load, S, Transposed>& v) {
  static_assert(detail::is_permutation<S, P...>(), "ct::permute<d0, d1, ...>: the axes must be a permutation of 0 .. rank-1");
  if constexpr (detail::exchanges_last_two<P...>() && detail::leading_extents_are_one<S>()) {
    return stage_view<Load, shape<static_cast<uint32_t>(S::static_extent(P))...>, !Transposed>{v.load, v.value};
  } else {
    return ::weft::tiles::permute<P...>(v.to_tile());
  }
}

namespace detail {

// Whether mma(a, view, acc) reads b from the view's stage on this target: 16-bit tensor-core
// operands, a stage whose rows are b's (K x N) or b^T's (N x K) rows, 16-byte rows, and pairs
// of b atoms per warp (ldmatrix .x4 reads two).
template <class A, class C, uint32_t M, uint32_t N, uint32_t K, class L, class Load, bool Transposed>
WEFT_HD constexpr bool reads_b_from_stage() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(WEFT_TILES_EMULATE_BLOCK)
  using I = mma_instruction<A, C>;
  if constexpr ((I::kKind == 1 || I::kKind == 2) && use_tensor_cores<A, C, M, N, K>() && is_same_v<A, typename Load::T>) {
    constexpr bool kRows = Transposed ? Load::kRows == N && Load::kCols == K : Load::kRows == K && Load::kCols == N;
    return kRows && Load::kRowBytes % 16 == 0 && L::kAtomsN % 2 == 0;
  } else {
    return false;
  }
#else
  return false;
#endif
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(WEFT_TILES_EMULATE_BLOCK)
// The b-fragments of atoms an and an + 1 of warp `warp` (layout L) at K column `k` from a stage
// of the prefetched load Load at shared address `stage`: rows of b (K x N) by ldmatrix.trans,
// rows of b^T (N x K) by ldmatrix, each lane giving one row address.
template <class L, class A, class Load, bool Transposed>
WEFT_TILE_FN void stage_b_fragments(uint32_t (*bf)[2], uint32_t stage, uint32_t warp, uint32_t an, uint32_t k, uint32_t lane) {
  uint32_t words[4];
  if constexpr (Transposed) {
    // Matrices: rows n of atom an at K bytes 0-15 / 16-31, then of atom an + 1.
    const uint32_t n = L::warp_col(warp) + (an + lane / 16) * 8 + lane % 8;
    load_matrices_x4<false>(words, stage + Load::slot_offset(n, k * sizeof(A) + ((lane / 8) % 2) * 16));
  } else {
    // Transposed matrices: K rows 0-7 / 8-15 of atom an, then of atom an + 1.
    const uint32_t col = L::warp_col(warp) + (an + lane / 16) * 8;
    load_matrices_x4<true>(words, stage + Load::slot_offset(k + lane % 16, col * sizeof(A)));
  }
  bf[an][0] = words[0];
  bf[an][1] = words[1];
  bf[an + 1][0] = words[2];
  bf[an + 1][1] = words[3];
}

// One K step of a product into `out` (layout L) with b in a stage: b's fragments at K column k
// (stage_b_fragments), times a_fragment(am), a's fragment of each atom row am of the warp.
template <class L, class A, class C, class Load, bool Transposed, class Out, class AFragment>
WEFT_TILE_FN void stage_product_step(Out& out, uint32_t stage, uint32_t warp, uint32_t lane, uint32_t k,
                                     AFragment a_fragment) {
  uint32_t bf[L::kAtomsN][2];
  WEFT_UNROLL
  for (uint32_t an = 0; an < L::kAtomsN; an += 2) stage_b_fragments<L, A, Load, Transposed>(bf, stage, warp, an, k, lane);
  WEFT_UNROLL
  for (uint32_t am = 0; am < L::kAtomsM; ++am) {
    WEFT_UNROLL
    for (uint32_t an = 0; an < L::kAtomsN; ++an)
      mma_atom<A, C>(&out.frag_[(am * L::kAtomsN + an) * L::kPerAtom], a_fragment(am), bf[an]);
  }
}
#endif

// Whether mma(a, view, acc) with a's fragments in registers runs as wgmma on sm_90a (see the file
// comment): 16-bit operands into float; an accumulator layout whose warps own 16 whole rows each,
// in order, every warp of the block one of them, in warpgroups of 64 rows; N one of wgmma's
// widths; and a stage in 128-byte slabs on a swizzle period holding b^T's rows (N x K) or b's
// (K x N).
template <class A, class C, uint32_t M, uint32_t N, uint32_t K, class L, class Load, bool Transposed>
WEFT_HD constexpr bool wgmma_reads_stage() {
#if defined(WEFT_TILES_WGMMA)
  using I = mma_instruction<A, C>;
  if constexpr ((I::kKind == 1 || I::kKind == 2) && is_same_v<C, float> && is_same_v<A, typename Load::T> && M % 64 == 0) {
    constexpr bool kRows = Transposed ? Load::kRows == N && Load::kCols == K : Load::kRows == K && Load::kCols == N;
    return is_same_v<L, mma_layout<M, N, 16, M / 16, 1, false>> && M / 16 * 32 == kBlockThreads &&
           (N == 8 || N == 16 || N == 32 || N == 64 || N == 128 || N == 256) && K % 16 == 0 && kRows &&
           Load::kSlabAligned;
  } else {
    return false;
  }
#else
  return false;
#endif
}

#if defined(WEFT_TILES_WGMMA)
// out (M x N in a layout wgmma_reads_stage takes) += a @ b, b in the stage at shared address
// `stage`: one wgmma m64nNk16 per 16 columns of K, a_fragment(step) the warp's a-fragment of K
// step `step` (four registers), b through the stage's descriptor (K-major from b^T's rows,
// MN-major from b's). Returns when the wgmmas have completed: the stage and a's registers are
// free again.
template <class A, class Load, bool Transposed, uint32_t N, uint32_t K, class Out, class AFragment>
WEFT_TILE_FN void stage_wgmma(Out& out, uint32_t stage, AFragment a_fragment) {
  using Slot = conditional_t<Transposed, sm90::smem_tile<N, K, sizeof(A), sm90::swizzle::b128>,
                             sm90::smem_tile<K, N, sizeof(A), sm90::swizzle::b128>>;
  static_assert(Slot::kBytes == Load::kTileBytes && Slot::offset(Load::kRows - 1, Load::kCols - 1) ==
                                                        Load::slot_offset(Load::kRows - 1, (Load::kCols - 1) * sizeof(A)),
                "a slot in 128-byte slabs is the smem_tile the descriptors read");
  float(&d)[N / 2] = wgmma_fragment<N>(out, 0);
  sm90::wgmma_fence();
  WEFT_UNROLL
  for (uint32_t step = 0; step < K / 16; ++step) {
    const uint64_t b = Transposed ? Slot::k_major_descriptor(stage, step) : Slot::mn_major_descriptor(stage, step);
    sm90::wgmma<wgmma_type_of<A>(), N, !Transposed>(d, a_fragment(step), b, true);
  }
  sm90::wgmma_commit();
  sm90::wgmma_wait<0>();
  sm90::wgmma_fence_operands(d);
}

// out (layout as above) += a @ b of the view `b` where its slots are not in the ring: mma.sync
// atoms with a_fragment(step) and b's fragments read from the array element by element, one K
// step at a time (a loop, not unrolled, that selects a's registers of the step without indexing
// them: few registers, and none in local memory, so that this rare path does not crowd
// stage_wgmma's).
template <class A, class C, uint32_t K, class Out, class Load, class SB, bool Transposed, class AFragment>
WEFT_TILE_FN void array_product(Out& out, const stage_view<Load, SB, Transposed>& b, AFragment a_fragment) {
  using L = typename Out::layout_type;
  const auto at = b.load->block(b.value);
  const uint32_t lane = thread_rank() % 32;
  // b's elements k, k + 1 at column n as one register, the first in the low half.
  const auto pair = [&](uint32_t k, uint32_t n) {
    const A lo = Transposed ? b.load->element(at, n, k) : b.load->element(at, k, n);
    const A hi = Transposed ? b.load->element(at, n, k + 1) : b.load->element(at, k + 1, n);
    return static_cast<uint32_t>(bit_cast<unsigned short>(lo)) | (static_cast<uint32_t>(bit_cast<unsigned short>(hi)) << 16);
  };
  WEFT_NO_UNROLL
  for (uint32_t step = 0; step < K / 16; ++step) {
    uint32_t af[4];
    WEFT_UNROLL
    for (uint32_t s = 0; s < K / 16; ++s) {
      WEFT_UNROLL
      for (uint32_t r = 0; r < 4; ++r) af[r] = s == step ? a_fragment(s)[r] : af[r];
    }
    WEFT_UNROLL
    for (uint32_t an = 0; an < L::kAtomsN; ++an) {
      const uint32_t k = step * 16 + 2 * (lane % 4), n = an * 8 + lane / 4;
      const uint32_t bf[2] = {pair(k, n), pair(k + 8, n)};
      mma_atom<A, C>(&out.frag_[an * L::kPerAtom], af, bf);
    }
  }
}

// out += a @ b (layout as above) for the view `b`: stage_wgmma where its slots are in the ring,
// else array_product.
template <class A, class C, uint32_t N, uint32_t K, class Out, class Load, class SB, bool Transposed, class AFragment>
WEFT_TILE_FN void stage_product(Out& out, const stage_view<Load, SB, Transposed>& b, AFragment a_fragment) {
  if (b.load->ring()) {
    stage_wgmma<A, Load, Transposed, N, K>(out, b.load->slot_address(b.value), a_fragment);
  } else {
    array_product<A, C, K>(out, b, a_fragment);
  }
}
#endif

}  // namespace detail

namespace detail {

// Whether a tile in layout LA (M x K) holds the a-fragments of products into layout L in its
// registers: the m16n8 accumulator's lane layout is the m16n8k16 a-fragment's (lane 4g + q holds
// rows g and g + 8 at columns 2q, 2q + 1 of each 8 columns), so a tile computed element-wise
// from an accumulator of the same rows and warp grid, whose warps own whole rows (WarpsN 1),
// holds exactly the a-fragments each warp needs (FlashAttention-2's P).
template <class A, class C, uint32_t M, uint32_t K, class LA, class L>
WEFT_HD constexpr bool a_in_registers() {
  using I = mma_instruction<A, C>;
  if constexpr ((I::kKind == 1 || I::kKind == 2) && is_mma_layout_of<L, 16>) {
    return L::kWarpsN == 1 && !L::kInterleaved && is_same_v<LA, mma_layout<M, K, 16, L::kWarpsM, 1, false>>;
  } else {
    return false;
  }
}

// The a-fragment of atom row `am` at K step `step` (16 columns: atoms 2 step and 2 step + 1)
// from the fragment `frag` of a tile in layout LA (a_in_registers): a0, a1 rows g, g + 8 of the
// first 8 columns, a2, a3 of the next 8, each two 16-bit elements, the first in the low half.
template <class LA, class A>
WEFT_TILE_FN void register_a_fragment(uint32_t* af, const A* frag, uint32_t am, uint32_t step) {
  const A* atom = &frag[(am * LA::kAtomsN + 2 * step) * LA::kPerAtom];
  WEFT_UNROLL
  for (uint32_t r = 0; r < 4; ++r) {
    const A* pair = atom + (r / 2) * LA::kPerAtom + 2 * (r % 2);
    af[r] = static_cast<uint32_t>(bit_cast<unsigned short>(pair[0])) |
            (static_cast<uint32_t>(bit_cast<unsigned short>(pair[1])) << 16);
  }
}

}  // namespace detail

// acc + a @ b with b in a stage (see the file comment); a from its registers where it holds the
// a-fragments (a_in_registers), else through the scratch buffer as mma stages it. The result is
// mma's.
template <class A, class SA, class LA, class Load, class SB, bool Transposed, class C, class SC, class LC>
WEFT_TILE_FN auto mma(const tile<A, SA, LA>& a, const stage_view<Load, SB, Transposed>& b, const tile<C, SC, LC>& acc) {
  constexpr uint32_t M = static_cast<uint32_t>(SA::static_extent(0)), K = static_cast<uint32_t>(SA::static_extent(1));
  constexpr uint32_t N = static_cast<uint32_t>(SB::static_extent(SB::rank() - 1));
  using L = detail::mma_result_layout_t<A, C, M, N, K, LC>;
  if constexpr (SA::rank() == 2 && SB::rank() == 2 && SC::rank() == 2 && detail::a_in_registers<A, C, M, K, LA, L>() &&
                detail::wgmma_reads_stage<A, C, M, N, K, L, Load, Transposed>()) {
#if defined(WEFT_TILES_WGMMA)
    tile<C, shape<M, N>, L> out = tile<C, shape<M, N>, LC>(reshape<shape<M, N>>(acc));
    uint32_t af[K / 16][4];
    WEFT_UNROLL
    for (uint32_t step = 0; step < K / 16; ++step) detail::register_a_fragment<LA>(af[step], a.frag_, 0, step);
    detail::stage_product<A, C, N, K>(out, b, [&](uint32_t step) -> const uint32_t(&)[4] { return af[step]; });
    return out;
#endif
  } else if constexpr (SA::rank() == 2 && SB::rank() == 2 && SC::rank() == 2 &&
                       detail::reads_b_from_stage<A, C, M, N, K, L, Load, Transposed>()) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(WEFT_TILES_EMULATE_BLOCK)
    if (b.load->ring()) {
      using I = detail::mma_instruction<A, C>;
      tile<C, shape<M, N>, L> out = tile<C, shape<M, N>, LC>(reshape<shape<M, N>>(acc));
      const uint32_t t = detail::thread_rank(), warp = (t / 32) % L::kWarps, lane = t % 32;
      const uint32_t stage = b.load->slot_address(b.value);
      // One K step: b's fragments from the stage at K column k, times a's `af`.
      const auto multiply = [&](const uint32_t (*af)[4], uint32_t k) {
        detail::stage_product_step<L, A, C, Load, Transposed>(
            out, stage, warp, lane, k, [&](uint32_t am) -> const uint32_t(&)[4] { return af[am]; });
      };
      if constexpr (detail::a_in_registers<A, C, M, K, LA, L>()) {
        WEFT_UNROLL
        for (uint32_t k = 0; k < K; k += I::kK) {
          uint32_t af[L::kAtomsM][4];
          WEFT_UNROLL
          for (uint32_t am = 0; am < L::kAtomsM; ++am) detail::register_a_fragment<LA>(af[am], a.frag_, am, k / I::kK);
          multiply(af, k);
        }
      } else {
        constexpr uint32_t kChunk = detail::mma_chunk<A, M, 0, K, I::kK>();
        constexpr uint32_t kRowBytes = kChunk * sizeof(A);
        WEFT_NO_UNROLL
        for (uint32_t k0 = 0; k0 < K; k0 += kChunk) {
          detail::block_sync();
          detail::stage_rows<M, K, kChunk>(detail::scratch(), a, k0);
          detail::block_sync();
          WEFT_UNROLL
          for (uint32_t ks = 0; ks < kChunk; ks += I::kK) {
            uint32_t af[L::kAtomsM][4];
            WEFT_UNROLL
            for (uint32_t am = 0; am < L::kAtomsM; ++am)
              detail::staged_a_fragment<L, kRowBytes>(af[am], warp, am, ks * sizeof(A), lane);
            multiply(af, k0 + ks);
          }
        }
      }
      return out;
    }
#endif
  }
  return ::weft::tiles::mma(a, b.to_tile(), acc);
}

// The a-operand of products a @ b into accumulators of type Acc, loaded once into each warp's
// fragments (a loop-invariant operand, fetched before the loop): made by mma_a_operand, taken by
// mma in place of the tile. `source` is the tile, for the paths that stage it as written.
namespace detail {
// The atom rows of layout L a warp holds fragments of (one where there are none).
template <class L, bool Fragments>
WEFT_HD constexpr uint32_t fragment_atoms() {
  if constexpr (Fragments) {
    return L::kAtomsM;
  } else {
    return 1;
  }
}
}  // namespace detail

template <class A, class SA, class LA, class L, bool Fragments>
struct mma_a_fragments {
  static constexpr uint32_t kSteps = Fragments ? static_cast<uint32_t>(SA::static_extent(1)) / 16 : 1;
  static constexpr uint32_t kAtoms = detail::fragment_atoms<L, Fragments>();
  const tile<A, SA, LA>* source;
  uint32_t regs[kAtoms][kSteps][4];  // atom row, K step (16 columns), register
};

// a's fragments for products into accumulators of type Acc: on the GPU's 16-bit tensor-core path
// staged through the scratch buffer once and read by ldmatrix, as mma reads them at each product.
template <class Acc, class A, class SA, class LA>
WEFT_TILE_FN auto mma_a_operand(const tile<A, SA, LA>& a) {
  using C = typename Acc::element_type;
  constexpr uint32_t M = static_cast<uint32_t>(SA::static_extent(0)), K = static_cast<uint32_t>(SA::static_extent(1));
  constexpr uint32_t N = static_cast<uint32_t>(Acc::shape_type::static_extent(1));
  using L = detail::mma_result_layout_t<A, C, M, N, K, typename Acc::layout_type>;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(WEFT_TILES_EMULATE_BLOCK)
  using I = detail::mma_instruction<A, C>;
  constexpr bool kFragments = SA::rank() == 2 && (I::kKind == 1 || I::kKind == 2) && detail::use_tensor_cores<A, C, M, N, K>();
#else
  constexpr bool kFragments = false;
#endif
  mma_a_fragments<A, SA, LA, L, kFragments> out{&a, {}};
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(WEFT_TILES_EMULATE_BLOCK)
  if constexpr (kFragments) {
    constexpr uint32_t kChunk = detail::mma_chunk<A, M, 0, K, I::kK>();
    constexpr uint32_t kRowBytes = kChunk * sizeof(A);
    const uint32_t t = detail::thread_rank(), warp = (t / 32) % L::kWarps, lane = t % 32;
    WEFT_UNROLL
    for (uint32_t k0 = 0; k0 < K; k0 += kChunk) {
      detail::block_sync();
      detail::stage_rows<M, K, kChunk>(detail::scratch(), a, k0);
      detail::block_sync();
      WEFT_UNROLL
      for (uint32_t ks = 0; ks < kChunk; ks += I::kK) {
        WEFT_UNROLL
        for (uint32_t am = 0; am < L::kAtomsM; ++am)
          detail::staged_a_fragment<L, kRowBytes>(out.regs[am][(k0 + ks) / I::kK], warp, am, ks * sizeof(A), lane);
      }
    }
  }
#endif
  return out;
}

// acc + a @ b with a's fragments loaded before (mma_a_operand) and b in a stage: no shared memory
// but the stage; elsewhere, mma of a's tile.
template <class A, class SA, class LA, class LF, bool Fragments, class Load, class SB, bool Transposed, class C, class SC,
          class LC>
WEFT_TILE_FN auto mma(const mma_a_fragments<A, SA, LA, LF, Fragments>& a, const stage_view<Load, SB, Transposed>& b,
                      const tile<C, SC, LC>& acc) {
  constexpr uint32_t M = static_cast<uint32_t>(SA::static_extent(0)), K = static_cast<uint32_t>(SA::static_extent(1));
  constexpr uint32_t N = static_cast<uint32_t>(SB::static_extent(SB::rank() - 1));
  using L = detail::mma_result_layout_t<A, C, M, N, K, LC>;
  if constexpr (Fragments && detail::is_same_v<L, LF> && SB::rank() == 2 && SC::rank() == 2 &&
                detail::wgmma_reads_stage<A, C, M, N, K, L, Load, Transposed>()) {
#if defined(WEFT_TILES_WGMMA)
    tile<C, shape<M, N>, L> out = tile<C, shape<M, N>, LC>(reshape<shape<M, N>>(acc));
    detail::stage_product<A, C, N, K>(out, b, [&](uint32_t step) -> const uint32_t(&)[4] { return a.regs[0][step]; });
    return out;
#endif
  } else if constexpr (Fragments && detail::is_same_v<L, LF> && SB::rank() == 2 && SC::rank() == 2 &&
                       detail::reads_b_from_stage<A, C, M, N, K, L, Load, Transposed>()) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(WEFT_TILES_EMULATE_BLOCK)
    if (b.load->ring()) {
      using I = detail::mma_instruction<A, C>;
      tile<C, shape<M, N>, L> out = tile<C, shape<M, N>, LC>(reshape<shape<M, N>>(acc));
      const uint32_t t = detail::thread_rank(), warp = (t / 32) % L::kWarps, lane = t % 32;
      const uint32_t stage = b.load->slot_address(b.value);
      WEFT_UNROLL
      for (uint32_t k = 0; k < K; k += I::kK) {
        detail::stage_product_step<L, A, C, Load, Transposed>(
            out, stage, warp, lane, k, [&](uint32_t am) -> const uint32_t(&)[4] { return a.regs[am][k / I::kK]; });
      }
      return out;
    }
#endif
  }
  return ::weft::tiles::mma(*a.source, b, acc);
}

// acc + a @ b with a's fragments loaded before and b a tile: mma of a's tile.
template <class A, class SA, class LA, class LF, bool Fragments, class B, class SB, class LB, class C>
WEFT_TILE_FN auto mma(const mma_a_fragments<A, SA, LA, LF, Fragments>& a, const tile<B, SB, LB>& b, const C& acc) {
  return ::weft::tiles::mma(*a.source, b, acc);
}

// acc + a @ b with a in a stage: a converted to a tile (see the file comment).
template <class Load, class SA, bool Transposed, class B, class C>
WEFT_TILE_FN auto mma(const stage_view<Load, SA, Transposed>& a, const B& b, const C& acc) {
  return ::weft::tiles::mma(a.to_tile(), b, acc);
}

}  // namespace weft::tiles
