// Tiles and memory (the seed's "Tensor Span" and pointer tiles): tensor_span (a pointer,
// extents and strides in elements), partition_view (the grid of TileShape tiles over a span,
// with a padding value for elements outside it), load/store of the tile at a block index, and
// pointer tiles (ptr + integer tile) with gather loads and scatter stores, masked or not.
//
// Loads are done by every thread for the elements it holds (replicas included, so every
// thread has valid data); stores by the owner of each element only (once per element). Where
// the span's innermost stride is 1 and an address is aligned, a thread's vector of consecutive
// elements moves with 16-byte (or narrower) accesses; otherwise element by element. A span's
// launch facts (span_facts.h) prove some of those conditions at compile time, and the checks
// and the fallback they make unnecessary are not compiled.
#pragma once

#include "weft/tiles/elementwise.h"
#include "weft/tiles/span_facts.h"

namespace weft::tiles {

// A multi-dimensional array in memory: data, extents E and strides (in elements, row-major by
// default). Facts: the span_fact bits its creator guarantees of every span of this type (the
// code generator's launch facts; 0, the default, guarantees nothing).
template <class T, class E, unsigned Facts = 0>
class tensor_span {
  static_assert(detail::is_extents<E>, "tensor_span's second parameter is a ct::extents type");
  static_assert(detail::is_numeric<detail::remove_cv_t<T>>, "tensor_span's element type must be a numeric scalar");
  static_assert((Facts & ~all_span_facts) == 0, "tensor_span's facts are span_fact bits");

 public:
  // The span_fact bits every span of this type satisfies.
  static constexpr unsigned facts = Facts;
  using extents_type = E;
  using element_type = T;
  using value_type = detail::remove_cv_t<T>;
  using index_type = typename E::index_type;
  using rank_type = size_t;
  using data_handle_type = T*;
  using reference = T&;

  // A row-major span over `data`.
  WEFT_HD constexpr tensor_span(T* data, const E& extents) : data_(data), extents_(extents), strides_{} {
    index_type stride = 1;
    for (rank_type d = E::rank(); d-- > 0;) {
      strides_[d] = stride;
      stride = static_cast<index_type>(stride * extents_.extent(d));
    }
  }
  // A span over `data` with the given strides (in elements), one per dimension.
  template <class... J>
    requires(sizeof...(J) == E::rank() && sizeof...(J) > 0)
  WEFT_HD constexpr tensor_span(T* data, const E& extents, J... strides)
      : data_(data), extents_(extents), strides_{static_cast<index_type>(strides)...} {}

  // The number of dimensions.
  WEFT_HD static constexpr rank_type rank() noexcept { return E::rank(); }
  // The pointer to element (0, ..., 0).
  WEFT_HD constexpr T* data_handle() const noexcept { return data_; }
  // The extents.
  WEFT_HD constexpr const E& extents() const noexcept { return extents_; }
  // The length of dimension d.
  WEFT_HD constexpr index_type extent(rank_type d) const noexcept { return extents_.extent(d); }
  // The distance in elements between consecutive elements along dimension d.
  WEFT_HD constexpr index_type stride(rank_type d) const noexcept { return strides_[d]; }

