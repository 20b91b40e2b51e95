// Arrays in device code. Array<T, N> is also the kernel parameter ABI shared with the
// runtime, which packs each array argument as {pointer, N x uint64 shape, N x uint64 strides}
// with strides counted in ELEMENTS (possibly negative, stored two's complement).
#pragma once

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

}  // namespace detail

// The element of `array` at `index...` (one index per dimension); Wrap... says per index
// whether a negative value counts from the end of its dimension (Python semantics).
template <bool... Wrap, class T, int N, class... I>
WEFT_HD T& at(const Array<T, N>& array, I... index) {
  static_assert(sizeof...(Wrap) == N && sizeof...(I) == N, "one index per dimension");
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

}  // namespace weft
