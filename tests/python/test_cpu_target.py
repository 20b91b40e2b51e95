"""The CPU target's block runner (docs/cpu.md): warp collectives in partial warps and with lanes
that have returned, as on the GPU; per-thread local arrays larger than a default stack, with and
without barriers, on any launching thread; a stack overflow that becomes weft.CudaError; the
local-memory limit sema enforces; spin-waits on atomics within a block and across blocks; the
first failure cancelling the rest of a grid; Ctrl-C stopping any CPU launch. Checked against
NumPy on seeded random data. The tests that could hang or crash an unfixed runner run in a child
process with a time limit.

test_cpu_target_gpu.py runs the collective tests on the GPU by overriding the `target` fixture.
"""

import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import weft
from cuda import device
from launching import line_of, run

FULL = 0xFFFFFFFF


@pytest.fixture(scope="module")
def target():
    return "cpu"


def mask_of(lanes):
    return sum(1 << int(k) for k in lanes)


# ---- warp collectives: lanes past the block's end and lanes that returned do not exist ----


@device.kernel
def partial_warp(x, match_lanes, match_same, match_any, ballots, alls, anys, eqs, shuffled, active):
    i = device.tid(1)
    v = x[i]
    lanes, same = device.match_all_sync(FULL, v // 1000)
    match_lanes[i] = lanes
    match_same[i] = same
    match_any[i] = device.match_any_sync(FULL, v % 3)
    ballots[i] = device.ballot_sync(FULL, lambda: v > 50)
    alls[i] = device.all_sync(FULL, lambda: v >= 0)
    anys[i] = device.any_sync(FULL, lambda: v > 90)
    eqs[i] = device.eq_sync(FULL, lambda: v >= 0)
    shuffled[i] = device.shfl_xor_sync(FULL, v, 1)
    active[i] = device.activemask()


def test_collectives_of_a_block_smaller_than_a_warp(target):
    rng = np.random.default_rng(81)
    n = 10
    x = rng.integers(0, 100, n).astype(np.int32)
    outs = [np.zeros(n, t) for t in (np.uint32, np.bool_, np.uint32, np.uint32, np.bool_, np.bool_, np.bool_, np.int32, np.uint32)]
    run(target, partial_warp, x, *outs, block=n)
    match_lanes, match_same, match_any, ballots, alls, anys, eqs, shuffled, active = outs
    existing = mask_of(range(n))
    assert (match_lanes == existing).all() and match_same.all()  # the 10 lanes, not 0xFFFFFFFF
    for t in range(n):
        assert match_any[t] == mask_of(k for k in range(n) if x[k] % 3 == x[t] % 3)
    assert (ballots == mask_of(k for k in range(n) if x[k] > 50)).all()
    assert alls.all() and eqs.all()
    assert (anys == (x > 90).any()).all()
    np.testing.assert_array_equal(shuffled, x[np.arange(n) ^ 1])
    assert (active == existing).all()


@device.kernel
def returned_lanes(x, match_lanes, ballots, alls, counts, ands, ors):
    i = device.tid(1)
    v = x[i]
    if device.thread_idx.x >= 20:
        return
    lanes, same = device.match_all_sync(FULL, v // 1000)
    match_lanes[i] = lanes
    ballots[i] = device.ballot_sync(FULL, lambda: v > 50)
    alls[i] = device.all_sync(FULL, lambda: v >= 0)
    counts[i] = device.syncthreads_count(lambda: v > 50)
    ands[i] = device.syncthreads_and(lambda: v >= 0)
    ors[i] = device.syncthreads_or(lambda: v > 95)


def test_lanes_that_returned_take_no_part(target):
    rng = np.random.default_rng(82)
    block = 32
    x = rng.integers(0, 100, block).astype(np.int32)
    x[25] = -5  # returned before the votes: it must not make all_sync or syncthreads_and false
    outs = [np.zeros(block, t) for t in (np.uint32, np.uint32, np.bool_, np.int32, np.bool_, np.bool_)]
    run(target, returned_lanes, x, *outs, block=block)
    match_lanes, ballots, alls, counts, ands, ors = outs
    live = slice(0, 20)
    assert (match_lanes[live] == mask_of(range(20))).all()
    assert (ballots[live] == mask_of(k for k in range(20) if x[k] > 50)).all()
    assert alls[live].all() and ands[live].all()
    assert (counts[live] == (x[:20] > 50).sum()).all()
    assert (ors[live] == (x[:20] > 95).any()).all()


# ---- local arrays and stacks ----

BIG = 100_000  # float32 elements: 400,000 bytes, more than the 256 KiB the CPU target gave a fiber


@device.kernel
def big_local_with_barrier(x, out):
    buf = device.local_array(BIG, device.float32)
    i = device.tid(1)
    for k in range(BIG):
        buf[k] = x[i] * (k % 7)
    device.syncthreads()
    total = device.float64(0)
    for k in range(BIG):
        total += buf[k]
    out[i] = total


@device.kernel
def big_local(x, out):
    buf = device.local_array(BIG, device.float32)
    i = device.tid(1)
    for k in range(BIG):
        buf[k] = x[i] + k % 5
    total = device.float64(0)
    for k in range(0, BIG, 3):
        total += buf[k]
    out[i] = total


def big_local_expected(x):
    k = np.arange(0, BIG, 3)
    return np.array([np.sum(np.float32(v) + (k % 5).astype(np.float32), dtype=np.float64) for v in x])


def test_local_array_larger_than_a_default_stack_with_a_barrier():
    rng = np.random.default_rng(83)
    x = rng.standard_normal(2 * 48).astype(np.float32)
    out = np.zeros(x.size)
    run("cpu", big_local_with_barrier, x, out, grid=2, block=48)
    per = np.sum((np.arange(BIG) % 7).astype(np.float32), dtype=np.float64)
    np.testing.assert_allclose(out, x.astype(np.float64) * per, rtol=1e-6)


def test_local_array_on_a_launching_thread_with_a_small_stack():
    # The threads of a block without barriers used to run on the launching thread's own stack.
    rng = np.random.default_rng(84)
    x = rng.standard_normal(64).astype(np.float32)
    out = np.zeros(x.size)
    errors = []

    def launch():
        try:
            run("cpu", big_local, x, out, grid=2, block=32)
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)

    previous = threading.stack_size(256 * 1024)
    try:
        worker = threading.Thread(target=launch)
        worker.start()
        worker.join()
    finally:
        threading.stack_size(previous)
    assert not errors, errors
    np.testing.assert_allclose(out, big_local_expected(x), rtol=1e-6)


def deep(n: device.int32, a) -> device.int32:
    if n == 0:
        return 0
    buf = device.local_array(256, device.int32)
    for k in range(256):
        buf[k] = a[k] + n
    r = deep(n - 1, a)
    return r ^ buf[(r + n) % 256]


@device.kernel
def recurse(a, depth, out):
    out[device.tid(1)] = deep(depth, a)


def deep_expected(a, n):
    r = 0
    for level in range(1, n + 1):
        r ^= int(a[(r + level) % 256]) + level
    return r


def test_a_stack_overflow_is_a_launch_error_and_the_runner_goes_on():
    rng = np.random.default_rng(85)
    a = rng.integers(0, 1000, 256).astype(np.int32)
    out = np.zeros(64, np.int32)
    run("cpu", recurse, a, 50, out, grid=2, block=32)  # a shallow recursion fits
    assert (out == deep_expected(a, 50)).all()
    with pytest.raises(weft.CudaError, match="overflowed its .*-byte stack"):
        run("cpu", recurse, a, 10_000_000, out, grid=2, block=32)
    out[:] = 0
    run("cpu", recurse, a, 60, out, grid=3, block=16)
    assert (out[:48] == deep_expected(a, 60)).all()


@device.kernel
def huge_local(out):
    buf = device.local_array(1 << 40, device.int8)
    buf[0] = 1
    out[0] = buf[0]


def takes_300k(a):
    buf = device.local_array(75_000, device.float32)
    buf[0] = a[0]
    return buf[0]


@device.kernel
def chained_locals(a):
    buf = device.local_array(75_000, device.float32)
    buf[1] = a[1]
    a[0] = takes_300k(a) + buf[1]


def test_local_memory_no_gpu_thread_has_is_a_compile_error():
    with pytest.raises(weft.CompileError, match=r"LocalArrayTooLarge") as info:
        run("cpu", huge_local, np.zeros(1, np.int8))
    assert f":{line_of(huge_local, 'local_array')}:" in str(info.value)
    assert "1099511627776 bytes" in str(info.value)
    with pytest.raises(weft.CompileError, match=r"LocalMemoryTooLarge") as info:
        run("cpu", chained_locals, np.zeros(2, np.float32))
    text = str(info.value)
    assert "600000 bytes" in text and "'takes_300k' called at line" in text


def test_weftc_rejects_a_local_array_no_gpu_can_hold(tmp_path):
    from test_sm90_ptxas import weftc_path

    source = tmp_path / "huge.py"
    source.write_text(
        "from cuda import device\n\n@device.kernel\ndef k(a: device.int8[:]):\n"
        "    buf = device.local_array(1 << 40, device.int8)\n    buf[0] = a[0]\n    a[1] = buf[0]\n"
    )
    proc = subprocess.run([weftc_path(), str(source), "--ptx", "-arch", "sm_90", "-o", str(tmp_path / "k.ptx")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0
    assert "huge.py:5:" in proc.stdout + proc.stderr and "LocalArrayTooLarge" in proc.stdout + proc.stderr


SM90_SOURCE = """
from cuda import device

@device.kernel
def spins(flags: device.int32[:], x: device.float32[:], out: device.float64[:]):
    buf = device.local_array(100000, device.float32)
    i = device.tid(1)
    for k in range(100000):
        buf[k] = x[i] * k
    while device.AtomicRef(flags, 0).load() == 0:
        pass
    total = device.float64(0)
    k = 0
    while k < 100000:
        total += buf[k]
        k += 1
    out[i] = total
"""


def test_big_locals_and_spin_loops_compile_for_sm90(tmp_path):
    from test_sm90_ptxas import compile_for_sm90

    _, ptx = compile_for_sm90(tmp_path, "cpu_target_loops", SM90_SOURCE)
    assert "__local_depot" in ptx  # the local array lives in the thread's local memory


# ---- in child processes: spin-waits, cancellation, Ctrl-C ----


def run_child(tmp_path, source, *args, timeout=240):
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent(source))
    env = dict(os.environ, PYTHONPATH=str(pathlib.Path(__file__).parent))
    return subprocess.run([sys.executable, str(script), *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=env)


SPIN_CHILD = """
import sys
import numpy as np
from cuda import device
from launching import run

@device.kernel
def spin_in_block(data, flag, box, out):
    t = device.thread_idx.x
    last = device.block_dim.x - 1
    if t == 0:
        # Waits for the block's last thread; nothing else of the kernel switches threads.
        while device.AtomicRef(flag, 0).load() == 0:
            pass
        out[0] = box[0] * 2
    if t == last:
        box[0] = data[0] + data[1]
        device.AtomicRef(flag, 0).store(1)

@device.kernel
def chain_of_blocks(data, ready, sums):
    b = device.block_idx.x
    if device.thread_idx.x == 0:
        # Block b needs block b + 1's suffix sum: it waits for a block that may not have started.
        after = device.float64(0)
        if b + 1 < device.grid_dim.x:
            while device.AtomicRef(ready, b + 1).load(memory="acquire") == 0:
                pass
            after = sums[b + 1]
        sums[b] = after + data[b]
        device.AtomicRef(ready, b).store(1, memory="release")

rng = np.random.default_rng(int(sys.argv[1]))
target = sys.argv[2]
data = rng.standard_normal(2).astype(np.float32)
flag, box, out = np.zeros(1, np.int32), np.zeros(1, np.float32), np.zeros(1, np.float32)
run(target, spin_in_block, data, flag, box, out, block=96)
print("in-block", out[0] == (data[0] + data[1]) * 2, flush=True)

blocks = 48
data = rng.standard_normal(blocks)
ready, sums = np.zeros(blocks, np.int32), np.zeros(blocks)
run(target, chain_of_blocks, data, ready, sums, grid=blocks, block=32)
print("chain", bool(np.allclose(sums, np.cumsum(data[::-1])[::-1])), flush=True)
"""


def test_spin_waits_on_atomics_let_other_threads_and_blocks_run(tmp_path, target):
    proc = run_child(tmp_path, SPIN_CHILD, 86, target, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "in-block True" in proc.stdout and "chain True" in proc.stdout, proc.stdout + proc.stderr


CANCEL_CHILD = """
import time
import numpy as np
from cuda import device
from launching import run

@device.kernel(debug=True)
def fails_while_others_spin(flags):
    b = device.block_idx.x
    assert b != 3
    while device.AtomicRef(flags, 0).load() == 0:
        pass

start = time.monotonic()
try:
    run("cpu", fails_while_others_spin, np.zeros(1, np.int32), grid=8, block=32)
except Exception as exc:
    print("raised", type(exc).__name__, str(exc).splitlines()[0], flush=True)
print("seconds", time.monotonic() - start, flush=True)
"""


def test_the_first_failure_cancels_the_blocks_still_running(tmp_path):
    proc = run_child(tmp_path, CANCEL_CHILD)
    assert proc.returncode == 0, proc.stderr
    assert "raised" in proc.stdout, proc.stdout + proc.stderr


INTERRUPT_CHILD = """
import signal
import sys
import numpy as np

# Ctrl-C raises KeyboardInterrupt even where the suite runs as a background job, whose children
# inherit SIGINT ignored (Python then leaves it ignored).
signal.signal(signal.SIGINT, signal.default_int_handler)
import weft
from cuda import device

@device.kernel
def forever(flag):
    flag[device.tid(1)] = 1
    while True:
        pass

@device.kernel
def spin_forever(flag, lock):
    flag[device.tid(1)] = 1
    while device.AtomicRef(lock, 0).load() == 0:
        pass

@device.kernel
def add_one(a):
    a[device.tid(1)] += 1

kernel = forever if sys.argv[2] == "loop" else spin_forever
flag = np.memmap(sys.argv[1], dtype=np.uint8, mode="r+", shape=(256,))
try:
    if kernel is forever:
        weft.launch(forever, flag, grid=8, block=32, target="cpu")
    else:
        weft.launch(spin_forever, flag, np.zeros(1, np.int32), grid=8, block=32, target="cpu")
    print("returned", flush=True)
except KeyboardInterrupt:
    print("KeyboardInterrupt", flush=True)
a = np.arange(64, dtype=np.int64)
weft.launch(add_one, a, grid=2, block=32, target="cpu")
print("after", bool((a == np.arange(64) + 1).all()), flush=True)
"""


@pytest.mark.parametrize("kind", ["loop", "atomic"])
def test_ctrl_c_stops_a_cpu_launch(tmp_path, kind):
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent(INTERRUPT_CHILD))
    flag_path = tmp_path / "flag"
    flag_path.write_bytes(bytes(256))
    env = dict(os.environ, PYTHONPATH=str(pathlib.Path(__file__).parent))
    child = subprocess.Popen([sys.executable, str(script), str(flag_path), kind], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.monotonic() + 240
        while flag_path.read_bytes()[0] == 0:  # the kernel runs once a thread has written its flag
            assert child.poll() is None, child.communicate()
            assert time.monotonic() < deadline, "the kernel never started"
            time.sleep(0.05)
        time.sleep(0.3)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=60)
        latency = time.monotonic() - sent
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 0, err
    assert "KeyboardInterrupt" in out and "after True" in out, out + err
    assert latency < 20, latency
