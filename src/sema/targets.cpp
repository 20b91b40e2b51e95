// GPU targets and target sets (targets.h). A set is three interval sets of __CUDA_ARCH__ values,
// one per feature set, so that the union, intersection and complement of descriptions are
// those of intervals, and each lowering decides membership with a preprocessor test.
#include "sema/targets.h"

#include <algorithm>
#include <charconv>
#include <limits>

namespace weft::sema {

namespace {

using Intervals = TargetSet::Intervals;

constexpr int64_t kUnbounded = std::numeric_limits<int64_t>::max();
constexpr size_t kBaseline = static_cast<size_t>(FeatureSet::Baseline);
constexpr size_t kFamily = static_cast<size_t>(FeatureSet::Family);
constexpr size_t kSpecific = static_cast<size_t>(FeatureSet::Specific);

Intervals normalized(Intervals intervals) {
  std::sort(intervals.begin(), intervals.end());
  Intervals result;
  for (const auto& [lo, hi] : intervals) {
    if (lo > hi) continue;
    // Compare before adding 1: the end of an unbounded interval has no successor.
    if (!result.empty() && (result.back().second == kUnbounded || lo <= result.back().second + 1)) {
      result.back().second = std::max(result.back().second, hi);
    } else {
      result.emplace_back(lo, hi);
    }
  }
  return result;
}

Intervals unite(const Intervals& a, const Intervals& b) {
  Intervals all = a;
  all.insert(all.end(), b.begin(), b.end());
  return normalized(std::move(all));
}

// The complement within [0, max].
Intervals complement(const Intervals& a) {
  Intervals result;
  int64_t next = 0;
  for (const auto& [lo, hi] : a) {
    if (lo > next) result.emplace_back(next, lo - 1);
    if (hi == kUnbounded) return result;
    next = hi + 1;
  }
  result.emplace_back(next, kUnbounded);
  return result;
}

Intervals intersect(const Intervals& a, const Intervals& b) {
  return complement(unite(complement(a), complement(b)));
}

// The values of `a` from 1 on: GPU targets only (0 is the host, a baseline target).
Intervals deviceOnly(const Intervals& a) {
  return intersect(a, {{1, kUnbounded}});
}

bool contains(const Intervals& a, int64_t value) {
  return std::any_of(a.begin(), a.end(), [&](const auto& interval) {
    return interval.first <= value && value <= interval.second;
  });
}

// One interval as a preprocessor test on `macro`, in the specification's spelling where it has
// one. A lower bound of at least 1 is false where the macro is undefined (read as 0).
std::string renderInterval(const std::string& macro, int64_t lo, int64_t hi) {
  if (lo == 0 && hi == 0) return "!" + macro;
  if (lo == hi) return macro + " == " + std::to_string(lo);
  if (lo == 1 && hi == kUnbounded) return macro;
  std::string lower =
      lo % 10 == 0 ? macro + " >= " + std::to_string(lo) : macro + " > " + std::to_string(lo - 1);
  if (hi == kUnbounded) return lower;  // before hi + 1 below, which would overflow
  std::string upper =
      hi % 10 == 0 ? macro + " <= " + std::to_string(hi) : macro + " < " + std::to_string(hi + 1);
  if (lo == 0) return upper;
  return "(" + lower + " && " + upper + ")";
}

std::string render(const Intervals& intervals, const std::string& macro) {
  if (intervals.empty()) return "0";
  if (intervals.size() == 1 && intervals[0].first == 0 && intervals[0].second == kUnbounded) return "1";
  std::string text;
  for (const auto& [lo, hi] : intervals) text += (text.empty() ? "" : " || ") + renderInterval(macro, lo, hi);
  return text;
}

// `guard && test`, parenthesized to be one operand of ||.
std::string guarded(const std::string& guard, const std::string& test) {
  if (test == "1") return guard;
  bool compound = test.find("||") != std::string::npos;
  return "(" + guard + " && " + (compound ? "(" + test + ")" : test) + ")";
}

std::string encodeIntervals(const Intervals& intervals) {
  std::string text;
  for (const auto& [lo, hi] : intervals)
    text += " " + std::to_string(lo) + "-" + (hi == kUnbounded ? std::string("max") : std::to_string(hi));
  return text;
}

// Parses encodeIntervals' text; nullopt for anything else (a value below `least` included).
std::optional<Intervals> decodeIntervals(std::string_view text, int64_t least) {
  Intervals intervals;
  auto number = [](std::string_view digits, int64_t& out) {
    if (digits == "max") {
      out = kUnbounded;
      return true;
    }
    auto [ptr, error] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
    return error == std::errc() && ptr == digits.data() + digits.size();
  };
  while (!text.empty()) {
    if (text.front() != ' ') return std::nullopt;
    text.remove_prefix(1);
    size_t end = std::min(text.find(' '), text.size());
    size_t dash = text.find('-');
    if (dash == std::string_view::npos || dash > end) return std::nullopt;
    int64_t lo = 0, hi = 0;
    if (!number(text.substr(0, dash), lo) || !number(text.substr(dash + 1, end - dash - 1), hi) ||
        lo < least || lo > hi)
      return std::nullopt;
    intervals.emplace_back(lo, hi);
    text.remove_prefix(end);
  }
  return normalized(std::move(intervals));
}

struct ArchitectureEntry {
  int arch;
  bool family;
  bool specific;
};

constexpr ArchitectureEntry kArchitectures[] = {
#define WEFT_GPU_ARCHITECTURE(arch, family, specific) {arch, family, specific},
#include "sema/gpu_architectures.def"
};

}  // namespace

std::string_view featureSuffix(FeatureSet features) {
  switch (features) {
    case FeatureSet::Baseline: return "";
    case FeatureSet::Family: return "f";
    case FeatureSet::Specific: return "a";
  }
  return "";
}

std::string targetName(GpuTarget target, std::string_view prefix) {
  return std::string(prefix) + std::to_string(target.arch) + std::string(featureSuffix(target.features));
}

std::optional<GpuTarget> parseTarget(std::string_view text, std::string_view prefix) {
  if (!text.starts_with(prefix)) return std::nullopt;
  text.remove_prefix(prefix.size());
  GpuTarget target;
  if (text.ends_with("a") || text.ends_with("f")) {
    target.features = text.back() == 'a' ? FeatureSet::Specific : FeatureSet::Family;
    text.remove_suffix(1);
  }
  if (text.empty() || text.front() < '1' || text.front() > '9' || text.size() > 4) return std::nullopt;
  auto [ptr, error] = std::from_chars(text.data(), text.data() + text.size(), target.arch);
  if (error != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return target;
}

const std::vector<GpuTarget>& knownTargets() {
  static const std::vector<GpuTarget> targets = [] {
    std::vector<GpuTarget> list;
    for (const ArchitectureEntry& entry : kArchitectures) {
      list.push_back({entry.arch, FeatureSet::Baseline});
      if (entry.family) list.push_back({entry.arch, FeatureSet::Family});
      if (entry.specific) list.push_back({entry.arch, FeatureSet::Specific});
    }
    return list;
  }();
  return targets;
}

bool isKnownTarget(GpuTarget target) {
  const std::vector<GpuTarget>& targets = knownTargets();
  return std::find(targets.begin(), targets.end(), target) != targets.end();
}

GpuTarget jitTarget(int arch, FeatureSet features) {
  for (GpuTarget target : knownTargets())
    if (target.arch == arch && target.features >= features) return target;
  return {arch, FeatureSet::Baseline};
}

TargetSet TargetSet::host() {
  TargetSet set;
  set.sets_[kBaseline] = {{0, 0}};
  return set;
}

TargetSet TargetSet::device() {
  TargetSet set;
  for (Intervals& intervals : set.sets_) intervals = {{1, kUnbounded}};
  return set;
}

TargetSet TargetSet::all() {
  return host() | device();
}

TargetSet TargetSet::none() {
  return TargetSet();
}

TargetSet TargetSet::exactly(GpuTarget sm) {
  TargetSet set;
  int64_t value = int64_t{sm.arch} * 10;
  for (size_t features = static_cast<size_t>(sm.features); features < set.sets_.size(); ++features)
    set.sets_[features] = {{value, value}};
  return set;
}

TargetSet TargetSet::provides(GpuTarget sm) {
  TargetSet set;
  int64_t value = int64_t{sm.arch} * 10;
  switch (sm.features) {
    case FeatureSet::Baseline:
      for (Intervals& intervals : set.sets_) intervals = {{value, kUnbounded}};
      break;
    case FeatureSet::Family: {
      // The same major version: sm_100f's features are on sm_100 ... sm_109 (__CUDA_ARCH__ < 1100).
      int64_t nextMajor = (int64_t{sm.arch} / 10 + 1) * 100;
      set.sets_[kFamily] = set.sets_[kSpecific] = {{value, nextMajor - 1}};
      break;
    }
    case FeatureSet::Specific: set.sets_[kSpecific] = {{value, value}}; break;
  }
  return set;
}

std::optional<TargetSet> TargetSet::decode(std::string_view text) {
  constexpr std::string_view prefix = "<targets";
  if (!text.starts_with(prefix) || !text.ends_with(">")) return std::nullopt;
  text = text.substr(prefix.size(), text.size() - prefix.size() - 1);
  size_t family = text.find(";f");
  std::optional<Intervals> baseline = decodeIntervals(text.substr(0, family), 0);
  if (!baseline) return std::nullopt;
  TargetSet set;
  set.sets_[kBaseline] = *baseline;
  if (family == std::string_view::npos) {
    set.sets_[kFamily] = set.sets_[kSpecific] = deviceOnly(*baseline);
    return set;
  }
  std::string_view rest = text.substr(family + 2);
  size_t specific = rest.find(";a");
  if (specific == std::string_view::npos) return std::nullopt;
  std::optional<Intervals> familySet = decodeIntervals(rest.substr(0, specific), 1);
  std::optional<Intervals> specificSet = decodeIntervals(rest.substr(specific + 2), 1);
  if (!familySet || !specificSet) return std::nullopt;
  set.sets_[kFamily] = *familySet;
  set.sets_[kSpecific] = *specificSet;
  return set;
}

TargetSet TargetSet::operator|(const TargetSet& other) const {
  TargetSet set;
  for (size_t i = 0; i < sets_.size(); ++i) set.sets_[i] = unite(sets_[i], other.sets_[i]);
  return set;
}

TargetSet TargetSet::operator&(const TargetSet& other) const {
  TargetSet set;
  for (size_t i = 0; i < sets_.size(); ++i) set.sets_[i] = intersect(sets_[i], other.sets_[i]);
  return set;
}

TargetSet TargetSet::operator~() const {
  TargetSet set;
  set.sets_[kBaseline] = complement(sets_[kBaseline]);
  set.sets_[kFamily] = deviceOnly(complement(sets_[kFamily]));
  set.sets_[kSpecific] = deviceOnly(complement(sets_[kSpecific]));
  return set;
}

bool TargetSet::includesHost() const {
  return contains(sets_[kBaseline], 0);
}

FeatureSet TargetSet::distinguishedFeatures() const {
  if (sets_[kSpecific] != sets_[kFamily]) return FeatureSet::Specific;
  if (sets_[kFamily] != deviceOnly(sets_[kBaseline])) return FeatureSet::Family;
  return FeatureSet::Baseline;
}

bool TargetSet::includes(GpuTarget target) const {
  return contains(sets_[static_cast<size_t>(target.features)], int64_t{target.arch} * 10);
}

std::string TargetSet::encoded() const {
  std::string text = "<targets" + encodeIntervals(sets_[kBaseline]);
  Intervals devices = deviceOnly(sets_[kBaseline]);
  if (sets_[kFamily] != devices || sets_[kSpecific] != devices)
    text += ";f" + encodeIntervals(sets_[kFamily]) + ";a" + encodeIntervals(sets_[kSpecific]);
  return text + ">";
}

std::string TargetSet::condition() const {
  const std::string arch = "__CUDA_ARCH__", family = "__CUDA_ARCH_FAMILY_SPECIFIC__",
                    specific = "__CUDA_ARCH_SPECIFIC__";
  const Intervals& baseline = sets_[kBaseline];
  const Intervals& familySet = sets_[kFamily];
  const Intervals& specificSet = sets_[kSpecific];
  Intervals devices = deviceOnly(baseline);
  if (familySet == devices && specificSet == devices) return render(baseline, arch);
  // A family target has __CUDA_ARCH_FAMILY_SPECIFIC__ == __CUDA_ARCH__, an architecture-specific
  // one both macros equal to it; a test on a macro also holds on the higher feature sets, so it
  // is guarded where their sets differ.
  std::vector<std::string> clauses;
  if (!baseline.empty()) {
    std::string test = render(baseline, arch);
    bool coveredAbove = intersect(devices, intersect(familySet, specificSet)) == devices;
    clauses.push_back(coveredAbove ? test : guarded("!" + family, test));
  }
  if (familySet == specificSet) {
    if (!familySet.empty()) clauses.push_back(render(familySet, family));
  } else {
    if (!familySet.empty()) {
      std::string test = render(familySet, family);
      clauses.push_back(intersect(familySet, specificSet) == familySet ? test
                                                                       : guarded("!" + specific, test));
    }
    if (!specificSet.empty()) clauses.push_back(render(specificSet, specific));
  }
  if (clauses.empty()) return "0";
  std::string text;
  for (const std::string& clause : clauses) text += (text.empty() ? "" : " || ") + clause;
  return text;
}

}  // namespace weft::sema
