// Target specialization: every architecture CUDA named is a selector, with its `a`/`f` variants;
// descriptions are sets whose preprocessor conditions hold exactly on their targets (checked by
// evaluating each condition for every target, and by NVRTC for the variants); one emitted unit
// keeps a different branch of `if target(...)` in each lowering, combined into a fatbin; NVRTC's
// refusal of a target lists the ones it compiles for.
#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "codegen/codegen.h"
#include "sema/checker.h"
#include "sema/targets.h"
#include "sema_test_support.h"

#ifndef WEFT_SOURCE_DIR
#define WEFT_SOURCE_DIR "."
#endif

namespace weft {
namespace {

using sema::FeatureSet;
using sema::GpuTarget;
using sema::TargetSet;

constexpr const char* kSource =
    "from cuda import device\n"
    "\n"
    "@device.kernel\n"
    "def k(a):\n"
    "    if device.target(device.is_exactly(device.sm80)):\n"
    "        a[0] = 80801\n"
    "    elif device.target(device.provides(device.sm90a)):\n"
    "        a[0] = 90111\n"
    "    elif device.target(device.provides(device.sm100f)):\n"
    "        a[0] = 10011\n"
    "    elif device.target(device.provides(device.sm90)):\n"
    "        a[0] = 90901\n"
    "    elif device.target(device.is_host):\n"
    "        a[0] = 12345\n"
    "    else:\n"
    "        a[0] = 77777\n";

backend::Toolchain toolchain() {
  return backend::discoverToolchain(WEFT_SOURCE_DIR "/include");
}

GpuTarget sm(int arch, FeatureSet features = FeatureSet::Baseline) {
  return {arch, features};
}

// Evaluates a preprocessor condition of TargetSet::condition() with the macros CUDA defines
// for `target` (none on the host): the reference the conditions are checked against.
class ConditionEvaluator {
 public:
  ConditionEvaluator(const std::string& text, std::optional<GpuTarget> target) : text_(text) {
    if (!target) return;
    arch_ = target->arch * 10;
    family_ = target->features != FeatureSet::Baseline ? arch_ : 0;
    specific_ = target->features == FeatureSet::Specific ? arch_ : 0;
  }

  int64_t evaluate() {
    int64_t value = disjunction();
    skipSpaces();
    EXPECT_EQ(at_, text_.size()) << "trailing text in " << text_;
    return value;
  }

 private:
  int64_t disjunction() {
    int64_t value = conjunction();
    while (accept("||")) value = conjunction() || value;
    return value;
  }
  int64_t conjunction() {
    int64_t value = comparison();
    while (accept("&&")) value = comparison() && value;
    return value;
  }
  int64_t comparison() {
    int64_t left = unary();
    for (const char* op : {"==", ">=", "<=", ">", "<"}) {
      if (!accept(op)) continue;
      int64_t right = unary();
      if (std::strcmp(op, "==") == 0) return left == right;
      if (std::strcmp(op, ">=") == 0) return left >= right;
      if (std::strcmp(op, "<=") == 0) return left <= right;
      return std::strcmp(op, ">") == 0 ? left > right : left < right;
    }
    return left;
  }
  int64_t unary() {
    if (accept("!")) return !unary();
    if (accept("(")) {
      int64_t value = disjunction();
      EXPECT_TRUE(accept(")")) << text_;
      return value;
    }
    skipSpaces();
    size_t start = at_;
    while (at_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[at_])) || text_[at_] == '_'))
      ++at_;
    std::string word = text_.substr(start, at_ - start);
    if (word == "__CUDA_ARCH__") return arch_;
    if (word == "__CUDA_ARCH_FAMILY_SPECIFIC__") return family_;
    if (word == "__CUDA_ARCH_SPECIFIC__") return specific_;
    EXPECT_FALSE(word.empty()) << "at " << start << " of " << text_;
    return word.empty() ? 0 : std::stoll(word);
  }
  void skipSpaces() {
    while (at_ < text_.size() && text_[at_] == ' ') ++at_;
  }
  bool accept(const char* token) {
    skipSpaces();
    size_t length = std::strlen(token);
    if (text_.compare(at_, length, token) != 0) return false;
    if (std::strcmp(token, "!") == 0 && text_.compare(at_, 2, "!=") == 0) return false;
    at_ += length;
    return true;
  }

  std::string text_;
  size_t at_ = 0;
  int64_t arch_ = 0, family_ = 0, specific_ = 0;
};

