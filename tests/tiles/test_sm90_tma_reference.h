// The 2-D TMA load and store cases of test_sm90_tma.cu and what each must produce, shared with
// test_sm90_layout.cu, which runs the same cases on the host against TMA emulated from the
// driver's description of its swizzle: the GPU program's comparisons then run without a GPU, on
// the same seeded random bits (NaN patterns among the floats, so every comparison is bitwise).
#pragma once

#include <weft/tiles/sm90/layout.h>

#include "tile_test.h"

namespace tma_reference {

namespace s = ::weft::tiles::sm90;

// The byte offset of element (r, c) of an R x C box of T as TMA lays it out with `Mode`: row
// after row without swizzle, smem_tile's slabs with.
template <class T, uint32_t R, uint32_t C, s::swizzle Mode>
WEFT_HD constexpr uint32_t box_offset(uint32_t r, uint32_t c) {
  if constexpr (Mode == s::swizzle::none) {
    return (r * C + c) * sizeof(T);
  } else {
    return s::smem_tile<R, C, sizeof(T), Mode>::offset(r, c);
  }
}
// Columns of one TMA box: the whole row without swizzle, one slab with.
template <class T, uint32_t C, s::swizzle Mode>
WEFT_HD constexpr uint32_t box_cols() {
  return Mode == s::swizzle::none ? C : s::swizzle_bytes(Mode) / sizeof(T);
}

#if !defined(__CUDACC_RTC__)
// The 2-D load cases in order: visit.template operator()<T, R, C, Mode>(H, W, x, y) loads the
// R x C box at column x, row y of an H x W array.
template <class Visitor>
void load_cases(Visitor&& visit) {
  using Z = s::swizzle;
  visit.template operator()<uint16_t, 64, 64, Z::b128>(150, 96, 16, 40);
  visit.template operator()<uint16_t, 64, 128, Z::b128>(150, 200, 64, 10);
  visit.template operator()<uint16_t, 64, 64, Z::b128>(150, 96, 48, 120);  // right and bottom edges
  visit.template operator()<uint16_t, 32, 64, Z::b128>(150, 96, -24, -8);  // left and top edges
  visit.template operator()<float, 32, 32, Z::b64>(70, 52, 8, 3);
  visit.template operator()<float, 16, 16, Z::b64>(70, 52, 44, 66);
  visit.template operator()<float, 16, 16, Z::b64>(70, 52, 56, 80);  // wholly outside
  visit.template operator()<uint8_t, 24, 64, Z::b32>(40, 96, 16, 4);
  visit.template operator()<uint8_t, 8, 32, Z::b32>(40, 96, 80, 36);
  visit.template operator()<float, 16, 24, Z::none>(30, 44, 28, 20);
  visit.template operator()<uint16_t, 8, 8, Z::none>(30, 64, 0, 0);
}

// The 2-D store cases in order: visit.template operator()<T, R, C, Mode>(H, W, x0, y0, x1, y1)
// stores one R x C box at (x0, y0) of an H x W array, then another at (x1, y1).
template <class Visitor>
void store_cases(Visitor&& visit) {
  using Z = s::swizzle;
  visit.template operator()<uint16_t, 64, 64, Z::b128>(160, 136, 8, 0, 96, 120);  // the second crosses two edges
  visit.template operator()<float, 16, 32, Z::b64>(40, 60, 0, 30, 36, 2);
  visit.template operator()<uint8_t, 16, 32, Z::b32>(24, 48, 16, 0, 0, 16);
  visit.template operator()<float, 8, 12, Z::none>(20, 24, 4, 4, 12, 14);
}

// Fills `buffer` with random bit patterns (for floats, NaNs and infinities among them).
template <class Buffer>
void fill(tile_test::Random& random, Buffer& buffer) {
  using T = std::remove_reference_t<decltype(buffer[0])>;
  for (size_t i = 0; i < buffer.size(); ++i) buffer[i] = random.bits<T>();
}

// The name of a load case in failure messages.
template <class T, uint32_t R, uint32_t C, s::swizzle Mode>
std::string load_name(int x, int y) {
  return "tma load " + std::to_string(sizeof(T)) + "-byte " + std::to_string(R) + "x" + std::to_string(C) +
         " swizzle " + std::to_string(int(Mode)) + " at " + std::to_string(x) + ", " + std::to_string(y);
}

// Checks `out`, the R x C box (row-major) loaded from column x, row y of the H x W array
// `global`: bit for bit (a NaN never equals itself), zero outside the array.
template <class T, uint32_t R, uint32_t C, s::swizzle Mode>
void check_load(const T* out, const T* global, uint32_t H, uint32_t W, int x, int y) {
  const std::string what = load_name<T, R, C, Mode>(x, y);
  for (uint32_t r = 0; r < R; ++r) {
    for (uint32_t c = 0; c < C; ++c) {
      const long gr = y + long(r), gc = x + long(c);
      const bool inside = gr >= 0 && gr < long(H) && gc >= 0 && gc < long(W);
      const T expected = inside ? global[gr * W + gc] : T(0);
      tile_test::check(tile_test::same_bits(out[r * C + c], expected),
                       what + " (" + std::to_string(r) + ", " + std::to_string(c) + ")");
    }
  }
}

// Checks `global`, the H x W array that was `before` until the R x C boxes `first` at (x0, y0)
// and then `second` at (x1, y1) were stored into it (the parts inside it), bit for bit.
template <class T, uint32_t R, uint32_t C, s::swizzle Mode>
void check_store(const T* global, const T* before, const T* first, const T* second, uint32_t H, uint32_t W, int x0,
                 int y0, int x1, int y1) {
  const std::string what = "tma store " + std::to_string(sizeof(T)) + "-byte swizzle " + std::to_string(int(Mode));
  for (uint32_t r = 0; r < H; ++r) {
    for (uint32_t c = 0; c < W; ++c) {
      T expected = before[r * W + c];
      if (long(r) - y0 >= 0 && long(r) - y0 < R && long(c) - x0 >= 0 && long(c) - x0 < C) {
        expected = first[(r - y0) * C + c - x0];
      }
      if (long(r) - y1 >= 0 && long(r) - y1 < R && long(c) - x1 >= 0 && long(c) - x1 < C) {
        expected = second[(r - y1) * C + c - x1];
      }
      tile_test::check(tile_test::same_bits(global[r * W + c], expected),
                       what + " (" + std::to_string(r) + ", " + std::to_string(c) + ")");
    }
  }
}
#endif

}  // namespace tma_reference