 private:
  T* data_;
  E extents_;
  index_type strides_[E::rank() > 0 ? E::rank() : 1];
};

template <class T, class E>
tensor_span(T*, E) -> tensor_span<T, E>;
template <class T, class E, class... J>
tensor_span(T*, E, J...) -> tensor_span<T, E>;

// The value of the elements of a view's tile outside the span (the seed's "View Padding").
enum class view_padding : uint8_t { zero, pos_inf, neg_inf, nan };
// Padding tags: zero (default), +infinity, -infinity, NaN (the last three need floating point).
struct padding_zero_t {
  static constexpr view_padding value = view_padding::zero;
};
struct padding_pos_inf_t {
  static constexpr view_padding value = view_padding::pos_inf;
};
struct padding_neg_inf_t {
  static constexpr view_padding value = view_padding::neg_inf;
};
struct padding_nan_t {
  static constexpr view_padding value = view_padding::nan;
};

namespace detail {
template <class P>
inline constexpr bool is_padding = is_same_v<P, padding_zero_t> || is_same_v<P, padding_pos_inf_t> ||
                                   is_same_v<P, padding_neg_inf_t> || is_same_v<P, padding_nan_t>;

// The padding value in element type T.
template <class T>
WEFT_HD T padding_value(view_padding padding) {
  if constexpr (is_floating<T>) {
    switch (padding) {
      case view_padding::zero:
        return scalar_convert<T>(0.0f);
      case view_padding::pos_inf:
        return scalar_convert<T>(::weft::inf<float>());
      case view_padding::neg_inf:
        return scalar_convert<T>(-::weft::inf<float>());
      case view_padding::nan:
        return scalar_convert<T>(::weft::nan<float>());
    }
    return scalar_convert<T>(0.0f);
  } else {
    (void)padding;
    return T(0);
  }
}
}  // namespace detail

// The tiling of a span by tiles of shape TileShape (one tile per block index (i0, i1, ...),
// covering elements [i_k * TileShape_k, (i_k + 1) * TileShape_k) along each dimension k).
template <class Span, class TileShape>
class partition_view {
  static_assert(detail::check_tile_shape<TileShape>());
  static_assert(TileShape::rank() == Span::rank() && Span::rank() > 0,
                "a partition_view's tile shape must have the span's rank (at least 1)");

 public:
  using span_type = Span;
  using tile_shape_type = TileShape;
  using value_type = typename Span::value_type;
  using tile_type = tile<value_type, TileShape>;

  // The view of `span`, padded with `Padding` (padding_zero_t by default).
  template <class Padding = padding_zero_t>
  WEFT_HD constexpr explicit partition_view(const Span& span, Padding = {}) : span_(span), padding_(Padding::value) {
    static_assert(detail::is_padding<Padding>, "a partition_view's padding is a ct::padding_*_t tag");
    static_assert(detail::is_same_v<Padding, padding_zero_t> || detail::is_floating<value_type>,
                  "infinity and NaN paddings need a floating point span (integers pad with zero)");
  }

  // The span.
  WEFT_HD constexpr const Span& span() const noexcept { return span_; }
  // The padding.
  WEFT_HD constexpr view_padding padding() const noexcept { return padding_; }

