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
// uint64_t shape[N]; uint64_t strides[N];}), tuples and structs as standard-layout classes with
// one member per element in order (a struct aligned to at least its `align`).
Layout layoutOf(const Type* type);

}  // namespace weft::types
