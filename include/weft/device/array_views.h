// Views of arrays: slicing with Python's slice semantics, view(dtype) and reshape without a
// copy. Each returns a new descriptor over the same elements; nothing is allocated or copied.
//
// Run-time preconditions (a nonzero slice step, a layout that view(dtype) or reshape can
// describe) are checked when codegen passes a ViewSite<true> (debug=True): a failure stops the
// thread like a failed assert and raises ValueError with what went wrong (intrinsics.h). With
// ViewSite<false>, a failed precondition gives an empty view, every dimension 0, so nothing is
// read or written through it. The checks read only the descriptor. An integer index in a
// slicing (m[i, :]) is bounds-checked like an element access, where the unit's checks run.
#pragma once

#include "weft/device/array.h"
#include "weft/device/intrinsics.h"
#include "weft/device/numeric.h"

namespace weft {

// A view operation's check site (its number in the unit's site table); Checked: a failed
// precondition stops the thread (debug=True) instead of giving an empty view.
template <bool Checked>
struct ViewSite {
  uint32_t site;
};

// One dimension of a slicing: an integer index (the dimension is dropped; Wrap: a negative
// index counts from the end), or start:stop:step where an omitted start or stop
// (HasStart/HasStop false; its member is then ignored) is Python's None.
template <bool Wrap>
struct IndexAxis {
  int64_t index;
};
template <bool HasStart, bool HasStop>
struct SliceAxis {
  int64_t start, stop, step;
};

namespace detail {

template <bool Checked>
WEFT_HD void viewFailed(ViewSite<Checked> site, ViewFailure failure) {
  if constexpr (Checked) {
    fail(Failure{CheckKind::View, site.site, static_cast<uint32_t>(failure), 0, nullptr, 0, nullptr, 0, 0});
  }
}

template <class T, int N>
WEFT_HD void makeEmpty(Array<T, N>& array) {
  for (int d = 0; d < N; ++d) {
    array.shape[d] = 0;
    array.strides[d] = 0;
  }
}

// A bound of slice.indices(n): negative counts from the end, then clamps to [lower, upper].
WEFT_HD int64_t clampBound(int64_t i, int64_t n, int64_t lower, int64_t upper) {
  if (i < 0) {
    i += n;  // no overflow: i < 0 <= n
    return i < lower ? lower : i;
  }
  return i > upper ? upper : i;
}

// The state of a slicing while its axes are applied in order.
template <class T, int M>
struct Slicing {
  uint32_t site;  // where an index out of bounds is reported
  Array<T, M>& result;
  uint64_t offset;  // in elements; unsigned arithmetic wraps, exact for negative strides
  int from;         // the next dimension of the sliced array
  int to;           // the next dimension of the result
  bool zeroStep;
};

template <class T, int N, class S, bool Wrap>
WEFT_HD void applyAxis(const Array<T, N>& array, S& state, IndexAxis<Wrap> axis) {
  int d = state.from++;
  if constexpr (kChecks) {
    if (!inBounds<Wrap>(array.shape[d], axis.index)) {
      uint64_t shape[N];  // a copy: the descriptor never has its address taken
      for (int k = 0; k < N; ++k) shape[k] = array.shape[k];
      fail(Failure{CheckKind::Bounds, state.site, static_cast<uint32_t>(d), N, shape, 0, nullptr, axis.index,
                   shape[d]});
    }
  }
  uint64_t index = static_cast<uint64_t>(axis.index);
  if (Wrap && axis.index < 0) index += array.shape[d];
  state.offset += index * array.strides[d];
}

// Python's slice.indices(n) and len(range(start, stop, step)); the first element is at `start`.
template <class T, int N, class S, bool HasStart, bool HasStop>
WEFT_HD void applyAxis(const Array<T, N>& array, S& state, SliceAxis<HasStart, HasStop> axis) {
  int d = state.from++;
  int m = state.to++;
  int64_t n = static_cast<int64_t>(array.shape[d]);
  int64_t step = axis.step;
  uint64_t length = 0;
  if (step == 0) {
    state.zeroStep = true;
  } else {
    int64_t lower = step < 0 ? -1 : 0;
    int64_t upper = step < 0 ? n - 1 : n;
    int64_t start = HasStart ? clampBound(axis.start, n, lower, upper) : (step < 0 ? upper : lower);
    int64_t stop = HasStop ? clampBound(axis.stop, n, lower, upper) : (step < 0 ? lower : upper);
    if (step > 0 && stop > start) {
      length = (static_cast<uint64_t>(stop - start) - 1) / static_cast<uint64_t>(step) + 1;
    } else if (step < 0 && start > stop) {
      length = (static_cast<uint64_t>(start - stop) - 1) / (0 - static_cast<uint64_t>(step)) + 1;
    }
    // An empty dimension keeps the data pointer: `start` may lie outside the array.
    if (length > 0) state.offset += static_cast<uint64_t>(start) * array.strides[d];
  }
  state.result.shape[m] = length;
  state.result.strides[m] = static_cast<uint64_t>(step) * array.strides[d];
}

}  // namespace detail

// array[axes...]: one axis per dimension of `array`; the result has one dimension per
// SliceAxis (M of them). A zero step makes its dimension empty (checked: stops the thread).
template <int M, bool Checked, class T, int N, class... Axes>
WEFT_HD Array<T, M> slice(ViewSite<Checked> site, const Array<T, N>& array, Axes... axes) {
  static_assert(sizeof...(Axes) == N, "one axis per dimension");
  Array<T, M> result;
  detail::Slicing<T, M> state{site.site, result, 0, 0, 0, false};
  (detail::applyAxis(array, state, axes), ...);
  result.data = array.data + static_cast<int64_t>(state.offset);
  if (state.zeroStep) {
    detail::viewFailed(site, ViewFailure::ZeroStep);
    detail::makeEmpty(result);
  }
  return result;
}

// array.real and array.imag of a complex array (Part 0 and 1): the parts as an array of the real
// type over the same memory, every stride doubled (a complex is its two parts in order).
template <int Part, class C, int N>
WEFT_HD Array<typename detail::Traits<C>::Real, N> complex_part(const Array<C, N>& array) {
  using R = typename detail::Traits<C>::Real;
  static_assert(sizeof(C) == 2 * sizeof(R), "a complex is two parts");
  Array<R, N> result;
  result.data = reinterpret_cast<R*>(array.data) + Part;
  for (int d = 0; d < N; ++d) {
    result.shape[d] = array.shape[d];
    result.strides[d] = 2 * array.strides[d];
  }
  return result;
}

// array.view(U): the same bytes as elements of type U (NumPy's rules). With the same size,
// shape and strides stay. Otherwise the last dimension changes length and must be contiguous
// (or of length 1, or the array empty); a smaller U divides sizeof(T) (sema checks it), a
// larger U must divide the last dimension's bytes, and every other stride must be a whole
// number of U. The data must be aligned for U.
template <class U, bool Checked, class T, int N>
WEFT_HD Array<U, N> view(ViewSite<Checked> site, const Array<T, N>& array) {
  constexpr uint64_t from = sizeof(T), to = sizeof(U);
  static_assert(to >= from || from % to == 0, "a smaller dtype must divide the element size");
  Array<U, N> result;
  result.data = reinterpret_cast<U*>(array.data);
  bool failed = false;
  ViewFailure failure = ViewFailure::ViewAlignment;
  auto failWith = [&](ViewFailure what) {
    failed = true;
    failure = what;
  };
  if (reinterpret_cast<uint64_t>(array.data) % alignof(U) != 0) failWith(ViewFailure::ViewAlignment);
  for (int d = 0; d < N; ++d) {
    result.shape[d] = array.shape[d];
    result.strides[d] = array.strides[d];
  }
  if constexpr (from != to) {
    constexpr int last = N - 1;
    if (array.shape[last] != 1 && size(array) != 0 && array.strides[last] != 1)
      failWith(ViewFailure::ViewNotContiguous);
    for (int d = 0; d < last; ++d) {
      int64_t bytes = static_cast<int64_t>(array.strides[d]) * static_cast<int64_t>(from);
      if (bytes % static_cast<int64_t>(to) != 0) failWith(ViewFailure::ViewStride);
      result.strides[d] = static_cast<uint64_t>(bytes / static_cast<int64_t>(to));
    }
    uint64_t lastBytes = array.shape[last] * from;
    if (lastBytes % to != 0) failWith(ViewFailure::ViewLastAxis);
    result.shape[last] = lastBytes / to;
    result.strides[last] = 1;
  }
  if (failed) {
    detail::viewFailed(site, failure);
    detail::makeEmpty(result);
  }
  return result;
}

namespace detail {

// NumPy's C-contiguity: an empty array is contiguous; dimensions of length 1 may have any stride.
template <class T, int N>
WEFT_HD bool isCContiguous(const Array<T, N>& array) {
  if (size(array) == 0) return true;
  uint64_t expected = 1;
  for (int d = N - 1; d >= 0; --d) {
    if (array.shape[d] == 1) continue;
    if (array.strides[d] != expected) return false;
    expected *= array.shape[d];
  }
  return true;
}

// NumPy's _attempt_nocopy_reshape (C order): strides for `dims` that address the elements of
// a non-empty `array` in C order, when some exist; false when the reshape needs a copy.
template <class T, int N, int M>
WEFT_HD bool nocopyStrides(const Array<T, N>& array, const int64_t (&dims)[M], int64_t (&strides)[M]) {
  int64_t oldDims[N], oldStrides[N];
  int oldCount = 0;
  for (int d = 0; d < N; ++d) {
    if (array.shape[d] == 1) continue;  // no effect, and any stride
    oldDims[oldCount] = static_cast<int64_t>(array.shape[d]);
    oldStrides[oldCount] = static_cast<int64_t>(array.strides[d]);
    ++oldCount;
  }
  int oi = 0, oj = 1, ni = 0, nj = 1;
  while (ni < M && oi < oldCount) {
    int64_t np = dims[ni];
    int64_t op = oldDims[oi];
    while (np != op) {
      if (np < op) {
        np *= dims[nj++];
      } else {
        op *= oldDims[oj++];
      }
    }
    for (int ok = oi; ok < oj - 1; ++ok) {
      if (oldStrides[ok] != oldDims[ok + 1] * oldStrides[ok + 1]) return false;
    }
    strides[nj - 1] = oldStrides[oj - 1];
    for (int nk = nj - 1; nk > ni; --nk) strides[nk - 1] = strides[nk] * dims[nk];
    ni = nj++;
    oi = oj++;
  }
  int64_t last = ni >= 1 ? strides[ni - 1] : 1;
  for (int nk = ni; nk < M; ++nk) strides[nk] = last;
  return true;
}

}  // namespace detail

// array.reshape(dims...) without a copy (NumPy's rules, C order): one dimension may be
// negative (-1: inferred from the size); the sizes must agree. A C-contiguous array takes C-contiguous
// strides; otherwise the strides NumPy's no-copy reshape finds, when the dimensions it merges
// are contiguous with each other. A reshape that would need a copy gives an empty view
// (checked: stops the thread).
template <bool Checked, class T, int N, class... D>
WEFT_HD Array<T, sizeof...(D)> reshape(ViewSite<Checked> site, const Array<T, N>& array, D... given) {
  constexpr int M = sizeof...(D);
  int64_t dims[M] = {static_cast<int64_t>(given)...};
  Array<T, M> result;
  result.data = array.data;
  int64_t total = size(array);
  int64_t known = 1;
  int unknown = -1;
  bool failed = false;
  ViewFailure failure = ViewFailure::ReshapeUnknowns;
  for (int d = 0; d < M; ++d) {
    if (dims[d] >= 0) {
      known *= dims[d];
    } else if (unknown < 0) {
      unknown = d;
    } else {
      failed = true;
    }
  }
  if (!failed && unknown >= 0) {
    if (known == 0 || total % known != 0) {
      failed = true;
      failure = ViewFailure::ReshapeSize;
    } else {
      dims[unknown] = total / known;
    }
  } else if (!failed && known != total) {
    failed = true;
    failure = ViewFailure::ReshapeSize;
  }
  int64_t strides[M];
  if (!failed) {
    if (detail::isCContiguous(array)) {
      int64_t step = 1;
      for (int d = M - 1; d >= 0; --d) {
        strides[d] = step;
        step *= dims[d] > 0 ? dims[d] : 1;
      }
    } else if (!detail::nocopyStrides(array, dims, strides)) {
      failed = true;
      failure = ViewFailure::ReshapeCopy;
    }
  }
  if (failed) {
    detail::viewFailed(site, failure);
    detail::makeEmpty(result);
    return result;
  }
  for (int d = 0; d < M; ++d) {
    result.shape[d] = static_cast<uint64_t>(dims[d]);
    result.strides[d] = static_cast<uint64_t>(strides[d]);
  }
  return result;
}

}  // namespace weft