// Whether the set's condition and its membership agree on the host and on every known target.
void expectConditionMatches(const TargetSet& set) {
  std::string condition = set.condition();
  EXPECT_EQ(ConditionEvaluator(condition, std::nullopt).evaluate() != 0, set.includesHost())
      << condition << " on the host";
  for (GpuTarget target : sema::knownTargets())
    EXPECT_EQ(ConditionEvaluator(condition, target).evaluate() != 0, set.includes(target))
        << condition << " on " << sema::targetName(target) << " (" << set.encoded() << ")";
}

TEST(Target, EveryArchitectureCudaNamedIsATarget) {
  for (GpuTarget target :
       {sm(35), sm(37), sm(50), sm(60), sm(70), sm(72), sm(75), sm(88), sm(90, FeatureSet::Specific),
        sm(100, FeatureSet::Family), sm(101, FeatureSet::Specific), sm(103, FeatureSet::Family),
        sm(110, FeatureSet::Specific), sm(121, FeatureSet::Family), sm(121, FeatureSet::Specific)})
    EXPECT_TRUE(sema::isKnownTarget(target)) << sema::targetName(target);
  // Variants exist where CUDA defines them only.
  for (GpuTarget target : {sm(89, FeatureSet::Specific), sm(90, FeatureSet::Family),
                           sm(75, FeatureSet::Specific), sm(91), sm(0)})
    EXPECT_FALSE(sema::isKnownTarget(target)) << sema::targetName(target);
  // Each selector is a module entity; a malformed or unknown name is none.
  for (const char* name : {"sm35", "sm70", "sm90a", "sm100f", "sm121a"})
    EXPECT_EQ(sema::resolveTargetEntity(name).kind, sema::Value::Kind::Intrinsic) << name;
  for (const char* name : {"sm_90", "sm090", "sm89a", "sm90f", "sm90x", "sm", "sm91"})
    EXPECT_EQ(sema::resolveTargetEntity(name).kind, sema::Value::Kind::Error) << name;
}

TEST(Target, TargetNamesRoundTrip) {
  for (GpuTarget target : sema::knownTargets()) {
    EXPECT_EQ(sema::parseTarget(sema::targetName(target)), target);
    EXPECT_EQ(sema::parseTarget(sema::targetName(target, "compute_"), "compute_"), target);
    EXPECT_EQ(sema::parseTarget(sema::targetName(target, "sm"), "sm"), target);
  }
  EXPECT_EQ(sema::targetName(sm(100, FeatureSet::Family)), "sm_100f");
  EXPECT_EQ(sema::targetName(sm(90, FeatureSet::Specific), "compute_"), "compute_90a");
  for (const char* bad : {"sm_", "sm_a", "sm_090", "sm_90x", "sm_9o", "compute_90", "sm_12345", "sm_-9"})
    EXPECT_FALSE(sema::parseTarget(bad).has_value()) << bad;
}

