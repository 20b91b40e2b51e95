// The builtin kinds list (sema/builtin_kinds.def) is the one place that classifies builtins:
// its columns agree with the device headers and with each other, sema and codegen read them,
// and a unit includes a builtin header only when it calls one of its builtins.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "codegen/codegen.h"
#include "sema/checker.h"
#include "sema_test_support.h"

#ifndef WEFT_SOURCE_DIR
#define WEFT_SOURCE_DIR "."
#endif

namespace weft {
namespace {

using sema::Builtin;
using sema::BuiltinHeader;
namespace property = sema::builtin_property;

constexpr const char* kBuiltinNames[] = {
#define WEFT_BUILTIN(Enum, description, header, helper, properties, math, arity) #Enum,
#include "sema/builtin_kinds.def"
};

std::string readHeader(const std::string& name) {
  std::ifstream in(std::string(WEFT_SOURCE_DIR) + "/include/weft/device/" + name);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The device headers that define the helpers of `header`'s builtins.
std::string headerText(BuiltinHeader header) {
  switch (header) {
    case BuiltinHeader::Runtime: return readHeader("intrinsics.h") + readHeader("numeric.h");
    case BuiltinHeader::Math: return readHeader("math.h");
    case BuiltinHeader::Simt: return readHeader("simt.h");
    case BuiltinHeader::Atomics: return readHeader("atomics.h");
    case BuiltinHeader::Print: return readHeader("print.h");
  }
  return {};
}

TEST(BuiltinKinds, HelpersAreDefinedInTheirHeaders) {
  for (size_t i = 0; i < std::size(kBuiltinNames); ++i) {
    const sema::BuiltinInfo& info = sema::builtinInfo(static_cast<Builtin>(i));
    if (info.helper.empty()) continue;
    std::string helper(info.helper.substr(0, info.helper.find('<')));
    std::string name = helper.substr(helper.rfind("::") + 2);
    std::string text = headerText(info.header);
    // Defined as a function (` name(`), by a macro given the name (`WEFT_MATH_UNARY(acos, `), or
    // by one that pastes its end to a prefix (`atomic_##name` with `(and_, `).
    bool defined =
        text.find(" " + name + "(") != std::string::npos || text.find("(" + name + ",") != std::string::npos;
    for (size_t cut = name.find('_'); !defined && cut != std::string::npos; cut = name.find('_', cut + 1)) {
      std::string prefix = name.substr(0, cut + 1), suffix = name.substr(cut + 1);
      defined = text.find(prefix + "##") != std::string::npos &&
                (text.find("(" + suffix + ",") != std::string::npos ||
                 text.find("(" + suffix + ")") != std::string::npos);
    }
    EXPECT_TRUE(defined) << kBuiltinNames[i] << ": " << info.helper << " is not in its header";
  }
}

TEST(BuiltinKinds, ColumnsAgree) {
  for (size_t i = 0; i < std::size(kBuiltinNames); ++i) {
    Builtin builtin = static_cast<Builtin>(i);
    const sema::BuiltinInfo& info = sema::builtinInfo(builtin);
    SCOPED_TRACE(kBuiltinNames[i]);
    EXPECT_FALSE(info.description.empty());
    // A predicate is a math function.
    EXPECT_TRUE(!info.has(property::Predicate) || !info.math.empty());
    // Ordered helpers are atomics.h's.
    EXPECT_TRUE(!info.has(property::Ordered) || info.header == BuiltinHeader::Atomics);
    // A math function resolves by its math-module name, to itself, as an intrinsic of that arity.
    if (info.math.empty()) continue;
    sema::Value math = sema::resolveEntity("math." + std::string(info.math));
    EXPECT_EQ(math.kind, sema::Value::Kind::Intrinsic);
    EXPECT_EQ(math.math, builtin);
    EXPECT_GE(info.arity, 1);
  }
  EXPECT_TRUE(sema::builtinIsDeviceOnly(Builtin::AtomicAdd) &&
              !sema::builtinIsDeviceOnly(Builtin::AtomicRefOf));
  EXPECT_TRUE(sema::builtinHasEffects(Builtin::Print) && !sema::builtinIsDeviceOnly(Builtin::Print));
  // Intrinsics that lower to one builtin say which.
  EXPECT_EQ(sema::intrinsicBuiltin(sema::Intrinsic::ShflXorSync), Builtin::ShflXorSync);
  EXPECT_EQ(sema::intrinsicBuiltin(sema::Intrinsic::Cbrt), Builtin::Cbrt);
  EXPECT_FALSE(sema::intrinsicBuiltin(sema::Intrinsic::ThreadIdx).has_value());
}

std::string unitOf(const std::string& body, const std::vector<std::string>& arguments) {
  std::string source = "import math\nfrom cuda import device\n\n@device.kernel\ndef k(a, b):\n" + body;
  auto checked = testing::checkKernel(source, "k", arguments);
  EXPECT_FALSE(checked->diagnostics.hasErrors()) << checked->errors;
  if (checked->diagnostics.hasErrors()) return {};
  return codegen::emitCuda(checked->program, checked->sources).source;
}

TEST(BuiltinKinds, UnitsIncludeTheHeadersOfTheBuiltinsTheyCall) {
  const std::vector<std::string> arrays = {"float32[:]", "float32[:]"};
  std::string plain = unitOf("    i = device.tid(1)\n    b[i] = a[i] * 2\n", arrays);
  for (const char* header : {"math.h", "simt.h", "atomics.h", "print.h", "cuda/std", "interop.h"})
    EXPECT_EQ(plain.find(header), std::string::npos) << header << "\n" << plain;
  std::string math = unitOf("    i = device.tid(1)\n    b[i] = math.hypot(a[i], 2.0)\n", arrays);
  EXPECT_NE(math.find("#include <weft/device/math.h>"), std::string::npos) << math;
  EXPECT_EQ(math.find("simt.h"), std::string::npos) << math;
  // `**` with a run-time float exponent is math.pow too.
  std::string power = unitOf("    i = device.tid(1)\n    b[i] = a[i] ** b[i]\n", arrays);
  EXPECT_NE(power.find("#include <weft/device/math.h>"), std::string::npos) << power;
  std::string warp =
      unitOf("    i = device.tid(1)\n    b[i] = device.shfl_xor_sync(0xffffffff, a[i], 1)\n", arrays);
  EXPECT_NE(warp.find("#include <weft/device/simt.h>"), std::string::npos) << warp;
  EXPECT_EQ(warp.find("math.h"), std::string::npos) << warp;
  std::string atomic = unitOf("    device.AtomicRef(b, 0).add(a[0])\n", arrays);
  EXPECT_NE(atomic.find("#include <weft/device/atomics.h>"), std::string::npos) << atomic;
  EXPECT_NE(atomic.find("weft::atomic_add<5, 3>("), std::string::npos) << atomic;
}

}  // namespace
}  // namespace weft
