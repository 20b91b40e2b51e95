// The Hopper building blocks' layout arithmetic (weft/tiles/sm90/layout.h, constexpr, so it runs
// on the host): smem_tile offsets against TMA's swizzle written out per mode (16-byte chunk j of
// row r of a slab stored at chunk j ^ (r % 8) for 128 bytes, j ^ (r / 2 % 4) for 64, j ^ (r / 4 % 2)
// for 32), against the swizzle of absolute shared addresses from any multiple of kAlignment (and
// not from off it), and as a bijection onto the tile's bytes; the wgmma descriptors' bit fields
// for K-major and MN-major operands over slabs, steps and row and column blocks; the accumulator
// and A register fragments covering their tiles once; tensor_map_error's rules; and
// test_sm90_tma.cu's 2-D load and store cases with its own checks on the same seeded random bits,
// TMA emulated from the swizzle of absolute addresses. Host C++ (g++ -DWEFT_HOST) in CI;
// test_sm90_tma.cu and test_sm90_wgmma.cu check the same layouts against the hardware.
#include <weft/tiles/sm90/layout.h>

#include <cstring>

#include "test_sm90_tma_reference.h"
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

// TMA's placement of byte `address` of a box's dense image in shared memory (the box's innermost
// rows one after another from its destination), from the driver's description of the swizzles:
// 16-byte chunk j of each 32, 64 or 128-byte span moves to chunk j ^ (the index of its 128-byte
// line of shared memory, modulo the span's chunks). Absolute addresses: where a box lands matters.
uint32_t tma_address(s::swizzle mode, uint32_t address) {
  const uint32_t chunks = s::swizzle_bytes(mode) / 16, chunk = address / 16 % chunks;
  const uint32_t line = address / 128 % chunks;
  return address - chunk * 16 + (chunk ^ line) * 16;
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
  // TMA loading the tile slab by slab to a multiple of kAlignment puts each element at its
  // offset; 128 bytes further (TMA's own minimum alignment) it does not.
  check(L::kAlignment == s::swizzle_alignment(Mode) && L::kAlignment == 8 * L::kSwizzleBytes,
        what + " alignment");
  for (uint32_t base : {0u, L::kAlignment, 7 * L::kAlignment, 7 * L::kAlignment + 128}) {
    uint32_t misplaced = 0;
    for (uint32_t r = 0; r < Rows; ++r) {
      for (uint32_t c = 0; c < Cols; ++c) {
        const uint32_t slab = c / L::kSlabCols, dense = (r * L::kSlabCols + c % L::kSlabCols) * E;
        misplaced += tma_address(Mode, base + slab * L::kSlabBytes + dense) != base + L::offset(r, c);
      }
    }
    check(base % L::kAlignment == 0 ? misplaced == 0 : misplaced > 0,
          what + " TMA's placement from shared address " + std::to_string(base));
  }
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

// test_sm90_tma.cu's load of the R x C box at (x, y) of an H x W array, TMA emulated: each slab's
// box is copied to its place from a 1024-byte boundary and read back through box_offset.
template <class T, uint32_t R, uint32_t C, s::swizzle Mode>
void emulate_load(Random& random, uint32_t H, uint32_t W, int x, int y) {
  constexpr uint32_t kBoxCols = tma_reference::box_cols<T, C, Mode>(), kBase = 5 * 1024;
  std::vector<T> global(size_t(H) * W), out(R * C);
  tma_reference::fill(random, global);
  check(s::tensor_map_error<2>(kBase, sizeof(T), {H, W}, {R, kBoxCols}, Mode) == nullptr,
        tma_reference::load_name<T, R, C, Mode>(x, y) + " is a valid tensor map");
  std::vector<unsigned char> shared(kBase + R * C * sizeof(T));
  for (uint32_t slab = 0; slab < C / kBoxCols; ++slab) {
    for (uint32_t r = 0; r < R; ++r) {
      for (uint32_t c = 0; c < kBoxCols; ++c) {
        const long gr = y + long(r), gc = x + long(slab * kBoxCols + c);
        const T value = gr >= 0 && gr < long(H) && gc >= 0 && gc < long(W) ? global[gr * W + gc] : T(0);
        const uint32_t address = kBase + (slab * R * kBoxCols + r * kBoxCols + c) * sizeof(T);
        std::memcpy(&shared[tma_address(Mode, address)], &value, sizeof(T));
      }
    }
  }
  for (uint32_t i = 0; i < R * C; ++i) {
    std::memcpy(&out[i], &shared[kBase + tma_reference::box_offset<T, R, C, Mode>(i / C, i % C)], sizeof(T));
  }
  tma_reference::check_load<T, R, C, Mode>(out.data(), global.data(), H, W, x, y);
}

// test_sm90_tma.cu's two stores, TMA emulated: each box is written through box_offset from a
// 1024-byte boundary and each slab copied to the array where it lies inside.
template <class T, uint32_t R, uint32_t C, s::swizzle Mode>
void emulate_store(Random& random, uint32_t H, uint32_t W, int x0, int y0, int x1, int y1) {
  constexpr uint32_t kBoxCols = tma_reference::box_cols<T, C, Mode>(), kBase = 5 * 1024;
  std::vector<T> global(size_t(H) * W), first(R * C), second(R * C);
  tma_reference::fill(random, global);
  tma_reference::fill(random, first);
  tma_reference::fill(random, second);
  const std::vector<T> before = global;
  std::vector<unsigned char> shared(kBase + R * C * sizeof(T));
  for (int round = 0; round < 2; ++round) {
    const std::vector<T>& in = round == 0 ? first : second;
    const int x = round == 0 ? x0 : x1, y = round == 0 ? y0 : y1;
    for (uint32_t i = 0; i < R * C; ++i) {
      std::memcpy(&shared[kBase + tma_reference::box_offset<T, R, C, Mode>(i / C, i % C)], &in[i], sizeof(T));
    }
    for (uint32_t slab = 0; slab < C / kBoxCols; ++slab) {
      for (uint32_t r = 0; r < R; ++r) {
        for (uint32_t c = 0; c < kBoxCols; ++c) {
          const long gr = y + long(r), gc = x + long(slab * kBoxCols + c);
          if (gr < 0 || gr >= long(H) || gc < 0 || gc >= long(W)) continue;
          const uint32_t address = kBase + (slab * R * kBoxCols + r * kBoxCols + c) * sizeof(T);
          std::memcpy(&global[gr * W + gc], &shared[tma_address(Mode, address)], sizeof(T));
        }
      }
    }
  }
  tma_reference::check_store<T, R, C, Mode>(global.data(), before.data(), first.data(), second.data(), H, W, x0,
                                            y0, x1, y1);
}

// Whether tensor_map_error refuses the arguments with a message containing `rule`.
template <int Rank>
void check_refused(uint64_t base, uint32_t elementBytes, const uint64_t (&extents)[Rank],
                   const uint32_t (&box)[Rank], s::swizzle mode, const char* rule) {
  const char* error = s::tensor_map_error<Rank>(base, elementBytes, extents, box, mode);
  check(error != nullptr && std::strstr(error, rule) != nullptr,
        std::string("tensor_map_error names the rule '") + rule + "', not '" + (error ? error : "(none)") + "'");
}

void run_tensor_map_rules() {
  using Z = s::swizzle;
  check(s::tensor_map_error<2>(0x7f0000000000, 2, {4096, 4096}, {64, 64}, Z::b128) == nullptr &&
            s::tensor_map_error<2>(256, 4, {70, 52}, {32, 16}, Z::b64) == nullptr &&
            s::tensor_map_error<2>(16, 1, {40, 96}, {8, 32}, Z::b32) == nullptr &&
            s::tensor_map_error<1>(16, 4, {5}, {4}, Z::none) == nullptr &&
            s::tensor_map_error<3>(16, 8, {3, 20, 40}, {2, 256, 8}, Z::none) == nullptr,
        "tensor_map_error accepts valid maps");
  // A 64-byte swizzle holds 16 four-byte elements of a box row, not 32.
  check_refused<2>(0, 4, {70, 52}, {32, 32}, Z::b64, "must not exceed the swizzle width");
  check_refused<2>(0, 2, {64, 64}, {64, 32}, Z::b32, "must not exceed the swizzle width");
  check_refused<2>(0, 1, {64, 256}, {64, 256}, Z::b128, "must not exceed the swizzle width");
  check_refused<2>(0, 4, {70, 52}, {32, 2}, Z::none, "multiple of 16 bytes");
  check_refused<2>(0, 2, {64, 64}, {257, 8}, Z::none, "1 to 256");
  check_refused<2>(0, 2, {64, 64}, {0, 8}, Z::none, "1 to 256");
  check_refused<2>(8, 2, {64, 64}, {8, 8}, Z::none, "16-byte boundary");
  check_refused<2>(0, 4, {70, 50}, {8, 4}, Z::none, "row pitch");
  check_refused<3>(0, 1, {400, 2, 4096}, {300, 2, 16}, Z::none, "1 to 256");
  check_refused<2>(0, 3, {64, 64}, {8, 16}, Z::none, "1, 2, 4 or 8 bytes");
  check_refused<2>(0, 2, {0, 64}, {8, 8}, Z::none, "extent");
  check_refused<2>(0, 1, {64, uint64_t{1} << 40}, {8, 16}, Z::none, "extent");
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
  run_tensor_map_rules();
  // test_sm90_tma.cu's loads draw the same data as on the GPU (its stores come after a 3-D load).
  Random random(seed());
  tma_reference::load_cases([&]<class T, uint32_t R, uint32_t C, s::swizzle Mode>(uint32_t H, uint32_t W, int x,
                                                                                  int y) {
    emulate_load<T, R, C, Mode>(random, H, W, x, y);
  });
  tma_reference::store_cases([&]<class T, uint32_t R, uint32_t C, s::swizzle Mode>(uint32_t H, uint32_t W, int x0,
                                                                                   int y0, int x1, int y1) {
    emulate_store<T, R, C, Mode>(random, H, W, x0, y0, x1, y1);
  });
  return finish("test_sm90_layout");
}