TEST(Target, FeatureSetsFollowCudasCompatibility) {
  // is_exactly(sm90) is __CUDA_ARCH__ == 900: sm_90a is an sm_90 too.
  EXPECT_TRUE(TargetSet::exactly(sm(90)).includes(sm(90, FeatureSet::Specific)));
  EXPECT_FALSE(TargetSet::exactly(sm(90, FeatureSet::Specific)).includes(sm(90)));
  // Architecture-specific features are not forward compatible.
  EXPECT_EQ(TargetSet::provides(sm(90, FeatureSet::Specific)),
            TargetSet::exactly(sm(90, FeatureSet::Specific)));
  EXPECT_FALSE(TargetSet::provides(sm(90, FeatureSet::Specific)).includes(sm(100, FeatureSet::Specific)));
  // Family features cover the later minors of the major version, with family or specific features.
  TargetSet family = TargetSet::provides(sm(100, FeatureSet::Family));
  for (GpuTarget yes : {sm(100, FeatureSet::Family), sm(100, FeatureSet::Specific),
                        sm(103, FeatureSet::Family), sm(103, FeatureSet::Specific)})
    EXPECT_TRUE(family.includes(yes)) << sema::targetName(yes);
  for (GpuTarget no : {sm(100), sm(103), sm(110, FeatureSet::Family), sm(120, FeatureSet::Family),
                       sm(90, FeatureSet::Specific)})
    EXPECT_FALSE(family.includes(no)) << sema::targetName(no);
  EXPECT_FALSE(family.includesHost());
  // Baseline features: every later target, whatever its feature set (the specification's
  // provides(sm70) holds for sm_72, sm_75, sm_80 ...).
  TargetSet volta = TargetSet::provides(sm(70));
  for (GpuTarget yes :
       {sm(70), sm(72), sm(75), sm(80), sm(90, FeatureSet::Specific), sm(121, FeatureSet::Family)})
    EXPECT_TRUE(volta.includes(yes)) << sema::targetName(yes);
  EXPECT_FALSE(volta.includes(sm(62)));
  EXPECT_FALSE(volta.includesHost());
  EXPECT_TRUE(TargetSet::host().includesHost() && !TargetSet::device().includesHost());
}

TEST(Target, ConditionsKeepTheSpecificationsSpelling) {
  TargetSet sm80 = TargetSet::exactly(sm(80)), provides80 = TargetSet::provides(sm(80));
  EXPECT_EQ(TargetSet::host().condition(), "!__CUDA_ARCH__");
  EXPECT_EQ(TargetSet::device().condition(), "__CUDA_ARCH__");
  EXPECT_EQ((sm80 | TargetSet::exactly(sm(90))).condition(), "__CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 900");
  EXPECT_EQ((~provides80 & TargetSet::device()).condition(), "(__CUDA_ARCH__ > 0 && __CUDA_ARCH__ < 800)");
  EXPECT_EQ((~provides80).condition(), "__CUDA_ARCH__ < 800");
  EXPECT_EQ((~provides80 | sm80).condition(), "__CUDA_ARCH__ <= 800");
  EXPECT_EQ((provides80 & ~sm80).condition(), "__CUDA_ARCH__ > 800");
  EXPECT_EQ(provides80.condition(), "__CUDA_ARCH__ >= 800");
  EXPECT_EQ(TargetSet::all().condition(), "1");
  EXPECT_EQ(TargetSet::none().condition(), "0");
  EXPECT_EQ(TargetSet::exactly(sm(90, FeatureSet::Specific)).condition(), "__CUDA_ARCH_SPECIFIC__ == 900");
  EXPECT_EQ(TargetSet::provides(sm(100, FeatureSet::Family)).condition(),
            "(__CUDA_ARCH_FAMILY_SPECIFIC__ >= 1000 && __CUDA_ARCH_FAMILY_SPECIFIC__ < 1100)");
}

TEST(Target, ConditionsHoldExactlyOnTheirTargets) {
  std::vector<TargetSet> atoms = {TargetSet::host(), TargetSet::device(), TargetSet::all(),
                                  TargetSet::none()};
  for (GpuTarget target : sema::knownTargets()) {
    atoms.push_back(TargetSet::exactly(target));
    atoms.push_back(TargetSet::provides(target));
  }
  for (const TargetSet& atom : atoms) {
    expectConditionMatches(atom);
    expectConditionMatches(~atom);
  }
  std::mt19937 random(20240807);
  std::uniform_int_distribution<size_t> pick(0, atoms.size() - 1);
  std::uniform_int_distribution<int> operation(0, 3);
  for (int round = 0; round < 400; ++round) {
    TargetSet set = atoms[pick(random)];
    for (int step = 0; step < 3; ++step) {
      const TargetSet& other = atoms[pick(random)];
      switch (operation(random)) {
        case 0: set = set | other; break;
        case 1: set = set & other; break;
        case 2: set = ~set | other; break;
        default: set = set & ~other; break;
      }
    }
    expectConditionMatches(set);
    // The encoding is canonical: it decodes to the same set, and equal sets encode equal.
    std::optional<TargetSet> decoded = TargetSet::decode(set.encoded());
    ASSERT_TRUE(decoded.has_value()) << set.encoded();
    EXPECT_EQ(*decoded, set) << set.encoded();
    EXPECT_EQ(~~set, set);
    EXPECT_EQ(~(set | atoms[0]), ~set & ~atoms[0]);
  }
  for (const char* bad : {"<targets", "<targets x>", "<targets 5-3>", "<targets 0-0;f 0-5;a>",
                          "<targets;f 1-2>", "<targets 1-max;a>"})
    EXPECT_FALSE(TargetSet::decode(bad).has_value()) << bad;
}

