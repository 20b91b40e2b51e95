"""None in device code (issue 3, item 5): NoneType's one value, whose machine representation is
a null void*: a kernel argument, a local, a function argument, a tuple member, tested with
`is None` / `is not None` (decided by the types, at compile time)."""

import numpy as np
import pytest

import weft
from cuda import device


def scale_unless(factor, x):
    if factor is None:
        return x
    return x * factor


@device.kernel
def maybe_scale(a, factor, options):
    i = device.tid(1)
    nothing = None
    if i < a.size:
        a[i] = scale_unless(factor, a[i]) + scale_unless(nothing, options[1])
        if options[0] is not None:
            a[i] = -a[i]


TARGETS = ["cpu", pytest.param("gpu", marks=pytest.mark.gpu)]


def run(target, *args):
    if target == "gpu":
        d = weft.to_device(args[0], target="gpu")
        weft.launch(maybe_scale, d, *args[1:], grid=2, block=64, target="gpu")
        return d.copy_to_host()
    a = args[0].copy()
    weft.launch(maybe_scale, a, *args[1:], grid=2, block=64, target="cpu")
    return a


@pytest.mark.parametrize("target", TARGETS)
def test_none_arguments_locals_and_tuple_members(target, rng):
    a = rng.standard_normal(100).astype(np.float32)
    np.testing.assert_array_equal(run(target, a, None, (None, 2.5)), a + np.float32(2.5))
    # atol: the GPU contracts a * 3 + 2.5 into one fma, rounding once where NumPy rounds twice.
    np.testing.assert_allclose(run(target, a, 3.0, (None, 2.5)), a * np.float32(3) + np.float32(2.5), rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(run(target, a, None, (1, 2.5)), -(a + np.float32(2.5)))


def test_none_specializes_and_keeps_its_type():
    before = maybe_scale._compile_count
    a = np.zeros(8, np.float32)
    for factor in (None, 2.0, None):
        weft.launch(maybe_scale, a, factor, (None, 1.0), grid=1, block=8, target="cpu")
    assert maybe_scale._compile_count - before <= 2
    source = maybe_scale._emit_cuda(a, None, (None, 1.0), target="cpu")
    assert "void* " in source


def test_is_compares_with_none_only(tmp_path):
    path = tmp_path / "is_errors.py"
    path.write_text("from cuda import device\n\n@device.kernel\ndef k(a, b):\n    if a[0] is b[0]:\n        a[0] = 1\n")
    import importlib.util

    spec = importlib.util.spec_from_file_location("is_errors", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(weft.CompileError, match=r"'is' between two values that are not None.*compare numbers with =="):
        weft.launch(module.k, np.zeros(2), np.zeros(2), grid=1, block=1, target="cpu")
