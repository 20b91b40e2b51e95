// The machine representation of types (the interop ABI of the specification): size,
// alignment and member offsets, as the CUDA C++ types weft emits lay them out.
#pragma once

#include <cstdint>
#include <vector>

#include "types/type.h"

namespace weft::types {

struct Layout {
  uint64_t size = 0;
  uint64_t align = 1;
  std::vector<uint64_t> offsets;  // Tuple/Struct: per member; Array: data, shape, strides
};

// The layout of `type`: scalars as their CUDA C++ types (complex as cuda::std::complex, aligned
// to its size), None as void*, arrays as interoperable_array_descriptor<T, N> ({T* data;
// uint64_t shape[N]; uint64_t strides[N];}), inline arrays as T[n] (n the product of the shape),
// tuples and structs as standard-layout classes with one member per element in order (a struct
// aligned to at least its `align`), and a NumPy record as its offsets, size and alignment say.
Layout layoutOf(const Type* type);

// The alignment of a NumPy record whose fields have layouts `fields` at `offsets` in `size`
// bytes: the largest field alignment when every field sits at a multiple of its own and `size`
// is a multiple of it (a C struct's layout, with any gaps), else 1 (a packed record, whose
// fields device code reads byte by byte).
uint64_t recordAlignment(const std::vector<Layout>& fields, const std::vector<uint64_t>& offsets,
                         uint64_t size);

}  // namespace weft::types