TEST(Target, EveryTargetNvrtcCompilesForIsKnown) {
  std::vector<GpuTarget> nvrtc = backend::nvrtcSupportedTargets(toolchain());
  if (nvrtc.empty()) GTEST_SKIP() << "NVRTC not available";
  for (GpuTarget target : nvrtc) EXPECT_TRUE(sema::isKnownTarget(target)) << sema::targetName(target);
  bool hasHopper = std::find(nvrtc.begin(), nvrtc.end(), sm(90)) != nvrtc.end();
  if (hasHopper) {
    EXPECT_NE(std::find(nvrtc.begin(), nvrtc.end(), sm(90, FeatureSet::Specific)), nvrtc.end());
  }
}

TEST(Target, NvrtcRefusalListsTheTargetsItCompilesFor) {
  backend::Toolchain tools = toolchain();
  std::string version = backend::nvrtcVersion(tools);
  if (version.empty()) GTEST_SKIP() << "NVRTC not available";
  std::vector<GpuTarget> supported = backend::nvrtcSupportedTargets(tools);
  for (GpuTarget refusedTarget : {sm(35), sm(70), sm(101, FeatureSet::Specific)}) {
    if (std::find(supported.begin(), supported.end(), refusedTarget) != supported.end()) continue;
    backend::CompileOptions options;
    options.target = refusedTarget;
    backend::Artifact artifact =
        backend::compileWithNvrtc(tools, "extern \"C\" __global__ void k() {}\n", "k.cu", options);
    EXPECT_FALSE(artifact.ok);
    EXPECT_TRUE(artifact.refused) << artifact.log;
    EXPECT_NE(artifact.log.find("NVRTC " + version + " cannot compile for " +
                                sema::targetName(refusedTarget) + ";"),
              std::string::npos)
        << artifact.log;
    for (GpuTarget target : supported)
      EXPECT_NE(artifact.log.find(" " + sema::targetName(target)), std::string::npos) << artifact.log;
  }
}

