// Element-wise tile operations: map (what generated code uses for every element-wise operation),
// creation (full zeros ones iota), broadcast_to and convert, and the seed's named arithmetic,
// bitwise, comparison, selection and math operations with its arithmetic conversions (operands
// broadcast to one shape and converted to one element type: for arithmetic the tile's element
// type is preferred over a scalar's, for comparisons not; narrowing other than integer to
// floating is ill-formed) and the C++ operators on tiles, which follow the same rules.
#pragma once

#include "weft/tiles/scalar_ops.h"
#include "weft/tiles/tile.h"

namespace weft::tiles {

namespace detail {

// Element k of a tile-like operand (a scalar is the same for every k).
template <class X>
WEFT_HD const auto& element(const X& x, uint32_t k) {
  if constexpr (is_tile<X>) {
    return x.frag_[k];
  } else {
    (void)k;
    return x;
  }
}

template <class U>
struct convert_fn {
  template <class X>
  WEFT_HD U operator()(X x) const {
    return scalar_convert<U>(x);
  }
};

}  // namespace detail

// An operand of ct::map broadcast to shape S (see broadcast_lazily).
template <class S, class X>
struct broadcast_operand {
  X x;
};

// x as an operand of ct::map broadcast to the tile shape S in the layout map computes in (code
// generation passes the broadcasts of element-wise operations so): one conversion straight
// into that layout, none where it holds x's elements already (a row or column tile broadcast
// along the rows or columns of an mma layout), instead of a broadcast into the blocked layout
// and a conversion.
template <class S, class X>
WEFT_TILE_FN broadcast_operand<S, X> broadcast_lazily(const X& x) {
  static_assert(detail::is_tile<X> && detail::check_tile_shape<S>());
  static_assert(detail::broadcastable_to<typename X::shape_type, S>(),
                "ct::broadcast_to: the shape is not broadcastable to the target shape (each dimension, aligned to "
                "the right, must equal the target's or be 1, and the rank must not exceed the target's)");
  return {x};
}

namespace detail {

template <class X>
inline constexpr bool is_broadcast_operand = false;
template <class S, class X>
inline constexpr bool is_broadcast_operand<broadcast_operand<S, X>> = true;

// How a tile of shape (M, 1) broadcasts to (M, N) in layout L without exchanging the M x N
// elements: kRows false here; mma.h specializes it for the mma layouts (the rows travel to the
// mma row layout, M elements at most, and spread in registers).
template <class L>
struct row_broadcast {
  static constexpr bool kRows = false;
};

// Whether a broadcast operand of X to S in layout L takes row_broadcast.
template <class S, class L, class X>
WEFT_HD constexpr bool broadcasts_rows() {
  using XS = typename X::shape_type;
  if constexpr (S::rank() == 2 && XS::rank() == 2 && row_broadcast<L>::kRows) {
    return XS::static_extent(0) == S::static_extent(0) && XS::static_extent(1) == 1;
  } else {
    return false;
  }
}

// How a tile of shape (1, N) or (N) broadcasts to (M, N) in layout L without exchanging the
// M x N elements: kColumns false here; mma.h specializes it for the mma layouts (the columns
// travel to the mma column layout, N elements at most, and spread in registers).
template <class L>
struct column_broadcast {
  static constexpr bool kColumns = false;
};

// Whether a broadcast operand of X to S in layout L takes column_broadcast.
template <class S, class L, class X>
WEFT_HD constexpr bool broadcasts_columns() {
  using XS = typename X::shape_type;
  if constexpr (S::rank() == 2 && (XS::rank() == 1 || XS::rank() == 2) && column_broadcast<L>::kColumns) {
    return XS::static_extent(XS::rank() - 1) == S::static_extent(1) && static_size<XS>() == S::static_extent(1);
  } else {
    return false;
  }
}

// The layout in which a tile held in layout LX broadcasts to shape S in registers alone: void
// here; mma.h gives an accumulator's row and column layouts the accumulator's layout where S is
// its shape.
template <class LX, class S>
struct broadcast_home {
  using type = void;
};

// The shape of a tile or broadcast operand (shape<> for a scalar).
template <class A>
struct operand_shape {
  using type = shape_of<A>;
};
template <class S, class X>
struct operand_shape<broadcast_operand<S, X>> {
  using type = S;
};

// The first of the operands A... for which P<A>::value holds (void if none).
template <template <class> class P, class... A>
struct find_first {
  using type = void;
};
template <template <class> class P, class A, class... R>
struct find_first<P, A, R...> {
  using type = conditional_t<P<remove_cvref_t<A>>::value, remove_cvref_t<A>, typename find_first<P, R...>::type>;
};
template <class X>
struct is_tile_operand {
  static constexpr bool value = is_tile<X>;
};
template <class X>
struct is_placed_tile_operand {
  static constexpr bool value = false;
};
template <class T, class S, class L>
struct is_placed_tile_operand<tile<T, S, L>> {
  static constexpr bool value = !is_blocked_layout<L>;
};
template <class X>
struct is_broadcast_operand_of {
  static constexpr bool value = is_broadcast_operand<X>;
};
template <class X>
struct is_homed_broadcast_operand {
  static constexpr bool value = false;
};
template <class S, class X>
struct is_homed_broadcast_operand<broadcast_operand<S, X>> {
  static constexpr bool value = !is_same_v<typename broadcast_home<typename X::layout_type, S>::type, void>;
};

// A tile of the broadcast shape of broadcast operand B in the layout it spreads in (B's home).
template <class B>
struct home_tile {
  using type = void;
};
template <class S, class X>
struct home_tile<broadcast_operand<S, X>> {
  using type = tile<bool, S, typename broadcast_home<typename X::layout_type, S>::type>;
};

// The tile type that gives map its shape and layout: the first tile operand in a layout other
// than the blocked one (an mma accumulator's, which a conversion would exchange through shared
// memory), else the home of the first broadcast operand that has one (an accumulator's rows or
// columns broadcast to its shape: a mask `cols <= rows` computes in the accumulator's layout),
// else the first tile operand, else a blocked tile of the first broadcast operand's shape; void
// if there are only scalars.
template <class... A>
struct first_tile {
  using Placed = typename find_first<is_placed_tile_operand, A...>::type;
  using Homed = typename home_tile<typename find_first<is_homed_broadcast_operand, A...>::type>::type;
  using Tile = typename find_first<is_tile_operand, A...>::type;
  using Broadcast = typename find_first<is_broadcast_operand_of, A...>::type;
  using type = conditional_t<
      !is_same_v<Placed, void>, Placed,
      conditional_t<!is_same_v<Homed, void>, Homed,
                    conditional_t<!is_same_v<Tile, void> || is_same_v<Broadcast, void>, Tile,
                                  tile<bool, typename operand_shape<Broadcast>::type>>>>;
};

// Broadcast operand b in layout L (see broadcast_lazily).
template <class L, class S, class X>
WEFT_TILE_FN auto broadcast_in_layout(const broadcast_operand<S, X>& b) {
  using XS = typename X::shape_type;
  using E = typename X::element_type;
  if constexpr (same_shape<XS, S>()) {
    tile<E, S, typename X::layout_type> same;  // S and XS differ in their index types only
    WEFT_UNROLL
    for (uint32_t k = 0; k < X::fragment_size; ++k) same.frag_[k] = b.x.frag_[k];
    return relayout<L>(same);
  } else if constexpr (broadcasts_rows<S, L, X>()) {
    return row_broadcast<L>::template spread<S>(b.x);
  } else if constexpr (broadcasts_columns<S, L, X>()) {
    return column_broadcast<L>::template spread<S>(b.x);
  } else {
    tile<E, S, L> out;
    if constexpr (static_size<XS>() == 1 && is_blocked_layout<typename X::layout_type>) {
      WEFT_UNROLL
      for (uint32_t k = 0; k < L::kFragment; ++k) out.frag_[k] = b.x.frag_[0];  // in every thread
    } else {
      exchange(out, b.x, [](uint32_t j) { return static_cast<int32_t>(broadcast_source<XS, S>(j)); });
    }
    return out;
  }
}

// A tile operand in layout L (by reference when it already is), a broadcast operand broadcast
// in it, a scalar unchanged.
template <class L, class X>
WEFT_TILE_FN decltype(auto) in_layout(const X& x) {
  if constexpr (is_broadcast_operand<X>) {
    return broadcast_in_layout<L>(x);
  } else if constexpr (!is_tile<X>) {
    return x;
  } else if constexpr (is_same_v<typename X::layout_type, L>) {
    return x;
  } else {
    return relayout<L>(x);
  }
}

template <class S, class L, class F, class... A>
WEFT_TILE_FN auto map_in_layout(F& f, const A&... a) {
  using R = remove_cvref_t<decltype(f(element(a, 0)...))>;
  static_assert(is_scalar<R>, "the function given to ct::map must return a scalar (a tile element type)");
  tile<R, S, L> out;
  WEFT_UNROLL
  for (uint32_t k = 0; k < L::kFragment; ++k) out.frag_[k] = f(element(a, k)...);
  return out;
}

}  // namespace detail

// f applied element-wise to tiles of one shape (scalar operands are the same for every
// element): a tile of f's result type in the layout of the first tile operand. f runs once per
// element held by each thread, so it must be a pure function of its arguments.
template <class F, class... A>
WEFT_TILE_FN auto map(F f, const A&... a) {
  using First = typename detail::first_tile<A...>::type;
  static_assert(((detail::is_tile_like<A> || detail::is_broadcast_operand<A>) && ...), "ct::map takes tiles and scalars");
  if constexpr (detail::is_same_v<First, void>) {
    return f(a...);
  } else {
    using S = typename First::shape_type;
    using L = typename First::layout_type;
    static_assert(((detail::is_scalar<A> || detail::same_shape<typename detail::operand_shape<A>::type, S>()) && ...),
                  "ct::map takes tiles of one shape: broadcast them first (ct::broadcast_to)");
    return detail::map_in_layout<S, L>(f, detail::in_layout<L>(a)...);
  }
}

// A tile of type Tile whose every element is `value` converted to its element type.
template <class Tile, class V>
WEFT_TILE_FN Tile full(V value) {
  static_assert(detail::is_tile<Tile>, "ct::full<Tile> takes a ct::tile type");
  using E = typename Tile::element_type;
  E v = detail::scalar_convert<E>(value);
  Tile out;
  WEFT_UNROLL
  for (uint32_t k = 0; k < Tile::fragment_size; ++k) out.frag_[k] = v;
  return out;
}

// A tile of zeros.
template <class Tile>
WEFT_TILE_FN Tile zeros() {
  static_assert(detail::is_tile<Tile> && detail::is_numeric<typename Tile::element_type>,
                "ct::zeros<Tile> takes a tile type of numeric elements");
  return ::weft::tiles::full<Tile>(0);
}

// A tile of ones.
template <class Tile>
WEFT_TILE_FN Tile ones() {
  static_assert(detail::is_tile<Tile> && detail::is_numeric<typename Tile::element_type>,
                "ct::ones<Tile> takes a tile type of numeric elements");
  return ::weft::tiles::full<Tile>(1);
}

// The tile whose element at row-major index i is i (any rank, any arithmetic element type;
// converted as by ct::convert).
template <class Tile>
WEFT_TILE_FN Tile iota() {
  static_assert(detail::is_tile<Tile> && detail::is_arithmetic<typename Tile::element_type>,
                "ct::iota<Tile> takes a tile type of arithmetic elements");
  using E = typename Tile::element_type;
  using L = typename Tile::layout_type;
  const uint32_t t = detail::thread_rank();
  Tile out;
  WEFT_UNROLL
  for (uint32_t k = 0; k < Tile::fragment_size; ++k) out.frag_[k] = detail::scalar_convert<E>(L::index(t, k));
  return out;
}

// The broadcast conversion of a tile or scalar x to the tile shape S (x's dimensions align with
// S's last ones and are equal or 1).
template <class S, class X>
WEFT_TILE_FN auto broadcast_to(const X& x) {
  static_assert(detail::is_tile_like<X>, "ct::broadcast_to takes a tile or a scalar");
  static_assert(detail::check_tile_shape<S>());
  using E = detail::element_of<X>;
  using XS = detail::shape_of<X>;
  static_assert(detail::broadcastable_to<XS, S>(),
                "ct::broadcast_to: the shape is not broadcastable to the target shape (each dimension, aligned to "
                "the right, must equal the target's or be 1, and the rank must not exceed the target's)");
  if constexpr (!detail::is_tile<X>) {
    return ::weft::tiles::full<tile<E, S>>(x);
  } else if constexpr (detail::same_shape<XS, S>()) {
    return x;
  } else if constexpr (detail::static_size<XS>() == 1 && detail::is_blocked_layout<typename X::layout_type>) {
    return ::weft::tiles::full<tile<E, S>>(x.frag_[0]);  // a one-element tile is in every thread
  } else {
    tile<E, S> out;
    detail::exchange(out, x, [](uint32_t j) { return static_cast<int32_t>(detail::broadcast_source<XS, S>(j)); });
    return out;
  }
}

// The tile conversion of x to element type U (the seed's scalar conversions, element-wise:
// round to nearest even; integers out of a floating type's range give infinity; floating to
// integer truncates and saturates, NaN gives 0). A scalar converts to a scalar.
template <class U, class X>
WEFT_TILE_FN auto convert(const X& x) {
  static_assert(detail::is_scalar<U>, "ct::convert<U>: U must be a scalar type");
  static_assert(detail::is_tile_like<X>, "ct::convert takes a tile or a scalar");
  if constexpr (detail::is_tile<X>) {
    if constexpr (detail::is_same_v<U, typename X::element_type>) {
      return x;
    } else {
      return ::weft::tiles::map(detail::convert_fn<U>{}, x);
    }
  } else {
    return detail::scalar_convert<U>(x);
  }
}

namespace detail {

// The arithmetic tile conversion (Comparison == false) or arithmetic comparison conversion of
// operands A... (the seed defines two operands; a third, as in fma and where, joins the same
// rule): E the common element type, S the broadcast shape, kScalar when every operand is a scalar.
template <bool Comparison, class... A>
struct arithmetic_conversion;

template <class X>
WEFT_HD constexpr bool check_arithmetic_operand() {
  static_assert(is_tile_like<X>, "tile operations take tiles and scalars");
  static_assert(!is_restricted<element_of<X>>,
                "restricted floating point types (tfloat32, float8e4m3, float8e5m2) only load, store, convert "
                "and mma: convert to an arithmetic type first (ct::convert)");
  static_assert(is_arithmetic<element_of<X>> || is_restricted<element_of<X>>,
                "arithmetic tile operations take integral or floating point elements, not pointers");
  return true;
}

template <class E>
WEFT_HD constexpr bool check_common(bool ok) {
  static_assert(!is_same_v<E, no_common_type>,
                "no arithmetic common type: the operands' floating point types have unordered conversion ranks "
                "(e.g. float16 and bfloat16); convert one explicitly with ct::convert");
  return ok;
}

template <class From, class To>
WEFT_HD constexpr bool check_not_narrowing() {
  if constexpr (!is_same_v<To, no_common_type>) {
    static_assert(!is_rejected_narrowing<From, To>,
                  "the arithmetic conversion narrows an operand (only integer to floating point narrowing is "
                  "allowed; e.g. a double scalar with an int tile): convert explicitly with ct::convert");
  }
  return true;
}

template <bool Comparison, class A, class B>
struct arithmetic_conversion<Comparison, A, B> {
  static_assert(check_arithmetic_operand<A>() && check_arithmetic_operand<B>());
  using EA = element_of<A>;
  using EB = element_of<B>;
  static constexpr bool kTileA = is_tile<A>, kTileB = is_tile<B>;
  using E = conditional_t<Comparison || kTileA == kTileB, arithmetic_common_t<EA, EB>, conditional_t<kTileA, EA, EB>>;
  static_assert(check_common<E>(true));
  static_assert(check_not_narrowing<EA, E>() && check_not_narrowing<EB, E>());
  static_assert(mutually_broadcastable<shape_of<A>, shape_of<B>>(),
                "the operands' shapes are not broadcast compatible (aligned to the right, each pair of "
                "dimensions must be equal or contain a 1)");
  using S = broadcast_shape_t<shape_of<A>, shape_of<B>>;
  static_assert(check_tile_shape<S>());
  static constexpr bool kScalar = !kTileA && !kTileB;
};

template <bool Comparison, class A, class B, class C>
struct arithmetic_conversion<Comparison, A, B, C> {
  using AB = arithmetic_conversion<Comparison, A, B>;
  // The pair's result stands for A and B: a tile when either is.
  using Pair = conditional_t<AB::kScalar, typename AB::E, tile<typename AB::E, typename AB::S>>;
  using ABC = arithmetic_conversion<Comparison, Pair, C>;
  using E = typename ABC::E;
  static_assert(check_not_narrowing<element_of<A>, E>() && check_not_narrowing<element_of<B>, E>());
  using S = typename ABC::S;
  static constexpr bool kScalar = ABC::kScalar;
};

// An operand converted to element type E and, if a tile, broadcast to shape S in the layout map
// chooses (a scalar stays a scalar: map uses it for every element).
template <class E, class S, class X>
WEFT_TILE_FN auto prepare(const X& x) {
  if constexpr (!is_tile<X>) {
    return scalar_convert<E>(x);
  } else if constexpr (same_shape<typename X::shape_type, S>()) {
    return ::weft::tiles::convert<E>(x);
  } else {
    return ::weft::tiles::broadcast_lazily<S>(::weft::tiles::convert<E>(x));
  }
}

// f over the operands after the arithmetic (or comparison) conversion.
template <bool Comparison, class F, class... A>
WEFT_TILE_FN auto converted_map(F f, const A&... a) {
  using C = arithmetic_conversion<Comparison, A...>;
  using E = typename C::E;
  if constexpr (C::kScalar) {
    return f(scalar_convert<E>(a)...);
  } else {
    return ::weft::tiles::map(f, prepare<E, typename C::S>(a)...);
  }
}

template <class E>
WEFT_HD constexpr bool check_floating_modifiers_apply() {
  static_assert(is_floating<E>, "rounding and subnormal modes apply to floating point operands only");
  return true;
}

// The parsed modifiers of an operation that accepts rounding codes up to MaxRound (3: the
// precise modes; 5: also approximate and full), checked.
template <int MaxRound, class E, class... Mods>
WEFT_HD constexpr auto checked_modifiers() {
  using M = typename parse_modifiers<Mods...>::type;
  if constexpr (sizeof...(Mods) > 0) {
    static_assert(check_floating_modifiers_apply<E>());
    static_assert(M::kRound <= MaxRound,
                  "this operation takes only the precise rounding modes (ties to even, toward zero, toward "
                  "negative, toward positive)");
  }
  return M{};
}

template <class... A>
using common_element_t = typename arithmetic_conversion<false, A...>::E;

template <class X>
WEFT_HD constexpr bool check_integral_operand() {
  static_assert(is_integral<element_of<X>>, "bitwise operations and shifts take integral tiles (and bool)");
  return true;
}

}  // namespace detail

namespace detail {

// The element operations as function objects with an explicit execution space (NVRTC without
// -default-device takes generic lambdas in device code for host code).
#define WEFT_TILES_BINARY_FUNCTOR(name, expression)      \
  struct name {                                          \
    template <class X>                                   \
    WEFT_HD auto operator()(X x, X y) const {            \
      return expression;                                 \
    }                                                    \
  };
#define WEFT_TILES_MODIFIED_FUNCTOR(name, expression)    \
  template <class M>                                     \
  struct name {                                          \
    template <class X>                                   \
    WEFT_HD X operator()(X x, X y) const {               \
      return expression;                                 \
    }                                                    \
  };
WEFT_TILES_MODIFIED_FUNCTOR(add_fn, e_add<M>(x, y))
WEFT_TILES_MODIFIED_FUNCTOR(sub_fn, e_sub<M>(x, y))
WEFT_TILES_MODIFIED_FUNCTOR(mul_fn, e_mul<M>(x, y))
WEFT_TILES_MODIFIED_FUNCTOR(div_fn, e_div<M>(x, y))
WEFT_TILES_BINARY_FUNCTOR(rem_fn, e_rem(x, y))
WEFT_TILES_BINARY_FUNCTOR(and_fn, static_cast<X>(x & y))
WEFT_TILES_BINARY_FUNCTOR(or_fn, static_cast<X>(x | y))
WEFT_TILES_BINARY_FUNCTOR(xor_fn, static_cast<X>(x ^ y))
WEFT_TILES_BINARY_FUNCTOR(shl_fn, e_shl(x, y))
WEFT_TILES_BINARY_FUNCTOR(shr_fn, e_shr(x, y))
WEFT_TILES_BINARY_FUNCTOR(eq_fn, comparable(x) == comparable(y))
WEFT_TILES_BINARY_FUNCTOR(ne_fn, comparable(x) != comparable(y))
WEFT_TILES_BINARY_FUNCTOR(lt_fn, comparable(x) < comparable(y))
WEFT_TILES_BINARY_FUNCTOR(le_fn, comparable(x) <= comparable(y))
WEFT_TILES_BINARY_FUNCTOR(gt_fn, comparable(x) > comparable(y))
WEFT_TILES_BINARY_FUNCTOR(ge_fn, comparable(x) >= comparable(y))
#undef WEFT_TILES_BINARY_FUNCTOR
#undef WEFT_TILES_MODIFIED_FUNCTOR

template <bool Max, bool Propagate>
struct minmax_fn {
  template <class X>
  WEFT_HD X operator()(X x, X y) const {
    return e_minmax<Max, Propagate>(x, y);
  }
};
struct neg_fn {
  template <class X>
  WEFT_HD X operator()(X x) const {
    return e_neg(x);
  }
};
struct abs_fn {
  template <class X>
  WEFT_HD X operator()(X x) const {
    return e_abs(x);
  }
};
struct bit_not_fn {
  template <class X>
  WEFT_HD X operator()(X x) const {
    if constexpr (kind_of<X> == scalar_kind::boolean) {
      return !x;
    } else {
      return static_cast<X>(~x);
    }
  }
};
template <class M>
struct fma_fn {
  template <class X>
  WEFT_HD X operator()(X x, X y, X z) const {
    if constexpr (is_narrow_float<X>) {
      float r = float_fma<modifiers<M::kRound, false>>(to_float(M::kFtz ? flush_narrow(x) : x),
                                                       to_float(M::kFtz ? flush_narrow(y) : y),
                                                       to_float(M::kFtz ? flush_narrow(z) : z));
      X n = narrow_from_float<X, M::kRound>(r);
      return M::kFtz ? flush_narrow(n) : n;
    } else {
      return float_fma<M>(x, y, z);
    }
  }
};
template <class M>
struct sqrt_fn {
  template <class X>
  WEFT_HD X operator()(X x) const {
    if constexpr (is_narrow_float<X>) {
      X n = narrow_from_float<X, M::kRound>(float_sqrt<modifiers<M::kRound, false>>(to_float(M::kFtz ? flush_narrow(x) : x)));
      return M::kFtz ? flush_narrow(n) : n;
    } else {
      return float_sqrt<M>(x);
    }
  }
};
struct pow_fn {
  template <class X>
  WEFT_HD X operator()(X x, X y) const {
    if constexpr (is_narrow_float<X>) {
      return from_float<X>(::weft::math::pow(to_float(x), to_float(y)));
    } else {
      return ::weft::math::pow(x, y);
    }
  }
};
template <class E>
struct select_fn {
  WEFT_HD E operator()(bool c, E x, E y) const { return c ? x : y; }
};

}  // namespace detail

// ---- Arithmetic ------------------------------------------------------------------------------

// a + b (integers wrap; optional rounding mode and subnormal mode for floating point).
template <class A, class B, class... Mods>
WEFT_TILE_FN auto add(const A& a, const B& b, Mods...) {
  using M = decltype(detail::checked_modifiers<3, detail::common_element_t<A, B>, Mods...>());
  return detail::converted_map<false>(detail::add_fn<M>{}, a, b);
}
// a - b.
template <class A, class B, class... Mods>
WEFT_TILE_FN auto sub(const A& a, const B& b, Mods...) {
  using M = decltype(detail::checked_modifiers<3, detail::common_element_t<A, B>, Mods...>());
  return detail::converted_map<false>(detail::sub_fn<M>{}, a, b);
}
// a * b.
template <class A, class B, class... Mods>
WEFT_TILE_FN auto mul(const A& a, const B& b, Mods...) {
  using M = decltype(detail::checked_modifiers<3, detail::common_element_t<A, B>, Mods...>());
  return detail::converted_map<false>(detail::mul_fn<M>{}, a, b);
}
// a / b (integers truncate, x / 0 == 0; floating point also takes round_approximate_t and
// round_full_t).
template <class A, class B, class... Mods>
WEFT_TILE_FN auto div(const A& a, const B& b, Mods...) {
  using M = decltype(detail::checked_modifiers<5, detail::common_element_t<A, B>, Mods...>());
  return detail::converted_map<false>(detail::div_fn<M>{}, a, b);
}
// The remainder of a / b with the sign of a (fmod for floating point; x % 0 == 0).
template <class A, class B>
WEFT_TILE_FN auto rem(const A& a, const B& b) {
  return detail::converted_map<false>(detail::rem_fn{}, a, b);
}
// -a (integers wrap).
template <class A>
WEFT_TILE_FN auto neg(const A& a) {
  static_assert(detail::check_arithmetic_operand<A>());
  return ::weft::tiles::map(detail::neg_fn{}, a);
}
// |a| (integers wrap: abs(MIN) == MIN).
template <class A>
WEFT_TILE_FN auto abs(const A& a) {
  static_assert(detail::check_arithmetic_operand<A>());
  return ::weft::tiles::map(detail::abs_fn{}, a);
}
// a * b + c rounded once (optional rounding and subnormal modes).
template <class A, class B, class C, class... Mods>
WEFT_TILE_FN auto fma(const A& a, const B& b, const C& c, Mods...) {
  using E = detail::common_element_t<A, B, C>;
  static_assert(detail::is_floating<E>, "ct::fma takes floating point operands");
  using M = decltype(detail::checked_modifiers<3, E, Mods...>());
  return detail::converted_map<false>(detail::fma_fn<M>{}, a, b, c);
}

// min(a, b) and max(a, b); a NaN mode tag (suppress_nan_t by default) says whether a NaN
// operand loses to a number or wins.
template <class A, class B, class NanMode = suppress_nan_t>
WEFT_TILE_FN auto min(const A& a, const B& b, NanMode = {}) {
  static_assert(detail::is_nan_mode<NanMode>, "ct::min's third argument is ct::suppress_nan_t or ct::propagate_nan_t");
  constexpr bool kPropagate = detail::is_same_v<NanMode, propagate_nan_t>;
  return detail::converted_map<false>(detail::minmax_fn<false, kPropagate>{}, a, b);
}
template <class A, class B, class NanMode = suppress_nan_t>
WEFT_TILE_FN auto max(const A& a, const B& b, NanMode = {}) {
  static_assert(detail::is_nan_mode<NanMode>, "ct::max's third argument is ct::suppress_nan_t or ct::propagate_nan_t");
  constexpr bool kPropagate = detail::is_same_v<NanMode, propagate_nan_t>;
  return detail::converted_map<false>(detail::minmax_fn<true, kPropagate>{}, a, b);
}

// ---- Bitwise ---------------------------------------------------------------------------------

// a & b, a | b, a ^ b, ~a on integral tiles (bool included).
template <class A, class B>
WEFT_TILE_FN auto bit_and(const A& a, const B& b) {
  static_assert(detail::check_integral_operand<A>() && detail::check_integral_operand<B>());
  return detail::converted_map<false>(detail::and_fn{}, a, b);
}
template <class A, class B>
WEFT_TILE_FN auto bit_or(const A& a, const B& b) {
  static_assert(detail::check_integral_operand<A>() && detail::check_integral_operand<B>());
  return detail::converted_map<false>(detail::or_fn{}, a, b);
}
template <class A, class B>
WEFT_TILE_FN auto bit_xor(const A& a, const B& b) {
  static_assert(detail::check_integral_operand<A>() && detail::check_integral_operand<B>());
  return detail::converted_map<false>(detail::xor_fn{}, a, b);
}
template <class A>
WEFT_TILE_FN auto bit_not(const A& a) {
  static_assert(detail::check_integral_operand<A>());
  return ::weft::tiles::map(detail::bit_not_fn{}, a);
}
// a << s and a >> s after the arithmetic conversion (counts outside [0, bits) give 0, or -1
// for >> of a negative value).
template <class A, class B>
WEFT_TILE_FN auto shl(const A& a, const B& s) {
  static_assert(detail::check_integral_operand<A>() && detail::check_integral_operand<B>());
  return detail::converted_map<false>(detail::shl_fn{}, a, s);
}
template <class A, class B>
WEFT_TILE_FN auto shr(const A& a, const B& s) {
  static_assert(detail::check_integral_operand<A>() && detail::check_integral_operand<B>());
  return detail::converted_map<false>(detail::shr_fn{}, a, s);
}

// ---- Comparisons and selection ---------------------------------------------------------------

// a == b, a != b, a < b, a <= b, a > b, a >= b after the arithmetic comparison conversion: a
// bool tile (bool for two scalars); comparisons with NaN are false except !=.
template <class A, class B>
WEFT_TILE_FN auto eq(const A& a, const B& b) {
  return detail::converted_map<true>(detail::eq_fn{}, a, b);
}
template <class A, class B>
WEFT_TILE_FN auto ne(const A& a, const B& b) {
  return detail::converted_map<true>(detail::ne_fn{}, a, b);
}
template <class A, class B>
WEFT_TILE_FN auto lt(const A& a, const B& b) {
  return detail::converted_map<true>(detail::lt_fn{}, a, b);
}
template <class A, class B>
WEFT_TILE_FN auto le(const A& a, const B& b) {
  return detail::converted_map<true>(detail::le_fn{}, a, b);
}
template <class A, class B>
WEFT_TILE_FN auto gt(const A& a, const B& b) {
  return detail::converted_map<true>(detail::gt_fn{}, a, b);
}
template <class A, class B>
WEFT_TILE_FN auto ge(const A& a, const B& b) {
  return detail::converted_map<true>(detail::ge_fn{}, a, b);
}

// cond ? a : b element-wise: cond is bool-converted, a and b take the arithmetic tile conversion,
// and all three broadcast to one shape.
template <class C, class A, class B>
WEFT_TILE_FN auto where(const C& cond, const A& a, const B& b) {
  static_assert(detail::is_tile_like<C> && detail::is_numeric<detail::element_of<C>>,
                "ct::where's condition must be a tile or scalar of numeric elements (converted to bool)");
  using AB = detail::arithmetic_conversion<false, A, B>;
  using E = typename AB::E;
  static_assert(detail::mutually_broadcastable<detail::shape_of<C>, typename AB::S>(),
                "ct::where: the condition's shape is not broadcast compatible with the values'");
  using S = detail::broadcast_shape_t<detail::shape_of<C>, typename AB::S>;
  detail::select_fn<E> select;
  if constexpr (AB::kScalar && !detail::is_tile<C>) {
    return select(detail::scalar_convert<bool>(cond), detail::scalar_convert<E>(a), detail::scalar_convert<E>(b));
  } else {
    return ::weft::tiles::map(select, detail::prepare<bool, S>(cond), detail::prepare<E, S>(a), detail::prepare<E, S>(b));
  }
}

// ---- Math (floating point tiles; float16/bfloat16 compute in float and round once) -----------

namespace detail {

template <class X>
WEFT_HD constexpr bool check_math_operand() {
  static_assert(is_tile_like<X> && is_basic_float<element_of<X>>,
                "math functions take tiles of float16, bfloat16, float or double (convert integers first with "
                "ct::convert)");
  return true;
}

// The precision of a math function call: full (default, the CUDA math library) or approximate
// (the hardware's approximations: __expf, ex2.approx, tanh.approx, ...; the CPU target computes
// them at full precision).
template <class... Mods>
WEFT_HD constexpr bool approximate_math() {
  if constexpr (sizeof...(Mods) == 0) {
    return false;
  } else {
    static_assert(sizeof...(Mods) == 1 && ((is_same_v<Mods, round_approximate_t> || is_same_v<Mods, round_full_t>) && ...),
                  "math functions take one optional precision: ct::round_full_t (default) or ct::round_approximate_t");
    return (is_same_v<Mods, round_approximate_t> || ...);
  }
}

}  // namespace detail

#define WEFT_TILES_MATH_UNARY(name, full_float, full_double, approx_float)       \
  namespace detail {                                                              \
  template <bool Approximate>                                                     \
  struct name##_fn {                                                              \
    WEFT_HD float evaluate(float v) const {                                       \
      if constexpr (Approximate) {                                                \
        return approx_float;                                                      \
      } else {                                                                    \
        return full_float;                                                        \
      }                                                                           \
    }                                                                             \
    WEFT_HD double evaluate(double v) const { return full_double; }               \
    template <class X>                                                            \
    WEFT_HD X operator()(X x) const {                                             \
      if constexpr (is_narrow_float<X>) {                                         \
        return from_float<X>(evaluate(to_float(x)));                              \
      } else {                                                                    \
        return evaluate(x);                                                       \
      }                                                                           \
    }                                                                             \
  };                                                                              \
  }                                                                               \
  template <class X, class... Mods>                                               \
  WEFT_TILE_FN auto name(const X& x, Mods...) {                                   \
    static_assert(detail::check_math_operand<X>());                               \
    return ::weft::tiles::map(detail::name##_fn<detail::approximate_math<Mods...>()>{}, x);      \
  }

// The device form only where a device compiler reads it (nvcc's host pass sees host forms).
#if defined(__CUDA_ARCH__)
#define WEFT_TILES_APPROX(device_form, host_form) device_form
#else
#define WEFT_TILES_APPROX(device_form, host_form) host_form
#endif

namespace detail {
#if !defined(WEFT_TARGET_HOST)
__device__ __forceinline__ float ex2_approx(float x) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
__device__ __forceinline__ float tanh_approx(float x) {
  float r;
  asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
__device__ __forceinline__ float sqrt_approx(float x) {
  float r;
  asm("sqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
#endif
WEFT_HD float rsqrt_full(float x) {
#if defined(__CUDA_ARCH__)
  return ::rsqrtf(x);
#else
  return 1.0f / ::sqrtf(x);
#endif
}
WEFT_HD double rsqrt_full(double x) {
#if defined(__CUDA_ARCH__)
  return ::rsqrt(x);
#else
  return 1.0 / ::sqrt(x);
#endif
}
}  // namespace detail

// e^x, 2^x, ln x, log2 x, sin, cos, tanh, 1/sqrt(x), floor, ceil, element-wise; an optional
// ct::round_approximate_t selects the hardware approximation on the GPU.
WEFT_TILES_MATH_UNARY(exp, ::expf(v), ::exp(v), WEFT_TILES_APPROX(__expf(v), ::expf(v)))
WEFT_TILES_MATH_UNARY(exp2, ::exp2f(v), ::exp2(v), WEFT_TILES_APPROX(detail::ex2_approx(v), ::exp2f(v)))
WEFT_TILES_MATH_UNARY(log, ::logf(v), ::log(v), WEFT_TILES_APPROX(__logf(v), ::logf(v)))
WEFT_TILES_MATH_UNARY(log2, ::log2f(v), ::log2(v), WEFT_TILES_APPROX(__log2f(v), ::log2f(v)))
WEFT_TILES_MATH_UNARY(sin, ::sinf(v), ::sin(v), WEFT_TILES_APPROX(__sinf(v), ::sinf(v)))
WEFT_TILES_MATH_UNARY(cos, ::cosf(v), ::cos(v), WEFT_TILES_APPROX(__cosf(v), ::cosf(v)))
WEFT_TILES_MATH_UNARY(tanh, ::tanhf(v), ::tanh(v), WEFT_TILES_APPROX(detail::tanh_approx(v), ::tanhf(v)))
WEFT_TILES_MATH_UNARY(rsqrt, detail::rsqrt_full(v), detail::rsqrt_full(v), detail::rsqrt_full(v))
WEFT_TILES_MATH_UNARY(floor, ::floorf(v), ::floor(v), ::floorf(v))
WEFT_TILES_MATH_UNARY(ceil, ::ceilf(v), ::ceil(v), ::ceilf(v))
#undef WEFT_TILES_MATH_UNARY
#undef WEFT_TILES_APPROX

// sqrt(x) correctly rounded in the given precise rounding mode (default: to nearest even), or
// approximate (ct::round_approximate_t); optional subnormal mode.
template <class X, class... Mods>
WEFT_TILE_FN auto sqrt(const X& x, Mods...) {
  static_assert(detail::check_math_operand<X>());
  using M = decltype(detail::checked_modifiers<4, detail::element_of<X>, Mods...>());
  return ::weft::tiles::map(detail::sqrt_fn<M>{}, x);
}

// a ** b after the arithmetic tile conversion (floating point).
template <class A, class B>
WEFT_TILE_FN auto pow(const A& a, const B& b) {
  using E = detail::common_element_t<A, B>;
  static_assert(detail::is_basic_float<E>, "ct::pow takes floating point operands (convert integers first)");
  return detail::converted_map<false>(detail::pow_fn{}, a, b);
}

// ---- Operators (tiles only: at least one operand is a ct::tile) -------------------------------

namespace detail {
template <class A, class B>
concept tile_operands = (is_tile<A> || is_tile<B>) && is_tile_like<A> && is_tile_like<B> &&
                        !is_pointer_scalar<element_of<A>> && !is_pointer_scalar<element_of<B>>;
}  // namespace detail

#define WEFT_TILES_BINARY_OPERATOR(op, function)                  \
  template <class A, class B>                                     \
    requires detail::tile_operands<A, B>                          \
  WEFT_TILE_FN auto operator op(const A& a, const B& b) {         \
    return ::weft::tiles::function(a, b);                         \
  }
WEFT_TILES_BINARY_OPERATOR(+, add)
WEFT_TILES_BINARY_OPERATOR(-, sub)
WEFT_TILES_BINARY_OPERATOR(*, mul)
WEFT_TILES_BINARY_OPERATOR(/, div)
WEFT_TILES_BINARY_OPERATOR(%, rem)
WEFT_TILES_BINARY_OPERATOR(&, bit_and)
WEFT_TILES_BINARY_OPERATOR(|, bit_or)
WEFT_TILES_BINARY_OPERATOR(^, bit_xor)
WEFT_TILES_BINARY_OPERATOR(<<, shl)
WEFT_TILES_BINARY_OPERATOR(>>, shr)
WEFT_TILES_BINARY_OPERATOR(==, eq)
WEFT_TILES_BINARY_OPERATOR(!=, ne)
WEFT_TILES_BINARY_OPERATOR(<, lt)
WEFT_TILES_BINARY_OPERATOR(<=, le)
WEFT_TILES_BINARY_OPERATOR(>, gt)
WEFT_TILES_BINARY_OPERATOR(>=, ge)
#undef WEFT_TILES_BINARY_OPERATOR

// -a and ~a on tiles.
template <class T, class S, class L>
WEFT_TILE_FN auto operator-(const tile<T, S, L>& a) {
  return ::weft::tiles::neg(a);
}
template <class T, class S, class L>
WEFT_TILE_FN auto operator~(const tile<T, S, L>& a) {
  return ::weft::tiles::bit_not(a);
}

}  // namespace weft::tiles
