// Sema: type inference results on small kernels (rendered with dumpTypedProgram), and the
// behaviour of diagnostics (one mistake, one message); an example of every kind is in
// test_sema_diagnostics.cpp.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "codegen/codegen.h"
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
  // Pairwise, as Python: 0 <= a in int32, then a < n in int64 (the link converts a).
  EXPECT_NE(r->dump.find("c = (0:int32 <= a <:int64 n)"), std::string::npos) << r->dump;
  EXPECT_NE(r->dump.find("d = (float32(a) == b)"), std::string::npos) << r->dump;
}

TEST(SemaTyping, ChainsComparePairwise) {
  auto r = run("@device.kernel\ndef k(h, x, y):\n    c = h < 0.5 < y\n    d = x < 1 > 2\n    e = 1 > 2 < x\n",
               {"float16", "int32", "float32"});
  ASSERT_TRUE(r->ok()) << r->errors;
  // A constant between links of two types keeps its exact value; each link converts it.
  EXPECT_NE(r->dump.find("c = (h <:float16 0.5:float64 <:float32 y)"), std::string::npos) << r->dump;
  // A link of two constants is decided now; a false one ends the chain.
  EXPECT_NE(r->dump.find("d = ((x < 1:int32) and False:bool):bool"), std::string::npos) << r->dump;
  EXPECT_NE(r->dump.find("e = False:bool"), std::string::npos) << r->dump;
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
  source->file = std::make_shared<SourceFile>("nested.py", "from cuda import device\ndef test():\n    @device.kernel\n    def k(a):\n        a[0] = 1\n");
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

// ---- constants: the int64 and uint64 ranges, constructors, constant conditions ----

TEST(SemaConstants, IntsOfTheUInt64RangeFoldExactlyAndTakeTheOtherOperandsType) {
  auto r =
      run("G = 2**63 + 5\n@device.kernel\ndef k(u, s):\n    u[0] = u[0] - 18446744073709551614\n"
          "    u[1] = device.uint64(18446744073709551615)\n    x = G\n    u[2] = x\n"
          "    s[0] = s[0] + -9223372036854775808\n    y = 0xFFFFFFFFFFFFFFFF // 2**62 - (2**63 + 2**62) // "
          "2**62\n",
          {"uint64[:]", "int64[:]"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_EQ(localType(*r, "x"), "uint64");  // alone, a global beyond int64 is a uint64
  EXPECT_EQ(localType(*r, "y"), "int32");
  EXPECT_NE(r->dump.find("(u[0:int64]:uint64 - 18446744073709551614:uint64):uint64"), std::string::npos)
      << r->dump;
  EXPECT_NE(r->dump.find("u[1:int64]:uint64 = 18446744073709551615:uint64"), std::string::npos) << r->dump;
  EXPECT_NE(r->dump.find("x = 9223372036854775813:uint64"), std::string::npos) << r->dump;
  EXPECT_NE(r->dump.find("(s[0:int64]:int64 + -9223372036854775808:int64):int64"), std::string::npos)
      << r->dump;
  EXPECT_NE(r->dump.find("y = 0:int32"), std::string::npos) << r->dump;
}

TEST(SemaConstants, FloatLiteralsBeyondFloat32AreFloat64Alone) {
  auto r = run("@device.kernel\ndef k(a):\n    x = 1e300\n    y = 2.5\n    z = 1e300j\n    a[0] = x + a[0]\n",
               {"float64[:]"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_EQ(localType(*r, "x"), "float64");
  EXPECT_EQ(localType(*r, "y"), "float32");
  EXPECT_EQ(localType(*r, "z"), "complex128");
  EXPECT_NE(r->dump.find("x = 1.0000000000000001e+300:float64"), std::string::npos) << r->dump;
  expectError("@device.kernel\ndef k(a):\n    a[0] = a[0] * 1e300\n", {"float32[:]"}, "LiteralOutOfRange", 3,
              "does not fit float32");
}

TEST(SemaConstants, IntsBeyondBothRangesAreReported) {
  expectError("@device.kernel\ndef k(a):\n    a[0] = 18446744073709551616\n", {"uint64[:]"},
              "LiteralOutOfRange", 3, "18446744073709551616");
  expectError("@device.kernel\ndef k(a):\n    a[0] = -18446744073709551615\n", {"uint64[:]"},
              "ConstantOverflow", 3);
  expectError("@device.kernel\ndef k(a):\n    a[0] = 2**64 - 1\n", {"uint64[:]"}, "ConstantOverflow", 3);
  expectError("@device.kernel\ndef k(a):\n    a[0] = a[0] + 9223372036854775808\n", {"int64[:]"},
              "LiteralOutOfRange", 3, "the constant 9223372036854775808 does not fit int64");
  // The literals of one variable join: -1 next to 2**63 must fit uint64.
  expectError("@device.kernel\ndef k(a):\n    x = 2**63\n    x = -1\n    a[0] = x\n", {"uint64[:]"},
              "LiteralOutOfRange", 4, "the constant -1 does not fit uint64");
}

TEST(SemaConstants, ConstructorsConvertConstantsAsTheRunTimeConversionDoes) {
  auto r = run(
      "@device.kernel\ndef k(a, f, h):\n    a[0] = device.int8(200)\n    a[1] = device.uint8(-1)\n"
      "    a[2] = device.uint8(-3.7)\n    a[3] = device.int32(math.nan)\n    a[4] = device.int16(-math.inf)\n"
      "    a[5] = device.uint32(0xFFFFFFFF00000007)\n    a[6] = int(1e10)\n    a[7] = "
      "device.int8(device.float16(300.7))\n"
      "    f[0] = device.float32(1e300)\n    f[1] = device.float8e4m3(1000.0)\n    h[0] = "
      "device.float16(70000)\n"
      "    a[8] = device.bool_(1j)\n",
      {"int32[:]", "float32[:]", "float16[:]"});
  ASSERT_TRUE(r->ok()) << r->errors;
  for (const char* expected :
       {"int32(-56:int8)", "int32(255:uint8)", "int32(253:uint8)", "a[3:int64]:int32 = 0:int32",
        "int32(0:int16)", "int32(7:uint32)", "a[6:int64]:int32 = 1410065408:int32", "int32(44:int8)",
        "f[0:int64]:float32 = inf:float32", "float32(448:float8e4m3)", "h[0:int64]:float16 = inf:float16",
        "a[8:int64]:int32 = 1:int32"}) {
    EXPECT_NE(r->dump.find(expected), std::string::npos) << expected << "\n" << r->dump;
  }
  // A complex still converts only to a complex type (or bool).
  expectError("@device.kernel\ndef k(a):\n    a[0] = device.int32(1j)\n", {"int32[:]"}, "ArgumentType", 3,
              "a real number");
}

TEST(SemaConstants, AVariableHoldsItsConstantConvertedToItsType) {
  // x is a float32: float64(x) is 0.1 rounded to float32, as at run time.
  auto r = run("@device.kernel\ndef k(a):\n    x = 0.1\n    a[0] = device.float64(x)\n", {"float64[:]"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_NE(r->dump.find("0.10000000149011612:float64"), std::string::npos) << r->dump;
}

TEST(SemaConstantConditions, AVariableAssignedOnlyInARemovedBranchHasNoStorage) {
  for (const char* source : {"DEBUG = False\n@device.kernel\ndef k(a):\n    if DEBUG:\n        t = a[1]\n    "
                             "    a[2] = t\n    a[0] = 1\n",
                             "FLAG = None\n@device.kernel\ndef k(a):\n    if FLAG is not None:\n        t = "
                             "FLAG\n        a[1] = t\n    a[0] = 1\n",
                             "DEBUG = False\n@device.kernel\ndef k(a):\n    if not DEBUG:\n        a[0] = "
                             "1\n    else:\n        t = a[1]\n",
                             "DEBUG = False\n@device.kernel\ndef k(a):\n    if DEBUG and a[0] > 0:\n        "
                             "t = a[1]\n    a[0] = 1\n"}) {
    auto r = run(source, {"int32[:]"});
    ASSERT_TRUE(r->ok()) << source << r->errors;
    EXPECT_NE(r->dump.find("local t: no storage"), std::string::npos) << r->dump;
    codegen::EmittedUnit unit = codegen::emitCuda(r->program, r->sources);
    EXPECT_EQ(unit.source.find("v_t_"), std::string::npos) << unit.source;
  }
}

TEST(SemaConstantConditions, ConstantOperandsDecideAndOrNot) {
  // `p is not None and p[0] > 0` with p None: Python never evaluates p[0], nor does weft check it.
  auto r =
      run("def f(p, a):\n    if p is not None and p[0] > 0:\n        return p[0]\n    return a[0]\n"
          "@device.kernel\ndef k(a):\n    a[1] = f(None, a)\n    if True or a[0]:\n        a[2] = 1\n",
          {"int32[:]"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_EQ(r->dump.find("if "), std::string::npos) << r->dump;
  // A run-time operand before the constant one is still evaluated: the if stays.
  auto kept = run("DEBUG = False\n@device.kernel\ndef k(a):\n    if a[0] > 0 and DEBUG:\n        a[1] = 1\n",
                  {"int32[:]"});
  ASSERT_TRUE(kept->ok()) << kept->errors;
  EXPECT_NE(kept->dump.find("if "), std::string::npos) << kept->dump;
}

TEST(SemaConstantConditions, ARemovedAssignmentIsReportedWhereTheVariableIsUsed) {
  auto r = run(
      "FLAG = None\n@device.kernel\ndef k(a):\n    if FLAG is not None:\n        t = FLAG\n    a[0] = t\n",
      {"int32[:]"});
  ASSERT_EQ(r->diagnostics.all().size(), 1u) << r->errors;
  const Diagnostic& d = r->diagnostics.all()[0];
  EXPECT_EQ(d.kind, "RemovedAssignment");
  EXPECT_EQ(d.loc.line, 9u);
  EXPECT_NE(d.message.find("the condition of the if at line 7 is always False"), std::string::npos)
      << d.message;
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0].loc.line, 7u);
}

// ---- one mistake, one message: a statement that reported an error binds its names to Error ----

TEST(SemaDiagnostics, ARejectedStatementLeavesItsNamesSilent) {
  const std::vector<std::string> args = {"int32[:]", "int32"};
  const std::string k = "@device.kernel\ndef k(a, n):\n";
  struct Case {
    std::string body;
    std::string kind;
  };
  const Case cases[] = {
      {"    buf = device.shared_array(n, device.int32)\n    buf[0] = 1\n    a[0] = buf[0]\n", "ArrayShape"},
      {"    buf = device.shared_array(4, 3)\n    buf[0] = 1\n    a[0] = buf[0]\n", "ArrayDtype"},
      {"    buf = device.local_array(4, device.int32, order='A')\n    a[0] = buf[0]\n", "ArrayOption"},
      {"    buf = [1, 2]\n    a[0] = buf[0]\n", "UnsupportedExpression"},
      {"    for x in a:\n        a[0] = x\n    a[1] = x\n", "ForIterable"},
      {"    for i, x in range(3):\n        a[0] = x + i\n    a[1] = i\n", "UnsupportedStatement"},
      {"    x, y = a[0]\n    a[1] = x + y\n", "NotUnpackable"},
      {"    x, y = (1, 2, 3)\n    a[1] = x + y\n", "UnpackCount"},
      {"    x, *y = (1, 2, 3)\n    a[1] = x\n", "UnsupportedExpression"},
      {"    if (m := a[0]) > 0:\n        a[1] = m\n", "UnsupportedExpression"},
      {"    with n as w:\n        v = w\n    a[0] = w + v\n", "UnsupportedStatement"},
      {"    try:\n        v = a[0]\n    except ValueError as e:\n        v = 0\n    a[1] = v\n",
       "UnsupportedStatement"},
      {"    import math as m\n    a[0] = m.floor(2.5)\n", "UnsupportedStatement"},
      {"    def g():\n        return 1\n    a[0] = g()\n", "UnsupportedStatement"},
      {"    x = nope\n    y = x + 1\n    a[0] = y\n", "UndefinedName"},
  };
  for (const Case& c : cases) {
    auto r = run(k + c.body, args);
    ASSERT_EQ(r->diagnostics.all().size(), 1u) << c.body << r->errors;
    EXPECT_EQ(r->diagnostics.all()[0].kind, c.kind) << r->errors;
  }
}

// ---- vectors in for loops ----

TEST(SemaVectorLoops, ForOverAVectorLoopsOverOneCopyOfIt) {
  auto r =
      run("@device.kernel\ndef k(a):\n    v = device.int32x4(a[0], a[1], a[2], a[3])\n    s = 0\n"
          "    for e in v:\n        if e < 0:\n            continue\n        s += e\n        v = "
          "device.int32x4(0, 0, 0, 0)\n"
          "    for i, e in enumerate(v, 10):\n        if i > 11:\n            break\n        s += i * e\n    "
          "else:\n"
          "        s = -1\n    a[4] = s\n",
          {"int32[:]"});
  ASSERT_TRUE(r->ok()) << r->errors;
  EXPECT_EQ(localType(*r, "e"), "int32");
  EXPECT_EQ(localType(*r, "i"), "int32");
  EXPECT_NE(r->dump.find("for $t1 in range(0:int32, 4:int32, 1:int32)"), std::string::npos) << r->dump;
  EXPECT_NE(r->dump.find("e = $t0[$t1]"), std::string::npos) << r->dump;
  EXPECT_NE(r->dump.find("i = ($t3 + 10:int32):int32"), std::string::npos) << r->dump;
}

TEST(SemaVectorLoops, EnumerateNeedsAVectorAndTwoTargets) {
  expectError("@device.kernel\ndef k(a):\n    for i, x in enumerate(a):\n        pass\n", {"int32[:]"},
              "ForIterable", 3, "not enumerate() of array(int32, 1d); iterate over the indices");
  expectError(
      "@device.kernel\ndef k(a):\n    v = device.int8x2(1, 2)\n    for x in enumerate(v):\n        a[0] = "
      "x\n",
      {"int32[:]"}, "UnsupportedStatement", 4, "two names");
  expectError(
      "@device.kernel\ndef k(a):\n    v = device.int8x2(1, 2)\n    for i, x in enumerate(v, 0.5):\n        "
      "pass\n",
      {"int32[:]"}, "ArgumentType", 4, "argument 2 of enumerate() must be an integer");
  expectError("@device.kernel\ndef k(a):\n    a[0] = len(enumerate(a))\n", {"int32[:]"}, "ForIterable", 3,
              "enumerate() can only be the iterable of a for loop");
}

// ---- the nesting limit: expressions, statements and calls together ----

TEST(SemaNesting, CallsNestIntoTheLimit) {
  auto chain = [](int n) {
    std::string text;
    for (int i = 0; i < n; ++i)
      text += "def f" + std::to_string(i) + "(x):\n    return f" + std::to_string(i + 1) + "(x) + 1\n";
    return text + "def f" + std::to_string(n) +
           "(x):\n    return x\n@device.kernel\ndef k(a):\n    a[0] = f0(a[0])\n";
  };
  auto ok = run(chain(150), {"int32[:]"});
  EXPECT_TRUE(ok->ok()) << ok->errors;
  auto deep = run(chain(400), {"int32[:]"});
  ASSERT_EQ(deep->diagnostics.all().size(), 1u) << deep->errors.substr(0, 2000);
  EXPECT_EQ(deep->diagnostics.all()[0].kind, "TooDeeplyNested");
  EXPECT_NE(deep->diagnostics.all()[0].message.find("more than 1000 levels"), std::string::npos);
}

// ---- diagnostics (an example of every kind: test_sema_diagnostics.cpp) ----

TEST(SemaDiagnostics, AssignmentOfAnErrorIsNotUnbound) {
  expectError(
      "@device.kernel\ndef k(a):\n    for i in range(3):\n        a[i] = y\n        y = undefined_thing\n",
      {"int32[:]"}, "UndefinedName", 5, "undefined_thing");
}

TEST(SemaDiagnostics, ASyntaxErrorIsTheOnlyMessage) {
  // The file of a launched kernel is parsed by sema: its partial AST is not checked.
  types::TypeContext types;
  SourceManager sources;
  Diagnostics diagnostics(sources);
  auto source = std::make_shared<FunctionSource>();
  source->file = std::make_shared<SourceFile>("broken.py", "def k(a):\n    a[0] = " + std::string(1200, '-') + "a[1]\n    a[1] = 2\n");
  source->line = 1;
  source->name = "k";
  source->decorator = FunctionSource::Decorator::Kernel;
  CheckRequest request;
  request.entries.push_back({source, {}});
  request.entries[0].arguments.push_back({types.array(types::ScalarKind::Int32, 1), std::nullopt});
  check(request, types, sources, diagnostics);
  ASSERT_EQ(diagnostics.all().size(), 1u) << diagnostics.render();
  EXPECT_EQ(diagnostics.all()[0].kind, "TooDeeplyNested");
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

}  // namespace
}  // namespace weft::sema