TEST(Target, EachTargetKeepsItsOwnBranch) {
  auto checked = testing::checkKernel(kSource, "k", {"int32[:]"});
  ASSERT_FALSE(checked->diagnostics.hasErrors()) << checked->errors;
  codegen::EmittedUnit unit = codegen::emitCuda(checked->program, checked->sources);
  EXPECT_NE(unit.source.find("#if __CUDA_ARCH__ == 800\n"), std::string::npos) << unit.source;
  EXPECT_NE(unit.source.find("#if __CUDA_ARCH__ >= 900\n"), std::string::npos) << unit.source;
  EXPECT_NE(unit.source.find("#if __CUDA_ARCH_SPECIFIC__ == 900\n"), std::string::npos) << unit.source;
  EXPECT_NE(unit.source.find("#if !__CUDA_ARCH__\n"), std::string::npos) << unit.source;
  backend::Toolchain tools = toolchain();
  std::vector<GpuTarget> supported = backend::nvrtcSupportedTargets(tools);
  if (supported.empty()) GTEST_SKIP() << "NVRTC not available";
  const std::pair<GpuTarget, const char*> expected[] = {{sm(75), "77777"},
                                                        {sm(80), "80801"},
                                                        {sm(90), "90901"},
                                                        {sm(90, FeatureSet::Specific), "90111"},
                                                        {sm(100), "90901"},
                                                        {sm(100, FeatureSet::Family), "10011"},
                                                        {sm(103, FeatureSet::Specific), "10011"},
                                                        {sm(110, FeatureSet::Family), "90901"},
                                                        {sm(120), "90901"}};
  std::vector<backend::FatbinImage> cubins;
  for (const auto& [target, constant] : expected) {
    if (std::find(supported.begin(), supported.end(), target) == supported.end()) continue;
    backend::CompileOptions options;
    options.target = target;
    options.output = backend::DeviceCode::Ptx;
    backend::Artifact ptx = backend::compileWithNvrtc(tools, unit.source, "k.cu", options);
    ASSERT_TRUE(ptx.ok) << ptx.log;
    for (const char* other : {"80801", "90111", "10011", "90901", "12345", "77777"})
      EXPECT_EQ(ptx.bytes.find(other) != std::string::npos, std::strcmp(other, constant) == 0)
          << sema::targetName(target) << " and " << other << "\n"
          << ptx.bytes;
    if (target == sm(80) || target == sm(90, FeatureSet::Specific)) {
      options.output = backend::DeviceCode::Cubin;
      backend::Artifact cubin = backend::compileWithNvrtc(tools, unit.source, "k.cu", options);
      ASSERT_TRUE(cubin.ok) << cubin.log;
      cubins.push_back({backend::FatbinImage::Kind::Cubin, target, cubin.bytes});
    }
  }
  backend::Artifact fatbin = backend::createFatbin(tools, cubins);
  ASSERT_TRUE(fatbin.ok) << fatbin.log;
  // The fatbin holds each cubin verbatim, after a header that names its architecture.
  for (const backend::FatbinImage& cubin : cubins)
    EXPECT_NE(fatbin.bytes.find(cubin.bytes), std::string::npos) << sema::targetName(cubin.target);
}

// The JIT's choice: the device's variant with the features the unit asks for, else its
// baseline target.
TEST(Target, TheJitTargetIsTheDevicesVariantWithTheUnitsFeatures) {
  EXPECT_EQ(sema::jitTarget(90, FeatureSet::Baseline), sm(90));
  EXPECT_EQ(sema::jitTarget(90, FeatureSet::Specific), sm(90, FeatureSet::Specific));
  EXPECT_EQ(sema::jitTarget(90, FeatureSet::Family), sm(90, FeatureSet::Specific));  // sm_90 has no f
  EXPECT_EQ(sema::jitTarget(100, FeatureSet::Family), sm(100, FeatureSet::Family));
  EXPECT_EQ(sema::jitTarget(100, FeatureSet::Specific), sm(100, FeatureSet::Specific));
  EXPECT_EQ(sema::jitTarget(80, FeatureSet::Specific), sm(80));  // no variant: baseline
  EXPECT_EQ(sema::jitTarget(89, FeatureSet::Family), sm(89));
  EXPECT_EQ(sema::jitTarget(999, FeatureSet::Specific), sm(999));  // an unknown device
}

TEST(Target, DescriptionsNameTheFeatureSetsTheyTellApart) {
  auto features = [](const TargetSet& set) { return set.distinguishedFeatures(); };
  EXPECT_EQ(features(TargetSet::device()), FeatureSet::Baseline);
  EXPECT_EQ(features(TargetSet::host()), FeatureSet::Baseline);
  EXPECT_EQ(features(TargetSet::exactly(sm(90))), FeatureSet::Baseline);
  EXPECT_EQ(features(TargetSet::provides(sm(80))), FeatureSet::Baseline);
  EXPECT_EQ(features(TargetSet::provides(sm(90, FeatureSet::Specific))), FeatureSet::Specific);
  EXPECT_EQ(features(~TargetSet::provides(sm(90, FeatureSet::Specific))), FeatureSet::Specific);
  EXPECT_EQ(features(TargetSet::provides(sm(100, FeatureSet::Family))), FeatureSet::Family);
  EXPECT_EQ(features(TargetSet::exactly(sm(100, FeatureSet::Family))), FeatureSet::Family);
  EXPECT_EQ(features(TargetSet::exactly(sm(100, FeatureSet::Specific))), FeatureSet::Specific);
}