 private:
  Span span_;
  view_padding padding_;
};

// partition_view<Span, TileShape>(span, padding) with Span deduced.
template <class TileShape, class Span, class Padding = padding_zero_t>
WEFT_HD constexpr auto make_partition_view(const Span& span, Padding padding = {}) {
  return partition_view<Span, TileShape>(span, padding);
}

// (a + b - 1) / b for b > 0.
template <class A, class B>
WEFT_HD constexpr auto cdiv(A a, B b) {
  return (a + b - 1) / b;
}

// The number of tiles of the view along `axis` (the last one partial when the extent is not a
// multiple of the tile's).
template <class Span, class TileShape>
WEFT_HD constexpr typename Span::index_type num_tiles(const partition_view<Span, TileShape>& view, size_t axis) {
  using I = typename Span::index_type;
  return cdiv(view.span().extent(axis), static_cast<I>(TileShape::static_extent(axis)));
}

namespace detail {

// Element bytes moved by one aligned access: at most 16.
template <uint32_t Bytes>
struct access_word;
template <>
struct access_word<1> {
  using type = unsigned char;
};
template <>
struct access_word<2> {
  using type = unsigned short;
};
template <>
struct access_word<4> {
  using type = unsigned int;
};
#if defined(WEFT_TARGET_HOST)
template <>
struct access_word<8> {
  using type = unsigned long long;
};
struct alignas(16) host_word16 {
  unsigned long long w[2];
};
template <>
struct access_word<16> {
  using type = host_word16;
};
#else
template <>
struct access_word<8> {
  using type = uint2;
};
template <>
struct access_word<16> {
  using type = uint4;
};
#endif

template <class T, uint32_t N>
struct element_pack {
  T v[N];
};

// P consecutive elements from p, whose address is a multiple of min(16, P * sizeof(T)), in
// accesses of at most 16 bytes.
template <uint32_t P, class T>
WEFT_HD void load_vector(const T* p, T* out) {
  constexpr uint32_t kBytes = P * sizeof(T) < 16 ? P * sizeof(T) : 16;
  constexpr uint32_t kPer = kBytes / sizeof(T);
  using W = typename access_word<kBytes>::type;
  WEFT_UNROLL
  for (uint32_t c = 0; c < P; c += kPer) {
    auto pack = bit_cast<element_pack<T, kPer>>(*reinterpret_cast<const W*>(p + c));
    WEFT_UNROLL
    for (uint32_t v = 0; v < kPer; ++v) out[c + v] = pack.v[v];
  }
}
template <uint32_t P, class T>
WEFT_HD void store_vector(T* p, const T* in) {
  constexpr uint32_t kBytes = P * sizeof(T) < 16 ? P * sizeof(T) : 16;
  constexpr uint32_t kPer = kBytes / sizeof(T);
  using W = typename access_word<kBytes>::type;
  WEFT_UNROLL
  for (uint32_t c = 0; c < P; c += kPer) {
    element_pack<T, kPer> pack;
    WEFT_UNROLL
    for (uint32_t v = 0; v < kPer; ++v) pack.v[v] = in[c + v];
    *reinterpret_cast<W*>(p + c) = bit_cast<W>(pack);
  }
}

template <class T>
WEFT_HD bool aligned_to(const T* p, uint32_t bytes) {
  return (reinterpret_cast<unsigned long long>(p) & (bytes - 1)) == 0;
}

// Whether the tile at block index `index` lies wholly inside the span with every piece of P
// consecutive elements contiguous and aligned to min(16, P * sizeof(T)) bytes: then it moves
// with vector accesses and no per-piece checks (the common case, decided once per tile).
// What a span's facts (span_facts.h) prove of the pieces of P consecutive elements a thread
// moves along a tile's last dimension, each starting at a multiple of P there (every layout's
// pieces do: blocked vectors, mma column pairs).
template <class Span, uint32_t P>
struct piece_facts {
  static constexpr unsigned kFacts = Span::facts;
  static constexpr uint32_t kBytes = P * static_cast<uint32_t>(sizeof(typename Span::value_type));
  // The piece's elements are consecutive in memory.
  static constexpr bool kContiguous = P == 1 || (kFacts & unit_inner_stride) != 0;
  // The piece's address is a multiple of min(16, P * sizeof(T)): the data and the outer
  // strides are multiples of 16 bytes, and the piece starts a multiple of P elements into a row.
  static constexpr bool kAligned = kContiguous && (kFacts & aligned_data) != 0 && (kFacts & aligned_strides) != 0;
  // The piece lies wholly inside its row or wholly past its end: the row's length is a multiple
  // of 16 bytes, so of P elements where a piece is at most 16 bytes.
  static constexpr bool kWhole = (kFacts & aligned_extent) != 0 && kBytes <= 16;
  // Each piece is a vector inside the span or padding outside it: no element-by-element path.
  static constexpr bool kVectors = kAligned && kWhole;
};

template <class Tile, class Span>
WEFT_TILE_FN bool tile_is_inside_and_aligned(const Span& span, const int64_t* index) {
  using S = typename Tile::shape_type;
  using L = typename Tile::layout_type;
  using T = typename Span::value_type;
  constexpr uint32_t R = static_cast<uint32_t>(S::rank());
  constexpr uint32_t kLast = static_cast<uint32_t>(S::static_extent(R - 1));
  constexpr uint32_t P = L::kVector < kLast ? L::kVector : kLast;
  constexpr uint32_t kAlign = P * sizeof(T) < 16 ? P * sizeof(T) : 16;
  using Facts = piece_facts<Span, P>;
  bool ok = Facts::kContiguous || span.stride(R - 1) == 1;
  int64_t offset = 0;
  WEFT_UNROLL
  for (uint32_t d = 0; d < R; ++d) {
    int64_t first = index[d] * static_cast<int64_t>(S::static_extent(d));
    ok = ok && first >= 0 && first + static_cast<int64_t>(S::static_extent(d)) <= static_cast<int64_t>(span.extent(d));
    if (d + 1 < R && !Facts::kAligned) ok = ok && (static_cast<uint64_t>(span.stride(d)) * sizeof(T)) % kAlign == 0;
    offset += first * static_cast<int64_t>(span.stride(d));
  }
  return ok && (Facts::kAligned || aligned_to(span.data_handle() + offset, kAlign));
}

// Visits the tile at block index `index` of a view in pieces of P consecutive elements held by
// the calling thread: visit(k0, p, count, vectorOk, stride) per piece of fragment positions
// k0 .. k0 + P - 1, where p points at its first element (the others `stride` elements apart),
// its first `count` elements (0 to P) lie inside the span and the others outside, and vectorOk
// says the whole piece is inside, contiguous and aligned to min(16, P * sizeof(T)) bytes. With
// Inside (the tile is known to be inside and aligned) every piece is a vector; where the span's
// facts prove pieces whole and aligned (piece_facts::kVectors), `count` is 0 or P and vectorOk
// is count == P. `count` is 32-bit so that the element checks are.
template <class Tile, bool Inside, class Span, class Visit>
WEFT_TILE_FN void visit_view_tile(const Span& span, const int64_t* index, Visit visit) {
  using S = typename Tile::shape_type;
  using L = typename Tile::layout_type;
  using T = typename Span::value_type;
  constexpr uint32_t R = static_cast<uint32_t>(S::rank());
  constexpr uint32_t kLast = static_cast<uint32_t>(S::static_extent(R - 1));
  constexpr uint32_t P = L::kVector < kLast ? L::kVector : kLast;
  constexpr uint32_t kAlign = P * sizeof(T) < 16 ? P * sizeof(T) : 16;
  using Facts = piece_facts<Span, P>;
  const uint32_t t = thread_rank();
  const int64_t lastStride = (Inside || Facts::kContiguous) && P > 1 ? 1 : static_cast<int64_t>(span.stride(R - 1));
  const int64_t lastExtent = static_cast<int64_t>(span.extent(R - 1));
  const bool contiguous = Facts::kContiguous || lastStride == 1;
  WEFT_UNROLL
  for (uint32_t k0 = 0; k0 < L::kFragment; k0 += P) {
    const uint32_t j = L::index(t, k0);
    bool rowsIn = true;
    int64_t offset = 0;
    WEFT_UNROLL
    for (uint32_t d = 0; d + 1 < R; ++d) {
      int64_t g = index[d] * static_cast<int64_t>(S::static_extent(d)) +
                  static_cast<int64_t>((j / static_cast<uint32_t>(shape_info<S>::stride(d))) % static_cast<uint32_t>(S::static_extent(d)));
      if constexpr (!Inside) rowsIn = rowsIn && g >= 0 && g < static_cast<int64_t>(span.extent(d));
      offset += g * static_cast<int64_t>(span.stride(d));
    }
    int64_t g = index[R - 1] * static_cast<int64_t>(kLast) + static_cast<int64_t>(j % kLast);
    offset += g * lastStride;
    auto* p = span.data_handle() + offset;
    if constexpr (Inside) {
      visit(k0, p, P, true, lastStride);
    } else {
      // Every layout's pieces start at a multiple of P along the last dimension (blocked
      // vectors, mma column pairs), so a piece with g < 0 lies wholly before the span.
      const int64_t left = rowsIn && g >= 0 ? lastExtent - g : 0;
      const uint32_t count = left <= 0                          ? 0u
                             : Facts::kWhole || left >= int64_t(P) ? P
                                                                   : static_cast<uint32_t>(left);
      visit(k0, p, count, contiguous && count == P && (Facts::kAligned || aligned_to(p, kAlign)), lastStride);
    }
  }
}

// Visits the pieces of the tile at block index `index` of a view (visit_view_tile). A tile of
// one row (its extents but the last are 1: a 1-D tile, a row of a matrix) takes one path, each
// piece choosing between a vector and its elements: its pieces share the row's checks, leaving
// one compare a piece, while a check of the whole tile picking an unchecked path or this one
// joined the two, and ptxas kept a register per joined value and both paths' addresses live (a
// bfloat16 softmax row took 39 registers against 32). Other tiles, whose pieces each check a
// row of their own, are checked whole once, unless Checked, and then move unchecked when inside
// and aligned (checked piece by piece, the attention kernel's key and value tiles took 142
// registers against 128).
template <class Tile, bool Checked, class Span, class Visit>
WEFT_TILE_FN void visit_tile_pieces(const Span& span, const int64_t* index, Visit visit) {
  using S = typename Tile::shape_type;
  constexpr bool kOneRow = S::static_extent(S::rank() - 1) == Tile::layout_type::kSize;
  if constexpr (!Checked && !kOneRow) {
    if (tile_is_inside_and_aligned<Tile>(span, index)) {
      visit_view_tile<Tile, true>(span, index, visit);
      return;
    }
  }
  visit_view_tile<Tile, false>(span, index, visit);
}

}  // namespace detail

namespace detail {
// The tile of shape TileShape at block index `indices` of `span`; its elements outside the span
// are `pad` (each piece inside, contiguous and aligned moves in accesses of up to 16 bytes).
template <class TileShape, class Span>
WEFT_TILE_FN auto load_padded(const Span& span, typename Span::value_type pad, const int64_t* indices) {
  using T = typename Span::value_type;
  using Tile = tile<T, TileShape>;
  using L = typename Tile::layout_type;
  constexpr uint32_t kLast = static_cast<uint32_t>(TileShape::static_extent(TileShape::rank() - 1));
  constexpr uint32_t P = L::kVector < kLast ? L::kVector : kLast;
  // Elements narrower than 32 bits are filled in as the 32-bit words they arrive in, and split
  // after a piece's vector and element paths join: the join then holds a register a word, not
  // one an element (a bfloat16 layernorm's weights and biases took twice the registers and a byte
  // permute an element before their conversion).
  constexpr uint32_t kPerWord = sizeof(T) < 4 ? 4 / sizeof(T) : 1;
  constexpr bool kWords = sizeof(T) < 4 && P % kPerWord == 0;
  using Filled = conditional_t<kWords, element_pack<unsigned, kWords ? L::kFragment / kPerWord : 1>,
                               element_pack<T, L::kFragment>>;
  // Where the span's facts make every piece a vector or wholly outside, the other pieces are
  // padding and no element is read one by one.
  constexpr bool kVectors = piece_facts<Span, P>::kVectors;
  Filled filled;
  auto visit = [&](uint32_t k0, const typename Span::element_type* p, uint32_t count, bool vectorOk, int64_t stride) {
    if constexpr (kWords) {
      constexpr uint32_t kPieceWords = P / kPerWord, kBits = 8 * sizeof(T);
      if (vectorOk) {
        load_vector<kPieceWords>(reinterpret_cast<const unsigned*>(p), &filled.v[k0 / kPerWord]);
      } else if constexpr (kVectors) {
        element_pack<T, P> pads;
        WEFT_UNROLL
        for (uint32_t v = 0; v < P; ++v) pads.v[v] = pad;
        auto words = bit_cast<element_pack<unsigned, kPieceWords>>(pads);
        WEFT_UNROLL
        for (uint32_t w = 0; w < kPieceWords; ++w) filled.v[k0 / kPerWord + w] = words.v[w];
      } else {
        // Element by element, each shifted into the piece's words from the top, in a loop: this
        // rarely taken path then holds one element and one address at a time (unrolled, its
        // addresses and elements set the kernel's register count: a bfloat16 layernorm's
        // weights and biases took it to its cap of 64, against 59 so).
        element_pack<unsigned, kPieceWords> words{};
        WEFT_NO_UNROLL
        for (uint32_t v = 0; v < P; ++v) {
          T e = v < count ? p[v * stride] : pad;
          WEFT_UNROLL
          for (uint32_t w = 0; w + 1 < kPieceWords; ++w)
            words.v[w] = (words.v[w] >> kBits) | (words.v[w + 1] << (32 - kBits));
          words.v[kPieceWords - 1] = (words.v[kPieceWords - 1] >> kBits) |
                                     (static_cast<unsigned>(bit_cast<bits_t<T>>(e)) << (32 - kBits));
        }
        WEFT_UNROLL
        for (uint32_t w = 0; w < kPieceWords; ++w) filled.v[k0 / kPerWord + w] = words.v[w];
      }
    } else if (vectorOk) {
      load_vector<P>(p, &filled.v[k0]);
    } else if constexpr (kVectors) {
      WEFT_UNROLL
      for (uint32_t v = 0; v < P; ++v) filled.v[k0 + v] = pad;
    } else {
      WEFT_UNROLL
      for (uint32_t v = 0; v < P; ++v) filled.v[k0 + v] = v < count ? p[v * stride] : pad;
    }
  };
  visit_tile_pieces<Tile, false>(span, indices, visit);
  auto elements = bit_cast<element_pack<T, L::kFragment>>(filled);
  Tile out;
  WEFT_UNROLL
  for (uint32_t k = 0; k < L::kFragment; ++k) out.frag_[k] = elements.v[k];
  return out;
}
}  // namespace detail

// The tile at block index (i0, i1, ...) of the view; elements outside the span are the view's
// padding.
template <class Span, class TileShape, class... I>
WEFT_TILE_FN auto load(const partition_view<Span, TileShape>& view, I... index) {
  static_assert(sizeof...(I) == Span::rank(), "ct::load(view, i...) takes one block index per dimension of the view");
  static_assert((detail::is_integral<I> && ...), "block indices are integers");
  using T = typename Span::value_type;
  const int64_t indices[] = {static_cast<int64_t>(index)...};
  return detail::load_padded<TileShape>(view.span(), detail::padding_value<T>(view.padding()), indices);
}

namespace detail {
// Stores the elements of `value` that lie inside the span at block index `indices` (each by its
// owner), piece by piece (visit_tile_pieces; with Checked, each piece checked: callers that
// store whole inside tiles their own way). TileShape: S's extents (a view's own shape type).
template <bool Checked, class TileShape, class Span, class T, class S, class L>
WEFT_TILE_FN void store_tile(const Span& span, const tile<T, S, L>& value, const int64_t* indices) {
  using Tile = tile<T, TileShape, L>;
  constexpr uint32_t kLast = static_cast<uint32_t>(TileShape::static_extent(TileShape::rank() - 1));
  constexpr uint32_t P = L::kVector < kLast ? L::kVector : kLast;
  // Where the span's facts make every piece a vector or wholly outside, nothing else is stored.
  constexpr bool kVectors = piece_facts<Span, P>::kVectors;
  if (!L::owner(thread_rank())) return;
  auto visit = [&](uint32_t k0, typename Span::element_type* p, uint32_t count, bool vectorOk, int64_t stride) {
    static_cast<void>(count), static_cast<void>(stride);  // unread where kVectors
    if (vectorOk) {
      store_vector<P>(p, &value.frag_[k0]);
    } else if constexpr (!kVectors) {
      WEFT_UNROLL
      for (uint32_t v = 0; v < P; ++v) {
        if (v < count) p[v * stride] = value.frag_[k0 + v];
      }
    }
  };
  visit_tile_pieces<Tile, Checked>(span, indices, visit);
}
}  // namespace detail

// Stores the elements of tile `value` that lie inside the span at block index (i0, i1, ...) of
// the view (each by its owner).
template <class Span, class TileShape, class T, class S, class L, class... I>
WEFT_TILE_FN void store(const partition_view<Span, TileShape>& view, const tile<T, S, L>& value, I... index) {
  static_assert(sizeof...(I) == Span::rank(), "ct::store(view, tile, i...) takes one block index per dimension of the view");
  static_assert((detail::is_integral<I> && ...), "block indices are integers");
  static_assert(detail::same_shape<S, TileShape>(), "ct::store(view, tile, ...): the tile's shape must be the view's tile shape");
  static_assert(detail::is_same_v<T, typename Span::value_type>,
                "ct::store(view, tile, ...): the tile's element type must be the span's (convert with ct::convert)");
  static_assert(!detail::is_const_element<typename Span::element_type>, "ct::store: the span's elements are const");
  const int64_t indices[] = {static_cast<int64_t>(index)...};
  detail::store_tile<false, TileShape>(view.span(), value, indices);
}

// ---- Pointer tiles -----------------------------------------------------------------------------

namespace detail {
template <class X>
inline constexpr bool has_pointer_elements = is_pointer_scalar<element_of<X>>;

template <class A, class B>
concept pointer_offset_operands = (is_tile<A> || is_tile<B>) && is_tile_like<A> && is_tile_like<B> &&
                                  ((has_pointer_elements<A> && is_integral<element_of<B>>) ||
                                   (has_pointer_elements<B> && is_integral<element_of<A>>));

struct pointer_add_fn {
  template <class X, class Y>
  WEFT_HD auto operator()(X x, Y y) const {
    return x + y;
  }
};
struct dereference_fn {
  template <class P>
  WEFT_HD remove_cv_t<typename remove_pointer<P>::type> operator()(P p) const {
    return *p;
  }
};
template <class T>
struct masked_dereference_fn {
  template <class P>
  WEFT_HD T operator()(P p, bool m, T other) const {
    return m ? T(*p) : other;
  }
};

// A tile operand broadcast to S (elements unchanged), a scalar unchanged.
template <class S, class X>
WEFT_TILE_FN auto broadcast_operand(const X& x) {
  if constexpr (is_tile<X>) {
    return ::weft::tiles::broadcast_to<S>(x);
  } else {
    return x;
  }
}
}  // namespace detail

// A pointer tile: each pointer advanced by the corresponding integer (the operands broadcast to
// one shape).
template <class A, class B>
  requires detail::pointer_offset_operands<A, B>
WEFT_TILE_FN auto operator+(const A& a, const B& b) {
  static_assert(detail::mutually_broadcastable<detail::shape_of<A>, detail::shape_of<B>>(),
                "pointer + offsets: the shapes are not broadcast compatible");
  using S = detail::broadcast_shape_t<detail::shape_of<A>, detail::shape_of<B>>;
  return ::weft::tiles::map(detail::pointer_add_fn{}, detail::broadcast_operand<S>(a), detail::broadcast_operand<S>(b));
}

namespace detail {
template <class P>
WEFT_HD constexpr bool check_pointer_tile() {
  static_assert(is_pointer_scalar<element_of<P>>, "this operation takes a pointer tile (ptr + integer tile) or a pointer");
  if constexpr (is_pointer_scalar<element_of<P>>) {
    static_assert(!is_same_v<remove_cv_t<typename remove_pointer<element_of<P>>::type>, void>,
                  "pointer tiles to void cannot be loaded or stored: cast to a typed pointer");
  }
  return true;
}
}  // namespace detail

// The elements the pointers point at (a gather; a scalar pointer gives a scalar).
template <class P>
  requires detail::has_pointer_elements<P>
WEFT_TILE_FN auto load(const P& pointers) {
  static_assert(detail::check_pointer_tile<P>());
  return ::weft::tiles::map(detail::dereference_fn{}, pointers);
}

// The elements the pointers point at where `mask` is true, `other` elsewhere (no access there);
// mask and other broadcast to the pointers' shape, other converts to the element type.
template <class P, class M, class O>
  requires detail::has_pointer_elements<P>
WEFT_TILE_FN auto load(const P& pointers, const M& mask, const O& other) {
  static_assert(detail::check_pointer_tile<P>());
  using T = detail::remove_cv_t<typename detail::remove_pointer<detail::element_of<P>>::type>;
  using S = detail::shape_of<P>;
  static_assert(detail::broadcastable_to<detail::shape_of<M>, S>() && detail::broadcastable_to<detail::shape_of<O>, S>(),
                "ct::load(pointers, mask, other): mask and other must broadcast to the pointers' shape");
  static_assert(detail::check_not_narrowing<detail::element_of<O>, T>(), "");
  return ::weft::tiles::map(detail::masked_dereference_fn<T>{}, pointers, detail::prepare<bool, S>(mask),
             detail::prepare<T, S>(other));
}

// Stores values (broadcast to the pointers' shape, converted to their element type) through
// the pointers, each element once (by its owner); with `mask`, only where it is true.
template <class P, class V>
  requires detail::has_pointer_elements<P>
WEFT_TILE_FN void store(const P& pointers, const V& values) {
  static_assert(detail::check_pointer_tile<P>());
  using T = detail::remove_cv_t<typename detail::remove_pointer<detail::element_of<P>>::type>;
  using S = detail::shape_of<P>;
  static_assert(detail::broadcastable_to<detail::shape_of<V>, S>(), "ct::store(pointers, values): values must broadcast to the pointers' shape");
  static_assert(detail::check_not_narrowing<detail::element_of<V>, T>(), "");
  static_assert(!detail::is_const_element<typename detail::remove_pointer<detail::element_of<P>>::type>,
                "ct::store: the pointers point at const elements");
  if constexpr (detail::is_tile<P>) {
    using L = typename P::layout_type;
    auto v = detail::in_layout<L>(detail::prepare<T, S>(values));  // collective: before any return
    if (!L::owner(detail::thread_rank())) return;
    WEFT_UNROLL
    for (uint32_t k = 0; k < L::kFragment; ++k) *pointers.frag_[k] = detail::element(v, k);
  } else {
    if (detail::thread_rank() == 0) *pointers = detail::scalar_convert<T>(values);
  }
}
template <class P, class V, class M>
  requires detail::has_pointer_elements<P>
WEFT_TILE_FN void store(const P& pointers, const V& values, const M& mask) {
  static_assert(detail::check_pointer_tile<P>());
  using T = detail::remove_cv_t<typename detail::remove_pointer<detail::element_of<P>>::type>;
  using S = detail::shape_of<P>;
  static_assert(detail::broadcastable_to<detail::shape_of<V>, S>() && detail::broadcastable_to<detail::shape_of<M>, S>(),
                "ct::store(pointers, values, mask): values and mask must broadcast to the pointers' shape");
  static_assert(detail::check_not_narrowing<detail::element_of<V>, T>(), "");
  if constexpr (detail::is_tile<P>) {
    using L = typename P::layout_type;
    auto v = detail::in_layout<L>(detail::prepare<T, S>(values));  // collective: before any return
    auto m = detail::in_layout<L>(detail::prepare<bool, S>(mask));
    if (!L::owner(detail::thread_rank())) return;
    WEFT_UNROLL
    for (uint32_t k = 0; k < L::kFragment; ++k) {
      if (detail::element(m, k)) *pointers.frag_[k] = detail::element(v, k);
    }
  } else {
    if (detail::thread_rank() == 0 && detail::scalar_convert<bool>(mask)) *pointers = detail::scalar_convert<T>(values);
  }
}

}  // namespace weft::tiles
