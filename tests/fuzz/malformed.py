"""The malformed-input fuzzer: valid kernels (tests/fuzz/seeds.py and generated programs) are
mutated (tokens deleted, duplicated or replaced, random bytes, deep nesting, huge literals,
unknown names, wrong arity, bad annotations, unsupported statements, truncation) and compiled
two ways:

- weftc FILE --ptx -arch sm_90 (weft's own parser on any text, then NVRTC), in a subprocess;
- the Python API, for mutants CPython accepts: the module is imported in a worker process and
  each kernel's front end runs (`kernel._emit_cuda`, arguments built from the annotations); a unit
  the front end accepts is compiled by the host compiler (`-fsyntax-only`), which must accept it.

Every outcome must be a success or a clean diagnostic (`file:line:col: error: ... [Kind]`, or a
TypeError/ValueError about the arguments): never a crash signal, a hang, an internal compiler
error, another exception, or a C++ compiler error in the code weft generated.
"""

import ast
import io
import json
import os
import pathlib
import queue
import random
import re
import signal
import subprocess
import sys
import threading
import time
import tokenize
from dataclasses import dataclass, field

WEFTC_TIMEOUT = 60
API_TIMEOUT = 60
_DIAGNOSTIC = re.compile(r"^\S.*:\d+:\d+: error: .+ \[\w+\]$", re.MULTILINE)

# Names that are C, C++ or CUDA words: valid Python identifiers that generated C++ must mangle.
CPP_WORDS = ["char", "auto", "template", "NULL", "INT_MAX", "main", "printf", "threadIdx", "__CUDA_ARCH__", "std",
             "weft", "signed", "register", "goto", "namespace", "__global__", "EOF", "errno", "sizeof", "this", "new",
             "delete", "operator", "M_PI", "NAN", "INFINITY", "WEFT_HD", "WEFT_HOST", "INT32_MAX", "SIZE_MAX",
             "HUGE_VAL", "RAND_MAX", "__half", "float4", "dim3", "blockIdx", "uint32_t", "size_t", "nullptr", "true",
             "double", "unsigned", "long", "short", "const", "static", "volatile", "typedef", "union", "struct",
             "enum", "extern", "inline", "virtual", "typename", "constexpr", "__syncthreads", "warpSize", "w_1",
             "_t1", "l_x", "k_0"]
VOCABULARY = ["+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "~", "<", "<=", "==", "!=", ">", ">=",
              "=", "+=", "(", ")", "[", "]", ":", ",", ".", "if", "else", "for", "while", "in", "not", "and", "or",
              "return", "break", "continue", "pass", "lambda", "None", "True", "False", "0", "1", "-1", "2.5", "1j",
              "device", "device.int8", "device.float16", "device.tid", "range", "math.sin", "abs", "min", "len", "print",
              "device.syncthreads", "device.shared_array", "device.float32x4", "x", "i", "a", "'s'", "b'x'", "...", "@"]
HUGE = ["18446744073709551616", "9223372036854775808", "1" + "0" * 400, "1e400", "0x" + "f" * 40, "1_000_000_000_000_000_000_000",
        "123456789012345678901234567890.5", "5e-324", "1e-400", "0o777777777777777777777777", "0b" + "1" * 70, "2**200",
        "(-9223372036854775808)", "-9223372036854775809", "65536.0", "3.4028236e38"]
BAD_ANNOTATIONS = ["device.float32[::2]", "int", "3", "device.foo[:]", "device.float32[" + ", ".join([":"] * 40) + "]",
                   "device.float32[1:2]", "device.float32[:][:]", "'device.float32[:]'", "None", "device.Atomic(int)",
                   "device.float32x4[:]", "math", "device.ConstExpr", "device.int8(3)", "device.float32[...]",
                   "list[int]", "tuple[device.int32, device.float32[:]]", "lambda: 1", "device"]
