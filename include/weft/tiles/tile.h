// The tile type (the seed's ct::tile<E, S>) and its layouts, plus the exchange primitive every
// data-moving operation uses (layout conversion, broadcast, permute, cat, extract, ...).
//
// A tile value is held as per-thread fragments in a layout L. A layout maps (thread, fragment
// position k) to the row-major index of the element held there, and names the threads whose
// elements are the unique owners (stores and atomics are done once per element, by its owner):
//   static constexpr uint32_t kSize, kFragment;           elements of the tile / of a fragment
//   static uint32_t index(uint32_t thread, uint32_t k);    row-major index held at (thread, k)
//   static bool owner(uint32_t thread);                    the thread's elements are owned by it
//   static constexpr uint32_t kVector;                     fragment positions k..k+kVector-1
//                                                          (k a multiple) hold consecutive
//                                                          row-major elements (vector accesses)
//
// The default layout is blocked_layout<N>: the row-major sequence is cut into vectors of
// kVector = min(kMaxVector, max(1, N / kBlockThreads)) consecutive elements, dealt to the threads
// round-robin; a tile smaller than the block is replicated (thread t holds element t % N). The
// layout depends on the size only, never on the element type or the rank, so element-wise
// operations between tiles of any element types and reshapes move no data. On the CPU target
// (one thread) every layout is the identity: the fragment is the row-major tile.
#pragma once

#include "weft/tiles/extents.h"

namespace weft::tiles {

// The most consecutive elements a thread holds in one vector of the blocked layout: by default 4
// (16 bytes of float32; 8 of float16; two 16-byte accesses of float64). weft's code generator
// gives a kernel whose tile accesses move 16-bit elements 8 (16-byte accesses of those).
#if !defined(WEFT_TILE_MAX_VECTOR)
#define WEFT_TILE_MAX_VECTOR 4
#endif
inline constexpr uint32_t kMaxVector = WEFT_TILE_MAX_VECTOR;
static_assert(kMaxVector == 1 || kMaxVector == 2 || kMaxVector == 4 || kMaxVector == 8 || kMaxVector == 16,
              "WEFT_TILE_MAX_VECTOR must be a power of 2 from 1 to 16");

// The blocked layout of a tile of N elements (see the file comment).
template <uint32_t N>
struct blocked_layout {
  static constexpr uint32_t kSize = N;
  static constexpr uint32_t kVector = detail::min_of(kMaxVector, detail::max_of(1u, N / kBlockThreads));
  static constexpr uint32_t kVectors = N / kVector;
  static constexpr bool kReplicated = kVectors < kBlockThreads;
  static constexpr uint32_t kSlots = kReplicated ? 1 : kVectors / kBlockThreads;
  static constexpr uint32_t kFragment = kSlots * kVector;

  // The row-major index of fragment element k of `thread`.
  WEFT_HD static constexpr uint32_t index(uint32_t thread, uint32_t k) {
    uint32_t vector = kReplicated ? thread % kVectors : (k / kVector) * kBlockThreads + thread;
    return vector * kVector + k % kVector;
  }
  // Whether `thread` owns its elements (replicas do not).
  WEFT_HD static constexpr bool owner(uint32_t thread) { return !kReplicated || thread < kVectors; }
  // The fragment position of element i in its owner (the CPU target's gathers).
  WEFT_HD static constexpr uint32_t position_of(uint32_t i) {
    return kReplicated ? 0 : (i / (kVector * kBlockThreads)) * kVector + i % kVector;
  }
};

// The default layout of a tile of shape S.
template <class S>
using default_layout_t = blocked_layout<static_cast<uint32_t>(detail::static_size<S>())>;

namespace detail {
template <class L>
inline constexpr bool is_blocked_layout = false;
template <uint32_t N>
inline constexpr bool is_blocked_layout<blocked_layout<N>> = true;
}  // namespace detail

template <class T, class S, class L = default_layout_t<S>>
class tile;

namespace detail {
template <class T>
inline constexpr bool is_tile_v = false;
template <class T, class S, class L>
inline constexpr bool is_tile_v<tile<T, S, L>> = true;

template <class T>
inline constexpr bool is_tile = is_tile_v<remove_cvref_t<T>>;

// The seed's tile-like types: scalars and tiles.
template <class T>
inline constexpr bool is_tile_like = is_tile<T> || is_scalar<remove_cvref_t<T>>;

// The element type and shape of a tile-like type (a scalar: itself, shape<>).
template <class T>
struct tile_like_info {
  using element_type = remove_cvref_t<T>;
  using shape_type = shape<>;
};
template <class T, class S, class L>
struct tile_like_info<tile<T, S, L>> {
  using element_type = T;
  using shape_type = S;
};
template <class T>
using element_of = typename tile_like_info<remove_cvref_t<T>>::element_type;
template <class T>
using shape_of = typename tile_like_info<remove_cvref_t<T>>::shape_type;

template <class T>
WEFT_HD constexpr bool check_tile_element() {
  static_assert(is_scalar<T>,
                "a tile's element type must be a scalar: bool, an 8/16/32/64-bit integer, float16, bfloat16, "
                "float, double, tfloat32, float8e4m3/e5m2, or a pointer to one of them or to void");
  return true;
}
}  // namespace detail

// A tile: an immutable value of static shape S (every dimension a power of 2) whose elements of
// type T are held as per-thread fragments in layout L. Operations on tiles are collective.
template <class T, class S, class L>
class tile {
  static_assert(detail::check_tile_element<T>());
  static_assert(detail::check_tile_shape<S>());
  static_assert(L::kSize == detail::static_size<S>(), "a tile's layout must be a layout of its size");

