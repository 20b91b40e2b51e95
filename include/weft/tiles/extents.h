// Extents and shapes (the seed's "Extents"): ct::extents<I, E...> with static and dynamic
// dimensions, ct::shape<E...> (uint32_t, all static), integral-constant literals (4_ic), and the
// compile-time shape algebra of tiles: tile compatibility, sizes, row-major strides,
// broadcasting and the shapes of permute/cat/expand_dims.
#pragma once

#include "weft/tiles/traits.h"

namespace weft::tiles {

// The extent value of a dimension known only at run time.
inline constexpr size_t dynamic_extent = static_cast<size_t>(-1);

// Largest length of one tile dimension and largest number of elements of a tile (docs: on the
// GPU a thread holds size / kBlockThreads elements in registers, so keep that small).
inline constexpr size_t kMaxTileDim = size_t(1) << 20;
inline constexpr size_t kMaxTileSize = size_t(1) << 20;

// A compile-time integer usable where a run-time one is expected (std::integral_constant).
template <class T, T V>
struct integral_constant {
  using value_type = T;
  static constexpr T value = V;
  WEFT_HD constexpr operator T() const noexcept { return V; }
  WEFT_HD constexpr T operator()() const noexcept { return V; }
};

namespace detail {
template <class T>
inline constexpr bool is_integral_constant = false;
template <class T, T V>
inline constexpr bool is_integral_constant<integral_constant<T, V>> = true;

// The static extent a constructor argument of type J gives CTAD: its value for an
// integral_constant, dynamic otherwise.
template <class J>
inline constexpr size_t deduced_extent = dynamic_extent;
template <class T, T V>
inline constexpr size_t deduced_extent<integral_constant<T, V>> = static_cast<size_t>(V);

template <char... C>
WEFT_HD constexpr size_t parse_decimal() {
  size_t value = 0;
  ((value = value * 10 + static_cast<size_t>(C - '0')), ...);
  return value;
}
}  // namespace detail

namespace literals {
// 4_ic: integral_constant<size_t, 4>, a static extent for extents CTAD.
template <char... C>
WEFT_HD constexpr auto operator""_ic() {
  return integral_constant<size_t, detail::parse_decimal<C...>()>{};
}
}  // namespace literals

// The shape of a multi-dimensional array: index type I; E[d] is the static length of dimension
// d or dynamic_extent (then stored in the object).
template <class I, size_t... E>
class extents {
 public:
  using index_type = I;
  using size_type = I;
  using rank_type = size_t;

  // The number of dimensions.
  WEFT_HD static constexpr rank_type rank() noexcept { return sizeof...(E); }
  // The number of dynamic dimensions.
  WEFT_HD static constexpr rank_type rank_dynamic() noexcept { return ((E == dynamic_extent ? 1 : 0) + ... + 0); }
  // The static length of dimension d, or dynamic_extent.
  // (Folds, not a table: a local array indexed at run time lives in the GPU's local memory.)
  WEFT_HD static constexpr size_t static_extent(rank_type d) noexcept {
    size_t extent = 0;
    rank_type i = 0;
    ((extent = i++ == d ? E : extent), ...);
    return extent;
  }
  // The length of dimension d.
  WEFT_HD constexpr index_type extent(rank_type d) const noexcept {
    if (static_extent(d) != dynamic_extent) return static_cast<index_type>(static_extent(d));
    return dynamic_[dynamic_index(d)];
  }

  // All-static extents, or dynamic lengths of 0.
  WEFT_HD constexpr extents() noexcept : dynamic_{} {}
  // From the lengths of the dynamic dimensions, in order.
  template <class... J>
    requires(sizeof...(J) == rank_dynamic() && sizeof...(J) > 0)
  WEFT_HD constexpr explicit(false) extents(J... lengths) noexcept : dynamic_{static_cast<I>(lengths)...} {}
  // From the lengths of all dimensions (the static ones must match).
  template <class... J>
    requires(sizeof...(J) == rank() && sizeof...(J) != rank_dynamic())
  WEFT_HD constexpr explicit(false) extents(J... lengths) noexcept : dynamic_{} {
    const I all[] = {static_cast<I>(lengths)...};
    for (rank_type d = 0; d != rank(); ++d) {
      if (static_extent(d) == dynamic_extent) dynamic_[dynamic_index(d)] = all[d];
    }
  }

