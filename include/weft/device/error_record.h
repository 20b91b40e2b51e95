// The error record of a checked kernel (docs/debugging.md): where the first failed run-time
// check of a launch (an array index out of bounds, an integer division by zero, an assert, a
// view's precondition) leaves what the runtime needs to raise the Python exception. The device
// writes only integers; the unit's table of check sites (codegen::EmittedUnit::checkSites)
// turns the site number into the Python file, line and message. Plain data with no
// dependencies: the generated code (intrinsics.h writes it) and the runtime (reads it back
// after the launch) both include this header.
#pragma once

#if defined(__CUDACC_RTC__)
#include "weft/device/config.h"
#else
#include <cstdint>
#endif

namespace weft {

// What failed. None: nothing (the record's state before a launch).
enum class CheckKind : uint32_t { None, Bounds, ZeroDivision, Assert, View };

// Which run-time precondition of a view failed (array_views.h).
enum class ViewFailure : uint32_t {
  ZeroStep,
  ViewAlignment,
  ViewNotContiguous,
  ViewStride,
  ViewLastAxis,
  ReshapeUnknowns,
  ReshapeSize,
  ReshapeCopy,
};

// The message of a failed view precondition, following NumPy's wording.
constexpr const char* viewFailureMessage(ViewFailure failure) {
  switch (failure) {
    case ViewFailure::ZeroStep: return "slice step cannot be zero";
    case ViewFailure::ViewAlignment: return "view(): the data is not aligned for the new dtype";
    case ViewFailure::ViewNotContiguous:
      return "view(): to change to a dtype of a different size, the last axis must be contiguous";
    case ViewFailure::ViewStride: return "view(): a stride is not a whole number of the new dtype's size";
    case ViewFailure::ViewLastAxis:
      return "view(): the last axis's size in bytes is not a multiple of the new dtype's size";
    case ViewFailure::ReshapeUnknowns: return "reshape(): can only specify one unknown dimension";
    case ViewFailure::ReshapeSize: return "reshape(): the array's size does not fit the new shape";
    case ViewFailure::ReshapeCopy:
      return "reshape(): the array's strides allow no view of this shape (a copy would be needed)";
  }
  return "a view precondition failed";
}

// How many indices and dimensions of a failed array access the record keeps (the failing
// axis is always kept, in axisIndex/axisSize).
constexpr int kRecordedRank = 8;

// One launch's first failure, in (block, thread) order: of several failing threads, the one
// with the lowest linear block index, then the lowest linear thread index, is reported, so that
// the report does not depend on timing. Zero-filled before the launch (kind None).
struct ErrorRecord {
  uint32_t lock;       // a spin lock over the other fields, taken by failing threads only
  uint32_t kind;       // a CheckKind
  uint32_t site;       // the failing check's index in the unit's site table
  uint32_t detail;     // View: the ViewFailure; Bounds: the failing axis
  uint32_t block[3];   // the reporting thread's block_idx (x, y, z)
  uint32_t thread[3];  // and its thread_idx
  uint32_t rank;        // Bounds: the array's dimensions (shape[] keeps the first kRecordedRank)
  uint32_t indexCount;  // Bounds: the indices of an element access; 0 for an index in a slicing
  int64_t index[kRecordedRank];  // Bounds: the indices as written (before a negative one wraps)
  uint64_t shape[kRecordedRank];
  int64_t axisIndex;  // Bounds: the failing axis's index as written
  uint64_t axisSize;  // and that axis's length
};
static_assert(sizeof(ErrorRecord) == 192, "the runtime reads the record back byte for byte");

}  // namespace weft
