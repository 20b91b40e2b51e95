// Where the TMA store of a tile kernel's epilogue (weft/tiles/store_tma.h) puts each fragment
// element of an mma layout in its shared-memory box, on the host (the placement is constexpr):
// stmatrix's matrices emulated lane by lane for 16-bit elements (x4 over two atoms, x2 over one),
// the 8-byte pairs for 32-bit ones, each element at smem_tile's offset of the element L::index
// says the thread holds, every element of the tile once; each stmatrix row a whole 16-byte chunk,
// a matrix's eight rows in eight different chunks of their 128-byte lines (no bank conflicts).
// Layouts: wgmma's (the TMA K loop's accumulator, interleaved atoms over all warps) and mma.sync's
// (warps side by side), with 256 emulated threads. tests/python/test_tile_store_tma_gpu.py checks
// the same stores on an H100 against NumPy.
#include <weft/tiles/store_tma.h>

#include "tile_test.h"

namespace tiles = ::weft::tiles;
namespace s = ::weft::tiles::sm90;
using namespace tile_test;

template <class T, class L, uint32_t M, uint32_t N>
void run_layout(const std::string& name) {
  static_assert(L::kSize == M * N);
  using Box = tiles::detail::store_box<T, M, N>;
  const std::string what = name + " of " + std::to_string(sizeof(T)) + "-byte elements";
  check(tiles::detail::tma_stores<T, tiles::shape<M, N>, L>(), what + ": the TMA path takes it");
  std::vector<int> written(M * N, 0);
  // Records element k of thread t written at box position (row, col).
  auto place = [&](uint32_t t, uint32_t k, uint32_t row, uint32_t col) {
    const uint32_t j = L::index(t, k);
    check(row == j / N && col == j % N, what + ": thread " + std::to_string(t) + " element " + std::to_string(k));
    if (row < M && col < N) ++written[row * N + col];
  };
  for (uint32_t warp = 0; warp < L::kWarps; ++warp) {
    for (uint32_t am = 0; am < L::kAtomsM; ++am) {
      if constexpr (sizeof(T) == 2) {
        constexpr uint32_t kAtoms = tiles::detail::kStmatrixAtoms<L>;
        for (uint32_t an = 0; an < L::kAtomsN; an += kAtoms) {
          const uint32_t k = (am * L::kAtomsN + an) * L::kPerAtom;
          // Matrix m's row r is at the address lane 8 m + r gives; register m of lane l holds
          // its row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1.
          std::vector<uint32_t> chunks;
          for (uint32_t m = 0; m < 2 * kAtoms; ++m) {
            for (uint32_t r = 0; r < 8; ++r) {
              const auto p = tiles::detail::stmatrix_row<L>(warp, 8 * m + r, am, an);
              const uint32_t offset = Box::offset(p.row, p.col);
              bool contiguous = offset % 16 == 0;
              for (uint32_t c = 0; c < 8; ++c) contiguous = contiguous && Box::offset(p.row, p.col + c) == offset + 2 * c;
              check(contiguous, what + ": an stmatrix row is one 16-byte chunk");
              chunks.push_back(offset % 128 / 16);
            }
            for (uint32_t lane = 0; lane < 32; ++lane) {
              const auto p = tiles::detail::stmatrix_row<L>(warp, 8 * m + lane / 4, am, an);
              for (uint32_t e = 0; e < 2; ++e) place(warp * 32 + lane, k + 2 * m + e, p.row, p.col + lane % 4 * 2 + e);
            }
          }
          for (uint32_t m = 0; m < 2 * kAtoms; ++m) {
            uint32_t seen = 0;
            for (uint32_t r = 0; r < 8; ++r) seen |= 1u << chunks[m * 8 + r];
            check(seen == 0xffu, what + ": a matrix's rows fill the eight chunks of a line");
          }
        }
      } else {
        for (uint32_t an = 0; an < L::kAtomsN; ++an) {
          const uint32_t k = (am * L::kAtomsN + an) * L::kPerAtom;
          for (uint32_t lane = 0; lane < 32; ++lane) {
            for (uint32_t half = 0; half < 2; ++half) {
              const auto p = tiles::detail::pair_position<L>(warp, lane, am, an, half);
              check(Box::offset(p.row, p.col) % 8 == 0 && Box::offset(p.row, p.col + 1) == Box::offset(p.row, p.col) + 4,
                    what + ": a pair is one aligned 8-byte store");
              for (uint32_t e = 0; e < 2; ++e) place(warp * 32 + lane, k + 2 * half + e, p.row, p.col + e);
            }
          }
        }
      }
    }
  }
  bool once = true;
  for (int count : written) once = once && count == 1;
  check(once, what + ": every element once");
}

int main() {
  // The TMA K loop's accumulators (mma_pipeline_accumulator_t): 16-row atoms interleaved over all
  // warps, one warp column.
  using Wgmma128x256 = tiles::mma_layout<128, 256, 16, 8, 1, true>;
  using Wgmma256x128 = tiles::mma_layout<256, 128, 16, 8, 1, true>;
  using Wgmma64x64 = tiles::mma_layout<64, 64, 16, 4, 1, true>;
  run_layout<weft::bfloat16, Wgmma128x256, 128, 256>("wgmma 128 x 256");
  run_layout<float, Wgmma128x256, 128, 256>("wgmma 128 x 256");
  run_layout<weft::float16, Wgmma256x128, 256, 128>("wgmma 256 x 128");
  run_layout<float, Wgmma64x64, 64, 64>("wgmma 64 x 64");
  run_layout<int16_t, Wgmma64x64, 64, 64>("wgmma 64 x 64");
  // mma.sync's accumulators (locals computed from a TMA K loop's accumulator are declared so):
  // warps side by side; one atom a warp row (stmatrix x2).
  using Sync128x128 = tiles::mma_layout<128, 128, 16, 4, 2>;
  using Sync16x64 = tiles::mma_layout<16, 64, 16, 1, 8>;
  using Sync64x32 = tiles::mma_layout<64, 32, 16, 1, 4>;
  run_layout<weft::bfloat16, Sync128x128, 128, 128>("mma.sync 128 x 128");
  run_layout<float, Sync128x128, 128, 128>("mma.sync 128 x 128");
  run_layout<weft::float16, Sync16x64, 16, 64>("mma.sync 16 x 64");
  run_layout<float, Sync64x32, 64, 32>("mma.sync 64 x 32");
  // What the path leaves to the generic store: other layouts, 8-bit and 64-bit elements, rows
  // short of a swizzle period or over a box, columns short of a slab.
  check(!tiles::detail::tma_stores<float, tiles::shape<64, 64>, tiles::default_layout_t<tiles::shape<64, 64>>>(),
        "the blocked layout takes the generic store");
  check(!tiles::detail::tma_stores<double, tiles::shape<64, 64>, tiles::mma_layout<64, 64, 8, 4, 1>>(),
        "8-row atoms take the generic store");
  check(!s::store_tiles_fit(64, 64, 1) && !s::store_tiles_fit(64, 64, 8) && !s::store_tiles_fit(4, 64, 2) &&
            !s::store_tiles_fit(512, 64, 2) && !s::store_tiles_fit(64, 32, 2) && s::store_tiles_fit(64, 32, 4) &&
            s::store_tiles_fit(256, 64, 2),
        "store_tiles_fit");
  return finish("test_store_tma");
}