 public:
  using element_type = T;
  using shape_type = S;
  using layout_type = L;

  // The number of dimensions.
  WEFT_HD static constexpr size_t rank() noexcept { return S::rank(); }
  // The number of elements.
  WEFT_HD static constexpr size_t size() noexcept { return detail::static_size<S>(); }
  // The elements each thread holds.
  static constexpr uint32_t fragment_size = L::kFragment;

  // An uninitialized tile (as C++ scalars are).
  tile() = default;

  // The same elements in another layout (an exchange through shared memory; free where the
  // layouts coincide).
  template <class L2>
    requires(!detail::is_same_v<L, L2>)
  WEFT_TILE_FN tile(const tile<T, S, L2>& other);

  // A rank-0 tile from its scalar (the seed's tile conversion from a scalar to shape<>).
  WEFT_HD tile(T value)
    requires(S::rank() == 0)
  {
    for (uint32_t k = 0; k < L::kFragment; ++k) frag_[k] = value;
  }

  // The element of a rank-0 tile (a full reduction's result).
  WEFT_HD operator T() const
    requires(S::rank() == 0)
  {
    return frag_[0];
  }

  // The calling thread's fragment (an implementation detail: what the headers operate on).
  T frag_[L::kFragment];
};

// The tile type of T with element type U (a scalar T gives U).
template <class T, class U>
struct tile_with_element {
  using type = U;
};
template <class T, class S, class L, class U>
struct tile_with_element<tile<T, S, L>, U> {
  using type = tile<U, S, L>;
};
template <class T, class U>
using tile_with_element_t = typename tile_with_element<detail::remove_cvref_t<T>, U>::type;

namespace detail {

// The element type of a scratch exchange (bool travels as a byte).
template <class T>
WEFT_TILE_FN T* scratch_as() {
#if defined(WEFT_TILES_SERIAL)
  return nullptr;
#else
  return reinterpret_cast<T*>(scratch());
#endif
}

// Elements of T that fit the scratch buffer (a power of 2).
template <class T>
inline constexpr uint32_t scratch_capacity = uint32_t(1) << log2_of(kScratchBytes / sizeof(T));

// out element j (row-major index in out's shape) := src element source(j), for every j with
// source(j) >= 0; other elements of out keep their values. `source` is a function of j only.
// GPU: the owners write src to the scratch buffer in row-major order (in rounds when it does not
// fit) and every thread reads what its fragment needs. CPU: a direct gather.
template <class OT, class OS, class OL, class ST, class SS, class SL, class F>
WEFT_TILE_FN void exchange(tile<OT, OS, OL>& out, const tile<ST, SS, SL>& src, F source) {
  static_assert(is_same_v<OT, ST>, "exchange keeps the element type");
#if defined(WEFT_TILES_SERIAL)
WEFT_UNROLL
  for (uint32_t k = 0; k < OL::kFragment; ++k) {
    int32_t s = source(OL::index(0, k));
    if (s >= 0) out.frag_[k] = src.frag_[SL::position_of(static_cast<uint32_t>(s))];
  }
#else
  constexpr uint32_t n = SL::kSize;
  constexpr uint32_t chunk = scratch_capacity<ST> < n ? scratch_capacity<ST> : n;
  ST* buffer = scratch_as<ST>();
  const uint32_t t = thread_rank();
WEFT_NO_UNROLL
  for (uint32_t base = 0; base < n; base += chunk) {
    block_sync();
    if (SL::owner(t)) {
WEFT_UNROLL
      for (uint32_t k = 0; k < SL::kFragment; ++k) {
        uint32_t i = SL::index(t, k) - base;
        if (chunk == n || i < chunk) buffer[i] = src.frag_[k];
      }
    }
    block_sync();
WEFT_UNROLL
    for (uint32_t k = 0; k < OL::kFragment; ++k) {
      int32_t s = source(OL::index(t, k));
      uint32_t i = static_cast<uint32_t>(s) - base;
      if (s >= 0 && (chunk == n || i < chunk)) out.frag_[k] = buffer[i];
    }
  }
#endif
}

// The elements of `src` in layout L.
template <class L, class T, class S, class L2>
WEFT_TILE_FN tile<T, S, L> relayout(const tile<T, S, L2>& src) {
  if constexpr (is_same_v<L, L2>) {
    return src;
  } else {
    tile<T, S, L> out;
#if defined(WEFT_TILES_SERIAL)
    for (uint32_t k = 0; k < L::kFragment; ++k) out.frag_[k] = src.frag_[L2::position_of(L::index(0, k))];
#else
    exchange(out, src, [](uint32_t j) { return static_cast<int32_t>(j); });
#endif
    return out;
  }
}

}  // namespace detail

template <class T, class S, class L>
template <class L2>
  requires(!detail::is_same_v<L, L2>)
WEFT_TILE_FN tile<T, S, L>::tile(const tile<T, S, L2>& other) : tile(detail::relayout<L>(other)) {}

}  // namespace weft::tiles
