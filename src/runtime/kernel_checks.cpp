// The report of a failed run-time check: the error record the device code left (which check
// site, which thread, the index and shape) and the unit's table of check sites become the
// message of the Python exception (docs/debugging.md shows it).
#include <string>

#include "runtime/loaded_kernels.h"
#include "support/check.h"

namespace weft::runtime {
namespace {

// "(a, b, c)" of the first `count` of `values` (of `total`; "..." marks the ones not kept).
template <class T>
std::string tuple(const T* values, uint32_t count, uint32_t total) {
  std::string text = "(";
  for (uint32_t k = 0; k < count; ++k) text += (k ? ", " : "") + std::to_string(values[k]);
  if (total > count) text += count ? ", ..." : "...";
  return text + (total == 1 ? ",)" : ")");
}

std::string triple(const uint32_t (&values)[3]) {
  return "(" + std::to_string(values[0]) + ", " + std::to_string(values[1]) + ", " +
         std::to_string(values[2]) + ")";
}

}  // namespace

KernelCheckError checkFailure(const std::string& kernel,
                              const std::vector<codegen::EmittedUnit::CheckSite>& sites,
                              const ErrorRecord& record) {
  WEFT_CHECK(record.site < sites.size(), "an error record names check site " + std::to_string(record.site) +
                                             " of " + std::to_string(sites.size()));
  const codegen::EmittedUnit::CheckSite& site = sites[record.site];
  KernelCheckError::Kind kind = KernelCheckError::Kind::Index;
  std::string what;
  switch (static_cast<CheckKind>(record.kind)) {
    case CheckKind::Bounds:
      what = "index " + std::to_string(record.axisIndex) + " is out of bounds for axis " +
             std::to_string(record.detail) + " with size " + std::to_string(record.axisSize);
      break;
    case CheckKind::ZeroDivision:
      kind = KernelCheckError::Kind::ZeroDivision;
      what = "integer division or modulo by zero";
      break;
    case CheckKind::Assert:
      kind = KernelCheckError::Kind::Assertion;
      what = site.message.empty() ? "assertion failed" : site.message;
      break;
    case CheckKind::View:
      kind = KernelCheckError::Kind::Value;
      what = viewFailureMessage(static_cast<ViewFailure>(record.detail));
      break;
    case CheckKind::None: WEFT_CHECK(false, "checkFailure() of an empty error record");
  }
  std::string message = site.file + ":" + std::to_string(site.line) + ": " + what;
  if (!site.source.empty()) message += "\n    " + site.source;
  message += "\nin kernel '" + kernel + "'";
  if (!site.function.empty() && site.function != kernel) message += ", function '" + site.function + "'";
  message += ", block " + triple(record.block) + ", thread " + triple(record.thread);
  if (static_cast<CheckKind>(record.kind) == CheckKind::Bounds) {
    uint32_t kept = record.rank < kRecordedRank ? record.rank : kRecordedRank;
    if (record.indexCount > 0) {
      uint32_t indices = record.indexCount < kRecordedRank ? record.indexCount : kRecordedRank;
      message += ": index " + tuple(record.index, indices, record.indexCount);
    } else {
      message += ": an index of a slicing";
    }
    message += " into an array of shape " + tuple(record.shape, kept, record.rank);
  }
  return KernelCheckError(kind, message);
}

}  // namespace weft::runtime
