// The pipelined K loop of a tile kernel on sm_90a: operand tiles by TMA, products by wgmma.
//
//   mma_pipeline_tma<SA, SB, Stages, TmaStages, KMajorB>(acc, a, b, begin, end, index_a, index_b, tma)
//     == mma_pipeline<SA, SB, Stages, void, KMajorB>(acc, a, b, begin, end, index_a, index_b)
//
// where `tma` holds the kernel's tensor maps of a and b (weft's runtime encodes them at each
// launch: EmittedUnit::tensorMaps, docs/architecture.md "Tensor maps") and whether both are valid:
// of the arrays as stored, so with KMajorB (b the K x N view of an N x K array) b's map is of
// that N x K array.
//
// On sm_90a, for float16 and bfloat16 operands, and float8 e4m3 / e5m2 ones with KMajorB, whose
// tiles fit wgmma (tma_pipelines below) and an accumulator in the pipeline's layout
// (mma_pipeline_accumulator_t), with both maps valid and TmaStages stages of dynamic shared
// memory, the block's threads run the loop as a ring of TmaStages stages: thread 0 issues the TMA
// copies of the a and b tiles of K step k + TmaStages - 1 (128-byte swizzled slabs, zero outside
// the arrays, as a zero-padded load reads) on the stage's mbarrier while the warpgroups multiply
// step k with wgmma (each its 64-row blocks of the accumulator; a read K-major, b as stored: MN-
// major from a K x N tile, 16-bit types only, or K-major from an N x K one, 32 bytes of K a
// wgmma); a stage is refilled once every warpgroup's wgmmas of the step before have completed.
// The accumulator layout is wgmma's own (mma_layout with Interleaved atoms), so nothing is
// exchanged before or after the loop.
//
// Where the maps or the shared memory are missing at run time it reads the operand fragments from
// global memory (detail::mma_loop_by_fragments). Everywhere else (other types or shapes, another
// architecture, the CPU target) it is mma_pipeline, which computes in any mma_layout.
#pragma once

#include "weft/tiles/mma_pipeline.h"
#include "weft/tiles/sm90/tensor_map_type.h"

// The wgmma path exists in sm_90a device code (nvcc or NVRTC with -arch=sm_90a).
#if defined(__CUDA_ARCH_FEAT_SM90_ALL) && !defined(WEFT_TILES_SERIAL) && !defined(WEFT_TILES_EMULATE_BLOCK)
#define WEFT_TILES_WGMMA 1
#include "weft/tiles/sm90.h"
#endif

