// Launch facts of an array (docs/tiles.md "Launch facts"): what a tile kernel's specialization
// knows of its array arguments' layout at compile time, so that the loads and stores of
// memory.h drop the checks and the element-by-element fallback the facts make unnecessary.
// The runtime computes them at each launch with facts_of (src/runtime), sema carries them in
// an array's type (types::Type::facts), and the code generator passes them to the header as
// tensor_span's third template argument. The compiler and the runtime include it too.
#pragma once

#include "weft/device/config.h"

namespace weft::tiles {

// The facts, one bit each; a span's facts are their union (0: nothing known, today's code).
enum span_fact : unsigned {
  // The data pointer is a multiple of 16 bytes.
  aligned_data = 1u,
  // The innermost stride is 1 element.
  unit_inner_stride = 2u,
  // Every stride but the innermost is a multiple of 16 bytes.
  aligned_strides = 4u,
  // The innermost extent is a multiple of 16 bytes.
  aligned_extent = 8u,
};

// Every fact.
inline constexpr unsigned all_span_facts = aligned_data | unit_inner_stride | aligned_strides | aligned_extent;

// The facts that hold of an array of `ndim` dimensions at address `data` with `item_bytes`-byte
// elements, `shape` and `strides` (in elements; I a signed integer type): the one rule, read by
// the runtime at launch.
template <class I>
WEFT_HD constexpr unsigned facts_of(unsigned long long data, unsigned long long item_bytes, int ndim, const I* shape,
                            const I* strides) {
  if (ndim < 1 || item_bytes == 0) return 0;
  unsigned facts = 0;
  if (data % 16 == 0) facts |= aligned_data;
  if (strides[ndim - 1] == 1) facts |= unit_inner_stride;
  bool rows = true;
  for (int d = 0; d + 1 < ndim; ++d)
    rows = rows && static_cast<unsigned long long>(strides[d]) * item_bytes % 16 == 0;
  if (rows) facts |= aligned_strides;
  if (static_cast<unsigned long long>(shape[ndim - 1]) * item_bytes % 16 == 0) facts |= aligned_extent;
  return facts;
}

}  // namespace weft::tiles
