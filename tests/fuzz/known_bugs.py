"""Known open weft bugs the fuzzers found or meet, each with: the generator switch that avoids it
(tests/fuzz/generator.py generates the construct only when `Config.bugs` names it), how to
recognize a failure it causes, and a minimal reproducer. tests/python/test_fuzz_known_bugs.py
runs every reproducer as a strict xfail, so a fix shows up as an unexpected pass: then enable the
switch by default and delete the entry."""

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class KnownBug:
    id: str
    summary: str
    area: str  # where the fix belongs
    found_by: str  # "fuzzer" (new) or "known" (listed in issue 8 and being fixed)
    reproducer: str  # a module; tests/python/test_fuzz_known_bugs.py says what it must do
    message: str = ""  # a regex matching the failure's message
    feature: str = ""  # a generator feature the failing program must have


HEADER = "import math\nfrom cuda import device\n\n"

BUGS = [
    KnownBug(
        "dead-branch-variable",
        "a variable assigned only in a branch sema drops as constant-false (if 0:, if device.int32(0):, if v: "
        "with v = 0 assigned once, if math.isnan(<int>):) reaches codegen with the Error type: an internal "
        "compiler error instead of a compiled kernel",
        "src/sema/check_statements.cpp (constant conditions) / src/codegen/emit_types.cpp:66",
        "known",
        HEADER + "@device.kernel\ndef k(x: device.int32[:], out: device.int32[:]):\n"
        "    flag = 0\n    if flag:\n        unused = x[0]\n    out[0] = x[0] + 1\n",
        message=r"an Error type reached codegen",
    ),
    KnownBug(
        "int64-min-literal",
        "the literal -9223372036854775808 (the int64 minimum, which Python spells -(2**63)) is a "
        "LiteralOutOfRange error: the positive literal is checked before the negation",
        "src/sema/check_expressions.cpp (Constant) / src/sema/constant.cpp",
        "known",
        HEADER + "@device.kernel\ndef k(out: device.int64[:]):\n    out[0] = -9223372036854775808\n",
        message=r"the constant 9223372036854775808 does not fit int64",
    ),
    KnownBug(
        "constant-conversion-range",
        "device.int8(200), device.uint8(device.int8(-3)) and device.int8(v) with v assigned 200 once are "
        "compile errors (LiteralOutOfRange) instead of wrapping (docs/types.md: device.int8(200) == -56)",
        "src/sema/check_expressions.cpp FunctionChecker::cast",
        "known",
        HEADER + "@device.kernel\ndef k(out: device.int32[:]):\n    v = 200\n"
        "    out[0] = device.int8(200)\n    out[1] = device.int8(v)\n    out[2] = device.uint8(device.int8(-3))\n",
        message=r"does not fit \w+ \[LiteralOutOfRange\]",
    ),
    KnownBug(
        "constant-conversion-precision",
        "an explicit conversion of a constant keeps the constant's double value instead of the converted "
        "value: device.float64(device.float32(0.001)) is 0.001, not 0.0010000000474974513; likewise "
        "device.float64(device.float16(0.1)), device.float32(device.bfloat16(0.1)), device.float64("
        "device.float8e4m3(0.3)) (gives 0.3, not 0.3125), a local assigned such a constant once, and the parts "
        "of device.complex128(re, im); an implicit conversion (a store, + 0.0) is right",
        "src/sema/check_expressions.cpp FunctionChecker::cast / src/sema/constant.cpp (typedLiteral's value)",
        "fuzzer",
        HEADER + "@device.kernel\ndef k(out: device.float64[:], z: device.complex128[:]):\n"
        "    out[0] = device.float64(device.float32(0.001))\n    h = device.float16(0.1)\n"
        "    out[1] = device.float64(h)\n    out[2] = device.float64(device.float8e4m3(0.3))\n"
        "    z[0] = device.complex128(1.0, device.float32(0.001))\n",
        feature="constant_conversion",
    ),
    KnownBug(
        "chain-common-type",
        "a comparison chain converts every operand to one common type, while Python compares "
        "pairwise (a < b < c is a < b and b < c): x < x + 1 < y with int32 x = 16777216 and float32 "
        "y = 1e9 compares x and x + 1 as float32 (equal) and gives False; Python and the Array API "
        "pairwise rule give True",
        "src/sema/check_expressions.cpp FunctionChecker::compare",
        "fuzzer",
        HEADER + "@device.kernel\ndef k(x: device.int32[:], y: device.float32[:], out: device.bool_[:]):\n"
        "    out[0] = x[0] < x[0] + 1 < y[0]\n",
        feature="mixed_chains",
    ),
    KnownBug(
        "isfinite-integer",
        "math.isfinite() of an integer is the constant False (sema folds every math predicate of an "
        "integer to False); Python gives True",
        "src/sema/check_calls.cpp FunctionChecker::mathCall",
        "fuzzer",
        HEADER + "@device.kernel\ndef k(x: device.int32[:], out: device.bool_[:]):\n    out[0] = math.isfinite(x[0])\n",
        feature="isfinite_int",
    ),
    KnownBug(
        "deep-chain",
        "a long left-associative chain (x + x + ... with 20000 terms) crashes weftc with SIGSEGV "
        "(recursion over the expression tree); the parser's TooDeeplyNested limit counts parentheses, "
        "unary operators and blocks, not binary chains",
        "src/syntax/parser.cpp nesting limits / recursive passes in sema and codegen",
        "known",
        HEADER + "@device.kernel\ndef k(x: device.int32[:], out: device.int32[:]):\n"
        "    out[0] = " + " + ".join(["x[0]"] * 20000) + "\n",
    ),
    KnownBug(
        "and-chain-compile-time",
        "`a and b and ...` emits one C++ lambda nested in the previous per operand; NVRTC's time grows "
        "about quadratically (320 operands: 2 s, 1280: 33 s of CPU; 5000 did not finish in 300 s)",
        "src/codegen/emit_expressions.cpp (And/Or)",
        "fuzzer",
        HEADER + "@device.kernel\ndef k(x: device.int32[:], out: device.int32[:]):\n"
        "    out[0] = " + " and ".join(["x[0]"] * 2000) + "\n",
    ),
]
BUGS += [
    KnownBug(
        "macro-named-field",
        "a struct field named like a C macro (NULL, WEFT_HD; on the CPU target also EOF, NAN, INFINITY, M_PI, "
        "errno, INT32_MAX, SIZE_MAX, RAND_MAX, ...) breaks the generated C++: NVRTC or the host compiler rejects "
        "the unit",
        "src/codegen/emit_structs.cpp / src/support/identifiers.cpp",
        "known",
        HEADER + "@device.struct\nclass P:\n    NULL: device.float32\n    EOF: device.float32\n\n"
        "@device.kernel\ndef k(x: device.float32[:], out: device.float32[:]):\n"
        "    p = P(x[0], x[1])\n    out[0] = p.NULL + p.EOF\n",
    ),
    KnownBug(
        "struct-outside-sys-modules",
        "a @struct class of a module executed without an entry in sys.modules (importlib's "
        "spec_from_file_location + exec_module) is not found: 'struct class 'P' was not found in  at line 0 "
        "[StructNotFound]', with no file name; kernels and functions of the same module work",
        "python/weft/_structs.py (the class's source file is looked up through sys.modules)",
        "fuzzer",
        HEADER + "@device.struct\nclass P:\n    a: device.float32\n\n"
        "@device.kernel\ndef k(x: device.float32[:], out: device.float32[:]):\n    out[0] = P(x[0]).a\n",
    ),
]
BUGS.append(KnownBug(
    "stale-source",
    "a module file rewritten and executed again in the same process compiles its old text: weft reads a "
    "function's source with linecache.getlines without linecache.checkcache (inspect.getsource checks), so a "
    "kernel whose file changed reports errors against the previous version (e.g. 'kernel 'k' takes 1 "
    "arguments but 2 were given')",
    "python/weft/_runtime.py function_source (and python/weft/_structs.py)",
    "fuzzer",
    HEADER + "@device.kernel\ndef k(a: device.int32[:], b: device.int32[:]):\n    a[0] = 2\n    b[0] = 3\n",
))
BY_ID = {bug.id: bug for bug in BUGS}
# Generator switches: the known bugs whose construct tests/fuzz/generator.py avoids by default.
SWITCHES = ("dead-branch-variable", "constant-conversion-range", "constant-conversion-precision", "int64-min-literal",
            "chain-common-type", "isfinite-integer")
NESTING_MUTATIONS = ("deep_parens", "deep_blocks", "long_chain", "deep_unary", "nested_calls", "nested_tuples")


def classify(failure) -> str:
    """The id of the known bug a differential failure matches, or ""."""
    for bug in BUGS:
        if bug.message and re.search(bug.message, failure.message):
            return bug.id
        if bug.feature and bug.feature in failure.features and failure.stage.startswith("run"):
            return bug.id
    return ""


def classify_malformed(mutations: list, mode: str, outcome: str, detail: str) -> str:
    """The id of the known bug a malformed-input failure matches, or ""."""
    nesting = any(m.split()[0] in NESTING_MUTATIONS for m in mutations)
    if nesting and outcome in ("crash", "hang", "recursion-error"):
        return "deep-chain"
    if outcome == "generated-code-error" and any(m.startswith("rename") for m in mutations):
        return "macro-named-field"
    for bug in BUGS:
        if bug.message and re.search(bug.message, detail):
            return bug.id
    return ""