namespace weft::tiles {

// The tensor maps of a pipelined K loop's a and b as the kernel received them: a's box is M rows
// of one 128-byte slab, b's Kt (stored K x N) or N (stored N x K) rows of one, both 128-byte
// swizzled (docs/architecture.md, "Tensor maps"); `valid`: the runtime could encode both.
struct tma_operands {
  const sm90::tensor_map* a = nullptr;
  const sm90::tensor_map* b = nullptr;
  bool valid = false;
};

namespace detail {

// Whether the TMA/wgmma path takes M x Kt by Kt x N tiles of A, b N-major (stored K x N) or
// K-major (KMajorB): float16 and bfloat16 operands either way, float8 ones K-major only (wgmma's
// fp8 and tf32 forms read b K-major only), whose tiles fit (sm90::pipeline_tiles_fit).
template <class A, uint32_t M, uint32_t Kt, uint32_t N, bool KMajorB>
WEFT_HD constexpr bool tma_pipelines() {
  constexpr int kKind = mma_instruction<A, float>::kKind;
  constexpr bool kOperand = kKind == 1 || kKind == 2 || (KMajorB && (kKind == 7 || kKind == 8));
  return kOperand && sm90::pipeline_tiles_fit(kBlockThreads, M, Kt, N, sizeof(A));
}

// The layout of a pipelined K loop's accumulator: wgmma's order over all the block's warps where
// the TMA/wgmma path may take the loop, with b either way (WEFT_TILES_WGMMA_LAYOUT: also
// elsewhere, so that tests run its mma.sync fallback on any GPU or the emulated block), else
// mma's. Weft's code generator declares only the accumulators of loops the path takes so.
template <class A, uint32_t M, uint32_t Kt, uint32_t N>
WEFT_HD constexpr bool uses_wgmma_layout() {
#if defined(WEFT_TILES_WGMMA) || (defined(WEFT_TILES_WGMMA_LAYOUT) && !defined(WEFT_TILES_SERIAL))
  return tma_pipelines<A, M, Kt, N, true>();
#else
  return false;
#endif
}

template <class ATile, class BTile>
struct pipeline_accumulator {
  using A = typename ATile::element_type;
  static constexpr uint32_t M = static_cast<uint32_t>(ATile::shape_type::static_extent(0));
  static constexpr uint32_t Kt = static_cast<uint32_t>(ATile::shape_type::static_extent(1));
  static constexpr uint32_t N = static_cast<uint32_t>(BTile::shape_type::static_extent(1));
  using type = conditional_t<uses_wgmma_layout<A, M, Kt, N>(),
                             tile<float, shape<M, N>, mma_layout<M, N, 16, kBlockThreads / 32, 1, true>>,
                             mma_accumulator_t<ATile, BTile>>;
};

#if defined(WEFT_TILES_WGMMA)
// wgmma's operand type for A (a type tma_pipelines takes).
template <class A>
WEFT_HD constexpr sm90::wgmma_type wgmma_type_of() {
  constexpr int kKind = mma_instruction<A, float>::kKind;
  static_assert(kKind == 1 || kKind == 2 || kKind == 7 || kKind == 8, "wgmma multiplies f16, bf16, e4m3 and e5m2 here");
  return kKind == 1 ? sm90::wgmma_type::f16
         : kKind == 2 ? sm90::wgmma_type::bf16
         : kKind == 7 ? sm90::wgmma_type::e4m3
                      : sm90::wgmma_type::e5m2;
}

// The TMA coordinate of the first element of block `block` of `extent` elements, for arrays
// shorter than 2^30 along it: blocks far outside stay outside, without overflow.
WEFT_TILE_FN int32_t tma_coordinate(int64_t block, uint32_t extent) {
  constexpr int64_t kFar = int64_t{1} << 30;
  const int64_t clamped = block < -kFar ? -kFar : block > kFar ? kFar : block;
  const int64_t element = clamped * extent;
  return static_cast<int32_t>(element < -kFar ? -kFar : element > kFar ? kFar : element);
}

// The register fragment of wgmma instruction `am` (64 rows by N) in an accumulator of layout L.
template <uint32_t N, class Result>
WEFT_TILE_FN float (&wgmma_fragment(Result& out, uint32_t am))[N / 2] {
  return *reinterpret_cast<float(*)[N / 2]>(&out.frag_[am * (N / 2)]);
}

// The TMA/wgmma ring (see the file comment); `ring` is the dynamic shared memory from a
// 1024-byte boundary, with room for Stages stages.
template <class SA, class SB, uint32_t Stages, class A, bool KMajorB, class Result, class K, class IndexA, class IndexB>
WEFT_TILE_FN Result wgmma_k_loop(Result out, unsigned char* ring, const tma_operands& tma, K begin, K end,
                                 IndexA index_a, IndexB index_b) {
  constexpr uint32_t M = static_cast<uint32_t>(SA::static_extent(0)), Kt = static_cast<uint32_t>(SA::static_extent(1));
  constexpr uint32_t N = static_cast<uint32_t>(SB::static_extent(1));
  constexpr uint32_t kElementBytes = sizeof(A);
  using L = typename Result::layout_type;
  using TileA = sm90::smem_tile<M, Kt, kElementBytes, sm90::swizzle::b128>;  // K-major
  // b as stored: K-major (N x Kt) or N-major (Kt x N).
  using TileB = conditional_t<KMajorB, sm90::smem_tile<N, Kt, kElementBytes, sm90::swizzle::b128>,
                              sm90::smem_tile<Kt, N, kElementBytes, sm90::swizzle::b128>>;
  static_assert(TileA::kBoxCols == sm90::pipeline_box_columns(kElementBytes) &&
                    TileB::kBoxCols == sm90::pipeline_box_columns(kElementBytes) &&
                    static_cast<uint8_t>(TileA::kSwizzle) == sm90::kPipelineSwizzle,
                "the stages are the boxes of the kernel's tensor maps");
  constexpr uint32_t kStageBytes = TileA::kBytes + TileB::kBytes;
  constexpr sm90::wgmma_type kType = wgmma_type_of<A>();
  __shared__ uint64_t full[Stages];
  const int64_t steps = static_cast<int64_t>(end) - static_cast<int64_t>(begin);
  if (steps <= 0) return out;
  const uint32_t t = thread_rank(), warpgroup = t / 128;
  if (t == 0) {
    sm90::tma_prefetch_descriptor(tma.a);
    sm90::tma_prefetch_descriptor(tma.b);
    for (uint32_t s = 0; s < Stages; ++s) sm90::mbarrier_init(&full[s], 1);
    sm90::fence_mbarrier_init();
  }
  // Earlier generic writes to the ring (a fallback loop's) come before the TMA writes.
  sm90::fence_proxy_async();
  block_sync();
  // Thread 0: the copies of K step `step` into its stage.
  const auto issue = [&](int64_t step) {
    const K k = static_cast<K>(static_cast<int64_t>(begin) + step);
    const block_index<2> ia = index_a(k), ib = index_b(k);
    unsigned char* stage = ring + static_cast<uint32_t>(step % Stages) * kStageBytes;
    uint64_t* bar = &full[step % Stages];
    sm90::mbarrier_arrive_expect_tx(bar, kStageBytes);
    const int32_t rowA = tma_coordinate(ia.at[0], M), colA = tma_coordinate(ia.at[1], Kt);
    // b's block index is of its K x N tiles; its map is of the array as stored.
    const int32_t rowB = KMajorB ? tma_coordinate(ib.at[1], N) : tma_coordinate(ib.at[0], Kt);
    const int32_t colB = KMajorB ? tma_coordinate(ib.at[0], Kt) : tma_coordinate(ib.at[1], N);
    WEFT_UNROLL
    for (uint32_t slab = 0; slab < TileA::kSlabs; ++slab) {
      sm90::tma_load(stage + slab * TileA::kSlabBytes, tma.a, bar, colA + static_cast<int32_t>(slab * TileA::kSlabCols), rowA);
    }
    WEFT_UNROLL
    for (uint32_t slab = 0; slab < TileB::kSlabs; ++slab) {
      sm90::tma_load(stage + TileA::kBytes + slab * TileB::kSlabBytes, tma.b, bar,
                     colB + static_cast<int32_t>(slab * TileB::kSlabCols), rowB);
    }
  };
  if (t == 0) {
    for (int64_t s = 0; s < Stages && s < steps; ++s) issue(s);
  }
  WEFT_NO_UNROLL
  for (int64_t step = 0; step < steps; ++step) {
    const uint32_t slot = static_cast<uint32_t>(step % Stages);
    sm90::mbarrier_wait(&full[slot], static_cast<uint32_t>(step / Stages) & 1u);
    const uint32_t a = sm90::shared_address(ring + slot * kStageBytes), b = a + TileA::kBytes;
    sm90::wgmma_fence();
    WEFT_UNROLL
    for (uint32_t ks = 0; ks < Kt * kElementBytes / sm90::kWgmmaStepBytes; ++ks) {
      const uint64_t descriptorB = KMajorB ? TileB::k_major_descriptor(b, ks) : TileB::mn_major_descriptor(b, ks);
      WEFT_UNROLL
      for (uint32_t am = 0; am < L::kAtomsM; ++am) {
        sm90::wgmma<kType, N, !KMajorB>(wgmma_fragment<N>(out, am),
                                        TileA::k_major_descriptor(a, ks, L::atom_row(4 * warpgroup, am)), descriptorB,
                                        true);
      }
    }
    sm90::wgmma_commit();
    sm90::wgmma_wait<1>();
    // Every warpgroup's wgmmas of step - 1 have completed: its stage takes step - 1 + Stages.
    block_sync();
    if (t == 0 && step >= 1 && step - 1 + Stages < steps) issue(step - 1 + Stages);
  }
  sm90::wgmma_wait<0>();
  WEFT_UNROLL
  for (uint32_t am = 0; am < L::kAtomsM; ++am) sm90::wgmma_fence_operands(wgmma_fragment<N>(out, am));
  block_sync();  // the ring is free for the next pipeline
  return out;
}
#endif

}  // namespace detail

// The accumulator tile type of a pipelined K loop of A (M x K) and B (K x N) tiles (see
// detail::uses_wgmma_layout): weft's code generator declares the loop's accumulator so.
template <class ATile, class BTile>
using mma_pipeline_accumulator_t = typename detail::pipeline_accumulator<ATile, BTile>::type;

// See the file comment.
template <class SA, class SB, uint32_t Stages, uint32_t TmaStages, bool KMajorB = false, class C, class SC, class LC,
          class SpanA, class SpanB, class K, class IndexA, class IndexB>
WEFT_TILE_FN auto mma_pipeline_tma(const tile<C, SC, LC>& acc, const SpanA& a, const SpanB& b, K begin, K end,
                                   IndexA index_a, IndexB index_b, const tma_operands& tma) {
#if defined(WEFT_TILES_WGMMA)
  using A = typename SpanA::value_type;
  constexpr uint32_t M = static_cast<uint32_t>(SA::static_extent(0)), Kt = static_cast<uint32_t>(SA::static_extent(1));
  constexpr uint32_t N = static_cast<uint32_t>(SB::static_extent(1));
  using Result = decltype(mma(tile<A, SA>{}, tile<A, SB>{}, acc));
  if constexpr (SA::rank() == 2 && SB::rank() == 2 && detail::tma_pipelines<A, M, Kt, N, KMajorB>() &&
                detail::is_same_v<Result, typename detail::pipeline_accumulator<tile<A, SA>, tile<A, SB>>::type>) {
    constexpr uint32_t kStageBytes = mma_stage_bytes<A, SA, SB>;
    constexpr uint64_t kFar = uint64_t{1} << 30;
    unsigned char* ring = detail::stage_ring();
    const uint32_t pad = (1024u - sm90::shared_address(ring) % 1024u) % 1024u;
    const bool fits = static_cast<uint64_t>(a.extent(0)) < kFar && static_cast<uint64_t>(a.extent(1)) < kFar &&
                      static_cast<uint64_t>(b.extent(0)) < kFar && static_cast<uint64_t>(b.extent(1)) < kFar;
    if (tma.valid && fits && detail::dynamic_shared_bytes() >= pad + TmaStages * kStageBytes) {
      return detail::wgmma_k_loop<SA, SB, TmaStages, A, KMajorB>(Result(acc), ring + pad, tma, begin, end, index_a,
                                                                 index_b);
    }
    // The launches the maps cannot take (arrays TMA cannot address, 2^30 elements or more along an
    // axis, a map the driver refused, a device without the ring's shared memory) are rare, and
    // mostly ones the cp.async ring cannot take either: they read fragments from global memory
    // (mma_pipeline's fallback, the same sums), and the ring is not compiled into every such
    // kernel (about 0.4 s of NVRTC for a 128 x 256 x 64 loop).
    return detail::mma_loop_by_fragments<SA, SB, A>(Result(acc), a, b, begin, end, index_a, index_b);
  }
#else
  (void)tma;
#endif
  return mma_pipeline<SA, SB, Stages, void, KMajorB>(acc, a, b, begin, end, index_a, index_b);
}

}  // namespace weft::tiles
