"""Kernels without a source file (issue 10, item 6): a kernel made by exec (or typed at the plain
REPL) gets a CompileError that says how to make its text available, and works when the text was
registered with linecache, as IPython and Jupyter register their cells."""

import linecache

import numpy as np
import pytest

import weft
from classic_support import target  # noqa: F401

KERNEL_TEXT = """\
from weft import cuda

@cuda.jit
def scale_and_shift(a, s):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = a[i] * s + i
"""

HELPER_TEXT = """\
import math
from weft import cuda

@cuda.jit(device=True)
def hyp(x, y):
    return math.sqrt(x * x + y * y)

@cuda.jit("void(float64[:], float64[:], float64[:])")
def norms(x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = hyp(x[i], y[i])
"""


def _register_cell(text: str, name: str) -> None:
    """What IPython's compiler does for a cell: its text in linecache under the cell's name, with
    no modification time (linecache.checkcache leaves such entries alone)."""
    linecache.cache[name] = (len(text), None, text.splitlines(True), name)


@pytest.mark.parametrize("cell", ["<ipython-input-7-5f1c2a9d3e4b>", "/tmp/ipykernel_4242/1234567.py"])
def test_a_kernel_from_a_registered_cell_runs(target, rng, cell):
    _register_cell(KERNEL_TEXT, cell)
    namespace = {}
    exec(compile(KERNEL_TEXT, cell, "exec"), namespace)
    a = rng.standard_normal(70)
    expected = a * 3 + np.arange(70)
    namespace["scale_and_shift"][3, 32](a, 3.0)
    np.testing.assert_allclose(a, expected, rtol=1e-13)


def test_a_cell_with_a_device_function_and_a_signature(target, rng):
    cell = "<ipython-input-8-77aa00bb11cc>"
    _register_cell(HELPER_TEXT, cell)
    namespace = {}
    exec(compile(HELPER_TEXT, cell, "exec"), namespace)  # the signature compiles it here
    x, y = rng.standard_normal(50), rng.standard_normal(50)
    out = np.zeros(50)
    namespace["norms"][2, 32](x, y, out)
    np.testing.assert_allclose(out, np.hypot(x, y), rtol=1e-13)


def test_a_kernel_made_by_exec_says_how_to_make_its_source_available():
    namespace = {}
    exec(compile(KERNEL_TEXT, "<string>", "exec"), namespace)
    with pytest.raises(weft.CompileError, match=r"cannot compile kernel 'scale_and_shift': its source code is "
                                                r"not available \(<string> is not a file.*linecache\.cache\[name\]"):
        namespace["scale_and_shift"][1, 1](np.zeros(1), 1.0)


def test_a_signature_kernel_made_by_exec_fails_at_its_definition():
    with pytest.raises(weft.CompileError, match=r"kernel 'norms': its source code is not available"):
        exec(compile(HELPER_TEXT, "<stdin>", "exec"), {})