STATEMENTS = ["yield 1", "x = yield", "global G", "nonlocal q", "try:\n    pass\nexcept Exception:\n    pass",
              "with open('x') as f:\n    pass", "class C:\n    pass", "import os", "del i", "raise ValueError('no')",
              "x = [1, 2]", "x = {1: 2}", "x = {1, 2}", "x = lambda: 1", "x = f'{i}'", "assert i, 'm'",
              "match i:\n    case 1:\n        pass", "async def f():\n    pass", "x = (y := 2)", "for q in [1, 2]:\n    pass",
              "print(*x)", "return 5", "x = a @ a", "x = a[1:2:0]", "x = [k for k in range(3)]", "x = i if i else",
              "x: device.int8 = 300", "x = device.int8(300)", "x = 1 << 64", "x = 1 / 0", "x = 1 // 0", "x = 'a' + 1",
              "i = None", "x = None + 1", "x = (1, 2)[5]", "x = device.float32x4(1, 2)", "x = device.tid(4)",
              "x = device.shared_array(-1, device.float32)", "x = device.local_array((2, 0), device.int8)",
              "device.syncthreads(1)", "x = range(3)", "x = math.sin()", "x = math.sin(1, 2)", "x = abs(1, 2)",
              "x = min(1)", "x = len(3)", "x = device.AtomicRef(i, 0)", "x = print", "x = device", "x = math",
              "def inner():\n    pass", "x = *i,", "x = 1 if True else (1, 2)", "x = __import__('os')"]
NESTING = ["deep_parens", "deep_blocks", "long_chain", "deep_unary", "nested_calls", "nested_tuples"]


@dataclass
class Case:
    """One mutant: where it came from and how it was made."""

    id: int
    seed: str
    mutations: list
    text: str
    outcomes: dict = field(default_factory=dict)  # mode -> (outcome, detail)


# --- mutations -------------------------------------------------------------------------------------


