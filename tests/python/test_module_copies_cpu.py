"""Copies of one module (importlib.reload, or one file imported under two names): each copy's
kernels launch with its own struct classes, although the copies generate the same code and
share it once loaded; a reloaded module that was edited runs its new source, and reports its new
assert messages even when the code is the same. Checked against NumPy on seeded random data.

test_module_copies_gpu.py runs these tests on the GPU by overriding the `target` fixture.
"""

import importlib
import importlib.util
import itertools
import os
import sys

import numpy as np
import pytest

from launching import run

MODULE = '''
from cuda import device

@device.struct
class V:
    x: device.float32
    y: device.int32

@device.kernel
def scale(v, out):
    i = device.tid(1)
    if i < out.size:
        out[i] = out[i] * v.x + v.y

@device.kernel
def scale_declared(v: V, out):
    i = device.tid(1)
    if i < out.size:
        out[i] = out[i] * v.x - v.y
'''

names = itertools.count()


@pytest.fixture(scope="module")
def target():
    return "cpu"


def unique_name():
    return f"weft_module_copy_{os.getpid()}_{next(names)}"


def load_copy(path):
    """A new module object for the file `path`, under a name no other test uses."""
    name = unique_name()
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def import_new(directory, text, monkeypatch):
    """Imports `text` as a new module of `directory` (on sys.path, so importlib.reload finds it);
    returns the module and its file."""
    name = unique_name()
    path = directory / f"{name}.py"
    rewrite(path, text)
    monkeypatch.syspath_prepend(str(directory))
    return importlib.import_module(name), path


def check_scale(target, module, rng, declared=False):
    x, y = float(rng.uniform(-3, 3)), int(rng.integers(-50, 50))
    data = rng.standard_normal(200).astype(np.float32)
    out = data.copy()
    kernel = module.scale_declared if declared else module.scale
    run(target, kernel, module.V(x, y), out, grid=2, block=128)
    expected = data * np.float32(x) + (-y if declared else y)
    np.testing.assert_allclose(out, expected, rtol=1e-6, atol=1e-5)


def test_two_copies_of_a_module_launch_with_their_own_struct_classes(target, tmp_path, rng):
    path = tmp_path / "copies.py"
    path.write_text(MODULE)
    a, b = load_copy(path), load_copy(path)
    assert a.V is not b.V
    for module in (a, b, a, b):
        check_scale(target, module, rng)
        check_scale(target, module, rng, declared=True)
    # A parameter declared `v: V` takes its own module's V, not a namesake from the other copy.
    out = np.zeros(4, np.float32)
    with pytest.raises(TypeError, match="parameter 'v': expected V, got another struct class named V"):
        run(target, a.scale_declared, b.V(1.0, 2), out, block=4)


def test_a_reloaded_module_launches_with_its_new_classes(target, tmp_path, rng, monkeypatch):
    module, _ = import_new(tmp_path, MODULE, monkeypatch)
    old_scale, old_v = module.scale_declared, module.V
    check_scale(target, module, rng, declared=True)
    importlib.reload(module)
    assert module.V is not old_v
    check_scale(target, module, rng, declared=True)
    check_scale(target, module, rng)
    # The kernel of before the reload keeps its own class.
    data = rng.standard_normal(8).astype(np.float32)
    out = data.copy()
    run(target, old_scale, old_v(2.0, 1), out, block=8)
    np.testing.assert_allclose(out, data * 2 - 1, rtol=1e-6)


def rewrite(path, text):
    """Writes `text` to `path` with a later modification time, as an edit in an editor would."""
    stamp = path.stat().st_mtime if path.exists() else 0
    path.write_text(text)
    os.utime(path, (stamp + 2, stamp + 2))


EDITED = '''
from cuda import device

@device.kernel(debug=True)
def shift(out):
    i = device.tid(1)
    assert out[i] < 1000, "{message}"
    out[i] = out[i] + {amount}
'''


def test_a_reloaded_module_runs_its_edited_source(target, tmp_path, rng, monkeypatch):
    module, path = import_new(tmp_path, EDITED.format(message="first message", amount=1), monkeypatch)
    data = rng.integers(-100, 100, 64).astype(np.int32)
    out = data.copy()
    run(target, module.shift, out, block=64)
    np.testing.assert_array_equal(out, data + 1)
    rewrite(path, EDITED.format(message="first message", amount=7))
    importlib.reload(module)
    out = data.copy()
    run(target, module.shift, out, block=64)
    np.testing.assert_array_equal(out, data + 7)
    # Only the assert's message changes: the same code, with the new message.
    rewrite(path, EDITED.format(message="second message", amount=7))
    importlib.reload(module)
    out = data.copy()
    out[17] = 5000
    with pytest.raises(AssertionError, match="second message"):
        run(target, module.shift, out, block=64)