 private:
  WEFT_HD static constexpr rank_type dynamic_index(rank_type d) noexcept {
    rank_type n = 0, i = 0;
    ((n += i++ < d && E == dynamic_extent ? 1 : 0), ...);
    return n;
  }
  I dynamic_[rank_dynamic() > 0 ? rank_dynamic() : 1];
};

// extents{2_ic, n}: static where the argument is an integral_constant (std::extents' CTAD uses
// size_t as the index type, and so does this).
template <class... J>
extents(J...) -> extents<size_t, detail::deduced_extent<J>...>;

// A tile shape: all dimensions static, uint32_t indices.
template <uint32_t... E>
using shape = extents<uint32_t, static_cast<size_t>(E)...>;

// Whether two extents-like objects have the same rank and lengths (any index types).
template <class A, class B>
WEFT_HD constexpr bool extents_equal(const A& a, const B& b) {
  if (A::rank() != B::rank()) return false;
  for (size_t d = 0; d != A::rank(); ++d) {
    if (static_cast<unsigned long long>(a.extent(d)) != static_cast<unsigned long long>(b.extent(d))) return false;
  }
  return true;
}

namespace detail {

template <class S>
inline constexpr bool is_extents = false;
template <class I, size_t... E>
inline constexpr bool is_extents<extents<I, E...>> = true;

// Compile-time facts of an all-static shape S.
template <class S>
struct shape_info;
template <class I, size_t... E>
struct shape_info<extents<I, E...>> {
  static constexpr uint32_t rank = sizeof...(E);
  // Row-major strides in elements.
  WEFT_HD static constexpr size_t stride(uint32_t d) {
    constexpr size_t kDims[] = {E..., 1};
    size_t s = 1;
    for (uint32_t k = d + 1; k < rank; ++k) s *= kDims[k];
    return s;
  }
};

template <class S>
WEFT_HD constexpr bool shape_is_static() {
  for (size_t d = 0; d != S::rank(); ++d) {
    if (S::static_extent(d) == dynamic_extent) return false;
  }
  return true;
}
template <class S>
WEFT_HD constexpr bool shape_dims_pow2() {
  for (size_t d = 0; d != S::rank(); ++d) {
    if (!is_pow2(S::static_extent(d))) return false;
  }
  return true;
}
template <class S>
WEFT_HD constexpr bool shape_dims_within_limit() {
  for (size_t d = 0; d != S::rank(); ++d) {
    if (S::static_extent(d) > kMaxTileDim) return false;
  }
  return true;
}
template <class S>
WEFT_HD constexpr size_t static_size() {
  size_t n = 1;
  for (size_t d = 0; d != S::rank(); ++d) n *= S::static_extent(d);
  return n;
}

// The seed's "tile compatible shape", checked with one message per violated rule.
template <class S>
WEFT_HD constexpr bool check_tile_shape() {
  static_assert(is_extents<S>, "a tile shape must be a specialization of weft::tiles::extents (ct::shape<...>)");
  if constexpr (is_extents<S>) {
    static_assert(is_same_v<typename S::index_type, uint32_t>,
                  "a tile shape's index type must be uint32_t: use ct::shape<...>");
    static_assert(shape_is_static<S>(), "a tile shape must have static dimensions only (no dynamic_extent)");
    static_assert(shape_dims_pow2<S>(), "every dimension of a tile shape must be a power of 2 (1, 2, 4, ...)");
    static_assert(shape_dims_within_limit<S>(), "a tile dimension is longer than weft::tiles::kMaxTileDim (2^20)");
    static_assert(static_size<S>() <= kMaxTileSize, "a tile has more elements than weft::tiles::kMaxTileSize (2^20)");
  }
  return true;
}

template <class S>
WEFT_HD constexpr bool tile_shape_ok() {
  if constexpr (is_extents<S>) {
    return is_same_v<typename S::index_type, uint32_t> && shape_is_static<S>() && shape_dims_pow2<S>() &&
           shape_dims_within_limit<S>() && static_size<S>() <= kMaxTileSize;
  } else {
    return false;
  }
}
template <class S>
inline constexpr bool is_tile_shape = tile_shape_ok<S>();

// Shapes equal as tile shapes (rank and lengths; index types ignored).
template <class A, class B>
WEFT_HD constexpr bool same_shape() {
  if constexpr (A::rank() != B::rank()) {
    return false;
  } else {
    for (size_t d = 0; d != A::rank(); ++d) {
      if (A::static_extent(d) != B::static_extent(d)) return false;
    }
    return true;
  }
}

// Whether S is broadcastable to B (S's dimensions aligned to B's last ones, each equal or 1).
template <class S, class B>
WEFT_HD constexpr bool broadcastable_to() {
  constexpr size_t n = S::rank(), m = B::rank();
  if constexpr (n > m) {
    return false;
  } else {
    for (size_t i = 0; i != n; ++i) {
      size_t s = S::static_extent(i);
      if (s != 1 && s != B::static_extent(i + m - n)) return false;
    }
    return true;
  }
}

// Whether A and B are mutual broadcast compatible.
template <class A, class B>
WEFT_HD constexpr bool mutually_broadcastable() {
  constexpr size_t n = A::rank(), m = B::rank();
  constexpr size_t k = n < m ? n : m;
  if constexpr (k > 0) {
    for (size_t i = 0; i != k; ++i) {
      size_t a = A::static_extent(n - 1 - i), b = B::static_extent(m - 1 - i);
      if (a != b && a != 1 && b != 1) return false;
    }
  }
  return true;
}

// The mutual broadcast shape of A and B (both broadcast compatible).
template <class A, class B, size_t... I>
WEFT_HD constexpr auto broadcast_shape_of(index_sequence<I...>) {
  constexpr size_t n = A::rank(), m = B::rank(), r = sizeof...(I);
  constexpr auto at = [](size_t i) {
    size_t a = i + n + 1 > r ? A::static_extent(i + n - r) : 1;
    size_t b = i + m + 1 > r ? B::static_extent(i + m - r) : 1;
    return a > b ? a : b;
  };
  (void)at;  // unused for two rank-0 shapes
  return type_identity<shape<static_cast<uint32_t>(at(I))...>>{};
}
template <class A, class B>
using broadcast_shape_t = typename decltype(broadcast_shape_of<A, B>(
    make_index_sequence<(A::rank() > B::rank() ? A::rank() : B::rank())>{}))::type;

// The source row-major index of element j of the broadcast of S to B.
template <class S, class B>
WEFT_HD constexpr uint32_t broadcast_source(uint32_t j) {
  constexpr uint32_t n = static_cast<uint32_t>(S::rank()), m = static_cast<uint32_t>(B::rank());
  uint32_t source = 0;
  for (uint32_t d = 0; d != n; ++d) {
    uint32_t bd = d + m - n;
    uint32_t coordinate = (j / static_cast<uint32_t>(shape_info<B>::stride(bd))) % static_cast<uint32_t>(B::static_extent(bd));
    if (S::static_extent(d) != 1) source += coordinate * static_cast<uint32_t>(shape_info<S>::stride(d));
  }
  return source;
}

}  // namespace detail
}  // namespace weft::tiles
