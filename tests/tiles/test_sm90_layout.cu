// The Hopper building blocks' layout arithmetic (weft/tiles/sm90/layout.h, constexpr, so it runs
// on the host): smem_tile offsets against TMA's swizzle written out per mode (16-byte chunk j of
// row r of a slab stored at chunk j ^ (r % 8) for 128 bytes, j ^ (r / 2 % 4) for 64, j ^ (r / 4 % 2)
// for 32) and as a bijection onto the tile's bytes; the wgmma descriptors' bit fields for K-major
// and MN-major operands over slabs, steps and row and column blocks; and the accumulator and A
// register fragments covering their tiles once. Host C++ (g++ -DWEFT_HOST) in CI; test_sm90_tma.cu and
// test_sm90_wgmma.cu check the same layouts against the hardware.
#include <weft/tiles/sm90/layout.h>

#include "tile_test.h"

namespace s = ::weft::tiles::sm90;
using namespace tile_test;

// TMA's swizzle written out: the byte offset of byte `byte` of row `row` of one slab.
uint32_t tma_swizzled(s::swizzle mode, uint32_t row, uint32_t byte) {
  const uint32_t width = s::swizzle_bytes(mode), chunk = byte / 16;
  uint32_t pattern = 0;
  switch (mode) {
    case s::swizzle::none: pattern = 0; break;
    case s::swizzle::b32: pattern = row / 4 % 2; break;
    case s::swizzle::b64: pattern = row / 2 % 4; break;
    case s::swizzle::b128: pattern = row % 8; break;
  }
  return row * width + (chunk ^ pattern) * 16 + byte % 16;
}

struct fields {
  uint32_t start, leading, stride, layout;
};
fields decode(uint64_t d) {
  return {uint32_t(d & 0x3fff) << 4, uint32_t(d >> 16 & 0x3fff) << 4, uint32_t(d >> 32 & 0x3fff) << 4,
          uint32_t(d >> 62)};
}

template <uint32_t Rows, uint32_t Cols, uint32_t E, s::swizzle Mode>
void run_tile() {
  using L = s::smem_tile<Rows, Cols, E, Mode>;
  const std::string what = "smem_tile<" + std::to_string(Rows) + ", " + std::to_string(Cols) + ", " +
                           std::to_string(E) + ", " + std::to_string(s::swizzle_bytes(Mode)) + ">";
  check(L::kBytes == Rows * Cols * E && L::kSlabs * L::kBoxCols == Cols && L::kBoxRows == Rows,
        what + " sizes");
  std::vector<int> owner(L::kBytes, -1);
  for (uint32_t r = 0; r < Rows; ++r) {
    for (uint32_t c = 0; c < Cols; ++c) {
      const uint32_t offset = L::offset(r, c), slab = c / L::kSlabCols;
      check(offset == slab * L::kSlabBytes + tma_swizzled(Mode, r, c % L::kSlabCols * E),
            what + " offset of (" + std::to_string(r) + ", " + std::to_string(c) + ")");
      for (uint32_t b = 0; b < E; ++b) {
        if (offset + b < L::kBytes && owner[offset + b] < 0) owner[offset + b] = int(r * Cols + c);
      }
    }
  }
  int holes = 0;
  for (int o : owner) holes += o < 0;
  check(holes == 0, what + " offsets cover the tile's bytes once");
  // Descriptors: 16-byte units, SBO one swizzle period of rows, the layout type of the mode.
  const uint32_t base = 0x4400, period = 8 * s::swizzle_bytes(Mode);
  const uint32_t layout = Mode == s::swizzle::b128 ? 1 : Mode == s::swizzle::b64 ? 2 : 3;
  for (uint32_t step = 0; step < Cols * E / s::kWgmmaStepBytes; ++step) {
    for (uint32_t row = 0; row < Rows; row += 64) {
      fields f = decode(L::k_major_descriptor(base, step, row));
      // The step's first element of the row block lies at the descriptor's start (unswizzled:
      // row % 8 == 0).
      const uint32_t first = L::offset(row, step * s::kWgmmaStepBytes / E);
      check(f.start == base + first && f.stride == period && f.layout == layout && f.leading == 16,
            what + " K-major descriptor step " + std::to_string(step) + " row " + std::to_string(row));
    }
  }
  if constexpr (E == 2) {
    for (uint32_t step = 0; step < Rows / 16; ++step) {
      for (uint32_t col = 0; col < Cols; col += L::kSlabCols) {
        fields f = decode(L::mn_major_descriptor(base, step, col));
        check(f.start == base + L::offset(16 * step, col) && f.leading == L::kSlabBytes &&
                  f.stride == period && f.layout == layout,
              what + " MN-major descriptor step " + std::to_string(step) + " column " + std::to_string(col));
      }
    }
  }
}

