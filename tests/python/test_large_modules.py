"""Files of thousands of functions: weftc and launches from Python take memory (and time) linear
in the file's size. Every function and class of a file shares one copy of its text, each file
is parsed once per compilation and its functions found through an index, and the unit's kernel
symbols are filled in one pass. Peak memory is measured in child processes; the tests compare
one size with four times it and bound the growth by the file's size (a quadratic one grows
sixteenfold), and the kernels' results are checked against NumPy on seeded random data.
"""

import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from test_weftc import WEFTC


def interop_file(count):
    """A weftc input like generated bindings: `count` definitions, a third of them interoperable
    functions, a third plain functions that call them and build a struct, a third kernels."""
    lines = ["from cuda import device", "", "@device.struct", "class P:", "    x: device.float32",
             "    y: device.float32", ""]
    for i in range(count):
        if i % 3 == 0:
            lines += ["@device.func(interop=True)", f"def f{i}(a: device.float32, b: device.float32) -> device.float32:",
                      f"    return a * b + {i % 7}", ""]
        elif i % 3 == 1:
            lines += [f"def g{i}(a, b):", f"    return f{i - 1}(a, b) - P(a, b).y", ""]
        else:
            lines += ["@device.kernel", f"def k{i}(x: device.float32[:], y: device.float32[:]):",
                      "    i = device.tid(1)", "    if i < x.size:", f"        y[i] = g{i - 1}(x[i], y[i])", ""]
    return "\n".join(lines)


def peak_kilobytes_of_weftc(source):
    """Runs weftc --emit-cuda on `source` in a child that reports its child's peak RSS (KiB):
    getrusage(RUSAGE_CHILDREN) of this process would include every earlier child's."""
    probe = textwrap.dedent(f"""
        import resource, subprocess, sys
        result = subprocess.run([{str(WEFTC)!r}, "--emit-cuda", {str(source)!r}], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, result.stdout.count("extern \\"C\\""))
        """)
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    peak, interop = result.stdout.split()
    return int(peak), int(interop)


@pytest.mark.skipif(WEFTC is None, reason="weftc is not installed")
def test_weftc_memory_grows_linearly_with_a_file_of_thousands_of_functions(tmp_path):
    peaks = {}
    for count in (750, 3000):
        source = tmp_path / f"bindings{count}.py"
        source.write_text(interop_file(count))
        peak, interop = peak_kilobytes_of_weftc(source)
        assert interop >= count // 3  # every interoperable function and kernel entry is in the unit
        # A generous linear bound: 64 MiB for weftc itself, then 1 KiB per byte of the file.
        assert peak < 64 * 1024 + source.stat().st_size, (count, peak, source.stat().st_size)
        peaks[count] = peak
    # Four times the functions: at most four times the memory, with room for weftc's own.
    assert peaks[3000] < 6 * peaks[750], peaks


def python_module(count):
    """A module of `count` plain functions and a kernel that calls each of them once."""
    lines = ["from cuda import device", ""]
    for i in range(count):
        lines += [f"def f{i}(a):", f"    return a * 0.5 + {i % 5}", ""]
    lines += ["@device.kernel", "def k(x):", "    i = device.tid(1)", "    if i < x.size:", "        a = x[i]"]
    lines += [f"        a = f{i}(a)" for i in range(count)]
    lines += ["        x[i] = a", ""]
    return "\n".join(lines)


CHILD = """
import importlib.util, resource, sys
import numpy as np
spec = importlib.util.spec_from_file_location("large_module", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
x = np.random.default_rng(int(sys.argv[2])).uniform(-100, 100, 64).astype(np.float32)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
unit = module.k._emit_cuda(x)
growth = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
if sys.argv[3] == "launch":
    expected = x.copy()
    for i in range(int(sys.argv[4])):
        expected = expected * np.float32(0.5) + np.float32(i % 5)
    import weft
    weft.launch(module.k, x, grid=1, block=64, target="cpu")
    np.testing.assert_allclose(x, expected, rtol=1e-5)
print(growth)
"""


def test_compiling_from_python_a_module_of_thousands_of_functions_takes_linear_memory(tmp_path, rng):
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = dict(os.environ, PYTHONPATH=str(pathlib.Path(__file__).parent))
    growth = {}
    for count, action in ((500, "launch"), (2000, "compile")):
        source = tmp_path / f"module{count}.py"
        source.write_text(python_module(count))
        result = subprocess.run([sys.executable, str(script), str(source), str(int(rng.integers(1 << 30))), action,
                                 str(count)], capture_output=True, text=True, timeout=300, env=env)
        assert result.returncode == 0, result.stdout + result.stderr
        growth[count] = int(result.stdout.split()[-1])
        # What the compilation adds to the process: at most 16 MiB plus 64 bytes per byte of the file.
        assert growth[count] < 16 * 1024 + source.stat().st_size * 64 // 1024, (count, growth[count])
    assert growth[2000] < 6 * growth[500] + 16 * 1024, growth
