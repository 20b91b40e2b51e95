// Reductions and scans along an axis of a tile (and over all elements).
//
// GPU algorithm (a tile in the blocked layout; others are converted first). The row-major index
// of an element held at (thread t, slot f, vector lane v) is i = (f*T + t)*V + v, so its bits are
// [v bits | t bits | f bits] from the lowest, and an axis is a contiguous range of those bits.
// A reduction combines the elements within a thread whose index differs only in the axis's v
// and f bits; then lanes whose axis bits differ, by xor-shuffle butterflies; then warps, through
// the shared scratch buffer, from which every thread also reads its elements of the result in
// the result's layout. A thread never walks a whole row of a wide tile: a row of an (R, 8192)
// tile is spread over the whole block. A scan does the same in three levels (a sequential scan
// within a vector, a shuffle scan over lanes plus a scan of warp totals through shared memory,
// and a carry over slots). Every result combines real elements only (the identity is never
// used), and floating sums are computed in the element type: their order differs between the
// GPU and the CPU target (which combines sequentially along the axis).
#pragma once

#include "weft/tiles/shape_ops.h"

namespace weft::tiles {

namespace detail {

// The shape S without dimension Axis, or with it set to 1 (keepdims).
template <class S, size_t Axis, bool KeepDims, size_t... I>
WEFT_HD constexpr auto reduced_shape(index_sequence<I...>) {
  if constexpr (KeepDims) {
    return type_identity<shape<static_cast<uint32_t>(I == Axis ? 1 : S::static_extent(I))...>>{};
  } else {
    return type_identity<shape<static_cast<uint32_t>(S::static_extent(I < Axis ? I : I + 1))...>>{};
  }
}
template <class S, size_t Axis, bool KeepDims>
using reduced_shape_t = typename decltype(reduced_shape<S, Axis, KeepDims>(
    make_index_sequence<KeepDims ? S::rank() : S::rank() - 1>{}))::type;

WEFT_HD constexpr uint32_t bit_range(uint32_t lo, uint32_t hi) {
  return ((hi >= 32 ? 0u : (1u << hi)) - 1u) & ~((1u << lo) - 1u);
}
WEFT_HD constexpr uint32_t popcount_of(uint32_t x) {
  uint32_t n = 0;
  for (; x != 0; x &= x - 1) ++n;
  return n;
}
WEFT_HD constexpr uint32_t lowest_bit(uint32_t x) {
  uint32_t n = 0;
  while (x != 0 && (x & 1u) == 0) {
    x >>= 1;
    ++n;
  }
  return n;
}

// Which bits of the thread rank, the vector lane and the slot an axis of an N-element blocked
// tile covers: the axis spans row-major index bits [Lo, Hi).
template <uint32_t N, uint32_t Lo, uint32_t Hi>
struct axis_bits {
  using L = blocked_layout<N>;
  static constexpr uint32_t kVBits = log2_of(L::kVector);
  static constexpr uint32_t kTBits = log2_of(L::kVectors < kBlockThreads ? L::kVectors : kBlockThreads);
  static constexpr uint32_t kRange = bit_range(Lo, Hi);
  static constexpr uint32_t kVIn = kRange & (L::kVector - 1);
  static constexpr uint32_t kTIn = (kRange >> kVBits) & ((1u << kTBits) - 1u);
  static constexpr uint32_t kFIn = (kRange >> (kVBits + kTBits)) & (L::kSlots - 1);
  static constexpr uint32_t kKIn = kVIn | (kFIn << kVBits);  // the axis's bits of a fragment position
  static constexpr uint32_t kLaneIn = kTIn & 31u;
  static constexpr uint32_t kWarpIn = kTIn >> 5;
  static constexpr uint32_t kWarpGroups = 1u << popcount_of(kWarpIn);
  // The row-major index without the axis's bits.
  WEFT_HD static constexpr uint32_t without_axis(uint32_t i) { return (i & ((1u << Lo) - 1u)) | ((i >> Hi) << Lo); }
  // The axis's warp bits of thread t, compressed.
  WEFT_HD static constexpr uint32_t warp_group(uint32_t t) {
    uint32_t w = t >> 5, out = 0, bit = 0;
    for (uint32_t b = 0; b < 16; ++b) {
      if (kWarpIn & (1u << b)) {
        out |= ((w >> b) & 1u) << bit;
        ++bit;
      }
    }
    return out;
  }
};

// out := the reduction of x along the axis covering index bits [Lo, Hi) (x: the fragment of an
// N-element blocked tile; out: the fragment of the M-element blocked result).
template <uint32_t N, uint32_t Lo, uint32_t Hi, uint32_t M, class V, class Op>
WEFT_TILE_FN void reduce_fragment(const V* x, V* out, Op& op) {
#if defined(WEFT_TILES_SERIAL)
  constexpr uint32_t kInner = 1u << Lo, kLength = 1u << (Hi - Lo);
  for (uint32_t j = 0; j < M; ++j) {
    uint32_t base = (j / kInner) * kInner * kLength + j % kInner;
    V r = x[base];
    for (uint32_t a = 1; a < kLength; ++a) r = op(r, x[base + a * kInner]);
    out[j] = r;
  }
#else
  using L = blocked_layout<N>;
  using LO = blocked_layout<M>;
  using B = axis_bits<N, Lo, Hi>;
  const uint32_t t = thread_rank();
  // Within the thread: partial[k] for every position k with no axis bits.
  V partial[L::kFragment];
  WEFT_UNROLL
  for (uint32_t k = 0; k < L::kFragment; ++k) {
    constexpr uint32_t kMask = B::kKIn;
    if ((k & kMask) == 0) {
      partial[k] = x[k];
    } else {
      partial[k & ~kMask] = op(partial[k & ~kMask], x[k]);
    }
  }
  // Across lanes: butterflies over the axis's lane bits (every lane gets the result).
  WEFT_UNROLL
  for (uint32_t b = 0; b < 5; ++b) {
    if (B::kLaneIn & (1u << b)) {
      WEFT_UNROLL
      for (uint32_t k = 0; k < L::kFragment; ++k) {
        if ((k & B::kKIn) == 0) partial[k] = op(partial[k], shfl_xor(partial[k], 1u << b));
      }
    }
  }
  // Across warps, and into the result's layout: one lane of each lane group writes its partial
  // at [j * groups + warp group]; each thread combines the groups of its result elements.
  constexpr uint32_t kGroups = B::kWarpGroups;
  constexpr uint32_t kCapacity = scratch_capacity<V> / kGroups;
  constexpr uint32_t kChunk = kCapacity < M ? kCapacity : M;
  static_assert(kChunk >= 1, "reduction scratch too small for this block size");
  V* buffer = scratch_as<V>();
  const bool writer = L::owner(t) && ((t & 31u) & B::kLaneIn) == 0;
  const uint32_t group = B::warp_group(t);
  WEFT_NO_UNROLL
  for (uint32_t base = 0; base < M; base += kChunk) {
    block_sync();
    if (writer) {
      WEFT_UNROLL
      for (uint32_t k = 0; k < L::kFragment; ++k) {
        if ((k & B::kKIn) == 0) {
          uint32_t j = B::without_axis(L::index(t, k)) - base;
          if (kChunk == M || j < kChunk) buffer[j * kGroups + group] = partial[k];
        }
      }
    }
    block_sync();
    if constexpr (LO::kVectors == 1 && kGroups > 1 && kChunk == M) {
      // Every thread holds the same result elements (a row's total, as in a row softmax): lane
      // l reads group l % kGroups and butterflies over the low lane bits combine the groups, so
      // a thread holds one group's partial at a time instead of all of them (with 16 warps, 16
      // registers more: a bfloat16 row softmax took 40 instead of 32, one tile block an SM less).
      static_assert(kGroups <= 32, "a warp combines at most 32 groups");
      const uint32_t mine = t & (kGroups - 1u);
      WEFT_UNROLL
      for (uint32_t k = 0; k < LO::kFragment; ++k) {
        V r = buffer[LO::index(t, k) * kGroups + mine];
        WEFT_UNROLL
        for (uint32_t m = 1; m < kGroups; m <<= 1) r = op(r, shfl_xor(r, m));
        out[k] = r;
      }
    } else {
      WEFT_UNROLL
      for (uint32_t k = 0; k < LO::kFragment; ++k) {
        uint32_t j = LO::index(t, k) - base;
        if (kChunk == M || j < kChunk) {
          V r = buffer[j * kGroups];
          WEFT_UNROLL
          for (uint32_t g = 1; g < kGroups; ++g) r = op(r, buffer[j * kGroups + g]);
          out[k] = r;
        }
      }
    }
  }
#endif
}

// x := its inclusive scan along the axis covering index bits [Lo, Hi) (x: the fragment of an
// N-element blocked tile).
template <uint32_t N, uint32_t Lo, uint32_t Hi, class V, class Op>
WEFT_TILE_FN void scan_fragment(V* x, Op& op) {
#if defined(WEFT_TILES_SERIAL)
  constexpr uint32_t kInner = 1u << Lo, kLength = 1u << (Hi - Lo);
  for (uint32_t j = 0; j < N / kLength; ++j) {
    uint32_t base = (j / kInner) * kInner * kLength + j % kInner;
    for (uint32_t a = 1; a < kLength; ++a) x[base + a * kInner] = op(x[base + (a - 1) * kInner], x[base + a * kInner]);
  }
#else
  using L = blocked_layout<N>;
  using B = axis_bits<N, Lo, Hi>;
  const uint32_t t = thread_rank();
  const uint32_t lane = t & 31u;
  // 1. Within each vector: a sequential scan over the axis's v bits. total[r]: the last value of
  // the group whose representative (axis v bits zero) is r.
  constexpr uint32_t kVStep = B::kVIn == 0 ? 0 : 1u << lowest_bit(B::kVIn);
  V total[L::kFragment];
  WEFT_UNROLL
  for (uint32_t k = 0; k < L::kFragment; ++k) {
    if constexpr (kVStep != 0) {
      if ((k & B::kVIn) != 0) x[k] = op(x[k - kVStep], x[k]);
    }
    total[k & ~B::kVIn] = x[k];
  }
  // 2. Over the axis's thread bits: an inclusive shuffle scan over the lane bits, then warp
  // totals through shared memory. before[r] (valid if hasBefore[r]) is what precedes the group
  // in the threads before this one; block[r] the group total over the whole block.
  constexpr uint32_t kLaneShift = B::kLaneIn == 0 ? 0 : lowest_bit(B::kLaneIn);
  constexpr uint32_t kLaneCount = 1u << popcount_of(B::kLaneIn);
  const uint32_t s = (lane >> kLaneShift) & (kLaneCount - 1u);
  V before[L::kFragment], block[L::kFragment];
  bool hasBefore[L::kFragment];
  WEFT_UNROLL
  for (uint32_t k = 0; k < L::kFragment; ++k) {
    if ((k & B::kVIn) != 0) continue;
    V inclusive = total[k];
    WEFT_UNROLL
    for (uint32_t d = 1; d < kLaneCount; d <<= 1) {
      V lower = shfl_up(inclusive, d << kLaneShift);
      if (s >= d) inclusive = op(lower, inclusive);
    }
    before[k] = shfl_up(inclusive, 1u << kLaneShift);
    hasBefore[k] = kLaneCount > 1 && s > 0;
    block[k] = kLaneCount > 1 ? shfl_idx(inclusive, lane | ((kLaneCount - 1u) << kLaneShift)) : inclusive;
  }
  if constexpr (B::kWarpIn != 0) {
    // Keys: the index without the axis's v and t bits (slot and other bits kept).
    constexpr uint32_t kGroups = B::kWarpGroups;
    // The axis's v and t bits are the index bits [Lo, kDropHi): a key drops them.
    constexpr uint32_t kDropHi = Hi < B::kVBits + B::kTBits ? Hi : B::kVBits + B::kTBits;
    constexpr uint32_t kKeys = N >> (kDropHi - Lo);
    constexpr uint32_t kCapacity = scratch_capacity<V> / kGroups;
    constexpr uint32_t kChunk = kCapacity < kKeys ? kCapacity : kKeys;
    auto key = [](uint32_t i) { return (i & ((1u << Lo) - 1u)) | ((i >> kDropHi) << Lo); };
    V* buffer = scratch_as<V>();
    const uint32_t group = B::warp_group(t);
    const bool writer = s == 0 && L::owner(t);
    WEFT_NO_UNROLL
    for (uint32_t base = 0; base < kKeys; base += kChunk) {
      block_sync();
      if (writer) {
        WEFT_UNROLL
        for (uint32_t k = 0; k < L::kFragment; ++k) {
          if ((k & B::kVIn) != 0) continue;
          uint32_t j = key(L::index(t, k)) - base;
          if (kChunk == kKeys || j < kChunk) buffer[j * kGroups + group] = block[k];
        }
      }
      block_sync();
      WEFT_UNROLL
      for (uint32_t k = 0; k < L::kFragment; ++k) {
        if ((k & B::kVIn) != 0) continue;
        uint32_t j = key(L::index(t, k)) - base;
        if (kChunk == kKeys || j < kChunk) {
          V warpsBefore = buffer[j * kGroups];
          V all = warpsBefore;
          WEFT_UNROLL
          for (uint32_t g = 1; g < kGroups; ++g) {
            V value = buffer[j * kGroups + g];
            if (g < group) warpsBefore = op(warpsBefore, value);
            all = op(all, value);
          }
          if (group > 0) {
            before[k] = hasBefore[k] ? op(warpsBefore, before[k]) : warpsBefore;
            hasBefore[k] = true;
          }
          block[k] = all;
        }
      }
    }
  }
  // 3. Over the axis's slot bits: the carry of the earlier slots' block totals.
  constexpr uint32_t kFStep = B::kFIn == 0 ? 0 : (1u << lowest_bit(B::kFIn)) * L::kVector;
  constexpr uint32_t kFInK = B::kFIn * L::kVector;
  V carry[L::kFragment];
  WEFT_UNROLL
  for (uint32_t k = 0; k < L::kFragment; ++k) {
    if ((k & B::kVIn) != 0) continue;
    if constexpr (kFStep != 0) {
      if ((k & kFInK) != 0) {
        uint32_t previous = k - kFStep;
        carry[k] = (previous & kFInK) != 0 ? op(carry[previous], block[previous]) : block[previous];
        before[k] = hasBefore[k] ? op(carry[k], before[k]) : carry[k];
        hasBefore[k] = true;
      }
    }
  }
  WEFT_UNROLL
  for (uint32_t k = 0; k < L::kFragment; ++k) {
    uint32_t r = k & ~B::kVIn;
    if (hasBefore[r]) x[k] = op(before[r], x[k]);
  }
#endif
}

template <class S, size_t Axis>
WEFT_HD constexpr bool check_axis() {
  static_assert(Axis < S::rank(), "the axis must be less than the tile's rank");
  return true;
}

// The [Lo, Hi) index bits of axis Axis of shape S.
template <class S, size_t Axis>
inline constexpr uint32_t axis_lo = log2_of(shape_info<S>::stride(static_cast<uint32_t>(Axis)));
template <class S, size_t Axis>
inline constexpr uint32_t axis_hi = axis_lo<S, Axis> + log2_of(S::static_extent(Axis));

// (value, index) pairs of argmax/argmin: larger (smaller) value wins, NaN beats every number,
// ties go to the smaller index.
template <class T, class I>
struct value_index {
  T value;
  I index;
};
template <bool Max, class T, class I>
WEFT_HD value_index<T, I> pick(const value_index<T, I>& a, const value_index<T, I>& b) {
  bool aNan = e_isnan(a.value), bNan = e_isnan(b.value);
  if (aNan || bNan) {
    if (aNan && bNan) return a.index <= b.index ? a : b;
    return aNan ? a : b;
  }
  auto x = comparable(a.value), y = comparable(b.value);
  if (x == y) return a.index <= b.index ? a : b;
  return (Max ? x > y : x < y) ? a : b;
}

// How a tile of layout L reduces along the columns of a rank-2 shape in place, without the
// blocked layout's exchange: kRows false here; mma.h specializes it for the mma layouts, whose
// rows reduce in registers and quad shuffles into their row layout.
template <class L>
struct row_reduction {
  static constexpr bool kRows = false;
};

}  // namespace detail

// The reduction of t along Axis with the associative and commutative `op` (result dimension of
// length 1 if KeepDims, else removed). `identity` is op's identity; every result here combines
// actual elements, so it is accepted for the seed's signature only.
template <size_t Axis, bool KeepDims = false, class T, class S, class L, class Op, class I>
WEFT_TILE_FN auto reduce(const tile<T, S, L>& t, Op op, I identity) {
  static_assert(detail::check_axis<S, Axis>());
  (void)identity;
  using R = detail::remove_cvref_t<decltype(op(t.frag_[0], t.frag_[0]))>;
  static_assert(detail::is_same_v<R, T>, "a reduction's op must return the element type");
  using SO = detail::reduced_shape_t<S, Axis, KeepDims>;
  if constexpr (S::rank() == 2 && Axis == 1 && detail::row_reduction<L>::kRows) {
    return detail::row_reduction<L>::template reduce<SO>(t, op);
  } else {
    using In = tile<T, S>;
    In x = t;
    tile<T, SO> out;
    detail::reduce_fragment<In::size(), detail::axis_lo<S, Axis>, detail::axis_hi<S, Axis>, tile<T, SO>::size()>(x.frag_, out.frag_, op);
    return out;
  }
}

namespace detail {
template <class T, class S, class L>
WEFT_TILE_FN auto flatten(const tile<T, S, L>& t) {
  return ::weft::tiles::reshape<shape<static_cast<uint32_t>(static_size<S>())>>(t);
}
template <class X>
WEFT_HD constexpr bool check_reducible() {
  static_assert(is_arithmetic<element_of<X>>,
                "reductions and scans take tiles of integral or basic floating point elements");
  return true;
}
}  // namespace detail

// Sum along Axis (integers wrap; floating point in the element type's precision), or of all
// elements (a rank-0 tile).
template <size_t Axis, bool KeepDims = false, class T, class S, class L>
WEFT_TILE_FN auto sum(const tile<T, S, L>& t) {
  static_assert(detail::check_reducible<tile<T, S, L>>());
  return ::weft::tiles::reduce<Axis, KeepDims>(t, [](T a, T b) { return detail::e_add<detail::modifiers<0, false>>(a, b); }, T{});
}
template <class T, class S, class L>
WEFT_TILE_FN auto sum(const tile<T, S, L>& t) {
  return ::weft::tiles::sum<0>(detail::flatten(t));
}
// Product along Axis (integers wrap), or of all elements.
template <size_t Axis, bool KeepDims = false, class T, class S, class L>
WEFT_TILE_FN auto prod(const tile<T, S, L>& t) {
  static_assert(detail::check_reducible<tile<T, S, L>>());
  return ::weft::tiles::reduce<Axis, KeepDims>(t, [](T a, T b) { return detail::e_mul<detail::modifiers<0, false>>(a, b); },
                                detail::scalar_convert<T>(1));
}
template <class T, class S, class L>
WEFT_TILE_FN auto prod(const tile<T, S, L>& t) {
  return ::weft::tiles::prod<0>(detail::flatten(t));
}
// Maximum along Axis, or of all elements; a NaN mode as for ct::max (default: suppress NaN).
template <size_t Axis, bool KeepDims = false, class T, class S, class L, class NanMode = suppress_nan_t>
WEFT_TILE_FN auto max(const tile<T, S, L>& t, NanMode = {}) {
  static_assert(detail::check_reducible<tile<T, S, L>>() && detail::is_nan_mode<NanMode>);
  constexpr bool kPropagate = detail::is_same_v<NanMode, propagate_nan_t>;
  return ::weft::tiles::reduce<Axis, KeepDims>(t, [](T a, T b) { return detail::e_minmax<true, kPropagate>(a, b); }, T{});
}
template <class T, class S, class L>
WEFT_TILE_FN auto max(const tile<T, S, L>& t) {
  return ::weft::tiles::max<0>(detail::flatten(t));
}
template <class T, class S, class L>
WEFT_TILE_FN auto max(const tile<T, S, L>& t, propagate_nan_t mode) {
  return ::weft::tiles::max<0>(detail::flatten(t), mode);
}
// Minimum along Axis, or of all elements.
template <size_t Axis, bool KeepDims = false, class T, class S, class L, class NanMode = suppress_nan_t>
WEFT_TILE_FN auto min(const tile<T, S, L>& t, NanMode = {}) {
  static_assert(detail::check_reducible<tile<T, S, L>>() && detail::is_nan_mode<NanMode>);
  constexpr bool kPropagate = detail::is_same_v<NanMode, propagate_nan_t>;
  return ::weft::tiles::reduce<Axis, KeepDims>(t, [](T a, T b) { return detail::e_minmax<false, kPropagate>(a, b); }, T{});
}
template <class T, class S, class L>
WEFT_TILE_FN auto min(const tile<T, S, L>& t) {
  return ::weft::tiles::min<0>(detail::flatten(t));
}
template <class T, class S, class L>
WEFT_TILE_FN auto min(const tile<T, S, L>& t, propagate_nan_t mode) {
  return ::weft::tiles::min<0>(detail::flatten(t), mode);
}

namespace detail {
template <bool Max, size_t Axis, bool KeepDims, class I, class T, class S, class L>
WEFT_TILE_FN auto arg_extreme(const tile<T, S, L>& t) {
  static_assert(check_axis<S, Axis>() && check_reducible<tile<T, S, L>>());
  static_assert(is_integral<I>, "the index type of argmax/argmin is an integer type");
  using P = value_index<T, I>;
  using In = tile<T, S>;
  using SO = reduced_shape_t<S, Axis, KeepDims>;
  In x = t;
  constexpr uint32_t kLo = axis_lo<S, Axis>, kHi = axis_hi<S, Axis>;
  const uint32_t thread = thread_rank();
  P pairs[In::fragment_size];
  WEFT_UNROLL
  for (uint32_t k = 0; k < In::fragment_size; ++k) {
    uint32_t i = In::layout_type::index(thread, k);
    pairs[k] = P{x.frag_[k], static_cast<I>((i >> kLo) & ((1u << (kHi - kLo)) - 1u))};
  }
  P result[tile<I, SO>::fragment_size];
  auto op = [](const P& a, const P& b) { return pick<Max>(a, b); };
  reduce_fragment<In::size(), kLo, kHi, tile<I, SO>::size()>(pairs, result, op);
  tile<I, SO> out;
  WEFT_UNROLL
  for (uint32_t k = 0; k < tile<I, SO>::fragment_size; ++k) out.frag_[k] = result[k].index;
  return out;
}
}  // namespace detail

// The index along Axis of the maximum (minimum) element, the first one on ties; NaN counts as
// the maximum (and the minimum). Without an axis: the row-major index over all elements.
template <size_t Axis, bool KeepDims = false, class I = int32_t, class T, class S, class L>
WEFT_TILE_FN auto argmax(const tile<T, S, L>& t) {
  return detail::arg_extreme<true, Axis, KeepDims, I>(t);
}
template <class I = int32_t, class T, class S, class L>
WEFT_TILE_FN auto argmax(const tile<T, S, L>& t) {
  return detail::arg_extreme<true, 0, false, I>(detail::flatten(t));
}
template <size_t Axis, bool KeepDims = false, class I = int32_t, class T, class S, class L>
WEFT_TILE_FN auto argmin(const tile<T, S, L>& t) {
  return detail::arg_extreme<false, Axis, KeepDims, I>(t);
}
template <class I = int32_t, class T, class S, class L>
WEFT_TILE_FN auto argmin(const tile<T, S, L>& t) {
  return detail::arg_extreme<false, 0, false, I>(detail::flatten(t));
}

// The inclusive scan of t along Axis with the associative `op` (applied in index order:
// op(earlier, later)).
template <size_t Axis, class T, class S, class L, class Op>
WEFT_TILE_FN auto scan(const tile<T, S, L>& t, Op op) {
  static_assert(detail::check_axis<S, Axis>());
  using R = detail::remove_cvref_t<decltype(op(t.frag_[0], t.frag_[0]))>;
  static_assert(detail::is_same_v<R, T>, "a scan's op must return the element type");
  tile<T, S> x = t;
  detail::scan_fragment<tile<T, S>::size(), detail::axis_lo<S, Axis>, detail::axis_hi<S, Axis>>(x.frag_, op);
  return x;
}
namespace detail {
// t with its elements along Axis in reverse order.
template <size_t Axis, class T, class S, class L>
WEFT_TILE_FN tile<T, S> flip(const tile<T, S, L>& t) {
  tile<T, S> out;
  exchange(out, t, [](uint32_t j) {
    constexpr int32_t kStride = static_cast<int32_t>(shape_info<S>::stride(static_cast<uint32_t>(Axis)));
    constexpr int32_t kExtent = static_cast<int32_t>(S::static_extent(Axis));
    int32_t c = (static_cast<int32_t>(j) / kStride) % kExtent;
    return static_cast<int32_t>(j) + (kExtent - 1 - 2 * c) * kStride;
  });
  return out;
}
}  // namespace detail

// The inclusive scan of t along Axis from its end: element i combines elements i .. n-1, as
// op(the combination of i+1 .. n-1, element i).
template <size_t Axis, class T, class S, class L, class Op>
WEFT_TILE_FN auto reverse_scan(const tile<T, S, L>& t, Op op) {
  static_assert(detail::check_axis<S, Axis>());
  return detail::flip<Axis>(::weft::tiles::scan<Axis>(detail::flip<Axis>(t), op));
}

// Inclusive cumulative sum / product along Axis (integers wrap).
template <size_t Axis, class T, class S, class L>
WEFT_TILE_FN auto cumsum(const tile<T, S, L>& t) {
  static_assert(detail::check_reducible<tile<T, S, L>>());
  return ::weft::tiles::scan<Axis>(t, [](T a, T b) { return detail::e_add<detail::modifiers<0, false>>(a, b); });
}
template <size_t Axis, class T, class S, class L>
WEFT_TILE_FN auto cumprod(const tile<T, S, L>& t) {
  static_assert(detail::check_reducible<tile<T, S, L>>());
  return ::weft::tiles::scan<Axis>(t, [](T a, T b) { return detail::e_mul<detail::modifiers<0, false>>(a, b); });
}

}  // namespace weft::tiles
