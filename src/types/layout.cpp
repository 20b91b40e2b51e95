#include "types/layout.h"

#include <algorithm>

#include "support/check.h"

namespace weft::types {

namespace {

uint64_t roundUp(uint64_t value, uint64_t align) { return (value + align - 1) / align * align; }

// Members one after the other, each at its alignment; the whole aligned to the largest.
Layout sequential(const std::vector<const Type*>& members, uint64_t minimumAlign) {
  Layout layout;
  layout.align = std::max<uint64_t>(minimumAlign, 1);
  uint64_t offset = 0;
  for (const Type* member : members) {
    Layout inner = layoutOf(member);
    offset = roundUp(offset, inner.align);
    layout.offsets.push_back(offset);
    offset += inner.size;
    layout.align = std::max(layout.align, inner.align);
  }
  layout.size = roundUp(std::max<uint64_t>(offset, members.empty() ? 1 : 0), layout.align);
  return layout;
}

}  // namespace

uint64_t recordAlignment(const std::vector<Layout>& fields, const std::vector<uint64_t>& offsets,
                         uint64_t size) {
  uint64_t align = 1;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (offsets[i] % fields[i].align != 0) return 1;
    align = std::max(align, fields[i].align);
  }
  return size % align == 0 ? align : 1;
}

Layout layoutOf(const Type* type) {
  WEFT_CHECK(type != nullptr, "layoutOf a null type");
  switch (type->kind) {
    case TypeKind::Error: WEFT_CHECK(false, "layoutOf an Error type"); return {};
    case TypeKind::None: return Layout{8, 8, {}};
    case TypeKind::Scalar:
    case TypeKind::WarpMask: {
      uint64_t bytes = static_cast<uint64_t>(byteSize(type->scalar));
      return Layout{bytes, bytes, {}};
    }
    case TypeKind::Array: {
      uint64_t n = static_cast<uint64_t>(type->ndim);
      return Layout{8 + 16 * n, 8, {0, 8, 8 + 8 * n}};
    }
    case TypeKind::Vector: {
      // CUDA's charN ... doubleN: 2- and 4-element vectors are aligned to their size (at
      // most 16), 1- and 3-element ones to their element.
      uint64_t element = static_cast<uint64_t>(byteSize(type->scalar));
      uint64_t size = element * static_cast<uint64_t>(type->size);
      uint64_t align = (type->size == 2 || type->size == 4) ? std::min<uint64_t>(size, 16) : element;
      return Layout{(size + align - 1) / align * align, align, {}};
    }
    case TypeKind::Atomic: {
      uint64_t bytes = static_cast<uint64_t>(byteSize(type->scalar));
      uint64_t align = std::max<uint64_t>(bytes, static_cast<uint64_t>(type->align));
      return Layout{(bytes + align - 1) / align * align, align, {}};
    }
    case TypeKind::AtomicRef: return Layout{8, 8, {}};
    case TypeKind::TileView: return layoutOf(type->elements[0]);  // the array itself
    case TypeKind::InlineArray:
    case TypeKind::Tile: {
      uint64_t count = 1;
      for (int64_t extent : type->shape) count *= static_cast<uint64_t>(extent);
      uint64_t element = static_cast<uint64_t>(byteSize(type->scalar));
      return Layout{count * element, element, {}};
    }
    case TypeKind::Tuple: return sequential(type->elements, 1);
    case TypeKind::Struct:
      if (type->isRecord()) return Layout{type->bytes, static_cast<uint64_t>(type->align), type->offsets};
      return sequential(type->elements, static_cast<uint64_t>(std::max(type->align, 1)));
  }
  WEFT_CHECK(false, "unknown type kind");
  return {};
}

}  // namespace weft::types