// A unit with an `a`/`f` branch asks for those features; one without asks for none.
TEST(Target, CodegenMarksUnitsThatUseFeatureSpecificBranches) {
  auto checked = testing::checkKernel(kSource, "k", {"int32[:]"});
  ASSERT_FALSE(checked->diagnostics.hasErrors()) << checked->errors;
  EXPECT_EQ(codegen::emitCuda(checked->program, checked->sources).features, FeatureSet::Specific);
  auto family = testing::checkKernel(
      "from cuda import device\n\n@device.kernel\ndef k(a):\n"
      "    if device.target(device.provides(device.sm100f)):\n        a[0] = 1\n",
      "k", {"int32[:]"});
  ASSERT_FALSE(family->diagnostics.hasErrors()) << family->errors;
  EXPECT_EQ(codegen::emitCuda(family->program, family->sources).features, FeatureSet::Family);
  auto plain = testing::checkKernel(
      "from cuda import device\n\n@device.kernel\ndef k(a):\n"
      "    if device.target(device.provides(device.sm90) | device.is_host):\n        a[0] = 1\n",
      "k", {"int32[:]"});
  ASSERT_FALSE(plain->diagnostics.hasErrors()) << plain->errors;
  EXPECT_EQ(codegen::emitCuda(plain->program, plain->sources).features, FeatureSet::Baseline);
}

// Arch-specific instructions (setmaxnreg: sm_90a only) compile for the JIT's sm_90a, and drop
// out of the baseline sm_90 compile, which the header side tells by __CUDA_ARCH_SPECIFIC__ and
// __CUDA_ARCH_FEAT_SM90_ALL; the two compiles have different NVRTC options, hence cache keys.
TEST(Target, ArchSpecificCodeCompilesForTheVariantAndDropsOutElsewhere) {
  constexpr const char* kUnit = R"(
extern "C" __global__ void k(int* out) {
#if __CUDA_ARCH_SPECIFIC__ == 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("setmaxnreg.inc.sync.aligned.u32 240;\n");
  out[threadIdx.x] = 90111;
#else
  out[threadIdx.x] = 90901;
#endif
}
)";
  backend::Toolchain tools = toolchain();
  std::vector<GpuTarget> supported = backend::nvrtcSupportedTargets(tools);
  if (std::find(supported.begin(), supported.end(), sm(90, FeatureSet::Specific)) == supported.end())
    GTEST_SKIP() << "NVRTC does not compile for sm_90a";
  backend::CompileOptions specific, baseline;
  specific.target = sema::jitTarget(90, FeatureSet::Specific);
  baseline.target = sema::jitTarget(90, FeatureSet::Baseline);
  EXPECT_NE(backend::nvrtcOptions(tools, specific), backend::nvrtcOptions(tools, baseline));
  for (backend::DeviceCode output : {backend::DeviceCode::Ptx, backend::DeviceCode::Cubin}) {
    specific.output = baseline.output = output;
    backend::Artifact a = backend::compileWithNvrtc(tools, kUnit, "k.cu", specific);
    backend::Artifact plain = backend::compileWithNvrtc(tools, kUnit, "k.cu", baseline);
    ASSERT_TRUE(a.ok) << a.log;
    ASSERT_TRUE(plain.ok) << plain.log;
    if (output != backend::DeviceCode::Ptx) continue;
    EXPECT_NE(a.bytes.find(".target sm_90a"), std::string::npos);
    EXPECT_NE(a.bytes.find("setmaxnreg"), std::string::npos) << a.bytes;
    EXPECT_EQ(plain.bytes.find("setmaxnreg"), std::string::npos) << plain.bytes;
    EXPECT_NE(plain.bytes.find("90901"), std::string::npos) << plain.bytes;
  }
}

}  // namespace
}  // namespace weft
