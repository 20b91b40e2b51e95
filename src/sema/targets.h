// Targets: the GPU compilation targets (sm_90, sm_100f, sm_90a), every architecture CUDA has
// named (gpu_architectures.def), and TargetSet, the value of a TargetDescription. Sema decides
// these facts; the backend (NVRTC's -arch), weftc and the Python package read them from here.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace weft::sema {

// Which features of an architecture a compilation may use. Baseline ones (sm_90) every later
// architecture has too; family-specific ones (sm_100f) the later minor versions of the same
// major version have; architecture-specific ones (sm_90a) that architecture alone has. Each
// set includes the previous one (compiling for sm_100a defines __CUDA_ARCH_FAMILY_SPECIFIC__
// too), in this order.
enum class FeatureSet : uint8_t { Baseline, Family, Specific };

// A GPU compilation target: sm_XY with the feature set its suffix names ("", "f", "a").
struct GpuTarget {
  int arch = 90;  // XY of sm_XY
  FeatureSet features = FeatureSet::Baseline;
  bool operator==(const GpuTarget&) const = default;
};

// The suffix a target name gives `features`: "", "f" or "a".
std::string_view featureSuffix(FeatureSet features);

// `prefix` + XY + suffix: targetName(sm_100f, "sm_") is "sm_100f", with "sm" the selector
// name "sm100f", with "compute_" the virtual architecture "compute_100f".
std::string targetName(GpuTarget target, std::string_view prefix = "sm_");

// Parses `prefix` + XY + an optional "a"/"f" ("sm_90a" with "sm_"); nullopt when `text` has
// another form. The result need not be a known target (isKnownTarget).
std::optional<GpuTarget> parseTarget(std::string_view text, std::string_view prefix = "sm_");

// Every GPU target the specification or CUDA has named, by architecture and then feature set:
// sm10 ... sm90, sm90a, sm100, sm100f, sm100a, ... sm121a.
const std::vector<GpuTarget>& knownTargets();

// Whether `target` is in knownTargets().
bool isKnownTarget(GpuTarget target);

// The target the JIT compiles for on a device of architecture `arch` (XY) for code that asks for
// `features`: the known variant of sm_XY with the fewest feature sets that include `features`
// (sm_90a for 90 and Specific or Family, since sm_90 has no `f` variant); the baseline sm_XY when
// none does or `features` is Baseline, where the code's `a`/`f` branches drop out.
GpuTarget jitTarget(int arch, FeatureSet features);

// A set of targets, the value of a TargetDescription: the host and GPU compilation targets.
// Kept per feature set as sorted, disjoint, non-adjacent inclusive intervals of __CUDA_ARCH__
// values; the baseline set alone may hold 0, which stands for the host (where __CUDA_ARCH__ is
// undefined). Every operation keeps that normal form, so equal sets compare and encode equal.
class TargetSet {
 public:
  using Intervals = std::vector<std::pair<int64_t, int64_t>>;

  // The host alone; every GPU target; everything; nothing.
  static TargetSet host();
  static TargetSet device();
  static TargetSet all();
  static TargetSet none();
  // is_exactly(sm): the targets of `sm`'s architecture with at least its feature set (so
  // is_exactly(sm90) holds for sm_90a too, as `__CUDA_ARCH__ == 900` does).
  static TargetSet exactly(GpuTarget sm);
  // provides(sm): the targets that have `sm`'s features: baseline ones on this and every later
  // architecture, family ones on this and later minors of the major version (with at least
  // family features), architecture-specific ones on this architecture alone.
  static TargetSet provides(GpuTarget sm);
  // The set the encoded text names (encoded()); nullopt when it is not one.
  static std::optional<TargetSet> decode(std::string_view text);

  TargetSet operator|(const TargetSet& other) const;
  TargetSet operator&(const TargetSet& other) const;
  TargetSet operator~() const;
  bool operator==(const TargetSet&) const = default;

  // Whether the host is in the set.
  bool includesHost() const;
  // The highest feature set the set tells apart from the lower ones: Specific when an `a` target
  // is in it and the `f` one of its architecture not (or the reverse), else Family when an `f`
  // target and its baseline one differ, else Baseline. Code under a condition on the set asks the
  // JIT for these features (EmittedUnit::features).
  FeatureSet distinguishedFeatures() const;
  // Whether the GPU target is in the set.
  bool includes(GpuTarget target) const;
  // `<targets 0-0 900-max>`, or with feature sets that differ from the baseline one
  // `<targets 900-max;f 1000-1099;a 900-900>`: how the Python package names a computed
  // TargetDescription (its __weft_name__ after "weft.") and how sema carries one.
  std::string encoded() const;
  // The preprocessor condition that holds exactly on the set's targets, on __CUDA_ARCH__ (as
  // the specification's table spells it) and, where feature sets differ, on
  // __CUDA_ARCH_FAMILY_SPECIFIC__ and __CUDA_ARCH_SPECIFIC__ (which CUDA 12.9 and later define
  // for `f` and `a` targets).
  std::string condition() const;

 private:
  // Indexed by FeatureSet.
  std::array<Intervals, 3> sets_;
};

}  // namespace weft::sema
