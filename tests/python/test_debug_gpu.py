"""Run-time checks on the GPU (marker `gpu`, skipped without one): the tests of
test_debug_cpu.py that take `target` run again with target "gpu" (debug=True and
boundscheck=True kernels read the device-side error record after the kernel; no trap, so the
context stays usable), plus what only the GPU has: launches on several streams, the default
(unchecked) GPU code, and compute-sanitizer naming the Python file and line of a fault in a
kernel compiled without debug (-lineinfo)."""

import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import weft
from cuda import device

from test_debug_cpu import (  # noqa: F401  (the tests are collected again under this module)
    test_a_failing_thread_of_a_block_with_barriers_stops_and_is_reported,
    test_a_store_out_of_bounds_raises_index_error_and_writes_nothing,
    test_a_view_is_checked_against_its_own_shape_and_its_neighbours_stay,
    test_assert_raises_assertion_error_with_its_message_and_line,
    test_atomics_on_elements_are_checked,
    test_augmented_integer_modulo_by_zero_raises,
    test_boundscheck_false_compiles_no_checks,
    test_classic_jit_debug_checks_too,
    test_dynamic_shared_memory_is_checked_against_its_launch_size,
    test_every_rank_reports_the_failing_axis_the_index_and_the_shape,
    test_failed_view_preconditions_raise_value_error,
    test_float_division_by_zero_stays_ieee_with_debug,
    test_integer_division_by_zero_raises_zero_division_error,
    test_shared_and_local_arrays_are_checked,
    test_the_lowest_failing_thread_is_reported_every_time,
    test_views_tuple_indices_and_slicing_indices_are_checked,
)

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def target():
    return "gpu"


@device.kernel(boundscheck=True)
def checked_store(a, i, v):
    a[i] = v


@device.kernel
def window_read(buf, lo, hi, i, out):
    out[0] = buf[lo:hi][i]


def test_gpu_code_is_unchecked_by_default_and_checked_on_request(rng):
    # Default: no check (reading past a window stays inside `buf`, and reads the neighbour).
    buf = rng.standard_normal(16)
    d, out = weft.to_device(buf), weft.zeros(1, np.float64)
    weft.launch(window_read, d, 4, 8, 6, out, grid=1, block=1, target="gpu")
    assert out.copy_to_host()[0] == buf[10]
    assert window_read.boundscheck is None
    # boundscheck=True: the GPU checks, and the context stays healthy after the failure.
    a = weft.to_device(np.arange(8.0))
    with pytest.raises(IndexError, match="index 8 is out of bounds for axis 0 with size 8"):
        weft.launch(checked_store, a, 8, 1.0, grid=1, block=32, target="gpu")
    weft.launch(checked_store, a, -1, 1.0, grid=1, block=32, target="gpu")
    weft.synchronize()
    np.testing.assert_array_equal(a.copy_to_host(), [0, 1, 2, 3, 4, 5, 6, 1.0])


@device.kernel(debug=True)
def checked_scale(a, k, n):
    i = device.tid(1)
    if i < n:
        a[i] = a[i] * k


def test_checked_launches_on_several_streams_each_report_their_own_failure(rng):
    core = pytest.importorskip("cuda.core")
    if not hasattr(core, "Device"):
        core = pytest.importorskip("cuda.core.experimental")
    dev = core.Device()
    dev.set_current()
    streams = [dev.create_stream() for _ in range(3)]
    data = [rng.standard_normal(1000) for _ in streams]
    arrays = [weft.to_device(x) for x in data]
    # Each checked launch synchronizes its stream to read the record, so a launch sees only
    # its own failure: the good launches finish, the bad one (n past the end) raises.
    for s, (stream, a) in enumerate(zip(streams, arrays)):
        n = 1000 + 24 * (s == 1)
        if s == 1:
            with pytest.raises(IndexError, match="index 1000 is out of bounds"):
                weft.launch(checked_scale, a, 2.0, n, grid=8, block=128, stream=stream, target="gpu")
        else:
            weft.launch(checked_scale, a, 2.0, n, grid=8, block=128, stream=stream, target="gpu")
    for stream in streams:
        stream.sync()
    for s, (x, a) in enumerate(zip(data, arrays)):
        expected = x * 2.0
        if s != 1:
            np.testing.assert_array_equal(a.copy_to_host(), expected)


OUT_OF_BOUNDS_SCRIPT = """
import numpy as np
import weft
from cuda import device


@device.kernel
def write_far(a, index):
    if device.tid(1) == 0:
        a[index] = 1.0


a = weft.zeros(16, np.float32)
weft.launch(write_far, a, 1 << 24, grid=1, block=32, target="gpu")
weft.synchronize()
"""


def test_compute_sanitizer_names_the_python_file_and_line(tmp_path):
    sanitizer = pathlib.Path(os.environ.get("CUDA_HOME", "/usr/local/cuda")) / "bin" / "compute-sanitizer"
    if not sanitizer.exists():
        pytest.skip(f"no {sanitizer}")
    script = tmp_path / "out_of_bounds.py"
    script.write_text(OUT_OF_BOUNDS_SCRIPT)
    env = dict(os.environ, WEFT_CACHE="0")
    proc = subprocess.run([str(sanitizer), "--tool", "memcheck", sys.executable, str(script)], capture_output=True,
                          text=True, timeout=600, env=env)
    report = proc.stdout + proc.stderr
    line = OUT_OF_BOUNDS_SCRIPT.splitlines().index("        a[index] = 1.0") + 1
    assert "Invalid __global__ write" in report, report
    assert f"out_of_bounds.py:{line}" in report, report


def test_the_context_survives_a_failed_check():
    a = weft.to_device(np.arange(4.0))
    with pytest.raises(IndexError):
        weft.launch(checked_store, a, 4, 1.0, grid=1, block=1, target="gpu")
    # No trap: memory and other kernels still work.
    b = weft.to_device(np.arange(3.0))
    weft.launch(window_read, b, 0, 3, 2, a, grid=1, block=1, target="gpu")
    weft.synchronize()
    assert a.copy_to_host()[0] == 2.0
