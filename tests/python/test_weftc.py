"""weftc, the command-line compiler: stages, outputs, diagnostics and exit codes.

The weftc under test is $WEFTC, else the one installed next to this Python, else the one on PATH.
"""

import ast
import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest


def find_weftc():
    candidates = [os.environ.get("WEFTC"), os.path.join(os.path.dirname(sys.executable), "weftc"),
                  shutil.which("weftc")]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


WEFTC = find_weftc()
pytestmark = pytest.mark.skipif(WEFTC is None, reason="weftc is not installed")

ANNOTATED = textwrap.dedent("""
    from cuda import device


    @device.kernel
    def saxpy(alpha: device.float32, x: device.float32[:], y: device.float32[:], out: device.float32[:]):
        i = device.tid(1)
        if i < out.size:
            out[i] = alpha * x[i] + y[i]


    @device.kernel
    def scale2d(a: device.float64[:, :], factor: device.float64):
        r, c = device.tid(2)
        if r < a.shape[0] and c < a.shape[1]:
            a[r, c] *= factor


    @device.kernel
    def not_annotated(a):
        a[0] = 1
""")

BROKEN = textwrap.dedent("""
    from cuda import device


    @device.kernel
    def broken(x: device.float32[:]):
        i = device.tid(1)
        x[i] = undefined_thing
""")


def weftc(*args, cwd=None):
    return subprocess.run([WEFTC, *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=300)


@pytest.fixture
def annotated(tmp_path):
    path = tmp_path / "kernels.py"
    path.write_text(ANNOTATED)
    return path


def test_help_and_usage_errors(tmp_path):
    result = weftc("--help")
    assert result.returncode == 0 and "usage: weftc" in result.stdout
    assert weftc().returncode == 2
    assert weftc("--frobnicate", "x.py").returncode == 2
    assert weftc("-arch", "90", "x.py").returncode == 2
    assert weftc("-o").returncode == 2
    missing = weftc(tmp_path / "missing.py")
    assert missing.returncode == 1 and "cannot read" in missing.stderr


def test_dump_ast_matches_cpython(annotated):
    result = weftc("--dump-ast", annotated)
    assert result.returncode == 0, result.stderr
    assert result.stdout == ast.dump(ast.parse(ANNOTATED)) + "\n"


def test_emit_cuda(annotated):
    result = weftc("--emit-cuda", annotated)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("__global__") >= 2
    assert "saxpy" in result.stdout and "scale2d" in result.stdout
    assert "not_annotated" not in result.stdout
    assert f'#line' in result.stdout and str(annotated) in result.stdout


def test_ptx(annotated, tmp_path):
    result = weftc("--ptx", annotated)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count(".visible .entry") == 2
    assert ".target sm_90" in result.stdout
    out = tmp_path / "k.ptx"
    result = weftc("--ptx", "-arch", "sm_80", "-o", out, annotated)
    assert result.returncode == 0, result.stderr
    assert ".target sm_80" in out.read_text()


def test_cubin(annotated, tmp_path):
    result = weftc("--cubin", "-o", tmp_path / "out.cubin", annotated)
    assert result.returncode == 0, result.stderr
    for kernel in ("saxpy", "scale2d"):
        data = (tmp_path / f"out.{kernel}.cubin").read_bytes()
        assert data[:4] == b"\x7fELF"
    # Without -o: FILE.KERNEL.cubin in the current directory.
    work = tmp_path / "work"
    work.mkdir()
    result = weftc(annotated, cwd=work)
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in work.iterdir()) == ["kernels.saxpy.cubin", "kernels.scale2d.cubin"]


def test_errors_are_reported_like_a_compiler(tmp_path):
    path = tmp_path / "broken.py"
    path.write_text(BROKEN)
    result = weftc("--emit-cuda", path)
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    match = re.match(rf"{re.escape(str(path))}:(\d+):(\d+): error: .*undefined_thing.* \[\w+\]$", lines[0])
    assert match, result.stderr
    assert int(match.group(1)) == 8
    assert lines[1].strip() == "x[i] = undefined_thing"
    caret = lines[2].index("^")
    assert lines[1][caret:].startswith("undefined_thing")
    assert result.stdout == ""


def test_syntax_errors(tmp_path):
    path = tmp_path / "syntax.py"
    path.write_text("def f(:\n    pass\n")
    result = weftc("--dump-ast", path)
    assert result.returncode == 1
    assert re.match(rf"{re.escape(str(path))}:1:\d+: error: ", result.stderr), result.stderr
    assert "^" in result.stderr


def test_print_include_dir():
    result = weftc("--print-include-dir")
    assert result.returncode == 0, result.stderr
    assert os.path.isdir(os.path.join(result.stdout.strip(), "weft", "device"))
