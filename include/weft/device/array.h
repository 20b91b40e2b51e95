// Arrays in device code. Array<T, N> is also the kernel parameter ABI shared with the
// runtime, which packs each array argument as {pointer, N x uint64 shape, N x uint64 strides}
// with strides counted in ELEMENTS (possibly negative, stored two's complement). Element
// access is bounds-checked where the unit's checks run (intrinsics.h, docs/debugging.md).
#pragma once

#include "weft/device/intrinsics.h"
#include "weft/device/numeric.h"

namespace weft {

// A strided N-dimensional view of elements of type T.
template <class T, int N>
struct Array {
  T* data;
  uint64_t shape[N];
  uint64_t strides[N];
};

// The ABI: data at 0, shape at 8, strides at 8 + 8 * N, no padding. NVRTC has no offsetof,
// so the offsets are proven by sizes: members are laid out in declaration order, and a
// prefix struct without padding fixes where the next member starts.
namespace detail {
template <int N>
struct ArrayPrefix {
  void* data;
  uint64_t shape[N];
};
}  // namespace detail
static_assert(sizeof(detail::ArrayPrefix<1>) == 16 && sizeof(detail::ArrayPrefix<3>) == 32, "Array ABI");
static_assert(sizeof(Array<float, 1>) == 24 && alignof(Array<float, 1>) == 8, "Array ABI");
static_assert(sizeof(Array<int8_t, 2>) == 40 && alignof(Array<int8_t, 2>) == 8, "Array ABI");
static_assert(sizeof(Array<double, 3>) == 56 && alignof(Array<double, 3>) == 8, "Array ABI");

namespace detail {

// Index `i` of dimension `d` as an element count; a negative index counts from the end
// (Python) when Wrap is set. Unsigned arithmetic wraps, which is exact for negative strides.
template <bool Wrap, class T, int N, class I>
WEFT_HD uint64_t indexOffset(const Array<T, N>& array, int d, I i) {
  uint64_t index = static_cast<uint64_t>(static_cast<int64_t>(i));
  if constexpr (Wrap && kIsSigned<I>) {
    if (i < 0) index += array.shape[d];
  }
  return index * array.strides[d];
}

// Whether index `i` (a negative one wrapped when Wrap is set) lies in [0, size).
template <bool Wrap, class I>
WEFT_HD bool inBounds(uint64_t size, I i) {
  uint64_t index = static_cast<uint64_t>(static_cast<int64_t>(i));
  if constexpr (Wrap && kIsSigned<I>) {
    if (i < 0) index += size;
  }
  return index < size;
}

// A bounds-checked access whose indices do not all lie in their dimensions: reports the first
// axis out of bounds and stops the thread.
template <bool... Wrap, class T, int N, class... I>
WEFT_HD void checkIndices(uint32_t site, const Array<T, N>& array, I... index) {
  int axis = -1;
  int d = 0;
  ((axis < 0 && !inBounds<Wrap>(array.shape[d], index) ? axis = d : 0, ++d), ...);
  if (axis < 0) return;
  // Copies, so that the descriptor (a kernel parameter, perhaps) never has its address taken.
  const int64_t given[] = {static_cast<int64_t>(index)...};
  uint64_t shape[N];
  for (int k = 0; k < N; ++k) shape[k] = array.shape[k];
  fail(Failure{CheckKind::Bounds, site, static_cast<uint32_t>(axis), N, shape, N, given, given[axis],
               shape[axis]});
}

}  // namespace detail

// The element of `array` at `index...` (one index per dimension); Wrap... says per index
// whether a negative value counts from the end of its dimension (Python semantics). Where the
// unit's checks run (kChecks), an index out of bounds fails check site `site` (IndexError)
// before any memory is touched; otherwise it is not checked.
template <bool... Wrap, class T, int N, class... I>
WEFT_HD T& at(uint32_t site, const Array<T, N>& array, I... index) {
  static_assert(sizeof...(Wrap) == N && sizeof...(I) == N, "one index per dimension");
  if constexpr (kChecks) detail::checkIndices<Wrap...>(site, array, index...);
  uint64_t offset = 0;
  int d = 0;
  ((offset += detail::indexOffset<Wrap>(array, d++, index)), ...);
  return array.data[static_cast<int64_t>(offset)];
}

// The number of elements: the product of the shape.
template <class T, int N>
WEFT_HD int64_t size(const Array<T, N>& array) {
  uint64_t count = 1;
  for (int d = 0; d < N; ++d) count *= array.shape[d];
  return static_cast<int64_t>(count);
}

// array.shape[d] and array.strides[d] as Python reads them: int64, strides in bytes.
template <class T, int N>
WEFT_HD int64_t shape(const Array<T, N>& array, int d) {
  return static_cast<int64_t>(array.shape[d]);
}
template <class T, int N>
WEFT_HD int64_t stride_bytes(const Array<T, N>& array, int d) {
  return static_cast<int64_t>(array.strides[d] * sizeof(T));
}

// ---- NumPy records (docs/structs.md): sub-array fields and packed fields ----

// A NumPy sub-array field (('pos', numpy.float32, (2, 3))): the elements in place, in C order.
// Standard layout, sizeof == product of the extents * sizeof(T), alignof == alignof(T).
template <class T, uint64_t... Extents>
struct InlineArray {
  T elements[(Extents * ...)];
};

// A member of a packed record (alignment 1) whose type needs more: its bytes, read and written
// by copying, so that no access assumes an alignment the record does not give.
template <class T>
struct Unaligned {
  unsigned char bytes[sizeof(T)];
  Unaligned() = default;
  WEFT_HD Unaligned(const T& value) {
    const unsigned char* from = reinterpret_cast<const unsigned char*>(&value);
    for (unsigned i = 0; i < sizeof(T); ++i) bytes[i] = from[i];
  }
};

// The value an Unaligned member holds.
template <class T>
WEFT_HD T load(const Unaligned<T>& member) {
  T value;
  unsigned char* to = reinterpret_cast<unsigned char*>(&value);
  for (unsigned i = 0; i < sizeof(T); ++i) to[i] = member.bytes[i];
  return value;
}

namespace detail {

template <uint64_t... Extents>
struct InlineShape {};

// The C-order position of `index...` in an inline array of Extents...; Wrap... says per index
// whether a negative value counts from the end of its dimension.
template <bool... Wrap, uint64_t... Extents, class... I>
WEFT_HD uint64_t inlineOffset(InlineShape<Extents...>, I... index) {
  static_assert(sizeof...(Wrap) == sizeof...(Extents) && sizeof...(I) == sizeof...(Extents),
                "one index per dimension");
  uint64_t offset = 0;
  ((offset = offset * Extents + static_cast<uint64_t>(static_cast<int64_t>(index)) +
             (Wrap && static_cast<int64_t>(index) < 0 ? Extents : 0)),
   ...);
  return offset;
}

}  // namespace detail

// Element `index...` of an inline array.
template <bool... Wrap, class T, uint64_t... Extents, class... I>
WEFT_HD T get(const InlineArray<T, Extents...>& array, I... index) {
  return array.elements[detail::inlineOffset<Wrap...>(detail::InlineShape<Extents...>{}, index...)];
}

// Stores `value` at `index...` of an inline array in memory (a field of a record in an array).
template <bool... Wrap, class T, uint64_t... Extents, class... I>
WEFT_HD void store(InlineArray<T, Extents...>& array, T value, I... index) {
  array.elements[detail::inlineOffset<Wrap...>(detail::InlineShape<Extents...>{}, index...)] = value;
}

// The same for an inline array that is an Unaligned member of a packed record.
template <bool... Wrap, class T, uint64_t... Extents, class... I>
WEFT_HD void store(Unaligned<InlineArray<T, Extents...>>& array, T value, I... index) {
  uint64_t at = detail::inlineOffset<Wrap...>(detail::InlineShape<Extents...>{}, index...) * sizeof(T);
  const unsigned char* from = reinterpret_cast<const unsigned char*>(&value);
  for (unsigned i = 0; i < sizeof(T); ++i) array.bytes[at + i] = from[i];
}

}  // namespace weft
