// include/weft/device/array_views.h compiled for the host: slices against CPython's results,
// reshape's strides against NumPy's, view(dtype), and a failed precondition's empty view.
// (Checked views stop the thread through the error record, which only a unit compiled with
// WEFT_CHECKS has: test_codegen.cpp and tests/python/test_debug_cpu.py test them.)
#define WEFT_HOST 1
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "weft/device/runtime.h"

namespace {

constexpr weft::ViewSite<false> kUnchecked{0};
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

template <class T, int N>
std::vector<T> elements(const weft::Array<T, N>& array) {
  static_assert(N == 1);
  std::vector<T> out;
  for (uint64_t k = 0; k < array.shape[0]; ++k) out.push_back(weft::at<false>(0, array, k));
  return out;
}

// list(range(5))[start:stop:step] in CPython, None as nullopt.
struct SliceCase {
  std::optional<int64_t> start, stop;
  int64_t step;
  std::vector<int> expected;
};

template <bool HasStart, bool HasStop>
std::vector<int> sliceOf(const weft::Array<int, 1>& array, const SliceCase& c) {
  weft::SliceAxis<HasStart, HasStop> axis{c.start.value_or(0), c.stop.value_or(0), c.step};
  return elements(weft::slice<1>(kUnchecked, array, axis));
}

TEST(DeviceArrayViews, SlicesMatchCPython) {
  std::vector<int> storage = {0, 1, 2, 3, 4};
  weft::Array<int, 1> array{storage.data(), {5}, {1}};
  const SliceCase cases[] = {
      {{}, {}, -1, {4, 3, 2, 1, 0}}, {-2, {}, 1, {3, 4}}, {{}, -9, -1, {4, 3, 2, 1, 0}},
      {9, -9, -2, {4, 2, 0}},        {1, 4, 2, {1, 3}},   {4, 1, -2, {4, 2}},
      {-1, -6, -1, {4, 3, 2, 1, 0}}, {3, 3, 1, {}},       {0, 5, 9, {0}},
      {{}, {}, kMax, {0}},           {{}, {}, kMin, {4}}, {kMin, kMax, 1, {0, 1, 2, 3, 4}},
  };
  for (const SliceCase& c : cases) {
    std::vector<int> got = c.start && c.stop ? sliceOf<true, true>(array, c)
                           : c.start         ? sliceOf<true, false>(array, c)
                           : c.stop          ? sliceOf<false, true>(array, c)
                                             : sliceOf<false, false>(array, c);
    EXPECT_EQ(got, c.expected) << c.start.value_or(-999) << ":" << c.stop.value_or(-999) << ":" << c.step;
  }
}

TEST(DeviceArrayViews, IndicesDropDimensionsAndStridesMultiply) {
  std::vector<int> storage(24);
  std::iota(storage.begin(), storage.end(), 0);
  weft::Array<int, 2> m{storage.data(), {4, 6}, {6, 1}};
  // m[-1, ::-2]: row 3 backward, every other element.
  auto row =
      weft::slice<1>(kUnchecked, m, weft::IndexAxis<true>{-1}, weft::SliceAxis<false, false>{0, 0, -2});
  EXPECT_EQ(elements(row), (std::vector<int>{23, 21, 19}));
  EXPECT_EQ(static_cast<int64_t>(row.strides[0]), -2);
  // m[1:3, 4]: a column piece.
  auto column =
      weft::slice<1>(kUnchecked, m, weft::SliceAxis<true, true>{1, 3, 1}, weft::IndexAxis<false>{4});
  EXPECT_EQ(elements(column), (std::vector<int>{10, 16}));
  // An empty slice past the end keeps the data pointer inside the array.
  auto empty = weft::slice<2>(kUnchecked, m, weft::SliceAxis<true, false>{10, 0, 1},
                              weft::SliceAxis<false, false>{0, 0, 1});
  EXPECT_EQ(empty.shape[0], 0u);
  EXPECT_EQ(empty.data, storage.data());
}

TEST(DeviceArrayViews, ZeroStepIsEmpty) {
  std::vector<int> storage = {0, 1, 2};
  weft::Array<int, 1> array{storage.data(), {3}, {1}};
  EXPECT_EQ(weft::slice<1>(kUnchecked, array, weft::SliceAxis<false, false>{0, 0, 0}).shape[0], 0u);
}

TEST(DeviceArrayViews, ReshapeFindsNumpysStrides) {
  std::vector<int> storage(24);
  std::iota(storage.begin(), storage.end(), 0);
  // NumPy: arange(24).reshape(4, 6)[:, 1::2] has element strides (6, 2); reshape(2, 2, 3)
  // gives (12, 6, 2) and reshape(12) a view of stride 2.
  weft::Array<int, 2> odd{storage.data() + 1, {4, 3}, {6, 2}};
  auto cube = weft::reshape(kUnchecked, odd, 2, 2, 3);
  EXPECT_EQ(std::vector<uint64_t>(cube.strides, cube.strides + 3), (std::vector<uint64_t>{12, 6, 2}));
  EXPECT_EQ((weft::at<false, false, false>(0, cube, 1, 0, 2)), 17);
  auto flat = weft::reshape(kUnchecked, odd, int64_t(-1));
  EXPECT_EQ(flat.shape[0], 12u);
  EXPECT_EQ(flat.strides[0], 2u);
  // arange(24).reshape(4, 6)[::2] has strides (12, 1): reshape(2, 1, 6) gives (12, 6, 1); reshape(3, 4)
  // copies.
  weft::Array<int, 2> rows{storage.data(), {2, 6}, {12, 1}};
  auto split = weft::reshape(kUnchecked, rows, 2, 1, 6);
  EXPECT_EQ(std::vector<uint64_t>(split.strides, split.strides + 3), (std::vector<uint64_t>{12, 6, 1}));
  auto copied = weft::reshape(kUnchecked, rows, 3, 4);
  EXPECT_EQ(weft::size(copied), 0);
  // Sizes that do not agree, and two unknown dimensions.
  EXPECT_EQ(weft::size(weft::reshape(kUnchecked, rows, 5, -1)), 0);
  EXPECT_EQ(weft::size(weft::reshape(kUnchecked, rows, -1, -1)), 0);
  // A C-contiguous array gets C strides, an empty one too.
  weft::Array<int, 1> line{storage.data(), {24}, {1}};
  auto grid = weft::reshape(kUnchecked, line, 2, -3, 4);
  EXPECT_EQ(grid.shape[1], 3u);
  EXPECT_EQ(std::vector<uint64_t>(grid.strides, grid.strides + 3), (std::vector<uint64_t>{12, 4, 1}));
  weft::Array<int, 1> none{storage.data(), {0}, {5}};
  EXPECT_EQ(weft::reshape(kUnchecked, none, 3, 0).shape[0], 3u);
}

TEST(DeviceArrayViews, ViewChangesTheLastDimension) {
  std::vector<uint32_t> storage(12);
  std::iota(storage.begin(), storage.end(), 0u);
  weft::Array<uint32_t, 2> m{storage.data(), {3, 4}, {4, 1}};
  auto wide = weft::view<uint64_t>(kUnchecked, m);
  EXPECT_EQ(wide.shape[1], 2u);
  EXPECT_EQ(wide.strides[0], 2u);
  EXPECT_EQ((weft::at<false, false>(0, wide, 1, 1)), (uint64_t{7} << 32) | 6u);
  auto narrow = weft::view<uint16_t>(kUnchecked, m);
  EXPECT_EQ(narrow.shape[1], 8u);
  EXPECT_EQ(narrow.strides[0], 8u);
  auto same = weft::view<float>(kUnchecked, m);
  EXPECT_EQ(same.strides[0], 4u);
  // Columns 0 and 2: the last axis is not contiguous, so the size cannot change.
  weft::Array<uint32_t, 2> columns{storage.data(), {3, 2}, {4, 2}};
  EXPECT_EQ(weft::size(weft::view<uint64_t>(kUnchecked, columns)), 0);
  // Three elements do not make whole uint64s; a misaligned start cannot hold them.
  weft::Array<uint32_t, 1> three{storage.data(), {3}, {1}};
  EXPECT_EQ(weft::size(weft::view<uint64_t>(kUnchecked, three)), 0);
  weft::Array<uint32_t, 1> shifted{storage.data() + 1, {4}, {1}};
  EXPECT_EQ(weft::size(weft::view<uint64_t>(kUnchecked, shifted)), 0);
}

}  // namespace
