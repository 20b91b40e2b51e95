// Sema diagnostics: one or more examples of every registered diagnostic kind, each a test of
// its own (Kinds/SemaDiagnosticExample.ReportsItsKind/<group>_<n>), and a check that every kind has an example here or in a
// golden file (tests/golden/sema), which needs no other test to have run first.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <tuple>

#include "sema/sema_diagnostics.h"
#include "sema_test_support.h"

namespace weft::sema {
namespace {

using testing::checkKernel;

constexpr const char* kPrelude = "import math\nimport weft\nfrom cuda import device\n";

std::unique_ptr<testing::CheckedKernel> run(const std::string& source, const std::vector<std::string>& args) {
  return checkKernel(kPrelude + source, "k", args);
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// An example program and the one error it must report: `kind` on 1-based line `line` of
// `source` (not counting the prelude), with `fragment` in its message. A `custom` example
// checks itself and reports `kinds`.
struct Example {
  std::string group;  // names the test: <group>_<number>
  std::vector<std::string> kinds;
  std::string source;
  std::vector<std::string> args;
  uint32_t line = 0;
  std::string fragment;
  std::function<void()> custom;
};

std::vector<Example> examples() {
  std::vector<Example> rows;
  auto add = [&](std::string group, std::string source, std::vector<std::string> args, std::string kind,
                 uint32_t line, std::string fragment = "") {
    rows.push_back(Example{std::move(group),
                           {std::move(kind)},
                           std::move(source),
                           std::move(args),
                           line,
                           std::move(fragment),
                           nullptr});
  };
  auto custom = [&](std::string group, std::vector<std::string> kinds, std::function<void()> check) {
    rows.push_back(Example{std::move(group), std::move(kinds), "", {}, 0, "", std::move(check)});
  };
  add("UndefinedName", "@device.kernel\ndef k(a):\n    a[0] = nope\n", {"int32[:]"}, "UndefinedName", 3,
      "'nope'");
  add("UnsupportedGlobal", "class C:\n    pass\n@device.kernel\ndef k(a):\n    a[0] = C\n", {"int32[:]"},
      "UnsupportedGlobal", 5, "type");
  // A host Environment may name any weft entity; the ones device code cannot use are errors.
  custom("UnsupportedEntity", {"UnsupportedEntity"}, [] {
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
  });
  add("UnsupportedStatements", "@device.kernel\ndef k(a):\n    raise ValueError()\n", {"int32[:]"},
      "UnsupportedStatement", 3, "raise");
  add("UnsupportedStatements",
      "@device.kernel\ndef k(a):\n    try:\n        pass\n    except Exception:\n        pass\n",
      {"int32[:]"}, "UnsupportedStatement", 3, "try");
  add("UnsupportedStatements", "@device.kernel\ndef k(a):\n    with a:\n        pass\n", {"int32[:]"},
      "UnsupportedStatement", 3, "with");
  add("UnsupportedStatements", "@device.kernel\ndef k(a):\n    global G\n", {"int32[:]"},
      "UnsupportedStatement", 3, "global");
  add("UnsupportedStatements", "@device.kernel\ndef k(a):\n    del a\n", {"int32[:]"}, "UnsupportedStatement",
      3, "del");
  add("UnsupportedStatements", "@device.kernel\ndef k(a):\n    import os\n", {"int32[:]"},
      "UnsupportedStatement", 3, "import");
  add("UnsupportedStatements", "@device.kernel\ndef k(a):\n    def inner():\n        pass\n", {"int32[:]"},
      "UnsupportedStatement", 3, "nested");
  add("UnsupportedStatements", "@device.kernel\ndef k(a):\n    class C:\n        pass\n", {"int32[:]"},
      "UnsupportedStatement", 3, "class");
  add("UnsupportedExpressions", "@device.kernel\ndef k(a):\n    f = lambda x: x\n", {"int32[:]"},
      "UnsupportedExpression", 3, "lambda");
  add("UnsupportedExpressions", "@device.kernel\ndef k(a):\n    b = [1, 2]\n", {"int32[:]"},
      "UnsupportedExpression", 3, "list");
  add("UnsupportedExpressions", "@device.kernel\ndef k(a):\n    b = [i for i in range(3)]\n", {"int32[:]"},
      "UnsupportedExpression", 3, "comprehension");
  add("UnsupportedExpressions", "@device.kernel\ndef k(a):\n    b = {1: 2}\n", {"int32[:]"},
      "UnsupportedExpression", 3, "dict");
  add("UnsupportedExpressions", "@device.kernel\ndef k(a):\n    b = 'text'\n", {"int32[:]"},
      "UnsupportedExpression", 3, "string");
  add("UnsupportedExpressions", "@device.kernel\ndef k(a):\n    b = a[0] is 1\n", {"int32[:]"},
      "UnsupportedExpression", 3, "'is'");
  add("UnsupportedExpressions", "@device.kernel\ndef k(a):\n    t = (1, 2, 3)\n    a[0] = t[1:2]\n",
      {"int32[:]"}, "UnsupportedExpression", 4, "slicing anything but an array");
  add("UnsupportedExpressions", "@device.kernel\ndef k(a):\n    print(*a)\n", {"int32[:]"},
      "UnsupportedExpression", 3, "starred");
  add("UnsupportedExpressions", "@device.kernel\ndef k(a):\n    yield a\n", {"int32[:]"},
      "UnsupportedExpression", 3, "yield");
  {
    const std::string vec = "@device.struct\nclass Vec:\n    x: device.float32\n    y: device.float32\n\n";
    add("Structs", vec + "@device.kernel\ndef k(a, v):\n    v.x = 1.0\n", {"int32[:]", "int32"},
        "AssignTarget", 8);
    add("Structs", vec + "@device.kernel\ndef k(a):\n    v = Vec(1.0)\n", {"int32[:]"}, "StructFieldMissing",
        8, "'y'");
    add("Structs", vec + "@device.kernel\ndef k(a):\n    v = Vec(1.0, 2.0, x=3.0)\n", {"int32[:]"},
        "StructFieldTwice", 8, "'x'");
    add("Structs", vec + "@device.kernel\ndef k(a):\n    v = Vec(1.0, 2.0)\n    v.x = 2.0\n", {"int32[:]"},
        "StructImmutable", 9, "s.replace(x=...)");
    add("Structs", vec + "@device.kernel\ndef k(a):\n    v = Vec(1.0, 2.0)\n    v.z = 2.0\n", {"int32[:]"},
        "StructNoAttribute", 9, "attributes cannot be added");
    add("Structs", "@device.struct\nclass Bad:\n    x: dict\n\n@device.kernel\ndef k(a):\n    v = Bad(1)\n",
        {"int32[:]"}, "StructField", 3, "field 'x' of struct 'Bad'");
    add("Structs", "@device.struct\nclass Bad:\n    x = 1\n\n@device.kernel\ndef k(a):\n    v = Bad()\n",
        {"int32[:]"}, "StructMember", 3, "class attributes");
    add("Structs", "@device.struct\nclass Node:\n    n: Node\n\n@device.kernel\ndef k(a):\n    v = Node(1)\n",
        {"int32[:]"}, "StructRecursive", 3, "contains itself");
  }
  // Records (NumPy structured dtypes) and classes whose source moved are resolved directly.
  custom("StructRecordAndStructNotFound", {"StructRecord", "StructNotFound"}, [] {
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
  });
  // A record whose fields do not fit it (more in test_structs.cpp, Records).
  custom("RecordLayout", {"RecordLayout"}, [] {
    types::TypeContext types;
    SourceManager sources;
    Diagnostics diagnostics(sources);
    auto empty = std::make_shared<sema::StructSource>();
    empty->name = "record";
    empty->itemSize = 4;
    EXPECT_EQ(sema::resolveStruct(empty, types, sources, diagnostics), nullptr);
    ASSERT_EQ(diagnostics.all().size(), 1u);
    EXPECT_EQ(std::string(diagnostics.all()[0].kind), "RecordLayout");
    EXPECT_NE(diagnostics.all()[0].message.find("record cannot be laid out in device code: it has no fields"),
              std::string::npos);
  });
  add("AssertMessage", "@device.kernel\ndef k(a):\n    assert a[0] > 0, a[0]\n", {"int32[:]"}, "AssertMessage", 3,
      "int32");
  add("AssertMessage", "@device.kernel\ndef k(a):\n    assert a[0] > 0, 42\n", {"int32[:]"}, "AssertMessage", 3,
      "not 42");
  add("LocalArrayTooLarge", "@device.kernel\ndef k(a):\n    s = device.local_array(1 << 40, device.int8)\n",
      {"int32[:]"}, "LocalArrayTooLarge", 3,
      "local_array() takes 1099511627776 bytes per thread, more than the 524288 bytes");
  add("LocalArrayTooLarge",
      "@device.kernel\ndef k(a):\n    s = device.local_array((1 << 40, 1 << 40, 1 << 40), device.float64)\n",
      {"int32[:]"}, "LocalArrayTooLarge", 3, "more than 2**64 bytes");
  add("LocalMemoryTooLarge",
      "def f(a):\n    t = device.local_array(70000, device.float32)\n    t[0] = a[0]\n    return t[0]\n"
      "@device.kernel\ndef k(a):\n    s = device.local_array(70000, device.float32)\n"
      "    s[0] = f(a)\n    a[0] = s[0]\n",
      {"float32[:]"}, "LocalMemoryTooLarge", 6,
      "kernel 'k' needs 560000 bytes of local arrays per thread ('k' takes 280000, then 'f' called at line 11 "
      "takes 280000), more than the 524288 bytes");
  // An annotation is a contract for device functions too: an array argument must have its type.
  add("AnnotatedArgument",
      "def first(v: device.float32[:]):\n    return v[0]\n@device.kernel\ndef k(a):\n    a[0] = first(a)\n",
      {"int32[:]"}, "AnnotatedArgument", 5,
      "argument 1 of function 'first' is array(int32, 1d), but its parameter 'v' is declared array(float32, "
      "1d)");
  add("AnnotatedArgument", "@device.kernel\ndef k(a, v: device.float32x2):\n    a[0] = v.x\n",
      {"int32[:]", "int32[:]"}, "AnnotatedArgument", 2,
      "argument 2 of kernel 'k' is array(int32, 1d), but its parameter 'v' is declared float32x2");
  add("BadAnnotation", "@device.kernel\ndef k(a, n: math.sqrt):\n    a[0] = n\n", {"int32[:]", "int32"},
      "BadAnnotation", 2, "the annotation of parameter 'n'");
  add("UnknownAttribute", "@device.kernel\ndef k(a):\n    a[0] = device.nothing\n", {"int32[:]"},
      "UnknownAttribute", 3, "'nothing'");
  add("NumpyUnsupported", "import numpy as np\n@device.kernel\ndef k(a):\n    a[0] = np.sum(a)\n", {"int32[:]"},
      "NumpyUnsupported", 4, "numpy.sum is not supported in device code; use a loop");
  add("UnknownAttribute", "@device.kernel\ndef k(a):\n    a[0] = a.foo\n", {"int32[:]"}, "UnknownAttribute",
      3, "'foo'");
  add("InvalidOperands", "@device.kernel\ndef k(a, x):\n    y = x // 2\n", {"int32[:]", "complex64"},
      "InvalidOperands", 3, "//");
  add("InvalidOperands", "@device.kernel\ndef k(a, x):\n    y = x & 2\n", {"int32[:]", "float32"},
      "InvalidOperands", 3, "&");
  add("InvalidOperands", "@device.kernel\ndef k(a):\n    y = a + 1\n", {"int32[:]"}, "InvalidOperands", 3,
      "array(int32, 1d)");
  add("InvalidOperand", "@device.kernel\ndef k(a, x):\n    y = ~x\n", {"int32[:]", "float32"},
      "InvalidOperand", 3, "~");
  add("NoCommonType", "@device.kernel\ndef k(a, x, y):\n    z = x + y\n", {"int32[:]", "int64", "uint64"},
      "NoCommonType", 3, "device.int64(x)");
  add("LiteralOutOfRange", "@device.kernel\ndef k(a, x):\n    y = x + 300\n", {"int32[:]", "int8"},
      "LiteralOutOfRange", 3, "300");
  add("LiteralOutOfRange", "@device.kernel\ndef k(a):\n    a[0] = device.uint8(1) + 256\n", {"int32[:]"},
      "LiteralOutOfRange", 3, "256 does not fit uint8");
  // The message notes the other assignment.
  custom("ConflictingAssignment", {"ConflictingAssignment"}, [] {
    auto r = run("@device.kernel\ndef k(a, x):\n    y = x\n    y = a\n", {"int32[:]", "int32"});
    ASSERT_EQ(r->diagnostics.all().size(), 1u) << r->errors;
    const Diagnostic& d = r->diagnostics.all()[0];
    EXPECT_EQ(d.kind, "ConflictingAssignment");
    EXPECT_EQ(d.loc.line, 7u);
    ASSERT_EQ(d.notes.size(), 1u);
    EXPECT_EQ(d.notes[0].loc.line, 6u);
  });
  add("ConflictingAssignmentOfInt64AndUInt64", "@device.kernel\ndef k(a, x, y):\n    z = x\n    z = y\n",
      {"int32[:]", "int64", "uint64"}, "ConflictingAssignment", 4, "'z'");
  add("ParameterRetyped", "@device.kernel\ndef k(a, x):\n    x = x * 2.5\n", {"int32[:]", "int32"},
      "ParameterRetyped", 3, "'x'");
  add("UnboundLocal", "@device.kernel\ndef k(a):\n    y += 1\n", {"int32[:]"}, "UnboundLocal", 3, "'y'");
  add("RemovedAssignment",
      "DEBUG = False\n@device.kernel\ndef k(a):\n    if DEBUG:\n        t = a[1]\n    a[0] = t\n",
      {"int32[:]"}, "RemovedAssignment", 6, "the condition of the if at line 7 is always False");
  add("RemovedAssignment",
      "@device.kernel\ndef k(a):\n    for i in range(3):\n        if i > 0:\n            a[0] = t\n        "
      "if True:\n"
      "            return\n        t = 5\n",
      {"int32[:]"}, "RemovedAssignment", 5, "it follows the if at line 9");
  add("NotCallable", "@device.kernel\ndef k(a):\n    a(1)\n", {"int32[:]"}, "NotCallable", 3, "array");
  add("ArgumentCount", "def f(x):\n    return x\n@device.kernel\ndef k(a):\n    a[0] = f(1, 2)\n",
      {"int32[:]"}, "ArgumentCount", 5, "function 'f'");
  add("ArgumentCount", "@device.kernel\ndef k(a):\n    a[0] = abs(1, 2)\n", {"int32[:]"}, "ArgumentCount", 3,
      "abs()");
  add("KeywordArgument", "def f(x):\n    return x\n@device.kernel\ndef k(a):\n    a[0] = f(x=1)\n",
      {"int32[:]"}, "KeywordArgument", 5, "'x'");
  add("ArgumentType", "@device.kernel\ndef k(a):\n    i = device.tid(4)\n", {"int32[:]"}, "ArgumentType", 3,
      "1, 2 or 3");
  add("ArgumentType", "@device.kernel\ndef k(a, c):\n    a[0] = math.sqrt(c)\n", {"int32[:]", "complex64"},
      "ArgumentType", 3, "real");
  add("NotConstant", "@device.kernel\ndef k(a, n):\n    i = device.tid(n)\n", {"int32[:]", "int32"},
      "NotConstant", 3, "device.tid");
  add("IndexCount", "@device.kernel\ndef k(a):\n    a[0, 1, 2] = 1\n", {"int32[:,:]"}, "IndexCount", 3,
      "2 dimensions");
  add("IndexCount", "@device.kernel\ndef k(a):\n    b = a[0, :, 1]\n", {"int32[:,:]"}, "IndexCount", 3,
      "indexed with 3 indices");
  {
    // Views of arrays (check_array_views.cpp); their results are checked against NumPy in
    // tests/python/test_array_views_cpu.py.
    const std::string k = "@device.kernel\ndef k(a, m, n):\n";
    const std::vector<std::string> args = {"float32[:]", "float64[:,:]", "int32"};
    add("ArrayViews", k + "    b = a[::0]\n", args, "SliceStep", 3, "slice step cannot be zero");
    add("ArrayViews", k + "    z = 0\n    b = m[1:n:z]\n", args, "SliceStep", 4);
    add("ArrayViews", k + "    b = m[..., 0, ...]\n", args, "IndexEllipsis", 3, "a single ellipsis");
    add("ArrayViews", k + "    a[1:3] = 0.0\n", args, "SliceAssign", 3, "assign one element at a time");
    add("ArrayViews", k + "    m[0] += 1.0\n", args, "SliceAssign", 3, "would write every element of a view");
    add("ArrayViews",
        "@device.struct\nclass P:\n    x: device.float32\n    y: device.float32\n    z: device.float32\n\n" +
            k + "    b = a.view(P).view(device.float64)\n",
        args, "ArrayViewDtype", 9, "its size (8 bytes) must divide the element size (12 bytes)");
    add("ArrayViews",
        k + "    s = device.shared_array(4, device.Atomic(device.int32))\n    b = s.view(device.float32)\n",
        args, "ArrayViewDtype", 4, "atomic");
    add("ArrayViews", k + "    b = m.reshape(-1, -1)\n", args, "ReshapeShape", 3, "has more than one -1");
    add("ArrayViews", k + "    b = m.reshape((-1, 2, -3))\n", args, "ReshapeShape", 3,
        "has more than one -1");
    add("ArrayViews", k + "    b = m.reshape(())\n", args, "ReshapeShape", 3, "no 0-dimensional arrays");
    add("ArrayViews", k + "    b = m.reshape(2.0, 3)\n", args, "ReshapeShape", 3,
        "a dimension of type float32");
    add("ArrayViews", k + "    b = m.astype(device.float32, copy=False)\n", args, "ArrayAllocates", 3,
        "astype(float32) of array(float64, 2d) would allocate a new array, which device code cannot "
        "do; convert each "
        "element where it is used, e.g. device.float32(a[i])");
    add("ArrayViews", k + "    b = m.astype(m.dtype)\n", args, "ArrayAllocates", 3,
        "write a.astype(dtype, copy=False)");
    add("ArrayViews", k + "    b = m.astype(m.dtype, copy=True)\n", args, "ArrayAllocates", 3, "copy=True");
    add("ArrayViews", k + "    b = m.reshape(6, copy=True)\n", args, "ArrayAllocates", 3,
        "reshape(copy=True)");
    // Misuses reported through general kinds.
    add("ArrayViews", k + "    b = a[1.5:]\n", args, "IndexType", 3,
        "an array index must be an integer, not float32");
    add("ArrayViews", k + "    b = m.view(device.float32x2)\n", args, "ArgumentType", 3, "a dtype");
    add("ArrayViews", k + "    b = m.reshape(2, 3, order='F')\n", args, "ArgumentType", 3, "'C'");
    add("ArrayViews", k + "    b = m.astype(m.dtype, copy=n > 0)\n", args, "NotConstant", 3,
        "copy= of astype()");
    add("ArrayViews", k + "    b = m.view(device.float32, 1)\n", args, "ArgumentCount", 3, "view()");
    add("ArrayViews", k + "    b = m.astype(m.dtype, casting='no')\n", args, "KeywordArgument", 3,
        "'casting'");
    add("ArrayViews", k + "    b = m.reshape(m.shape, shape=(6,))\n", args, "KeywordArgument", 3, "'shape'");
    add("ArrayViews", "def dims():\n    return (2, -1)\n\n" + k + "    b = a.reshape(dims())\n", args,
        "UnsupportedExpression", 6, "reshape() with a tuple computed by a call");
  }
  add("IndexType", "@device.kernel\ndef k(a, x):\n    a[x] = 1\n", {"int32[:]", "float32"}, "IndexType", 3,
      "float32");
  add("NotSubscriptable", "@device.kernel\ndef k(a, x):\n    a[0] = x[0]\n", {"int32[:]", "float32"},
      "NotSubscriptable", 3, "float32");
  add("TupleIndex", "@device.kernel\ndef k(a):\n    a[0] = a.shape[1]\n", {"int32[:]"}, "TupleIndex", 3, "1");
  add("StoreType", "@device.kernel\ndef k(a, c):\n    a[0] = c\n", {"float32[:]", "complex64"}, "StoreType",
      3, "complex64");
  add("AssignTarget", "@device.kernel\ndef k(a):\n    a.shape = 1\n", {"int32[:]"}, "AssignTarget", 3,
      "attribute");
  add("AssignTarget", "@device.kernel\ndef k(a, n: device.ConstExpr):\n    n = 2\n", {"int32[:]", "const 3"},
      "AssignTarget", 3, "ConstExpr");
  add("UnpackCount", "@device.kernel\ndef k(a):\n    x, y = device.tid(3)\n", {"int32[:]"}, "UnpackCount", 3,
      "3 values");
  add("NotUnpackable", "@device.kernel\ndef k(a):\n    x, y = a[0]\n", {"int32[:]"}, "NotUnpackable", 3,
      "int32");
  add("KernelReturnsValue", "@device.kernel\ndef k(a):\n    return a[0]\n", {"int32[:]"},
      "KernelReturnsValue", 3, "'k'");
  add("ReturnMismatch",
      "def f(x, a):\n    if x > 0:\n        return x\n    return a\n@device.kernel\ndef k(a):\n    a[0] = "
      "f(1, a)\n",
      {"int32[:]"}, "ReturnMismatch", 4, "'f'");
  add("MissingReturn",
      "def f(x):\n    if x > 0:\n        return x\n@device.kernel\ndef k(a):\n    a[0] = f(1)\n",
      {"int32[:]"}, "MissingReturn", 1, "'f'");
  add("RecursiveReturnType", "def f(x):\n    return f(x - 1)\n@device.kernel\ndef k(a):\n    a[0] = f(1)\n",
      {"int32[:]"}, "RecursiveReturnType", 2, "-> device.int32");
  add("KernelCall", "@device.kernel\ndef other(a):\n    pass\n@device.kernel\ndef k(a):\n    other(a)\n",
      {"int32[:]"}, "KernelCall", 6, "'other'");
  add("KernelArgumentCount", "@device.kernel\ndef k(a, b):\n    pass\n", {"int32[:]"}, "KernelArgumentCount",
      2, "2 arguments but 1");
  add("ConstExprArgument", "@device.kernel\ndef k(a, n: device.ConstExpr):\n    pass\n",
      {"int32[:]", "int32"}, "ConstExprArgument", 2, "'n'");
  add("ConstExprArgument", "@device.kernel\ndef k(a, n: device.ConstExpr[int]):\n    pass\n",
      {"int32[:]", "const 1.5"}, "ConstExprArgument", 2, "int32");
  add("OutsideLoop", "@device.kernel\ndef k(a):\n    break\n", {"int32[:]"}, "OutsideLoop", 3, "break");
  add("RangeArgument", "@device.kernel\ndef k(a):\n    for i in range(2.5):\n        pass\n", {"int32[:]"},
      "RangeArgument", 3, "float32");
  add("RangeZeroStep", "@device.kernel\ndef k(a):\n    for i in range(0, 4, 0):\n        pass\n",
      {"int32[:]"}, "RangeZeroStep", 3);
  add("ForIterable", "@device.kernel\ndef k(a):\n    for x in a:\n        pass\n", {"int32[:]"},
      "ForIterable", 3, "range(len(a))");
  add("ForIterable", "@device.kernel\ndef k(a):\n    r = range(3)\n", {"int32[:]"}, "ForIterable", 3, "");
  add("ArrayShape", "@device.kernel\ndef k(a, n):\n    s = device.shared_array(n, device.float32)\n",
      {"int32[:]", "int32"}, "ArrayShape", 3, "run-time");
  add("ArrayShape", "@device.kernel\ndef k(a):\n    s = device.shared_array((4, 0), device.float32)\n",
      {"int32[:]"}, "ArrayShape", 3, "(4, 0)");
  add("ArrayDtype", "@device.kernel\ndef k(a):\n    s = device.local_array(4, 3)\n", {"int32[:]"},
      "ArrayDtype", 3, "local_array");
  add("ArrayDeclaration", "@device.kernel\ndef k(a):\n    a[0] = device.shared_array(4, device.int32)[0]\n",
      {"int32[:]"}, "ArrayDeclaration", 3, "shared_array");
  add("ConditionType", "@device.kernel\ndef k(a):\n    if a:\n        pass\n", {"int32[:]"}, "ConditionType",
      3, "array");
  add("DivisionByZero", "@device.kernel\ndef k(a):\n    a[0] = 1 // 0\n", {"int32[:]"}, "DivisionByZero", 3);
  add("DivisionByZero", "@device.kernel\ndef k(a):\n    a[0] = a[1] % 0\n", {"int32[:]"}, "DivisionByZero",
      3);
  add("ConstantOverflow", "@device.kernel\ndef k(a):\n    a[0] = 2 ** 70\n", {"int32[:]"}, "ConstantOverflow",
      3);
  // A chain of calls nests each callee in its caller (also test_sema.cpp, SemaNesting).
  custom("TooDeeplyNested", {"TooDeeplyNested"}, [] {
    std::string source;
    for (int i = 0; i < 400; ++i)
      source += "def f" + std::to_string(i) + "(x):\n    return f" + std::to_string(i + 1) + "(x)\n";
    source += "def f400(x):\n    return x\n@device.kernel\ndef k(a):\n    a[0] = f0(a[0])\n";
    auto r = run(source, {"int32[:]"});
    ASSERT_EQ(r->diagnostics.all().size(), 1u) << r->errors.substr(0, 2000);
    const Diagnostic& d = r->diagnostics.all()[0];
    EXPECT_EQ(d.kind, "TooDeeplyNested");
    EXPECT_NE(d.message.find("more than 1000 levels of expressions, statements and device function calls"),
              std::string::npos);
    EXPECT_EQ(d.notes.size(), 11u);  // ten calls of the chain, then how many more
  });
  // A global NumPy array `G` (the Python environment's; weftc has none): storing into it, and
  // one too large to compile in.
  for (auto [kind, body, bytes] : {std::tuple<const char*, const char*, size_t>{"ConstantArrayStore", "    G[0] = 1.0\n", 64},
                                   {"ConstantArrayTooLarge", "    a[0] = G[0]\n", (size_t{4} << 20) + 8}}) {
    custom(kind, {kind}, [kind, body, bytes] {
      struct ArrayEnvironment : Environment {
        size_t bytes = 0;
        GlobalValue lookup(std::string_view name) override {
          GlobalValue value;
          if (name != "G") return value;
          auto array = std::make_shared<ConstArray>();
          array->dtype = "float64";
          array->shape = {static_cast<int64_t>(bytes / 8)};
          array->bytes.assign(bytes, '\0');
          value.kind = GlobalValue::Kind::Array;
          value.array = array;
          return value;
        }
      };
      types::TypeContext types;
      SourceManager sources;
      Diagnostics diagnostics(sources);
      auto environment = std::make_shared<ArrayEnvironment>();
      environment->bytes = bytes;
      auto source = std::make_shared<FunctionSource>();
      source->file = std::make_shared<SourceFile>("arrays.py", std::string("def k(a):\n") + body);
      source->line = 1;
      source->name = "k";
      source->decorator = FunctionSource::Decorator::Kernel;
      source->globals = environment;
      CheckRequest request;
      request.entries.push_back({source, {ArgumentInfo{types.array(types::ScalarKind::Float64, 1), std::nullopt}}});
      check(request, types, sources, diagnostics);
      ASSERT_EQ(diagnostics.all().size(), 1u) << diagnostics.render();
      EXPECT_EQ(diagnostics.all()[0].kind, kind);
      EXPECT_EQ(diagnostics.all()[0].loc.line, 2u);
    });
  }
  custom("FunctionNotFound", {"FunctionNotFound"}, [] {
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
  });
  // weftc's argument types come from the kernel's annotations.
  custom("MissingAnnotationAndBadAnnotation", {"MissingAnnotation", "BadAnnotation"}, [] {
    types::TypeContext types;
    SourceManager sources;
    Diagnostics diagnostics(sources);
    std::string text =
        "from cuda import device\n@device.kernel\ndef k(a: device.float32[:, :], n: device.int32, x: float, "
        "b, c: 3):\n    pass\n";
    uint32_t file = sources.add("annotated.py", text);
    auto module = syntax::parse(file, diagnostics);
    ASSERT_TRUE(module);
    auto environment = makeStaticEnvironment(*module, sources.file(file));
    auto kernels = listEntryPoints(*module);
    ASSERT_EQ(kernels.size(), 1u);
    std::vector<ArgumentInfo> arguments =
        argumentsFromAnnotations(*kernels[0], *environment, types, diagnostics);
    ASSERT_EQ(arguments.size(), 5u);
    EXPECT_EQ(arguments[0].type, types.array(types::ScalarKind::Float32, 2));
    EXPECT_EQ(arguments[1].type, types.scalar(types::ScalarKind::Int32));
    EXPECT_EQ(arguments[2].type, types.scalar(types::ScalarKind::Float32));
    ASSERT_EQ(diagnostics.all().size(), 2u) << diagnostics.render();
    EXPECT_EQ(diagnostics.all()[0].kind, "MissingAnnotation");
    EXPECT_EQ(diagnostics.all()[1].kind, "BadAnnotation");
  });
  add("AnnotationConflict", "@device.kernel\ndef k(a):\n    x: int = 1\n    x: float = 2\n", {"int32[:]"},
      "AnnotationConflict", 4, "'x'");
  add("UnsupportedParameter", "def f(*xs):\n    return 0\n@device.kernel\ndef k(a):\n    a[0] = f(1)\n",
      {"int32[:]"}, "UnsupportedParameter", 1, "*args");
  // Vectors (check_vectors.cpp): each error at the user's line, with the fix in the message.
  add("Vectors", "@device.kernel\ndef k(a):\n    v = device.float32x4(1, 2, 3)\n", {"int32[:]"},
      "VectorArgumentCount", 3,
      "device.float32x4() takes 4 elements (x, y, z, w) (one per component), not 3");
  add("Vectors", "@device.kernel\ndef k(a):\n    v = device.float32x2(1, 2)\n    a[0] = v.z\n", {"int32[:]"},
      "VectorComponent", 4, "float32x2 has no component 'z': it has 2 elements (x, y)");
  add("Vectors", "@device.kernel\ndef k(a):\n    v = device.int16x3(1, 2, 3)\n    v.y = 4\n", {"int32[:]"},
      "VectorImmutable", 4, "e.g. v = device.int16x3(v.x, new_y, v.z)");
  add("Vectors", "@device.kernel\ndef k(a):\n    v = device.int16x3(1, 2, 3)\n    v[a[0]] = 4\n",
      {"int32[:]"}, "VectorImmutable", 4, "an element of int16x3 cannot be assigned");
  add("Vectors", "@device.kernel\ndef k(a):\n    v = device.uint8x2(1, 2)\n    a[0] = v[-3]\n", {"int32[:]"},
      "VectorIndexRange", 4, "index -3 is out of range for uint8x2");
  add("Vectors", "@device.kernel\ndef k(a):\n    v = device.float64x2(1j, 2)\n", {"int32[:]"},
      "VectorElement", 3, "element 1 of device.float64x2() must be a real number");
  {
    // SIMT (check_simt.cpp): predicates, warp values, memory orders and scopes, atomics, array
    // options, print(); more in test_simt.cpp and tests/python/test_simt_cpu.py.
    const std::string k = "@device.kernel\ndef k(a, f):\n";
    const std::vector<std::string> args = {"int32[:]", "float32[:]"};
    add("Simt", k + "    a[0] = device.syncthreads_count(a[0] > 0)\n", args, "PredicateExpected", 3,
        "argument 1 of device.syncthreads_count() must be a predicate");
    add("Simt", k + "    f[0] = device.shfl_sync(1, f, 0)\n", args, "WarpValueType", 3,
        "device.shfl_sync() moves a number of at most 8 bytes");
    add("Simt", k + "    device.AtomicRef(a, 0).add(1, memory='strong')\n", args, "MemoryOrder", 3,
        "not 'strong'");
    add("Simt", k + "    device.threadfence(scope='grid')\n", args, "ThreadScope", 3, "not 'grid'");
    add("Simt", k + "    a[0] = device.AtomicRef(a, 0).load(memory='release')\n", args, "MemoryOrderInvalid",
        3, "memory order 'release' is not valid for AtomicRef.load()");
    add("Simt", k + "    device.AtomicRef(f, 0).and_(1)\n", args, "AtomicDtype", 3,
        "AtomicRef.and_() needs an atomic int32, uint32, int64 or uint64, not AtomicRef(float32)");
    add("Simt", k + "    x = device.Atomic(device.int32)\n", args, "AtomicTypeUse", 3,
        "device.Atomic(dtype) is a type");
    add("Simt", k + "    s = device.local_array(4, device.int32, order='A')\n", args, "ArrayOption", 3,
        "order= of device.local_array() must be 'C' or 'F', not 'A'");
    add("Simt", k + "    print('f is', f)\n", args, "PrintArgument", 3,
        "print() cannot print array(float32, 1d)");
    add("Simt", k + "    print(a[0], sep=1)\n", args, "PrintOption", 3,
        "print()'s sep= must be a string constant, not 1");
  }

  {
    // Tiles (check_tiles.cpp): the seed's face (weft.tiles) and cuTile's (weft.cutile); their
    // results are checked against NumPy in tests/python/test_tiles_cpu.py.
    const std::string seed = "from weft import tiles as ct\n@ct.kernel\ndef k(a, b, c):\n";
    const std::string cu = "from weft import cutile as ct\n@ct.kernel\ndef k(a, b, c):\n";
    const std::vector<std::string> args{"float32[:]", "int32[:]", "uint32[:]"};
    const std::string x = "    x = ct.load(a, (0,), (16,))\n";
    const std::string i = "    i = ct.load(b, (0,), (16,))\n";
    const std::string u = "    u = ct.load(c, (0,), (16,))\n";
    add("Tiles", seed + "    x = ct.load(a, (0,), (12,))\n", args, "TileShape", 4, "power of 2");
    add("Tiles", seed + "    x = ct.zeros((1024, 2048), ct.float32)\n", args, "TileShape", 4, "at most");
    add("Tiles", seed + x + "    s = ct.sum(x, axis=1)\n", args, "TileAxis", 5, "axis 1");
    add("Tiles", seed + i + "    y = ct.exp(i)\n", args, "TileElementType", 5, "int32");
    add("Tiles", seed + x + "    y = ct.load(a, (0,), (8,))\n    z = x + y\n", args, "TileBroadcast", 6, "(16,)");
    add("Tiles", seed + "    x = ct.zeros((4,), ct.float16)\n    y = ct.zeros((4,), ct.bfloat16)\n    z = x + y\n",
        args, "TileNoCommonType", 6, "float16");
    add("Tiles", cu + i + u + "    z = i + u\n", args, "TileSignedness", 6, "signed and unsigned");
    add("Tiles", seed + i + "    z = 2.5 * i\n", args, "TileNarrowing", 5, "narrow");
    add("Tiles", seed + i + u + "    z = i < u\n", args, "TileNarrowing", 6, "int32 to uint32");
    add("Tiles", seed + i + "    m = i < 3\n    z = m + m\n", args, "TileBoolArithmetic", 6, "astype");
    add("Tiles", seed + "    x = ct.load(a, (0, 0), (16,))\n", args, "TileRank", 4, "2 components");
    add("Tiles", seed + i + "    j = ct.load(b, (0,), (16,), padding='+inf')\n", args, "TilePadding", 5, "integers");
    add("Tiles", seed + "    x = ct.load(a, (0,), (16,), padding='inf')\n", args, "TilePadding", 4, "'inf'");
    add("Tiles", seed + i + "    ct.store(a, (0,), i)\n", args, "TileStoreType", 5, "astype");
    add("Tiles", seed + x + "    y = ct.reshape(x, (4, 8))\n", args, "TileReshape", 5, "sizes differ");
    add("Tiles", seed + "    x = ct.zeros((4, 8), ct.float32)\n    y = ct.permute(x, (0, 0))\n", args,
        "TilePermutation", 5, "permutation");
    add("Tiles", seed + x + "    y = ct.cat((x, ct.zeros((8,), ct.float32)), 0)\n", args, "TileCat", 5, "axis 0");
    add("Tiles", seed + "    x = ct.zeros((4, 8), ct.float16)\n    y = ct.mma(x, x, ct.zeros((4, 4), ct.float32))\n",
        args, "TileMatmulShape", 5, "(4, 8)");
    add("Tiles", seed + x + "    y = ct.load(a, (0,), (16,), shape=(8,))\n", args, "DuplicateArgument", 5,
        "'shape'");
    add("Tiles", seed + "    x = ct.load(a, (0,))\n", args, "MissingArgument", 4, "'shape'");
    add("Tiles", seed + x + "    if x:\n        pass\n", args, "TileTruth", 5, "ambiguous");
    add("Tiles", seed + x + "    y = ct.reduce(x, 0, lambda p: p, 0)\n", args, "TileCombiner", 5, "two float32 values");
    add("Tiles", seed + "    n = ct.assume_divisible(ct.bid(0), -4)\n", args, "TileAssume", 4, "must be positive");
    add("Tiles", seed + "    x = ct.load(a, (0,), (16,), order='A')\n", args, "TilePermutation", 4, "order='A'");
    add("Tiles", seed + "    x = ct.zeros((16,), ct.float8e5m2)\n", args, "TileRestrictedType", 4, "float8e5m2");
    add("Tiles", seed + "    v = ct.partition_view(a, (16,))\n    ct.store(v, (0,), ct.zeros((8,), ct.float32))\n", args,
        "TileViewShape", 5, "(16,)");
    add("Tiles", seed + "    i = device.thread_idx.x\n", args, "SimtInTileKernel", 4, "one logical thread");
    add("Tiles", cu + "    device.syncthreads()\n", args, "SimtInTileKernel", 4, "syncthreads");
    add("Tiles", seed + x + "    print(ct.sum(x).item())\n", args, "TilePrint", 5, "once per tile block");
    add("Tiles", seed + x + "    y = ct.add(x, x, ct.round_approximate)\n", args, "TileModifier", 5, "round_approximate");
    add("Tiles", cu + x + "    y = ct.mul(x, x, rounding_mode='toward_zero')\n", args, "TileModifier", 5, "'toward_zero'");
    add("Tiles", seed + i + "    ct.atomic_add(b, i, 1, scope='cluster')\n", args, "TileAtomicOption", 5, "'cluster'");
    add("Tiles", seed + i + "    ct.atomic_add(b, i, 1, order='acquire')\n", args, "TileAtomicOption", 5, "read-modify-write");
    add("Tiles", "from weft import tiles as ct\n@device.kernel\ndef k(a):\n    x = ct.load(a, (0,), (16,))\n",
        {"float32[:]"}, "TileInSimtKernel", 4, "@ct.kernel");
  }
  return rows;
}

class SemaDiagnosticExample : public ::testing::TestWithParam<Example> {};

TEST_P(SemaDiagnosticExample, ReportsItsKind) {
  const Example& example = GetParam();
  if (example.custom) {
    example.custom();
    return;
  }
  auto result = run(example.source, example.args);
  ASSERT_EQ(result->diagnostics.all().size(), 1u) << result->errors;
  const Diagnostic& d = result->diagnostics.all()[0];
  EXPECT_EQ(d.kind, example.kinds[0]) << result->errors;
  EXPECT_EQ(d.loc.line, example.line + 3) << result->errors;
  EXPECT_NE(d.message.find(example.fragment), std::string::npos) << result->errors;
}

std::string exampleName(const ::testing::TestParamInfo<Example>& info) {
  return info.param.group + "_" + std::to_string(info.index);
}

INSTANTIATE_TEST_SUITE_P(Kinds, SemaDiagnosticExample, ::testing::ValuesIn(examples()), exampleName);

// The `# ERROR: Kind` lines of a golden file, by line.
std::set<std::pair<uint32_t, std::string>> goldenErrors(const std::string& text) {
  std::set<std::pair<uint32_t, std::string>> expected;
  std::istringstream lines(text);
  std::string line;
  for (uint32_t number = 1; std::getline(lines, line); ++number) {
    size_t error = line.find("# ERROR: ");
    if (error != std::string::npos) expected.emplace(number, line.substr(error + 9));
  }
  return expected;
}

std::vector<std::filesystem::path> goldenFiles() {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(WEFT_SOURCE_DIR "/tests/golden/sema")) {
    if (entry.path().extension() == ".py") files.push_back(entry.path());
  }
  return files;
}

// A kind without an example fails here, whatever other tests run (gtest_filter, shuffle).
TEST(SemaDiagnosticKinds, EveryKindHasAnExampleOrAGoldenFile) {
  std::set<std::string> covered;
  for (const Example& example : examples()) covered.insert(example.kinds.begin(), example.kinds.end());
  for (const auto& path : goldenFiles()) {
    for (const auto& [line, kind] : goldenErrors(readFile(path.string()))) covered.insert(kind);
  }
  for (const DiagnosticKind& kind : diag::kAll) {
    EXPECT_TRUE(covered.count(std::string(kind.name)) != 0) << "no example reports " << kind.name;
  }
}

// ---- golden files: tests/golden/sema/[fail_]name.py with inline `# CHECK:` / `# ERROR:` ----

TEST(SemaGolden, Files) {
  int files = 0;
  for (const auto& path : goldenFiles()) {
    ++files;
    std::string name = path.filename().string();
    bool mustFail = name.starts_with("fail_");
    std::string text = readFile(path.string());
    std::set<std::pair<uint32_t, std::string>> expected = goldenErrors(text);
    std::vector<std::string> checks;
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
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
    }
    EXPECT_EQ(actual, expected) << name << "\n" << diagnostics.render();
    EXPECT_EQ(mustFail, !expected.empty()) << name << ": a fail_ prefix exactly when the file must fail";
    for (const std::string& check : checks)
      EXPECT_NE(dump.find(check), std::string::npos) << name << ": " << check << "\n" << dump;
  }
  EXPECT_GE(files, 5);
}

}  // namespace
}  // namespace weft::sema