def _tokens(text: str) -> list:
    """(start, end, string) of each token, as character offsets; [] when tokenizing fails."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    result = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type in (tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT, tokenize.NL, tokenize.NEWLINE):
                continue
            (r0, c0), (r1, c1) = tok.start, tok.end
            result.append((starts[r0 - 1] + c0, starts[r1 - 1] + c1, tok.string, tok.type))
    except (tokenize.TokenError, IndentationError, SyntaxError, SystemError):
        # CPython 3.12's tokenizer reports a null byte as a SystemError wrapping the SyntaxError.
        return []
    return result


def _body_lines(text: str) -> list:
    """Indices of lines inside a function body (indented, not blank)."""
    return [k for k, line in enumerate(text.splitlines()) if line.startswith("    ") and line.strip()]


def _replace(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


class Mutator:
    """Applies one random mutation to a text; each method returns (text, description)."""

    def __init__(self, rng: random.Random, nesting: bool):
        self.rng = rng
        self.operators = [
            self.delete_token, self.delete_token, self.duplicate_token, self.replace_token, self.replace_token,
            self.swap_tokens, self.random_bytes, self.huge_literal, self.huge_literal, self.unknown_name,
            self.unknown_name, self.wrong_arity, self.wrong_arity, self.bad_annotation, self.bad_annotation,
            self.truncate, self.line_edit, self.statement, self.statement, self.statement, self.rename, self.rename,
        ]
        if nesting:
            self.operators += [self.deep_parens, self.deep_blocks, self.long_chain, self.deep_unary, self.nested_calls,
                               self.nested_tuples]

    def mutate(self, text: str) -> tuple:
        return self.rng.choice(self.operators)(text)

    def pick_token(self, text: str, kinds=None):
        tokens = [t for t in _tokens(text) if kinds is None or t[3] in kinds]
        body_start = text.find("@device.kernel")
        inner = [t for t in tokens if t[0] > body_start] if body_start >= 0 else tokens
        return self.rng.choice(inner or tokens) if tokens else None

    def delete_token(self, text):
        t = self.pick_token(text)
        return (text, "delete_token: none") if t is None else (_replace(text, t[0], t[1], ""), f"delete_token {t[2]!r}")

    def duplicate_token(self, text):
        t = self.pick_token(text)
        return (text, "duplicate_token: none") if t is None else (_replace(text, t[0], t[1], t[2] + " " + t[2]), f"duplicate_token {t[2]!r}")

    def replace_token(self, text):
        t = self.pick_token(text)
        new = self.rng.choice(VOCABULARY)
        return (text, "replace_token: none") if t is None else (_replace(text, t[0], t[1], new), f"replace_token {t[2]!r} -> {new!r}")

    def swap_tokens(self, text):
        tokens = _tokens(text)
        if len(tokens) < 2:
            return text, "swap_tokens: none"
        k = self.rng.randrange(len(tokens) - 1)
        a, b = tokens[k], tokens[k + 1]
        return text[:a[0]] + b[2] + text[a[1]:b[0]] + a[2] + text[b[1]:], f"swap_tokens {a[2]!r} {b[2]!r}"

    def random_bytes(self, text):
        alphabet = ["\x00", "\t", "\r", "\x0c", "\\", "é", "\u2028", "\ufeff", "𝔁", "'", '"', "#", "\x7f", "$", "?", "`", "\x1b"]
        chars = "".join(self.rng.choice(alphabet + [chr(self.rng.randint(32, 126))]) for _ in range(self.rng.randint(1, 4)))
        k = self.rng.randrange(len(text) + 1)
        return text[:k] + chars + text[k + (self.rng.random() < 0.5):], f"random_bytes {chars!r} at {k}"

    def huge_literal(self, text):
        t = self.pick_token(text, {tokenize.NUMBER})
        new = self.rng.choice(HUGE)
        if t is None:
            return self.statement(text)
        return _replace(text, t[0], t[1], new), f"huge_literal {t[2]!r} -> {new}"

    def unknown_name(self, text):
        t = self.pick_token(text, {tokenize.NAME})
        new = self.rng.choice(CPP_WORDS + ["zq_undefined", "undefined_name", "_", "__name__", "open", "sum", "list"])
        if t is None or t[2] in ("def", "if", "for", "while", "return", "import", "from", "in", "else", "and", "or", "not"):
            return self.statement(text)
        return _replace(text, t[0], t[1], new), f"unknown_name {t[2]!r} -> {new!r}"

    def wrong_arity(self, text):
        calls = [m for m in re.finditer(r"\b[\w.]+\(", text) if not text[:m.start()].rstrip().endswith("def")]
        if not calls:
            return self.statement(text)
        m = self.rng.choice(calls)
        if self.rng.random() < 0.5:
            return text[:m.end()] + "1, " + text[m.end():], f"wrong_arity +1 {m.group(0)}"
        depth, k = 1, m.end()
        while k < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[k], 0)
            if depth == 1 and text[k] == ",":
                return text[:m.end()] + text[k + 1:], f"wrong_arity -1 {m.group(0)}"
            k += 1
        return text[:m.end()] + text[k - 1:], f"wrong_arity -all {m.group(0)}"

    def rename(self, text):
        """Every occurrence of one identifier renamed to a word of C, C++ or CUDA (the program
        stays valid Python, and should stay valid for weft: generated C++ must not clash)."""
        keep = {"device", "math", "range", "print", "abs", "min", "max", "len", "int", "float", "bool", "complex",
                "import", "from", "def", "return", "if", "else", "for", "while", "in", "not", "and", "or", "class",
                "True", "False", "None", "pass", "break", "continue", "cuda", "self", "lambda"}
        names = sorted({t[2] for t in _tokens(text) if t[3] == tokenize.NAME and t[2] not in keep and not t[2].startswith("fz_")})
        if not names:
            return self.statement(text)
        old = self.rng.choice(names)
        new = self.rng.choice(CPP_WORDS)
        tokens = [t for t in _tokens(text) if t[3] == tokenize.NAME and t[2] == old]
        # Attribute names after "device." or "math." are not the identifier (device.tid stays).
        tokens = [t for t in tokens if not text[:t[0]].endswith(("device.", "math."))]
        for start, end, _, _ in reversed(tokens):
            text = _replace(text, start, end, new)
        return text, f"rename {old!r} -> {new!r}"

    def bad_annotation(self, text):
        spots = list(re.finditer(r"(\w+): (device\.[\w\[\], :]+?)(?=[,)])", text))
        if not spots:
            return self.statement(text)
        m = self.rng.choice(spots)
        new = self.rng.choice(BAD_ANNOTATIONS)
        return text[:m.start(2)] + new + text[m.end(2):], f"bad_annotation {m.group(2)} -> {new}"

    def truncate(self, text):
        k = self.rng.randrange(len(text))
        return text[:k], f"truncate at {k}"

    def line_edit(self, text):
        lines = text.splitlines()
        body = _body_lines(text)
        if not body:
            return self.truncate(text)
        k = self.rng.choice(body)
        what = self.rng.choice(["delete", "duplicate", "indent", "dedent", "swap"])
        if what == "delete":
            del lines[k]
        elif what == "duplicate":
            lines.insert(k, lines[k])
        elif what == "indent":
            lines[k] = " " * self.rng.randint(1, 4) + lines[k]
        elif what == "dedent":
            lines[k] = lines[k][self.rng.randint(1, 4):]
        elif k + 1 < len(lines):
            lines[k], lines[k + 1] = lines[k + 1], lines[k]
        return "\n".join(lines) + "\n", f"line_edit {what} line {k + 1}"

    def insert_at_body_line(self, text: str, snippet: str) -> tuple:
        lines = text.splitlines()
        body = _body_lines(text)
        if not body:
            return text + snippet + "\n", 0
        k = self.rng.choice(body)
        indent = lines[k][: len(lines[k]) - len(lines[k].lstrip())]
        lines[k:k] = [indent + line for line in snippet.splitlines()]
        return "\n".join(lines) + "\n", k + 1

    def statement(self, text):
        snippet = self.rng.choice(STATEMENTS)
        new, line = self.insert_at_body_line(text, snippet)
        return new, f"statement {snippet.splitlines()[0]!r} at line {line}"

    def depth(self) -> int:
        # 5000-term chains are left out: they compile, slowly (NVRTC takes minutes over them).
        return self.rng.choice([20, 60, 150, 199, 250, 1000, 20000])

    def wrap_operand(self, text, make, what):
        t = self.pick_token(text, {tokenize.NUMBER, tokenize.NAME})
        if t is None or t[2] in ("def", "if", "for", "while", "return", "import", "from", "in", "else", "and", "or", "not"):
            return self.statement(text)
        n = self.depth()
        return _replace(text, t[0], t[1], make(t[2], n)), f"{what} {n} around {t[2]!r}"

    def deep_parens(self, text):
        return self.wrap_operand(text, lambda s, n: "(" * n + s + ")" * n, "deep_parens")

    def deep_unary(self, text):
        return self.wrap_operand(text, lambda s, n: "-" * n + s if n % 2 == 0 else "- " * n + s, "deep_unary")

    def nested_calls(self, text):
        return self.wrap_operand(text, lambda s, n: "abs(" * n + s + ")" * n, "nested_calls")

    def nested_tuples(self, text):
        return self.wrap_operand(text, lambda s, n: "(" * n + s + ",)" * n, "nested_tuples")

    def long_chain(self, text):
        return self.wrap_operand(text, lambda s, n: "(" + " + ".join([s] * n) + ")", "long_chain")

    def deep_blocks(self, text):
        n = min(self.depth(), 2000)
        snippet = "\n".join("    " * k + "if i > -1:" for k in range(n)) + "\n" + "    " * n + "pass"
        new, line = self.insert_at_body_line(text, snippet)
        return new, f"deep_blocks {n} at line {line}"


# --- running and classifying -------------------------------------------------------------------------


def classify_weftc(returncode: int, output: str) -> tuple:
    """(outcome, detail) of one weftc run; outcomes other than "ok" and "diagnostic" are failures."""
    if returncode is None:
        return "hang", f"weftc ran over {WEFTC_TIMEOUT} s"
    if returncode < 0:
        return "crash", f"weftc killed by signal {-returncode} ({signal.Signals(-returncode).name})"
    if "internal compiler error" in output:
        return "ice", output[-2000:]
    if "NVRTC failed" in output or "NVRTC rejected" in output:
        return "generated-code-error", output[-3000:]
    if returncode == 0:
        return "ok", ""
    errors = [line for line in output.splitlines() if " error: " in line or line.startswith("error:")]
    if returncode == 1 and errors and all(_DIAGNOSTIC.match(line) for line in errors):
        return "diagnostic", errors[0][:300]
    return "unclean-error", f"exit {returncode}: {output[-2000:]}"


def run_weftc(weftc: str, path: pathlib.Path) -> tuple:
    try:
        proc = subprocess.run([weftc, str(path), "--ptx", "-arch", "sm_90", "-o", str(path.with_suffix(".ptx"))],
                              capture_output=True, timeout=WEFTC_TIMEOUT)
    except subprocess.TimeoutExpired:
        return classify_weftc(None, "")
    output = (proc.stdout + proc.stderr).decode("utf-8", "replace")
    return classify_weftc(proc.returncode, output)


def _small_literal(node: ast.expr) -> bool:
    """A number, string or tuple of them, written as a literal (signs included), of bounded size."""
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    values = value if isinstance(value, tuple) else (value,)
    return all(isinstance(v, (int, float, complex, bool, str)) and not (isinstance(v, int) and abs(v) > 2**200)
               for v in values)


def safe_for_import(text: str) -> bool:
    """Whether importing the module runs nothing but imports, definitions and constant
    assignments (so the worker cannot hang or exhaust memory executing a mutant's top level)."""
    try:
        tree = ast.parse(text)
        compile(text, "<mutant>", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            if all(isinstance(d, (ast.Name, ast.Attribute)) or (isinstance(d, ast.Call) and not d.args) for d in node.decorator_list):
                continue
            return False
        if isinstance(node, ast.Assign) and _small_literal(node.value):
            continue
        return False
    return True


def _arguments(function) -> list:
    """Arguments built from a kernel's annotations (small arrays and ones)."""
    import numpy as np

    import weft

    values = []
    annotations = getattr(function, "__annotations__", {}) or {}
    for name in function.__code__.co_varnames[: function.__code__.co_argcount]:
        a = annotations.get(name)
        if isinstance(a, weft.ArrayType):
            values.append(np.zeros((4,) * a.ndim, a.element.dtype))
        elif isinstance(a, weft.NumberType):
            values.append(a.dtype.type(1))
        else:
            values.append(np.zeros(4, np.float32))
    return values


def api_case(path: pathlib.Path, compiler: list) -> tuple:
    """(outcome, detail) of one mutant through the Python API (in the worker process)."""
    import importlib.util

    import weft

    spec = importlib.util.spec_from_file_location(f"mutant_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # as an import does: weft finds a struct's source through it
    try:
        spec.loader.exec_module(module)
    except Exception as error:  # a decorator's TypeError, a struct's definition: Python-level, clean
        return "python-error", f"{type(error).__name__}: {str(error)[:300]}"
    outcome = ("ok", "")
    for name, kernel in sorted(vars(module).items()):
        if not hasattr(kernel, "_emit_cuda") or not hasattr(kernel, "underlying"):
            continue
        try:
            source = kernel._emit_cuda(*_arguments(kernel.underlying), target="cpu")
        except weft.CompileError as error:
            text = str(error)
            if not _DIAGNOSTIC.search(text) or str(path) not in text.split("\n", 1)[0]:
                return "diagnostic-without-location", text[:1500]
            outcome = ("diagnostic", text.splitlines()[0][:300])
            continue
        except weft.InternalCompilerError as error:
            return "ice", str(error)[:2000]
        except (TypeError, ValueError) as error:
            outcome = ("argument-error", f"{type(error).__name__}: {str(error)[:300]}")
            continue
        except RecursionError as error:
            return "recursion-error", str(error)[:300]
        except Exception as error:  # anything else escaping weft is a bug
            return "exception", f"{type(error).__name__}: {str(error)[:1500]}"
        proc = subprocess.run(compiler, input=source.encode(), capture_output=True, timeout=API_TIMEOUT)
        if proc.returncode != 0:
            return "generated-code-error", proc.stderr.decode("utf-8", "replace")[-3000:]
    return outcome


def worker(paths_file: str):
    """The API worker: compiles each listed mutant, one JSON line per case, with a "start" line
    first so that the parent knows which case crashed or hung."""
    sys.setrecursionlimit(10000)
    from weft import _runtime

    compiler = [os.environ.get("CXX", "g++"), "-x", "c++", "-std=c++20", "-fsyntax-only", "-DWEFT_HOST",
                f"-I{_runtime.include_dir()}", "-"]
    for line in pathlib.Path(paths_file).read_text().splitlines():
        case_id, path = json.loads(line)
        print(json.dumps({"start": case_id}), flush=True)
        outcome, detail = api_case(pathlib.Path(path), compiler)
        print(json.dumps({"id": case_id, "outcome": outcome, "detail": detail}), flush=True)


def _forward(stream, lines: queue.Queue):
    """Moves a worker's output lines to a queue the parent reads with a timeout; None at the end."""
    for line in stream:
        lines.put(line)
    lines.put(None)


def run_api(cases: list, work: pathlib.Path) -> None:
    """Runs the API worker over the cases, restarting it after a crash or a hang."""
    pending = list(cases)
    while pending:
        listing = work / f"api_{os.getpid()}_{pending[0].id}.jsonl"
        listing.write_text("".join(json.dumps([c.id, str(work / f"m{c.id}.py")]) + "\n" for c in pending))
        proc = subprocess.Popen([sys.executable, "-m", "tests.fuzz.malformed", "--worker", str(listing)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=pathlib.Path(__file__).parents[2])
        lines = queue.Queue()
        threading.Thread(target=_forward, args=(proc.stdout, lines), daemon=True).start()
        by_id = {c.id: c for c in pending}
        current = None
        while True:
            try:
                line = lines.get(timeout=API_TIMEOUT)
            except queue.Empty:
                proc.kill()
                by_id[current].outcomes["api"] = ("hang", f"no answer in {API_TIMEOUT} s")
                break
            if line is None:
                proc.wait()
                if current is not None and "api" not in by_id[current].outcomes:
                    code = proc.returncode
                    name = signal.Signals(-code).name if code is not None and code < 0 else f"exit {code}"
                    stderr = proc.stderr.read().decode("utf-8", "replace")[-1500:]
                    by_id[current].outcomes["api"] = ("crash", f"worker died ({name}): {stderr}")
                break
            message = json.loads(line)
            if "start" in message:
                current = message["start"]
            else:
                by_id[message["id"]].outcomes["api"] = (message["outcome"], message["detail"])
        done = {c.id for c in pending if "api" in c.outcomes}
        pending = [c for c in pending if c.id not in done]


FAILURES = {"hang", "crash", "ice", "generated-code-error", "unclean-error", "diagnostic-without-location",
            "exception", "recursion-error"}


def make_cases(seed: int, count: int, nesting: bool = True) -> list:
    """`count` mutants from `seed`: each of a seed kernel or a generated program, with one to
    three mutations."""
    from . import generator, ir, seeds

    rng = random.Random(f"malformed {seed}")
    sources = dict(seeds.seed_sources())
    small = generator.Config(max_statements=3, max_helpers=1, max_expr_depth=2)
    for k in range(4):
        sources[f"generated{k}"] = ir.program_module(generator.generate((seed, "malformed", k), f"g{k}", small))
    mutator = Mutator(rng, nesting)
    cases = []
    for case_id in range(count):
        name = rng.choice(sorted(sources))
        text = sources[name]
        mutations = []
        for _ in range(rng.choice([1, 1, 1, 2, 3])):
            text, what = mutator.mutate(text)
            mutations.append(what)
        cases.append(Case(case_id, name, mutations, text))
    return cases


def run(seed: int, count: int, work: pathlib.Path, weftc: str, nesting: bool = True, log=print, jobs: int = 1) -> dict:
    """Generates and checks `count` mutants (`jobs` weftc processes at a time); the report counts
    outcomes per mode and lists failures (each with its mutant text)."""
    work.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    cases = make_cases(seed, count, nesting)
    for case in cases:
        (work / f"m{case.id}.py").write_text(case.text, errors="surrogatepass")
    if weftc:
        import concurrent.futures

        with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as pool:
            outcomes = pool.map(lambda case: run_weftc(weftc, work / f"m{case.id}.py"), cases)
            for case, outcome in zip(cases, outcomes):
                case.outcomes["weftc"] = outcome
    api_cases = [case for case in cases if safe_for_import(case.text)]
    run_api(api_cases, work)
    counts = {}
    failures = []
    for case in cases:
        for mode, (outcome, detail) in case.outcomes.items():
            counts.setdefault(mode, {}).setdefault(outcome, 0)
            counts[mode][outcome] += 1
            if outcome in FAILURES:
                failures.append({"id": case.id, "mode": mode, "outcome": outcome, "detail": detail, "seed": case.seed,
                                 "mutations": case.mutations,
                                 "text": case.text if len(case.text) < 20000 else case.text[:20000] + "\n# ... (cut)"})
    log(f"malformed: {count} mutants, {len(api_cases)} through the API, {len(failures)} failures "
        f"({time.monotonic() - started:.0f} s)")
    return {"seed": seed, "mutants": count, "seconds": round(time.monotonic() - started, 1), "counts": counts,
            "failures": failures}


def _main():
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        worker(sys.argv[2])
        return
    raise SystemExit("usage: python -m tests.fuzz.malformed --worker LISTING (run by tests.fuzz)")


if __name__ == "__main__":
    _main()


__all__ = ["Case", "FAILURES", "Mutator", "classify_weftc", "make_cases", "run", "safe_for_import"]