template <uint32_t N>
void run_fragment() {
  std::vector<int> seen(64 * N, 0);
  for (uint32_t t = 0; t < 128; ++t) {
    for (uint32_t i = 0; i < N / 2; ++i) {
      const uint32_t row = s::wgmma_row(t, i), col = s::wgmma_col(t, i);
      if (check(row < 64 && col < N, "wgmma fragment in range")) ++seen[row * N + col];
    }
  }
  int once = 0;
  for (int v : seen) once += v == 1;
  check(once == int(64 * N), "wgmma m64n" + std::to_string(N) + " fragment covers the tile once");
  // Warp 1, lane 5, element 6: row 16 + 1 + 8, column 8 + 2 (the layout as documented).
  check(s::wgmma_row(37, 6) == 25 && s::wgmma_col(37, 6) == 10, "wgmma fragment element");
}

// The A fragment of wgmma with A in registers covers the 64 x K tile once.
void run_a_fragment(s::wgmma_type type) {
  const uint32_t k = s::wgmma_k(type), per = 4 / s::wgmma_element_bytes(type);
  std::vector<int> seen(64 * k, 0);
  for (uint32_t t = 0; t < 128; ++t) {
    for (uint32_t j = 0; j < 4; ++j) {
      for (uint32_t e = 0; e < per; ++e) {
        const uint32_t row = s::wgmma_a_row(t, j), col = s::wgmma_a_col(type, t, j, e);
        if (check(row < 64 && col < k, "wgmma A fragment in range")) ++seen[row * k + col];
      }
    }
  }
  int once = 0;
  for (int v : seen) once += v == 1;
  check(once == int(64 * k), "wgmma A fragment covers the tile once, K " + std::to_string(k));
}

int main() {
  using Z = s::swizzle;
  for (uint32_t offset = 0; offset < 4096; offset += 16) {
    check(s::swizzle_offset(Z::none, offset) == offset, "no swizzle");
  }
  run_tile<64, 64, 2, Z::b128>();
  run_tile<128, 128, 2, Z::b128>();
  run_tile<64, 256, 1, Z::b128>();
  run_tile<64, 64, 4, Z::b128>();
  run_tile<64, 64, 2, Z::b64>();
  run_tile<32, 16, 4, Z::b64>();
  run_tile<64, 32, 2, Z::b32>();
  run_tile<24, 64, 1, Z::b32>();
  check(s::wgmma_k(s::wgmma_type::bf16) == 16 && s::wgmma_k(s::wgmma_type::tf32) == 8 &&
            s::wgmma_k(s::wgmma_type::e5m2) == 32,
        "wgmma K per instruction");
  run_fragment<8>();
  run_fragment<64>();
  run_fragment<256>();
  run_a_fragment(s::wgmma_type::bf16);
  run_a_fragment(s::wgmma_type::tf32);
  run_a_fragment(s::wgmma_type::e4m3);
  // Lane 6 of warp 2, register 3 (row + 8, second half of K), element 1.
  check(s::wgmma_a_row(70, 3) == 32 + 1 + 8 && s::wgmma_a_col(s::wgmma_type::f16, 70, 3, 1) == 8 + 4 + 1 &&
            s::wgmma_a_col(s::wgmma_type::e5m2, 70, 3, 1) == 16 + 8 + 1 &&
            s::wgmma_a_col(s::wgmma_type::tf32, 70, 3, 0) == 4 + 2,
        "wgmma A fragment element");
  return finish("test_sm90_layout");
}
