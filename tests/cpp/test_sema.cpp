// Sema: type inference results on small kernels (rendered with dumpTypedProgram) and at
// least one test per registered diagnostic kind.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "sema/sema_diagnostics.h"
#include "sema_test_support.h"

namespace weft::sema {
namespace {

using testing::checkKernel;

constexpr const char* kPrelude = "import math\nimport weft\nfrom cuda import device\n";

// Checks `body` (the kernel `k`'s source after the prelude) and returns the result.
std::unique_ptr<testing::CheckedKernel> run(const std::string& source, const std::vector<std::string>& args, bool debug = false) {
  return checkKernel(kPrelude + source, "k", args, debug);
}

// The diagnostic kinds that tests have seen; a final test checks every kind is covered.
std::set<std::string>& seenKinds() {
  static std::set<std::string> seen;
  return seen;
}

// Expects exactly one error, of `kind`, on 1-based source line `line` of `source`
// (counting the prelude's lines), whose message contains `fragment`.
void expectError(const std::string& source, const std::vector<std::string>& args, const std::string& kind, uint32_t line,
                 const std::string& fragment = "") {
  auto result = run(source, args);
  ASSERT_EQ(result->diagnostics.all().size(), 1u) << result->errors;
  const Diagnostic& d = result->diagnostics.all()[0];
  EXPECT_EQ(d.kind, kind) << result->errors;
  EXPECT_EQ(d.loc.line, line + 3) << result->errors;
  EXPECT_NE(d.message.find(fragment), std::string::npos) << result->errors;
  seenKinds().insert(std::string(d.kind));
}

// The type of local `name` of the kernel, as rendered in the dump.
std::string localType(const testing::CheckedKernel& result, const std::string& name) {
  const TypedFunction& kernel = result.program.functions.at(static_cast<size_t>(result.program.kernel));
  for (const Local& local : kernel.locals) {
    if (local.name == name) return types::toString(local.type);
  }
  return "<none>";
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// ---- the examples ----

TEST(SemaExamples, VecAdd) {
  auto r = checkKernel(readFile(WEFT_SOURCE_DIR "/examples/vec_add.py"), "vec_add", {"float32[:]", "float32[:]", "float32[:]"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_NE(r->dump.find("c[int64(TidX():int32)]:float32 = (a[int64(TidX():int32)]:float32 + b[int64(TidX():int32)]:float32):float32"),
            std::string::npos)
      << r->dump;
  EXPECT_EQ(r->program.functions.size(), 1u);
  EXPECT_EQ(r->program.argumentToParam, (std::vector<int>{0, 1, 2}));
}

TEST(SemaExamples, Saxpy) {
  auto r = checkKernel(readFile(WEFT_SOURCE_DIR "/examples/saxpy.py"), "saxpy", {"float32", "float32[:]", "float32[:]", "float32[:]"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_EQ(localType(*r, "i"), "int32");
  EXPECT_EQ(localType(*r, "stride"), "int32");
  // i starts at tid and grows by grid_size: provably non-negative, so no wraparound.
  EXPECT_NE(r->dump.find("out[int64(i)]:float32 = ((alpha * x[int64(i)]:float32):float32 + y[int64(i)]:float32):float32"),
            std::string::npos)
      << r->dump;
}

TEST(SemaExamples, Stencil) {
  auto r = checkKernel(readFile(WEFT_SOURCE_DIR "/examples/stencil2d.py"), "jacobi_step", {"float32[:,:]", "float32[:,:]"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_EQ(localType(*r, "rows"), "int64");
  EXPECT_EQ(localType(*r, "j"), "int32");
  EXPECT_NE(r->dump.find("u[int64((i - 1:int32):int32) wrap, int64(j)]"), std::string::npos) << r->dump;
  EXPECT_NE(r->dump.find("(0.25:float32 * "), std::string::npos) << r->dump;
}

TEST(SemaExamples, TiledMatmul) {
  auto r = checkKernel(readFile(WEFT_SOURCE_DIR "/examples/matmul_tiled.py"), "matmul", {"float32[:,:]", "float32[:,:]", "float32[:,:]"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_EQ(localType(*r, "sA"), "array(float32, 2d, shared)");
  EXPECT_EQ(localType(*r, "acc"), "float32");
  EXPECT_EQ(localType(*r, "t"), "int64");
  EXPECT_EQ(localType(*r, "q"), "int32");
  EXPECT_NE(r->dump.find("sA = array(16, 16)"), std::string::npos) << r->dump;
  EXPECT_EQ(r->program.globals.size(), 1u);
  EXPECT_EQ(r->program.globals[0].name, "TILE");
}

TEST(SemaExamples, BlockReduce) {
  auto r = checkKernel(readFile(WEFT_SOURCE_DIR "/examples/block_reduce.py"), "block_sum", {"float32[:]", "float32[:]"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_EQ(localType(*r, "buf"), "array(float32, 1d, shared)");
  EXPECT_EQ(localType(*r, "step"), "int32");
  EXPECT_NE(r->dump.find("buf = array(128)"), std::string::npos) << r->dump;
  EXPECT_NE(r->dump.find("partial[int64(BlockIdxX():uint32)]:float32 = buf[0:int64]:float32"), std::string::npos) << r->dump;
}

// ---- typing rules ----

TEST(SemaTyping, WeakLiteralsTakeTheOtherOperandsType) {
  auto r = run(
      "@device.kernel\n"
      "def k(a, b, c):\n"
      "    x = a + 1\n"
      "    y = b * 2\n"
      "    z = c + 1.5\n"
      "    w = b + 1.5\n"
      "    v = 1 + 2\n"
      "    u = 3000000000\n"
      "    f = 0.5\n",
      {"int8", "int64", "float64"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_EQ(localType(*r, "x"), "int8");
  EXPECT_EQ(localType(*r, "y"), "int64");
  EXPECT_EQ(localType(*r, "z"), "float64");
  EXPECT_EQ(localType(*r, "w"), "float64");  // a float literal with a 64-bit integer
  EXPECT_EQ(localType(*r, "v"), "int32");
  EXPECT_EQ(localType(*r, "u"), "int64");
  EXPECT_EQ(localType(*r, "f"), "float32");
}

TEST(SemaTyping, FloatLiteralWithNarrowIntegerIsFloat32) {
  auto r = run("@device.kernel\ndef k(a):\n    x = a * 0.5\n", {"int16"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_EQ(localType(*r, "x"), "float32");
}

TEST(SemaTyping, TypedOperandsPromote) {
  auto r = run(
      "@device.kernel\n"
      "def k(a, b, c, d):\n"
      "    x = a + b\n"
      "    y = c + d\n"
      "    z = a + c\n",
      {"int32", "uint32", "float32", "float64"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_EQ(localType(*r, "x"), "int64");
  EXPECT_EQ(localType(*r, "y"), "float64");
  EXPECT_EQ(localType(*r, "z"), "float32");
}

TEST(SemaTyping, DivisionRules) {
  auto r = run(
      "@device.kernel\n"
      "def k(a, b, c):\n"
      "    x = a / b\n"
      "    y = a / c\n"
      "    z = a // b\n"
      "    w = a % 3\n"
      "    v = 7 / 2\n",
      {"int32", "int32", "int64"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_EQ(localType(*r, "x"), "float32");
  EXPECT_EQ(localType(*r, "y"), "float64");
  EXPECT_EQ(localType(*r, "z"), "int32");
  EXPECT_EQ(localType(*r, "w"), "int32");
  EXPECT_EQ(localType(*r, "v"), "float32");
  EXPECT_NE(r->dump.find("v = 3.5:float32"), std::string::npos) << r->dump;
}

TEST(SemaTyping, ConstantFoldingFollowsPython) {
  auto r = run("@device.kernel\ndef k(a):\n    a[0] = -7 // 2\n    a[1] = -7 % 3\n    a[2] = 7 % -3\n    a[3] = 2 ** 10\n",
               {"int32[:]"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_NE(r->dump.find("= -4:int32"), std::string::npos) << r->dump;
  EXPECT_NE(r->dump.find("= 2:int32"), std::string::npos) << r->dump;
  EXPECT_NE(r->dump.find("= -2:int32"), std::string::npos) << r->dump;
  EXPECT_NE(r->dump.find("= 1024:int32"), std::string::npos) << r->dump;
}

TEST(SemaTyping, PowerWithConstantExponentStaysInTheBaseType) {
  auto r = run("@device.kernel\ndef k(a, x):\n    p = a ** 3\n    q = x ** a\n    s = a ** -1\n", {"int64", "float32"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_EQ(localType(*r, "p"), "int64");
  EXPECT_NE(r->dump.find("(a ** 3:int64):int64"), std::string::npos) << r->dump;
  EXPECT_EQ(localType(*r, "q"), "float32");
  EXPECT_NE(r->dump.find("Pow(x, float32(a))"), std::string::npos) << r->dump;
  EXPECT_EQ(localType(*r, "s"), "float64");
}

TEST(SemaTyping, ShiftsKeepTheLeftType) {
  auto r = run("@device.kernel\ndef k(a, b):\n    x = a << b\n    y = 1 << b\n", {"uint8", "int64"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_EQ(localType(*r, "x"), "uint8");
  EXPECT_EQ(localType(*r, "y"), "int64");
}

TEST(SemaTyping, ComparisonsAndChains) {
  auto r = run("@device.kernel\ndef k(a, b, n):\n    c = 0 <= a < n\n    d = a == b\n", {"int32", "float32", "int64"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_EQ(localType(*r, "c"), "bool");
  EXPECT_NE(r->dump.find("c = (0:int64 <= int64(a) < n)"), std::string::npos) << r->dump;
  EXPECT_NE(r->dump.find("d = (float32(a) == b)"), std::string::npos) << r->dump;
}

TEST(SemaTyping, AndOrReturnOperands) {
  auto r = run(
      "@device.kernel\n"
      "def k(a, b):\n"
      "    x = a or b\n"
      "    y = a and 2\n"
      "    if a and b > 0:\n"
      "        x = 0\n",
      {"int32", "float32"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_EQ(localType(*r, "x"), "float32");
  EXPECT_EQ(localType(*r, "y"), "int32");
  EXPECT_NE(r->dump.find("if (truth(a) and (b > 0:float32)):bool"), std::string::npos) << r->dump;
}

TEST(SemaTyping, NotAndUnary) {
  auto r = run("@device.kernel\ndef k(a, u):\n    x = not a\n    y = -u\n    z = ~a\n    w = -True\n", {"int32", "uint16"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_EQ(localType(*r, "x"), "bool");
  EXPECT_EQ(localType(*r, "y"), "uint16");
  EXPECT_EQ(localType(*r, "z"), "int32");
  EXPECT_EQ(localType(*r, "w"), "int32");
}

TEST(SemaTyping, VariableTypeIsTheJoinOfItsAssignments) {
  auto r = run(
      "@device.kernel\n"
      "def k(a, n):\n"
      "    s = 0\n"
      "    for i in range(n):\n"
      "        s = s + a[i]\n"
      "    t = 0\n"
      "    t = t + 0.5\n"
      "    a[0] = s + t\n",
      {"float64[:]", "int32"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_EQ(localType(*r, "s"), "float64");
  EXPECT_EQ(localType(*r, "t"), "float32");
  EXPECT_NE(r->dump.find("s = 0:float64"), std::string::npos) << r->dump;
}

TEST(SemaTyping, RangeLoopVariable) {
  auto r = run(
      "@device.kernel\n"
      "def k(a, n):\n"
      "    for i in range(n):\n"
      "        a[i] = 0\n"
      "    for j in range(10, 0, -1):\n"
      "        a[j] = 1\n"
      "    for q in range(1, n, 2):\n"
      "        pass\n"
      "    else:\n"
      "        a[0] = 2\n",
      {"int32[:]", "int64"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_EQ(localType(*r, "i"), "int64");
  EXPECT_EQ(localType(*r, "j"), "int32");
  EXPECT_NE(r->dump.find("for i in range(0:int64, n, 1:int64) step 1:"), std::string::npos) << r->dump;
  EXPECT_NE(r->dump.find("a[i]:int32 = 0:int32"), std::string::npos) << r->dump;  // non-negative: no wrap
  EXPECT_NE(r->dump.find("step -1:"), std::string::npos) << r->dump;
  EXPECT_NE(r->dump.find("a[int64(j) wrap]"), std::string::npos) << r->dump;
  EXPECT_NE(r->dump.find("else:\n"), std::string::npos) << r->dump;
}

TEST(SemaTyping, WhileElseBreakContinue) {
  auto r = run(
      "@device.kernel\n"
      "def k(a):\n"
      "    i = 0\n"
      "    while i < 10:\n"
      "        i += 1\n"
      "        if i == 3:\n"
      "            continue\n"
      "        if i == 7:\n"
      "            break\n"
      "    else:\n"
      "        a[0] = 1\n",
      {"int32[:]"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_NE(r->dump.find("continue"), std::string::npos);
  EXPECT_NE(r->dump.find("break"), std::string::npos);
}

TEST(SemaTyping, TupleUnpackingSwapsThroughTemporaries) {
  auto r = run("@device.kernel\ndef k(a):\n    x, y = 1, 2.0\n    x, y = y, x\n    a[0] = x + y\n", {"float32[:]"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_NE(r->dump.find("$t0 = y"), std::string::npos) << r->dump;
  EXPECT_NE(r->dump.find("x = $t0"), std::string::npos) << r->dump;
  EXPECT_EQ(localType(*r, "x"), "float32");
}

TEST(SemaTyping, ChainedAssignment) {
  auto r = run("@device.kernel\ndef k(a):\n    x = y = a[0]\n    a[1] = x + y\n", {"int16[:]"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_EQ(localType(*r, "x"), "int16");
  EXPECT_EQ(localType(*r, "y"), "int16");
  EXPECT_NE(r->dump.find("$t0 = a[0:int64]:int16"), std::string::npos) << r->dump;
}

TEST(SemaTyping, AnnotatedAssignmentFixesTheType) {
  auto r = run("@device.kernel\ndef k(a):\n    x: device.float64 = 1\n    x = a[0]\n    y: int = 2\n", {"int32[:]"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_EQ(localType(*r, "x"), "float64");
  EXPECT_EQ(localType(*r, "y"), "int32");
  EXPECT_NE(r->dump.find("x = float64(a[0:int64]:int32)"), std::string::npos) << r->dump;
}

TEST(SemaTyping, AugmentedAssignmentToArrayElement) {
  auto r = run("@device.kernel\ndef k(a, x):\n    a[device.tid(1)] += x\n    a[0] //= 2\n", {"int32[:]", "float32"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_NE(r->dump.find("a[int64(TidX():int32)]:int32 = int32((float32(a[int64(TidX():int32)]:int32) + x):float32)"),
            std::string::npos)
      << r->dump;
}

TEST(SemaTyping, CastsAndBuiltins) {
  auto r = run(
      "@device.kernel\n"
      "def k(a, x, i):\n"
      "    p = int(x)\n"
      "    q = float(i)\n"
      "    r = bool(i)\n"
      "    s = device.uint8(300 - 100)\n"
      "    t = abs(i)\n"
      "    u = min(i, 3, x)\n"
      "    v = max(1, 2)\n"
      "    w = len(a)\n"
      "    z = weft.float64(x)\n"
      "    c = complex(x)\n",
      {"float32[:]", "float32", "int64"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_EQ(localType(*r, "p"), "int32");
  EXPECT_EQ(localType(*r, "q"), "float32");
  EXPECT_EQ(localType(*r, "r"), "bool");
  EXPECT_EQ(localType(*r, "s"), "uint8");
  EXPECT_NE(r->dump.find("s = 200:uint8"), std::string::npos) << r->dump;
  EXPECT_EQ(localType(*r, "t"), "int64");
  EXPECT_EQ(localType(*r, "u"), "float32");
  EXPECT_NE(r->dump.find("Min(Min(float32(i), 3:float32):float32, x):float32"), std::string::npos) << r->dump;
  EXPECT_EQ(localType(*r, "v"), "int32");
  EXPECT_EQ(localType(*r, "w"), "int64");
  EXPECT_EQ(localType(*r, "z"), "float64");
  EXPECT_EQ(localType(*r, "c"), "complex64");
}

TEST(SemaTyping, MathFunctions) {
  auto r = run(
      "@device.kernel\n"
      "def k(x, d, i):\n"
      "    a = math.sqrt(x)\n"
      "    b = math.exp(d)\n"
      "    c = math.atan2(x, d)\n"
      "    e = math.floor(i)\n"
      "    f = math.isnan(x)\n"
      "    g = math.log2(2.0)\n"
      "    h = math.pi * x\n",
      {"float32", "float64", "int32"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_EQ(localType(*r, "a"), "float32");
  EXPECT_EQ(localType(*r, "b"), "float64");
  EXPECT_EQ(localType(*r, "c"), "float64");
  EXPECT_EQ(localType(*r, "e"), "float32");
  EXPECT_EQ(localType(*r, "f"), "bool");
  EXPECT_EQ(localType(*r, "g"), "float32");
  EXPECT_EQ(localType(*r, "h"), "float32");
}

TEST(SemaTyping, ThreadPositions) {
  auto r = run(
      "@device.kernel\n"
      "def k(a):\n"
      "    tx = device.thread_idx.x\n"
      "    bd = device.block_dim.y + device.grid_dim.z + device.block_idx.x\n"
      "    x, y, z = device.tid(3)\n"
      "    g = device.grid_size(2)\n"
      "    w = device.warp_size\n"
      "    l = device.lane_id\n"
      "    d = device.thread_idx\n"
      "    a[tx] = w + l\n",
      {"int32[:]"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_EQ(localType(*r, "tx"), "uint32");
  EXPECT_EQ(localType(*r, "bd"), "uint32");
  EXPECT_EQ(localType(*r, "z"), "int32");
  EXPECT_EQ(localType(*r, "g"), "tuple(int32, int32)");
  EXPECT_EQ(localType(*r, "w"), "int32");
  EXPECT_EQ(localType(*r, "l"), "int32");
  EXPECT_EQ(localType(*r, "d"), "uint32x3");
  EXPECT_NE(r->dump.find("a[int64(tx)]"), std::string::npos) << r->dump;
}

TEST(SemaTyping, ImportedIntrinsicsAndNumpyTypes) {
  auto r = checkKernel(
      "from weft import tid, float64, syncthreads\nimport numpy as np\nfrom math import sqrt\n"
      "@weft.kernel\n"
      "def k(a):\n"
      "    i = tid(1)\n"
      "    syncthreads()\n"
      "    a[i] = float64(sqrt(np.float32(i)))\n",
      "k", {"float64[:]"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_NE(r->dump.find("Sqrt(float32(i)):float32"), std::string::npos) << r->dump;
}

TEST(SemaTyping, ArrayAttributesAndTupleIndexing) {
  auto r = run(
      "@device.kernel\n"
      "def k(a):\n"
      "    n = a.shape[1]\n"
      "    s = a.size\n"
      "    d = a.ndim\n"
      "    st = a.strides[0]\n"
      "    shp = a.shape\n"
      "    r, c = a.shape\n"
      "    a[shp[0] - 1, 0] = n + s + d + st + r + c\n"
      "    t = (1, 2)\n"
      "    a[t] = 0\n",
      {"float32[:,:]"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_EQ(localType(*r, "n"), "int64");
  EXPECT_EQ(localType(*r, "s"), "int64");
  EXPECT_EQ(localType(*r, "d"), "int32");
  EXPECT_EQ(localType(*r, "st"), "int64");
  EXPECT_EQ(localType(*r, "shp"), "tuple(int64, int64)");
  EXPECT_NE(r->dump.find("n = a.shape[1]"), std::string::npos) << r->dump;
  EXPECT_NE(r->dump.find("st = a.strides[0]"), std::string::npos) << r->dump;
  EXPECT_NE(r->dump.find("a[int64(t[0]), int64(t[1])]"), std::string::npos) << r->dump;
}

TEST(SemaTyping, NegativeIndexWrapsUnlessProvablyNonNegative) {
  auto r = run("@device.kernel\ndef k(a, i, u):\n    a[i] = a[u] + a[-1] + a[2]\n", {"float32[:]", "int32", "uint32"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_NE(r->dump.find("a[int64(i) wrap]:float32 = ((a[int64(u)]:float32 + a[-1:int64 wrap]:float32):float32 + a[2:int64]:float32)"),
            std::string::npos)
      << r->dump;
}

TEST(SemaTyping, SlicesAreViewsOfTheSameArrayType) {
  auto r =
      run("@device.kernel\n"
          "def k(a, m, i):\n"
          "    v = a[1:-1:2]\n"
          "    row = m[i]\n"
          "    col = m[:, i]\n"
          "    sub = m[1:3, ::-2]\n"
          "    last = m[..., -1]\n"
          "    whole = a[...]\n"
          "    e = m[0, 1, ...]\n"
          "    rev = a[None:None:-1]\n"
          "    s = device.shared_array((4, 4), device.float32)\n"
          "    t = s[1]\n"
          "    v[0] = row[1] + col[2] + sub[0, 0] + last[0] + whole[0] + e + rev[0] + t[0]\n",
          {"float32[:]", "float32[:,:]", "int32"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_EQ(localType(*r, "v"), "array(float32, 1d)");
  EXPECT_EQ(localType(*r, "row"), "array(float32, 1d)");
  EXPECT_EQ(localType(*r, "col"), "array(float32, 1d)");
  EXPECT_EQ(localType(*r, "sub"), "array(float32, 2d)");
  EXPECT_EQ(localType(*r, "last"), "array(float32, 1d)");
  EXPECT_EQ(localType(*r, "whole"), "array(float32, 1d)");
  EXPECT_EQ(localType(*r, "e"), "float32");
  EXPECT_EQ(localType(*r, "t"), "array(float32, 1d, shared)");
  EXPECT_NE(r->dump.find("whole = a[::1:int64]:array(float32, 1d)"), std::string::npos) << r->dump;
  EXPECT_NE(r->dump.find("v = a[1:int64:-1:int64:2:int64]:array(float32, 1d)"), std::string::npos) << r->dump;
  EXPECT_NE(r->dump.find("row = m[int64(i) wrap, ::1:int64]:array(float32, 1d)"), std::string::npos)
      << r->dump;
  EXPECT_NE(r->dump.find("col = m[::1:int64, int64(i) wrap]:array(float32, 1d)"), std::string::npos)
      << r->dump;
  EXPECT_NE(r->dump.find("sub = m[1:int64:3:int64:1:int64, ::-2:int64]"), std::string::npos) << r->dump;
  EXPECT_NE(r->dump.find("last = m[::1:int64, -1:int64 wrap]"), std::string::npos) << r->dump;
  EXPECT_NE(r->dump.find("e = m[0:int64, 1:int64]:float32"), std::string::npos) << r->dump;
  EXPECT_NE(r->dump.find("rev = a[::-1:int64]"), std::string::npos) << r->dump;
}

TEST(SemaTyping, ViewReshapeAstypeAndDtype) {
  auto r =
      run("import numpy\n"
          "@device.kernel\n"
          "def k(a, m, n):\n"
          "    bits = a.view(device.int32)\n"
          "    halves = m.view(dtype=numpy.float32)\n"
          "    flat = m.reshape(-1)\n"
          "    cube = a.reshape((2, n, -1))\n"
          "    same = m.astype(m.dtype, copy=False)\n"
          "    unchanged = a.view(a.dtype)\n"
          "    x = a.dtype(3)\n"
          "    again = m.reshape(m.shape)\n"
          "    a[0] = bits[0] + halves[0, 0] + flat[0] + cube[0, 0, 0] + same[0, 0] + unchanged[0] + x + "
          "again[0, 0]\n",
          {"float32[:]", "float64[:,:]", "int32"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_EQ(localType(*r, "bits"), "array(int32, 1d)");
  EXPECT_EQ(localType(*r, "halves"), "array(float32, 2d)");
  EXPECT_EQ(localType(*r, "flat"), "array(float64, 1d)");
  EXPECT_EQ(localType(*r, "cube"), "array(float32, 3d)");
  EXPECT_EQ(localType(*r, "same"), "array(float64, 2d)");
  EXPECT_EQ(localType(*r, "x"), "float32");
  EXPECT_NE(r->dump.find("bits = a.view():array(int32, 1d)"), std::string::npos) << r->dump;
  EXPECT_NE(r->dump.find("cube = a.reshape(int64(2:int32), int64(n), int64(-1:int32)):array(float32, 3d)"),
            std::string::npos)
      << r->dump;
  EXPECT_NE(r->dump.find("same = m\n"), std::string::npos) << r->dump;
  EXPECT_NE(r->dump.find("unchanged = a\n"), std::string::npos) << r->dump;
  EXPECT_NE(r->dump.find("again = m.reshape(m.shape[0], m.shape[1])"), std::string::npos) << r->dump;
  // debug=True checks the views' run-time preconditions.
  auto checked = run("@device.kernel\ndef k(a, n):\n    b = a[::n].reshape(2, -1).view(device.int32)\n",
                     {"float32[:]", "int64"}, true);
  ASSERT_TRUE(checked->ok()) << checked->errors;
  EXPECT_NE(checked->dump.find("a[::n] checked:array(float32, 1d).reshape(2:int64, -1:int64) "
                               "checked:array(float32, 2d).view() checked"),
            std::string::npos)
      << checked->dump;
}

TEST(SemaTyping, LocalArray) {
  auto r = run(
      "@device.kernel\n"
      "def k(a):\n"
      "    tmp = device.local_array(4, dtype=int)\n"
      "    for i in range(4):\n"
      "        tmp[i] = i\n"
      "    a[0] = tmp[3]\n",
      {"int32[:]"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_EQ(localType(*r, "tmp"), "array(int32, 1d, local)");
}

TEST(SemaTyping, ConstExprParameterIsBakedIn) {
  auto r = run(
      "@device.kernel\n"
      "def k(a, n: device.ConstExpr, m: device.ConstExpr[device.int64]):\n"
      "    s = device.shared_array(n, device.float32)\n"
      "    a[0] = n + m\n",
      {"float32[:]", "const 32", "const 5"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_NE(r->dump.find("s = array(32)"), std::string::npos) << r->dump;
  EXPECT_NE(r->dump.find("(32:int64 + 5:int64)"), std::string::npos) << r->dump;
  EXPECT_EQ(r->program.argumentToParam, (std::vector<int>{0, -1, -1}));
  EXPECT_EQ(r->program.functions[0].params.size(), 1u);
}

TEST(SemaTyping, ConstantLocalGivesAShape) {
  auto r = run("@device.kernel\ndef k(a):\n    n = 8\n    s = device.shared_array((n, 2), device.int16)\n    a[0] = s[0, 0]\n",
               {"int16[:]"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_NE(r->dump.find("s = array(8, 2)"), std::string::npos) << r->dump;
}

TEST(SemaTyping, GlobalConstantsAreRecorded) {
  auto r = run("SCALE = 2.5\nSHAPE = (2, 3)\n@device.kernel\ndef k(a):\n    a[0] = SCALE * SHAPE[1]\n", {"float64[:]"});
  ASSERT_TRUE(r->ok()) << r->errors;
  ASSERT_EQ(r->program.globals.size(), 2u);
  EXPECT_EQ(r->program.globals[0].name, "SCALE");
  EXPECT_EQ(toString(r->program.globals[1].value), "(2, 3)");
}

TEST(SemaCalls, OneSpecializationPerSignature) {
  auto r = run(
      "def add(x, y):\n"
      "    return x + y\n"
      "@device.func\n"
      "def twice(x):\n"
      "    return add(x, x)\n"
      "@device.kernel\n"
      "def k(a, b):\n"
      "    a[0] = add(a[1], 1)\n"
      "    a[2] = add(a[1], a[2])\n"
      "    b[0] = add(b[0], 1)\n"
      "    b[1] = twice(b[0])\n",
      {"float32[:]", "int64[:]"});
  ASSERT_TRUE(r->ok()) << r->errors;
  std::set<std::string> names;
  for (const TypedFunction& f : r->program.functions) names.insert(f.name);
  EXPECT_EQ(names, (std::set<std::string>{"add__f32_i32", "add__f32_f32", "add__i64_i32", "add__i64_i64", "twice__i64",
                                          "k__a1f32_a1i64"}));
  EXPECT_EQ(r->program.functions.back().name, "k__a1f32_a1i64");  // callees first
  EXPECT_EQ(r->program.kernel, static_cast<int>(r->program.functions.size()) - 1);
}

TEST(SemaCalls, RecursionWithAKnownReturnType) {
  auto r = run(
      "def fib(n):\n"
      "    if n < 2:\n"
      "        return n\n"
      "    return fib(n - 1) + fib(n - 2)\n"
      "def down(n) -> device.int32:\n"
      "    if n > 0:\n"
      "        return down(n - 1)\n"
      "    return 0\n"
      "@device.kernel\n"
      "def k(a):\n"
      "    a[0] = fib(a[1]) + down(3)\n",
      {"int32[:]"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_NE(r->dump.find("fib__i32(n: int32) -> int32"), std::string::npos) << r->dump;
}

TEST(SemaCalls, MutualRecursion) {
  auto r = run(
      "def even(n):\n"
      "    if n == 0:\n"
      "        return True\n"
      "    return odd(n - 1)\n"
      "def odd(n):\n"
      "    if n == 0:\n"
      "        return False\n"
      "    return even(n - 1)\n"
      "@device.kernel\n"
      "def k(a):\n"
      "    a[0] = even(a[1])\n",
      {"int32[:]"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_NE(r->dump.find("even__i32(n: int32) -> bool"), std::string::npos) << r->dump;
  EXPECT_NE(r->dump.find("odd__i32(n: int32) -> bool"), std::string::npos) << r->dump;
}

TEST(SemaCalls, TuplesAndArraysCrossCalls) {
  auto r = run(
      "def pair(x):\n"
      "    return x, x * 2\n"
      "def fill(buf, v):\n"
      "    buf[device.thread_idx.x] = v\n"
      "@device.kernel\n"
      "def k(a):\n"
      "    (p, q), r = pair(a[0]), 3\n"
      "    s = device.shared_array(shape=32, dtype=device.float32)\n"
      "    fill(s, 1.0)\n"
      "    a[1] = p + q + r + s[0]\n",
      {"float32[:]"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_NE(r->dump.find("pair__f32(x: float32) -> tuple(float32, float32)"), std::string::npos) << r->dump;
  EXPECT_NE(r->dump.find("fill__a1sf32_f32(buf: array(float32, 1d, shared), v: float32) -> None"), std::string::npos) << r->dump;
  EXPECT_NE(r->dump.find("p = $t0[0]"), std::string::npos) << r->dump;
}

TEST(SemaStaticEnvironment, ImportsConstantsAndKernels) {
  types::TypeContext types;
  SourceManager sources;
  Diagnostics diagnostics(sources);
  std::string text =
      "import math\nimport numpy as np\nimport weft\nfrom cuda import device\nfrom weft import tid as t, float16\n"
      "import os\nN = 4 * 8\nPAIR = (1, -2.5)\nOBJ = object()\n"
      "@device.kernel\ndef a(x):\n    pass\n@weft.func\ndef b(x):\n    return x\n@weft.kernel(debug=True)\ndef c(x):\n    pass\n"
      "def plain(x):\n    return x\n@device.func(interop=True)\ndef d(x: int):\n    return x\n";
  uint32_t file = sources.add("static.py", text);
  auto module = syntax::parse(file, diagnostics);
  ASSERT_TRUE(module);
  auto environment = makeStaticEnvironment(*module, sources.file(file));
  EXPECT_EQ(environment->lookup("math").kind, GlobalValue::Kind::Module);
  EXPECT_EQ(environment->lookup("np").qualifiedName, "numpy");
  EXPECT_EQ(environment->lookup("device").qualifiedName, "cuda.device");
  EXPECT_EQ(environment->lookup("t").qualifiedName, "weft.tid");
  EXPECT_EQ(environment->lookup("float16").kind, GlobalValue::Kind::Entity);
  EXPECT_EQ(environment->lookup("os").kind, GlobalValue::Kind::Unsupported);
  EXPECT_EQ(toString(environment->lookup("N").constant), "32");
  EXPECT_EQ(toString(environment->lookup("PAIR").constant), "(1, -2.5)");
  EXPECT_EQ(environment->lookup("OBJ").kind, GlobalValue::Kind::Unsupported);
  EXPECT_EQ(environment->lookup("missing").kind, GlobalValue::Kind::Undefined);
  GlobalValue b = environment->lookup("b");
  ASSERT_EQ(b.kind, GlobalValue::Kind::Function);
  EXPECT_EQ(b.function->decorator, FunctionSource::Decorator::Func);
  EXPECT_EQ(b.function->line, 13u);
  EXPECT_EQ(environment->lookup("plain").function->decorator, FunctionSource::Decorator::None);
  // Every function of the file shares one copy of its text (a file of thousands of functions is
  // held once, not once per function).
  EXPECT_EQ(b.function->file->text(), text);
  EXPECT_EQ(b.function->file->name(), "static.py");
  EXPECT_EQ(environment->lookup("plain").function->file, b.function->file);
  EXPECT_EQ(staticFunction(*environment, "d")->file, b.function->file);
  auto entries = listEntryPoints(*module);
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0]->name, "a");
  EXPECT_EQ(entries[1]->name, "c");
  EXPECT_EQ(entries[2]->name, "d");
  EXPECT_TRUE(isKernelDefinition(*entries[1]) && !isInteropDefinition(*entries[1]));
  EXPECT_TRUE(!isKernelDefinition(*entries[2]) && isInteropDefinition(*entries[2]));
}

TEST(SemaStaticEnvironment, ConstExprDefaultsForWeftc) {
  types::TypeContext types;
  SourceManager sources;
  Diagnostics diagnostics(sources);
  std::string text = "import weft\n@weft.kernel\ndef k(a: weft.int64[:], n: weft.ConstExpr = 16):\n    s = weft.shared_array(n, weft.int64)\n";
  uint32_t file = sources.add("cx.py", text);
  auto module = syntax::parse(file, diagnostics);
  auto environment = makeStaticEnvironment(*module, sources.file(file));
  auto kernels = listEntryPoints(*module);
  ASSERT_EQ(kernels.size(), 1u);
  CheckRequest request;
  request.entries.push_back({staticFunction(*environment, "k"), {}});
  request.entries[0].arguments = argumentsFromAnnotations(*kernels[0], *environment, types, diagnostics);
  ASSERT_EQ(request.entries[0].arguments.size(), 2u);
  ASSERT_TRUE(request.entries[0].arguments[1].constant.has_value());
  TypedProgram program = check(request, types, sources, diagnostics);
  EXPECT_FALSE(diagnostics.hasErrors()) << diagnostics.render();
  EXPECT_NE(dumpTypedProgram(program).find("s = array(16)"), std::string::npos) << dumpTypedProgram(program);
}

TEST(SemaCalls, ProcedureReturnsNone) {
  auto r = run(
      "def store(a, i, v):\n"
      "    a[i] = v\n"
      "    return\n"
      "@device.kernel\n"
      "def k(a):\n"
      "    store(a, 0, 1.5)\n",
      {"float32[:]"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_NE(r->dump.find("-> None"), std::string::npos) << r->dump;
}

TEST(SemaCalls, DiagnosticsInCalleesCarryTheCallChain) {
  auto r = run(
      "def inner(x):\n"
      "    return x + undefined_thing\n"
      "def outer(x):\n"
      "    return inner(x)\n"
      "@device.kernel\n"
      "def k(a):\n"
      "    a[0] = outer(a[1])\n",
      {"int32[:]"});
  ASSERT_EQ(r->diagnostics.all().size(), 1u) << r->errors;
  const Diagnostic& d = r->diagnostics.all()[0];
  EXPECT_EQ(d.kind, "UndefinedName");
  ASSERT_EQ(d.notes.size(), 2u);
  EXPECT_EQ(d.notes[0].loc.line, 7u);   // inner called from outer
  EXPECT_EQ(d.notes[1].loc.line, 10u);  // outer called from k
  EXPECT_NE(r->errors.find("note: in function 'inner' called from here"), std::string::npos) << r->errors;
}

TEST(SemaStatements, AssertIsCheckedOnlyInDebug) {
  std::string source = "@device.kernel\ndef k(a):\n    assert a[0] > 0, 'positive'\n";
  auto release = run(source, {"int32[:]"});
  ASSERT_TRUE(release->ok()) << release->errors;
  EXPECT_EQ(release->dump.find("AssertFail"), std::string::npos) << release->dump;
  auto debug = run(source, {"int32[:]"}, true);
  ASSERT_TRUE(debug->ok()) << debug->errors;
  EXPECT_NE(debug->dump.find("AssertFail"), std::string::npos) << debug->dump;
}

// An assert's message is a constant string (kept for the report of debug=True), in either
// mode: turning debug on never rejects a kernel that compiled.
TEST(SemaStatements, AssertMessageIsAConstantString) {
  auto named = run("GREETING = 'not positive'\n@device.kernel\ndef k(a):\n    assert a[0] > 0, GREETING\n",
                   {"int32[:]"}, true);
  ASSERT_TRUE(named->ok()) << named->errors;
  const TypedExpr* fail = nullptr;
  for (const TypedExpr& e : named->program.exprs) {
    if (e.kind == TypedExprKind::BuiltinCall && e.builtin == Builtin::AssertFail) fail = &e;
  }
  ASSERT_NE(fail, nullptr);
  EXPECT_EQ(fail->text, "not positive");
  for (bool debug : {false, true}) {
    auto formatted =
        run("@device.kernel\ndef k(a):\n    assert a[0] > 0, f'{a[0]} is negative'\n", {"int32[:]"}, debug);
    EXPECT_EQ(formatted->kinds(), std::vector<std::string>{"AssertMessage"}) << formatted->errors;
    EXPECT_NE(formatted->errors.find("not an f-string"), std::string::npos) << formatted->errors;
  }
  expectError("@device.kernel\ndef k(a):\n    assert a[0] > 0, a[0]\n", {"int32[:]"}, "AssertMessage", 3,
              "int32");
  expectError("@device.kernel\ndef k(a):\n    assert a[0] > 0, 42\n", {"int32[:]"}, "AssertMessage", 3,
              "not 42");
}

// debug=True checks integer // and % for a zero divisor unless the divisor is a nonzero
// constant; float division stays IEEE and is never checked.
TEST(SemaExpressions, DebugChecksIntegerDivisorsThatMayBeZero) {
  std::string source =
      "@device.kernel\ndef k(a, f, n):\n    a[0] = a[1] // n + a[2] % n + a[3] // 2 + a[4] % -3\n"
      "    f[0] = f[1] // f[2] + f[3] % f[4]\n    n2 = n\n    n2 //= a[5]\n";
  auto debug = run(source, {"int64[:]", "float32[:]", "int64"}, true);
  ASSERT_TRUE(debug->ok()) << debug->errors;
  size_t checked = 0;
  for (const TypedExpr& e : debug->program.exprs) {
    if (e.kind == TypedExprKind::Binary && e.checked) {
      ++checked;
      EXPECT_TRUE(types::isInteger(e.type->scalar)) << debug->dump;
      EXPECT_NE(e.operands[1]->kind, TypedExprKind::Literal) << debug->dump;
    }
  }
  EXPECT_GE(checked, 3u) << debug->dump;
  EXPECT_NE(debug->dump.find("(a[1:int64]:int64 // n) checked:int64"), std::string::npos) << debug->dump;
  EXPECT_NE(debug->dump.find("// 2:int64):int64"), std::string::npos) << debug->dump;
  auto release = run(source, {"int64[:]", "float32[:]", "int64"});
  ASSERT_TRUE(release->ok()) << release->errors;
  EXPECT_EQ(release->dump.find("checked"), std::string::npos) << release->dump;
}

TEST(SemaStatements, DocstringsAndPassAreIgnored) {
  auto r = run("@device.kernel\ndef k(a):\n    \"\"\"Docs.\"\"\"\n    pass\n", {"int32[:]"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_TRUE(r->program.functions[0].body.empty());
}

TEST(SemaStatements, KernelDefinedInsideAFunctionIsFound) {
  types::TypeContext types;
  SourceManager sources;
  Diagnostics diagnostics(sources);
  auto source = std::make_shared<FunctionSource>();
  source->file = std::make_shared<SourceFile>(
      "nested.py",
      "from cuda import device\ndef test():\n    @device.kernel\n    def k(a):\n        a[0] = 1\n");
  source->line = 3;
  source->name = "k";
  source->decorator = FunctionSource::Decorator::Kernel;
  CheckRequest request;
  request.entries.push_back({source, {}});
  request.entries[0].arguments.push_back({types.array(types::ScalarKind::Int8, 1), std::nullopt});
  TypedProgram program = check(request, types, sources, diagnostics);
  EXPECT_FALSE(diagnostics.hasErrors()) << diagnostics.render();
  ASSERT_EQ(program.functions.size(), 1u);
  EXPECT_EQ(program.functions[0].pythonName, "k");
}

// ---- diagnostics: one test (at least) per kind ----

TEST(SemaDiagnostics, UndefinedName) { expectError("@device.kernel\ndef k(a):\n    a[0] = nope\n", {"int32[:]"}, "UndefinedName", 3, "'nope'"); }

TEST(SemaDiagnostics, UnsupportedGlobal) {
  expectError("class C:\n    pass\n@device.kernel\ndef k(a):\n    a[0] = C\n", {"int32[:]"}, "UnsupportedGlobal", 5, "type");
}

TEST(SemaDiagnostics, UnsupportedEntity) {
  // A host Environment may name any weft entity; the ones device code cannot use are errors.
  types::TypeContext types;
  SourceManager sources;
  Diagnostics diagnostics(sources);
  struct Env : Environment {
    GlobalValue lookup(std::string_view name) override {
      GlobalValue v;
      if (name == "launch") {
        v.kind = GlobalValue::Kind::Entity;
        v.qualifiedName = "weft.launch";
      }
      return v;
    }
  };
  auto source = std::make_shared<FunctionSource>();
  source->file = std::make_shared<SourceFile>("e.py", "def k(a):\n    a[0] = launch\n");
  source->line = 1;
  source->name = "k";
  source->decorator = FunctionSource::Decorator::Kernel;
  source->globals = std::make_shared<Env>();
  CheckRequest request;
  request.entries.push_back({source, {}});
  request.entries[0].arguments.push_back({types.array(types::ScalarKind::Int8, 1), std::nullopt});
  check(request, types, sources, diagnostics);
  ASSERT_EQ(diagnostics.all().size(), 1u) << diagnostics.render();
  EXPECT_EQ(diagnostics.all()[0].kind, "UnsupportedEntity");
  EXPECT_NE(diagnostics.all()[0].message.find("weft.launch"), std::string::npos);
  seenKinds().insert("UnsupportedEntity");
}

TEST(SemaDiagnostics, UnsupportedStatements) {
  expectError("@device.kernel\ndef k(a):\n    raise ValueError()\n", {"int32[:]"}, "UnsupportedStatement", 3, "raise");
  expectError("@device.kernel\ndef k(a):\n    try:\n        pass\n    except Exception:\n        pass\n", {"int32[:]"},
              "UnsupportedStatement", 3, "try");
  expectError("@device.kernel\ndef k(a):\n    with a:\n        pass\n", {"int32[:]"}, "UnsupportedStatement", 3, "with");
  expectError("@device.kernel\ndef k(a):\n    global G\n", {"int32[:]"}, "UnsupportedStatement", 3, "global");
  expectError("@device.kernel\ndef k(a):\n    del a\n", {"int32[:]"}, "UnsupportedStatement", 3, "del");
  expectError("@device.kernel\ndef k(a):\n    import os\n", {"int32[:]"}, "UnsupportedStatement", 3, "import");
  expectError("@device.kernel\ndef k(a):\n    def inner():\n        pass\n", {"int32[:]"}, "UnsupportedStatement", 3, "nested");
  expectError("@device.kernel\ndef k(a):\n    class C:\n        pass\n", {"int32[:]"}, "UnsupportedStatement", 3, "class");
}

TEST(SemaDiagnostics, UnsupportedExpressions) {
  expectError("@device.kernel\ndef k(a):\n    f = lambda x: x\n", {"int32[:]"}, "UnsupportedExpression", 3, "lambda");
  expectError("@device.kernel\ndef k(a):\n    b = [1, 2]\n", {"int32[:]"}, "UnsupportedExpression", 3, "list");
  expectError("@device.kernel\ndef k(a):\n    b = [i for i in range(3)]\n", {"int32[:]"}, "UnsupportedExpression", 3,
              "comprehension");
  expectError("@device.kernel\ndef k(a):\n    b = {1: 2}\n", {"int32[:]"}, "UnsupportedExpression", 3, "dict");
  expectError("@device.kernel\ndef k(a):\n    b = 'text'\n", {"int32[:]"}, "UnsupportedExpression", 3, "string");
  expectError("@device.kernel\ndef k(a):\n    b = a[0] is 1\n", {"int32[:]"}, "UnsupportedExpression", 3, "'is'");
  expectError("@device.kernel\ndef k(a):\n    t = (1, 2, 3)\n    a[0] = t[1:2]\n", {"int32[:]"},
              "UnsupportedExpression", 4, "slicing anything but an array");
  expectError("@device.kernel\ndef k(a):\n    print(*a)\n", {"int32[:]"}, "UnsupportedExpression", 3, "starred");
  expectError("@device.kernel\ndef k(a):\n    yield a\n", {"int32[:]"}, "UnsupportedExpression", 3, "yield");
}

TEST(SemaDiagnostics, Structs) {
  const std::string vec = "@device.struct\nclass Vec:\n    x: device.float32\n    y: device.float32\n\n";
  expectError(vec + "@device.kernel\ndef k(a, v):\n    v.x = 1.0\n", {"int32[:]", "int32"}, "AssignTarget", 8);
  expectError(vec + "@device.kernel\ndef k(a):\n    v = Vec(1.0)\n", {"int32[:]"}, "StructFieldMissing", 8, "'y'");
  expectError(vec + "@device.kernel\ndef k(a):\n    v = Vec(1.0, 2.0, x=3.0)\n", {"int32[:]"}, "StructFieldTwice", 8, "'x'");
  expectError(vec + "@device.kernel\ndef k(a):\n    v = Vec(1.0, 2.0)\n    v.x = 2.0\n", {"int32[:]"}, "StructImmutable", 9,
              "s.replace(x=...)");
  expectError(vec + "@device.kernel\ndef k(a):\n    v = Vec(1.0, 2.0)\n    v.z = 2.0\n", {"int32[:]"}, "StructNoAttribute", 9,
              "attributes cannot be added");
  expectError("@device.struct\nclass Bad:\n    x: dict\n\n@device.kernel\ndef k(a):\n    v = Bad(1)\n", {"int32[:]"}, "StructField",
              3, "field 'x' of struct 'Bad'");
  expectError("@device.struct\nclass Bad:\n    x = 1\n\n@device.kernel\ndef k(a):\n    v = Bad()\n", {"int32[:]"}, "StructMember",
              3, "class attributes");
  expectError("@device.struct\nclass Node:\n    n: Node\n\n@device.kernel\ndef k(a):\n    v = Node(1)\n", {"int32[:]"},
              "StructRecursive", 3, "contains itself");
  // Records (NumPy structured dtypes) and classes whose source moved are resolved directly.
  types::TypeContext types;
  SourceManager sources;
  Diagnostics diagnostics(sources);
  auto record = std::make_shared<sema::StructSource>();
  record->name = "record";
  record->fields.push_back(RecordField{"a", 0, "object", {}, nullptr});
  record->itemSize = 8;
  EXPECT_EQ(sema::resolveStruct(record, types, sources, diagnostics), nullptr);
  auto moved = std::make_shared<sema::StructSource>();
  moved->name = "Gone";
  moved->file = std::make_shared<SourceFile>("gone.py", "x = 1\n");
  moved->line = 1;
  EXPECT_EQ(sema::resolveStruct(moved, types, sources, diagnostics), nullptr);
  ASSERT_EQ(diagnostics.all().size(), 2u);
  EXPECT_EQ(std::string(diagnostics.all()[0].kind), "StructRecord");
  EXPECT_EQ(std::string(diagnostics.all()[1].kind), "StructNotFound");
  seenKinds().insert("StructRecord");
  seenKinds().insert("StructNotFound");
  // A record whose fields do not fit it (more in test_structs.cpp, Records).
  auto empty = std::make_shared<sema::StructSource>();
  empty->name = "record";
  empty->itemSize = 4;
  EXPECT_EQ(sema::resolveStruct(empty, types, sources, diagnostics), nullptr);
  EXPECT_EQ(std::string(diagnostics.all().back().kind), "RecordLayout");
  EXPECT_NE(
      diagnostics.all().back().message.find("record cannot be laid out in device code: it has no fields"),
      std::string::npos);
  seenKinds().insert("RecordLayout");
}

TEST(SemaDiagnostics, UnknownAttribute) {
  expectError("@device.kernel\ndef k(a):\n    a[0] = device.nothing\n", {"int32[:]"}, "UnknownAttribute", 3, "'nothing'");
  expectError("@device.kernel\ndef k(a):\n    a[0] = a.foo\n", {"int32[:]"}, "UnknownAttribute", 3, "'foo'");
}

TEST(SemaDiagnostics, InvalidOperands) {
  expectError("@device.kernel\ndef k(a, x):\n    y = x // 2\n", {"int32[:]", "complex64"}, "InvalidOperands", 3, "//");
  expectError("@device.kernel\ndef k(a, x):\n    y = x & 2\n", {"int32[:]", "float32"}, "InvalidOperands", 3, "&");
  expectError("@device.kernel\ndef k(a):\n    y = a + 1\n", {"int32[:]"}, "InvalidOperands", 3, "array(int32, 1d)");
}

TEST(SemaDiagnostics, InvalidOperand) {
  expectError("@device.kernel\ndef k(a, x):\n    y = ~x\n", {"int32[:]", "float32"}, "InvalidOperand", 3, "~");
}

TEST(SemaDiagnostics, NoCommonType) {
  expectError("@device.kernel\ndef k(a, x, y):\n    z = x + y\n", {"int32[:]", "int64", "uint64"}, "NoCommonType", 3,
              "device.int64(x)");
}

TEST(SemaDiagnostics, LiteralOutOfRange) {
  expectError("@device.kernel\ndef k(a, x):\n    y = x + 300\n", {"int32[:]", "int8"}, "LiteralOutOfRange", 3, "300");
  expectError("@device.kernel\ndef k(a):\n    a[0] = device.uint8(-1)\n", {"int32[:]"}, "LiteralOutOfRange", 3, "uint8");
}

TEST(SemaDiagnostics, ConflictingAssignment) {
  auto r = run("@device.kernel\ndef k(a, x):\n    y = x\n    y = a\n", {"int32[:]", "int32"});
  ASSERT_EQ(r->diagnostics.all().size(), 1u) << r->errors;
  const Diagnostic& d = r->diagnostics.all()[0];
  EXPECT_EQ(d.kind, "ConflictingAssignment");
  EXPECT_EQ(d.loc.line, 7u);
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0].loc.line, 6u);
  seenKinds().insert("ConflictingAssignment");
}

TEST(SemaDiagnostics, ConflictingAssignmentOfInt64AndUInt64) {
  expectError("@device.kernel\ndef k(a, x, y):\n    z = x\n    z = y\n", {"int32[:]", "int64", "uint64"},
              "ConflictingAssignment", 4, "'z'");
}

TEST(SemaDiagnostics, ParameterRetyped) {
  expectError("@device.kernel\ndef k(a, x):\n    x = x * 2.5\n", {"int32[:]", "int32"}, "ParameterRetyped", 3, "'x'");
}

TEST(SemaDiagnostics, UnboundLocal) {
  expectError("@device.kernel\ndef k(a):\n    y += 1\n", {"int32[:]"}, "UnboundLocal", 3, "'y'");
}

TEST(SemaDiagnostics, AssignmentOfAnErrorIsNotUnbound) {
  expectError("@device.kernel\ndef k(a):\n    for i in range(3):\n        a[i] = y\n        y = undefined_thing\n",
              {"int32[:]"}, "UndefinedName", 5, "undefined_thing");
}

TEST(SemaDiagnostics, NotCallable) { expectError("@device.kernel\ndef k(a):\n    a(1)\n", {"int32[:]"}, "NotCallable", 3, "array"); }

TEST(SemaDiagnostics, ArgumentCount) {
  expectError("def f(x):\n    return x\n@device.kernel\ndef k(a):\n    a[0] = f(1, 2)\n", {"int32[:]"}, "ArgumentCount", 5,
              "function 'f'");
  expectError("@device.kernel\ndef k(a):\n    a[0] = abs(1, 2)\n", {"int32[:]"}, "ArgumentCount", 3, "abs()");
}

TEST(SemaDiagnostics, KeywordArgument) {
  expectError("def f(x):\n    return x\n@device.kernel\ndef k(a):\n    a[0] = f(x=1)\n", {"int32[:]"}, "KeywordArgument", 5, "'x'");
}

TEST(SemaDiagnostics, ArgumentType) {
  expectError("@device.kernel\ndef k(a):\n    i = device.tid(4)\n", {"int32[:]"}, "ArgumentType", 3, "1, 2 or 3");
  expectError("@device.kernel\ndef k(a, c):\n    a[0] = math.sqrt(c)\n", {"int32[:]", "complex64"}, "ArgumentType", 3, "real");
}

TEST(SemaDiagnostics, NotConstant) {
  expectError("@device.kernel\ndef k(a, n):\n    i = device.tid(n)\n", {"int32[:]", "int32"}, "NotConstant", 3, "device.tid");
}

TEST(SemaDiagnostics, IndexCount) {
  expectError("@device.kernel\ndef k(a):\n    a[0, 1, 2] = 1\n", {"int32[:,:]"}, "IndexCount", 3,
              "2 dimensions");
  expectError("@device.kernel\ndef k(a):\n    b = a[0, :, 1]\n", {"int32[:,:]"}, "IndexCount", 3,
              "indexed with 3 indices");
}

// Views of arrays (check_array_views.cpp); their results are checked against NumPy in
// tests/python/test_array_views_cpu.py.
TEST(SemaDiagnostics, ArrayViews) {
  const std::string k = "@device.kernel\ndef k(a, m, n):\n";
  const std::vector<std::string> args = {"float32[:]", "float64[:,:]", "int32"};
  expectError(k + "    b = a[::0]\n", args, "SliceStep", 3, "slice step cannot be zero");
  expectError(k + "    z = 0\n    b = m[1:n:z]\n", args, "SliceStep", 4);
  expectError(k + "    b = m[..., 0, ...]\n", args, "IndexEllipsis", 3, "a single ellipsis");
  expectError(k + "    a[1:3] = 0.0\n", args, "SliceAssign", 3, "assign one element at a time");
  expectError(k + "    m[0] += 1.0\n", args, "SliceAssign", 3, "would write every element of a view");
  expectError(
      "@device.struct\nclass P:\n    x: device.float32\n    y: device.float32\n    z: device.float32\n\n" +
          k + "    b = a.view(P).view(device.float64)\n",
      args, "ArrayViewDtype", 9, "its size (8 bytes) must divide the element size (12 bytes)");
  expectError(
      k + "    s = device.shared_array(4, device.Atomic(device.int32))\n    b = s.view(device.float32)\n",
      args, "ArrayViewDtype", 4, "atomic");
  expectError(k + "    b = m.reshape(-1, -1)\n", args, "ReshapeShape", 3, "has more than one -1");
  expectError(k + "    b = m.reshape((-1, 2, -3))\n", args, "ReshapeShape", 3, "has more than one -1");
  expectError(k + "    b = m.reshape(())\n", args, "ReshapeShape", 3, "no 0-dimensional arrays");
  expectError(k + "    b = m.reshape(2.0, 3)\n", args, "ReshapeShape", 3, "a dimension of type float32");
  expectError(k + "    b = m.astype(device.float32, copy=False)\n", args, "ArrayAllocates", 3,
              "astype(float32) of array(float64, 2d) would allocate a new array, which device code cannot "
              "do; convert each "
              "element where it is used, e.g. device.float32(a[i])");
  expectError(k + "    b = m.astype(m.dtype)\n", args, "ArrayAllocates", 3,
              "write a.astype(dtype, copy=False)");
  expectError(k + "    b = m.astype(m.dtype, copy=True)\n", args, "ArrayAllocates", 3, "copy=True");
  expectError(k + "    b = m.reshape(6, copy=True)\n", args, "ArrayAllocates", 3, "reshape(copy=True)");
  // Misuses reported through general kinds.
  expectError(k + "    b = a[1.5:]\n", args, "IndexType", 3,
              "an array index must be an integer, not float32");
  expectError(k + "    b = m.view(device.float32x2)\n", args, "ArgumentType", 3, "a dtype");
  expectError(k + "    b = m.reshape(2, 3, order='F')\n", args, "ArgumentType", 3, "'C'");
  expectError(k + "    b = m.astype(m.dtype, copy=n > 0)\n", args, "NotConstant", 3, "copy= of astype()");
  expectError(k + "    b = m.view(device.float32, 1)\n", args, "ArgumentCount", 3, "view()");
  expectError(k + "    b = m.astype(m.dtype, casting='no')\n", args, "KeywordArgument", 3, "'casting'");
  expectError(k + "    b = m.reshape(m.shape, shape=(6,))\n", args, "KeywordArgument", 3, "'shape'");
  expectError("def dims():\n    return (2, -1)\n\n" + k + "    b = a.reshape(dims())\n", args,
              "UnsupportedExpression", 6, "reshape() with a tuple computed by a call");
}

TEST(SemaDiagnostics, IndexType) {
  expectError("@device.kernel\ndef k(a, x):\n    a[x] = 1\n", {"int32[:]", "float32"}, "IndexType", 3, "float32");
}

TEST(SemaDiagnostics, NotSubscriptable) {
  expectError("@device.kernel\ndef k(a, x):\n    a[0] = x[0]\n", {"int32[:]", "float32"}, "NotSubscriptable", 3, "float32");
}

TEST(SemaDiagnostics, TupleIndex) {
  expectError("@device.kernel\ndef k(a):\n    a[0] = a.shape[1]\n", {"int32[:]"}, "TupleIndex", 3, "1");
}

TEST(SemaDiagnostics, StoreType) {
  expectError("@device.kernel\ndef k(a, c):\n    a[0] = c\n", {"float32[:]", "complex64"}, "StoreType", 3, "complex64");
}

TEST(SemaDiagnostics, AssignTarget) {
  expectError("@device.kernel\ndef k(a):\n    a.shape = 1\n", {"int32[:]"}, "AssignTarget", 3, "attribute");
  expectError("@device.kernel\ndef k(a, n: device.ConstExpr):\n    n = 2\n", {"int32[:]", "const 3"}, "AssignTarget", 3, "ConstExpr");
}

TEST(SemaDiagnostics, UnpackCount) {
  expectError("@device.kernel\ndef k(a):\n    x, y = device.tid(3)\n", {"int32[:]"}, "UnpackCount", 3, "3 values");
}

TEST(SemaDiagnostics, NotUnpackable) {
  expectError("@device.kernel\ndef k(a):\n    x, y = a[0]\n", {"int32[:]"}, "NotUnpackable", 3, "int32");
}

TEST(SemaDiagnostics, KernelReturnsValue) {
  expectError("@device.kernel\ndef k(a):\n    return a[0]\n", {"int32[:]"}, "KernelReturnsValue", 3, "'k'");
}

TEST(SemaDiagnostics, ReturnMismatch) {
  expectError("def f(x, a):\n    if x > 0:\n        return x\n    return a\n@device.kernel\ndef k(a):\n    a[0] = f(1, a)\n",
              {"int32[:]"}, "ReturnMismatch", 4, "'f'");
}

TEST(SemaDiagnostics, MissingReturn) {
  expectError("def f(x):\n    if x > 0:\n        return x\n@device.kernel\ndef k(a):\n    a[0] = f(1)\n", {"int32[:]"},
              "MissingReturn", 1, "'f'");
}

TEST(SemaDiagnostics, RecursiveReturnType) {
  expectError("def f(x):\n    return f(x - 1)\n@device.kernel\ndef k(a):\n    a[0] = f(1)\n", {"int32[:]"},
              "RecursiveReturnType", 2, "-> device.int32");
}

TEST(SemaDiagnostics, KernelCall) {
  expectError("@device.kernel\ndef other(a):\n    pass\n@device.kernel\ndef k(a):\n    other(a)\n", {"int32[:]"}, "KernelCall", 6,
              "'other'");
}

TEST(SemaDiagnostics, KernelArgumentCount) {
  expectError("@device.kernel\ndef k(a, b):\n    pass\n", {"int32[:]"}, "KernelArgumentCount", 2, "2 arguments but 1");
}

TEST(SemaDiagnostics, ConstExprArgument) {
  expectError("@device.kernel\ndef k(a, n: device.ConstExpr):\n    pass\n", {"int32[:]", "int32"}, "ConstExprArgument", 2, "'n'");
  expectError("@device.kernel\ndef k(a, n: device.ConstExpr[int]):\n    pass\n", {"int32[:]", "const 1.5"}, "ConstExprArgument", 2,
              "int32");
}

TEST(SemaDiagnostics, OutsideLoop) { expectError("@device.kernel\ndef k(a):\n    break\n", {"int32[:]"}, "OutsideLoop", 3, "break"); }

TEST(SemaDiagnostics, RangeArgument) {
  expectError("@device.kernel\ndef k(a):\n    for i in range(2.5):\n        pass\n", {"int32[:]"}, "RangeArgument", 3, "float32");
}

TEST(SemaDiagnostics, RangeZeroStep) {
  expectError("@device.kernel\ndef k(a):\n    for i in range(0, 4, 0):\n        pass\n", {"int32[:]"}, "RangeZeroStep", 3);
}

TEST(SemaDiagnostics, ForIterable) {
  expectError("@device.kernel\ndef k(a):\n    for x in a:\n        pass\n", {"int32[:]"}, "ForIterable", 3, "range(len(a))");
  expectError("@device.kernel\ndef k(a):\n    r = range(3)\n", {"int32[:]"}, "ForIterable", 3, "");
}

TEST(SemaDiagnostics, ArrayShape) {
  expectError("@device.kernel\ndef k(a, n):\n    s = device.shared_array(n, device.float32)\n", {"int32[:]", "int32"}, "ArrayShape", 3,
              "run-time");
  expectError("@device.kernel\ndef k(a):\n    s = device.shared_array((4, 0), device.float32)\n", {"int32[:]"}, "ArrayShape", 3, "(4, 0)");
}

TEST(SemaDiagnostics, ArrayDtype) {
  expectError("@device.kernel\ndef k(a):\n    s = device.local_array(4, 3)\n", {"int32[:]"}, "ArrayDtype", 3, "local_array");
}

TEST(SemaDiagnostics, LocalArrayTooLarge) {
  expectError("@device.kernel\ndef k(a):\n    s = device.local_array(1 << 40, device.int8)\n", {"int32[:]"},
              "LocalArrayTooLarge", 3,
              "local_array() takes 1099511627776 bytes per thread, more than the 524288 bytes");
  expectError(
      "@device.kernel\ndef k(a):\n    s = device.local_array((1 << 40, 1 << 40, 1 << 40), device.float64)\n",
      {"int32[:]"}, "LocalArrayTooLarge", 3, "more than 2**64 bytes");
  // Exactly the limit fits.
  auto r =
      run("@device.kernel\ndef k(a):\n    s = device.local_array(65536, device.float64)\n    a[0] = s[0]\n",
          {"float64[:]"});
  EXPECT_TRUE(r->ok()) << r->errors;
}

TEST(SemaDiagnostics, LocalMemoryTooLarge) {
  std::string f = "def f(a):\n    t = device.local_array(70000, device.float32)\n    t[0] = a[0]\n    return t[0]\n";
  std::string k = "@device.kernel\ndef k(a):\n    s = device.local_array(70000, device.float32)\n"
                  "    s[0] = f(a)\n    a[0] = s[0]\n";
  expectError(f + k, {"float32[:]"}, "LocalMemoryTooLarge", 6,
              "kernel 'k' needs 560000 bytes of local arrays per thread ('k' takes 280000, then 'f' called at line 11 "
              "takes 280000), more than the 524288 bytes");
}

TEST(SemaLocalMemory, TheCpuTargetBoundAddsEveryCallSite) {
  // f's array twice (two calls), g's once through f... and the recursive h once.
  auto r = run(
      "def g(a):\n    u = device.local_array(10, device.int64)\n    u[0] = a[0]\n    return u[0]\n"
      "def f(a):\n    t = device.local_array(100, device.int32)\n    t[0] = g(a)\n    return t[0]\n"
      "def h(a, n: device.int32) -> device.int32:\n    v = device.local_array(3, device.int8)\n    v[0] = 1\n"
      "    if n == 0:\n        return 0\n    return h(a, n - 1) + v[0]\n"
      "@device.kernel\ndef k(a):\n    s = device.local_array(1000, device.int8)\n"
      "    s[0] = 1\n    a[0] = f(a) + f(a) + h(a, 3) + s[0]\n",
      {"int64[:]"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_EQ(r->program.localArrayBytes, 1000u + 2 * (400u + 80u) + 3u);
}

TEST(SemaDiagnostics, ArrayDeclaration) {
  expectError("@device.kernel\ndef k(a):\n    a[0] = device.shared_array(4, device.int32)[0]\n", {"int32[:]"}, "ArrayDeclaration", 3,
              "shared_array");
}

TEST(SemaDiagnostics, ConditionType) {
  expectError("@device.kernel\ndef k(a):\n    if a:\n        pass\n", {"int32[:]"}, "ConditionType", 3, "array");
}

TEST(SemaDiagnostics, DivisionByZero) {
  expectError("@device.kernel\ndef k(a):\n    a[0] = 1 // 0\n", {"int32[:]"}, "DivisionByZero", 3);
  expectError("@device.kernel\ndef k(a):\n    a[0] = a[1] % 0\n", {"int32[:]"}, "DivisionByZero", 3);
}

TEST(SemaDiagnostics, ConstantOverflow) {
  expectError("@device.kernel\ndef k(a):\n    a[0] = 2 ** 70\n", {"int32[:]"}, "ConstantOverflow", 3);
}

TEST(SemaDiagnostics, FunctionNotFound) {
  types::TypeContext types;
  SourceManager sources;
  Diagnostics diagnostics(sources);
  auto source = std::make_shared<FunctionSource>();
  source->file = std::make_shared<SourceFile>("missing.py", "def other(a):\n    pass\n");
  source->line = 1;
  source->name = "k";
  CheckRequest request;
  request.entries.push_back({source, {}});
  check(request, types, sources, diagnostics);
  ASSERT_EQ(diagnostics.all().size(), 1u);
  EXPECT_EQ(diagnostics.all()[0].kind, "FunctionNotFound");
  seenKinds().insert("FunctionNotFound");
}

TEST(SemaDiagnostics, MissingAnnotationAndBadAnnotation) {
  types::TypeContext types;
  SourceManager sources;
  Diagnostics diagnostics(sources);
  std::string text = "from cuda import device\n@device.kernel\ndef k(a: device.float32[:, :], n: device.int32, x: float, b, c: 3):\n    pass\n";
  uint32_t file = sources.add("annotated.py", text);
  auto module = syntax::parse(file, diagnostics);
  ASSERT_TRUE(module);
  auto environment = makeStaticEnvironment(*module, sources.file(file));
  auto kernels = listEntryPoints(*module);
  ASSERT_EQ(kernels.size(), 1u);
  std::vector<ArgumentInfo> arguments = argumentsFromAnnotations(*kernels[0], *environment, types, diagnostics);
  ASSERT_EQ(arguments.size(), 5u);
  EXPECT_EQ(arguments[0].type, types.array(types::ScalarKind::Float32, 2));
  EXPECT_EQ(arguments[1].type, types.scalar(types::ScalarKind::Int32));
  EXPECT_EQ(arguments[2].type, types.scalar(types::ScalarKind::Float32));
  ASSERT_EQ(diagnostics.all().size(), 2u) << diagnostics.render();
  EXPECT_EQ(diagnostics.all()[0].kind, "MissingAnnotation");
  EXPECT_EQ(diagnostics.all()[1].kind, "BadAnnotation");
  seenKinds().insert("MissingAnnotation");
  seenKinds().insert("BadAnnotation");
}

TEST(SemaDiagnostics, AnnotatedArgument) {
  // An annotation is a contract for device functions too: an array argument must have its type.
  expectError(
      "def first(v: device.float32[:]):\n    return v[0]\n@device.kernel\ndef k(a):\n    a[0] = first(a)\n",
      {"int32[:]"}, "AnnotatedArgument", 5,
      "argument 1 of function 'first' is array(int32, 1d), but its parameter 'v' is declared array(float32, "
      "1d)");
  expectError("@device.kernel\ndef k(a, v: device.float32x2):\n    a[0] = v.x\n", {"int32[:]", "int32[:]"},
              "AnnotatedArgument", 2,
              "argument 2 of kernel 'k' is array(int32, 1d), but its parameter 'v' is declared float32x2");
  expectError("@device.kernel\ndef k(a, n: math.sqrt):\n    a[0] = n\n", {"int32[:]", "int32"},
              "BadAnnotation", 2, "the annotation of parameter 'n'");
}

TEST(SemaTyping, AnnotatedParametersTakeTheirDeclaredTypes) {
  // A kernel's annotated parameter has its declared type whatever the argument; a function's
  // number argument converts at the call; an array keeps its memory space.
  auto r =
      run("def twice(x: device.float32, t: tuple[device.int8, device.float32]):\n"
          "    return x * 2 + t[0]\n"
          "def total(v: device.float32[:]):\n"
          "    return v[0] + v[1]\n"
          "@device.kernel\n"
          "def k(a, x: device.float32, n, q: 'device.int16'):\n"
          "    s = device.shared_array(2, device.float32)\n"
          "    s[0] = x\n"
          "    s[1] = a[0]\n"
          "    a[0] = twice(a[1], (1, 2.5)) + total(s) + n + q\n",
          {"float64[:]", "float64", "int64", "int32"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_EQ(localType(*r, "x"), "float32");
  EXPECT_EQ(localType(*r, "n"), "int64");
  EXPECT_EQ(localType(*r, "q"), "int16");
  EXPECT_NE(r->dump.find("twice__f32_t2i8f32e"), std::string::npos) << r->dump;
  EXPECT_NE(r->dump.find("total__a1sf32"), std::string::npos) << r->dump;
}

TEST(SemaDiagnostics, AnnotationConflict) {
  expectError("@device.kernel\ndef k(a):\n    x: int = 1\n    x: float = 2\n", {"int32[:]"}, "AnnotationConflict", 4, "'x'");
}

TEST(SemaDiagnostics, UnsupportedParameter) {
  expectError("def f(*xs):\n    return 0\n@device.kernel\ndef k(a):\n    a[0] = f(1)\n", {"int32[:]"}, "UnsupportedParameter", 1,
              "*args");
}

TEST(SemaDiagnostics, OneMistakeOneMessage) {
  auto r = run("@device.kernel\ndef k(a):\n    x = nope + 1\n    y = x * 2\n    a[0] = y + x\n", {"int32[:]"});
  EXPECT_EQ(r->diagnostics.all().size(), 1u) << r->errors;
}

TEST(SemaDiagnostics, CheckingContinuesAfterAnError) {
  auto r = run("@device.kernel\ndef k(a):\n    x = nope\n    raise ValueError()\n", {"int32[:]"});
  EXPECT_EQ(r->kinds(), (std::vector<std::string>{"UndefinedName", "UnsupportedStatement"})) << r->errors;
}

TEST(SemaDiagnostics, RenderedWithFileLineAndCaret) {
  auto r = run("@device.kernel\ndef k(a):\n    a[0] = nope\n", {"int32[:]"});
  EXPECT_NE(r->errors.find("test.py:6:12: error: name 'nope' is not defined [UndefinedName]"), std::string::npos) << r->errors;
  EXPECT_NE(r->errors.find("    a[0] = nope\n               ^~~~"), std::string::npos) << r->errors;
}

// ---- golden files: tests/golden/sema/[fail_]name.py with inline `# CHECK:` / `# ERROR:` ----

TEST(SemaGolden, Files) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(WEFT_SOURCE_DIR "/tests/golden/sema")) {
    if (entry.path().extension() != ".py") continue;
    ++files;
    std::string name = entry.path().filename().string();
    bool mustFail = name.starts_with("fail_");
    std::string text = readFile(entry.path().string());
    std::set<std::pair<uint32_t, std::string>> expected;
    std::vector<std::string> checks;
    std::istringstream lines(text);
    std::string line;
    for (uint32_t number = 1; std::getline(lines, line); ++number) {
      size_t error = line.find("# ERROR: ");
      if (error != std::string::npos) expected.emplace(number, line.substr(error + 9));
      size_t check = line.find("# CHECK: ");
      if (check != std::string::npos) checks.push_back(line.substr(check + 9));
    }
    types::TypeContext types;
    SourceManager sources;
    Diagnostics diagnostics(sources);
    uint32_t file = sources.add(name, text);
    auto module = syntax::parse(file, diagnostics);
    ASSERT_TRUE(module && !diagnostics.hasErrors()) << name << diagnostics.render();
    auto environment = makeStaticEnvironment(*module, sources.file(file));
    std::string dump;
    for (const syntax::FunctionDefStmt* def : listEntryPoints(*module)) {
      CheckRequest request;
      request.entries.push_back(entryFromAnnotations(*def, *environment, types, diagnostics));
      TypedProgram program = check(request, types, sources, diagnostics);
      if (!diagnostics.hasErrors()) dump += dumpTypedProgram(program);
    }
    std::set<std::pair<uint32_t, std::string>> actual;
    for (const Diagnostic& d : diagnostics.all()) {
      actual.emplace(d.loc.line, std::string(d.kind));
      seenKinds().insert(std::string(d.kind));
    }
    EXPECT_EQ(actual, expected) << name << "\n" << diagnostics.render();
    EXPECT_EQ(mustFail, !expected.empty()) << name << ": a fail_ prefix exactly when the file must fail";
    for (const std::string& check : checks) EXPECT_NE(dump.find(check), std::string::npos) << name << ": " << check << "\n" << dump;
  }
  EXPECT_GE(files, 5);
}

// Runs last (gtest runs tests of a file in order): every registered kind was exercised.
// Vectors (check_vectors.cpp): each error at the user's line, with the fix in the message.
TEST(SemaDiagnostics, Vectors) {
  expectError("@device.kernel\ndef k(a):\n    v = device.float32x4(1, 2, 3)\n", {"int32[:]"}, "VectorArgumentCount", 3,
              "device.float32x4() takes 4 elements (x, y, z, w) (one per component), not 3");
  expectError("@device.kernel\ndef k(a):\n    v = device.float32x2(1, 2)\n    a[0] = v.z\n", {"int32[:]"},
              "VectorComponent", 4, "float32x2 has no component 'z': it has 2 elements (x, y)");
  expectError("@device.kernel\ndef k(a):\n    v = device.int16x3(1, 2, 3)\n    v.y = 4\n", {"int32[:]"},
              "VectorImmutable", 4, "e.g. v = device.int16x3(v.x, new_y, v.z)");
  expectError("@device.kernel\ndef k(a):\n    v = device.int16x3(1, 2, 3)\n    v[a[0]] = 4\n", {"int32[:]"},
              "VectorImmutable", 4, "an element of int16x3 cannot be assigned");
  expectError("@device.kernel\ndef k(a):\n    v = device.uint8x2(1, 2)\n    a[0] = v[-3]\n", {"int32[:]"},
              "VectorIndexRange", 4, "index -3 is out of range for uint8x2");
  expectError("@device.kernel\ndef k(a):\n    v = device.float64x2(1j, 2)\n", {"int32[:]"}, "VectorElement", 3,
              "element 1 of device.float64x2() must be a real number");
}

// SIMT (check_simt.cpp): predicates, warp values, memory orders and scopes, atomics, array
// options, print(); more in test_simt.cpp and tests/python/test_simt_cpu.py.
TEST(SemaDiagnostics, Simt) {
  const std::string k = "@device.kernel\ndef k(a, f):\n";
  const std::vector<std::string> args = {"int32[:]", "float32[:]"};
  expectError(k + "    a[0] = device.syncthreads_count(a[0] > 0)\n", args, "PredicateExpected", 3,
              "argument 1 of device.syncthreads_count() must be a predicate");
  expectError(k + "    f[0] = device.shfl_sync(1, f, 0)\n", args, "WarpValueType", 3,
              "device.shfl_sync() moves a number of at most 8 bytes");
  expectError(k + "    device.AtomicRef(a, 0).add(1, memory='strong')\n", args, "MemoryOrder", 3, "not 'strong'");
  expectError(k + "    device.threadfence(scope='grid')\n", args, "ThreadScope", 3, "not 'grid'");
  expectError(k + "    a[0] = device.AtomicRef(a, 0).load(memory='release')\n", args, "MemoryOrderInvalid", 3,
              "memory order 'release' is not valid for AtomicRef.load()");
  expectError(k + "    device.AtomicRef(f, 0).and_(1)\n", args, "AtomicDtype", 3,
              "AtomicRef.and_() needs an atomic int32, uint32, int64 or uint64, not AtomicRef(float32)");
  expectError(k + "    x = device.Atomic(device.int32)\n", args, "AtomicTypeUse", 3, "device.Atomic(dtype) is a type");
  expectError(k + "    s = device.local_array(4, device.int32, order='A')\n", args, "ArrayOption", 3,
              "order= of device.local_array() must be 'C' or 'F', not 'A'");
  expectError(k + "    print('f is', f)\n", args, "PrintArgument", 3, "print() cannot print array(float32, 1d)");
  expectError(k + "    print(a[0], sep=1)\n", args, "PrintOption", 3, "print()'s sep= must be a string constant, not 1");
}

TEST(SemaDiagnosticsZ, EveryKindIsTested) {
  for (const DiagnosticKind& kind : diag::kAll) {
    EXPECT_TRUE(seenKinds().count(std::string(kind.name)) != 0) << "no test reports " << kind.name;
  }
}

}  // namespace
}  // namespace weft::sema
