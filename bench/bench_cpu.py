"""weft's CPU target: what a barrier costs, the same kernels with and without barriers, and the
example kernels against numba-cuda's CUDA simulator (NUMBA_ENABLE_CUDASIM=1).

    python bench/bench_cpu.py [--quick]

Every weft number is the CPU target (no GPU needed); the simulator runs in a child process
(numba-cuda needs `np.row_stack = np.vstack` before import under NumPy 2). Where numba-cuda is
missing its column shows n/a. Prints two tables and, with OUT set, writes $OUT/bench_cpu.json:

1. Barriers: a loop of syncthreads() against the same loop without it (the difference, in CPU
   time over every worker, per barrier per thread), and vec_add with and without one barrier.
2. Kernels on both: vec_add, the block-sum reduction (examples/block_reduce.py) and a version
   without barriers (thread 0 of each block adds its block), the tiled matmul
   (examples/matmul_tiled.py) and a plain matmul without shared memory or barriers, and the
   barrier loop; each in weft and in numba-cuda's simulator on the same data, with the ratio
   simulator/weft (above 1: weft is faster).
"""

import json
import os
import pathlib
import statistics
import subprocess
import sys
import time
import traceback

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench  # noqa: E402
import kernels  # noqa: E402
from cuda import device  # noqa: E402

import weft  # noqa: E402

QUICK = "--quick" in sys.argv
REPEATS = 3 if QUICK else 7
SCALE = 1 if QUICK else 2  # the kernels-on-both sizes: the simulator takes seconds at SCALE 2

BLOCK = 256
ITERATIONS = 200


@device.kernel
def barrier_loop(x, out, iterations: int):
    i = device.tid(1)
    acc = x[i]
    for k in range(iterations):
        acc = acc * 0.5 + 1.0
        device.syncthreads()
    out[i] = acc


@device.kernel
def plain_loop(x, out, iterations: int):
    i = device.tid(1)
    acc = x[i]
    for k in range(iterations):
        acc = acc * 0.5 + 1.0
    out[i] = acc


@device.kernel
def vec_add_barrier(a, b, c):
    i = device.tid(1)
    device.syncthreads()
    if i < c.size:
        c[i] = a[i] + b[i]


@device.kernel
def block_sum_serial(x, partial):
    # The block-sum without barriers: thread 0 adds the block's elements itself.
    if device.thread_idx.x == 0:
        start = device.block_idx.x * device.block_dim.x
        total = device.float32(0)
        for k in range(device.block_dim.x):
            if start + k < x.size:
                total += x[start + k]
        partial[device.block_idx.x] = total


@device.kernel
def matmul_plain(A, B, C):
    col, row = device.tid(2)
    if row < C.shape[0] and col < C.shape[1]:
        acc = device.float32(0)
        for q in range(A.shape[1]):
            acc += A[row, q] * B[q, col]
        C[row, col] = acc


results = {}
checks = {}
errors = {}


def timed(launch, repeats=REPEATS):
    """(median wall seconds, median process CPU seconds) of `launch`, after one warm-up run."""
    launch()
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        launch()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def cpu_launch(kernel, grid, block, *args):
    return lambda: weft.launch(kernel, *args, grid=grid, block=block, target="cpu")


def record(name, fn):
    try:
        results[name] = fn()
    except Exception as exc:  # noqa: BLE001 - a failure leaves the rest of the table intact
        results[name] = None
        errors[name] = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
        if os.environ.get("BENCH_TRACEBACK"):
            traceback.print_exc()


def barrier_costs(rng):
    """The barrier's cost per thread, and vec_add with and without a barrier."""
    costs = {}
    blocks = 16 if QUICK else 64
    n = blocks * BLOCK
    x = rng.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    with_wall, with_cpu = timed(cpu_launch(barrier_loop, blocks, BLOCK, x, out, ITERATIONS))
    checks["barrier_loop"] = bool(np.allclose(out, loop_expected(x, ITERATIONS), rtol=1e-5))
    without_wall, without_cpu = timed(cpu_launch(plain_loop, blocks, BLOCK, x, out, ITERATIONS))
    costs["ns_per_barrier_per_thread"] = (with_cpu - without_cpu) / (n * ITERATIONS) * 1e9
    costs["loop_with_barriers_ms"] = with_wall * 1e3
    costs["loop_without_ms"] = without_wall * 1e3

    m = 1 << 22
    a, b = rng.standard_normal(m).astype(np.float32), rng.standard_normal(m).astype(np.float32)
    c = np.zeros(m, np.float32)
    costs["vec_add_with_barrier_ms"] = timed(cpu_launch(vec_add_barrier, m // BLOCK, BLOCK, a, b, c))[0] * 1e3
    checks["vec_add_barrier"] = bool(np.array_equal(c, a + b))
    vec = kernels.load_example("vec_add").vec_add
    costs["vec_add_ms"] = timed(cpu_launch(vec, m // BLOCK, BLOCK, a, b, c))[0] * 1e3
    return costs


def loop_expected(x, iterations):
    acc = x.astype(np.float32)
    for _ in range(iterations):
        acc = acc * np.float32(0.5) + np.float32(1.0)
    return acc


# ---- kernels on both weft and the simulator ----


def problem_sizes():
    return {
        "vec_add": 4096 * SCALE,
        "block_sum": 4096 * SCALE,
        "matmul": 32 * SCALE,
        "barrier_loop": (2 * SCALE, 64, 16),  # blocks, threads, iterations
    }


def weft_kernels(rng, sizes):
    """{name: seconds} for weft's CPU target on the problems the simulator runs."""
    times = {}
    n = sizes["vec_add"]
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    c = np.zeros(n, np.float32)
    vec = kernels.load_example("vec_add").vec_add
    times["vec_add"] = timed(cpu_launch(vec, n // BLOCK, BLOCK, a, b, c))[0]

    reduce = kernels.load_example("block_reduce")
    n = sizes["block_sum"]
    x = rng.standard_normal(n).astype(np.float32)
    blocks = n // reduce.BLOCK
    partial = np.zeros(blocks, np.float32)
    times["block_sum"] = timed(cpu_launch(reduce.block_sum, blocks, reduce.BLOCK, x, partial))[0]
    checks["block_sum"] = bool(np.allclose(partial, x.reshape(blocks, -1).sum(axis=1), rtol=1e-4, atol=1e-4))
    times["block_sum_no_barrier"] = timed(cpu_launch(block_sum_serial, blocks, reduce.BLOCK, x, partial))[0]

    tile = kernels.TILE
    n = sizes["matmul"]
    A, B = rng.standard_normal((n, n)).astype(np.float32), rng.standard_normal((n, n)).astype(np.float32)
    C = np.zeros((n, n), np.float32)
    mm = kernels.load_example("matmul_tiled").matmul
    times["matmul"] = timed(cpu_launch(mm, (n // tile, n // tile), (tile, tile), A, B, C))[0]
    checks["matmul"] = bool(np.allclose(C, A.astype(np.float64) @ B.astype(np.float64), rtol=1e-3, atol=1e-3))
    times["matmul_no_barrier"] = timed(cpu_launch(matmul_plain, (n // tile, n // tile), (tile, tile), A, B, C))[0]

    blocks, threads, iterations = sizes["barrier_loop"]
    x = rng.standard_normal(blocks * threads).astype(np.float32)
    out = np.zeros_like(x)
    times["barrier_loop"] = timed(cpu_launch(barrier_loop, blocks, threads, x, out, iterations))[0]
    times["barrier_loop_no_barrier"] = timed(cpu_launch(plain_loop, blocks, threads, x, out, iterations))[0]
    return times


# The simulator's kernels, in numba-cuda's dialect, doing what the weft kernels above do.
SIMULATOR_CHILD = r"""
import json, sys, time
import numpy as np
np.row_stack = getattr(np, "row_stack", np.vstack)
from numba import cuda, float32

sizes = json.loads(sys.argv[1])
TILE, BLOCK, REDUCE = 16, 256, 128

@cuda.jit
def vec_add(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]

@cuda.jit
def block_sum(x, partial):
    buf = cuda.shared.array(REDUCE, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    buf[t] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    step = REDUCE // 2
    while step > 0:
        if t < step:
            buf[t] += buf[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = buf[0]

@cuda.jit
def matmul(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    col, row = cuda.grid(2)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    acc = float32(0.0)
    for t in range((A.shape[1] + TILE - 1) // TILE):
        sA[ty, tx] = A[row, t * TILE + tx]
        sB[ty, tx] = B[t * TILE + ty, col]
        cuda.syncthreads()
        for q in range(TILE):
            acc += sA[ty, q] * sB[q, tx]
        cuda.syncthreads()
    C[row, col] = acc

@cuda.jit
def barrier_loop(x, out, iterations):
    i = cuda.grid(1)
    acc = x[i]
    for k in range(iterations):
        acc = acc * 0.5 + 1.0
        cuda.syncthreads()
    out[i] = acc

def seconds(launch):
    start = time.perf_counter()
    launch()
    return time.perf_counter() - start

rng = np.random.default_rng(7)
times = {}
n = sizes["vec_add"]
a, b, c = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32), np.zeros(n, np.float32)
times["vec_add"] = seconds(lambda: vec_add[n // BLOCK, BLOCK](a, b, c))
n = sizes["block_sum"]
x, partial = rng.standard_normal(n).astype(np.float32), np.zeros(n // REDUCE, np.float32)
times["block_sum"] = seconds(lambda: block_sum[n // REDUCE, REDUCE](x, partial))
n = sizes["matmul"]
A, B, C = (rng.standard_normal((n, n)).astype(np.float32) for _ in range(3))
times["matmul"] = seconds(lambda: matmul[(n // TILE, n // TILE), (TILE, TILE)](A, B, C))
blocks, threads, iterations = sizes["barrier_loop"]
x = rng.standard_normal(blocks * threads).astype(np.float32)
out = np.zeros_like(x)
times["barrier_loop"] = seconds(lambda: barrier_loop[blocks, threads](x, out, iterations))
print(json.dumps(times))
"""


def simulator_kernels(sizes):
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    proc = subprocess.run([sys.executable, "-c", SIMULATOR_CHILD, json.dumps(sizes)], capture_output=True, text=True,
                          timeout=1800, env=env)
    if proc.returncode != 0:
        raise RuntimeError((proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1])
    return json.loads(proc.stdout.strip().splitlines()[-1])


def ms(value):
    return bench.fmt(None if value is None else value * 1e3)


def main():
    rng = np.random.default_rng(2024)
    sizes = problem_sizes()
    record("barriers", lambda: barrier_costs(rng))
    record("weft", lambda: weft_kernels(rng, sizes))
    record("simulator", lambda: simulator_kernels(sizes))
    workers = os.cpu_count()
    lines = [f"weft CPU target benchmark ({workers} CPUs, {bench.versions()['python']})"]
    costs = results.get("barriers")
    if costs:
        lines += [
            f"barrier: {costs['ns_per_barrier_per_thread']:.1f} ns per barrier per thread (CPU time of every worker; "
            f"{ITERATIONS} iterations take {costs['loop_with_barriers_ms']:.1f} ms, "
            f"{costs['loop_without_ms']:.1f} ms without the barrier)",
            f"vec_add 2^22 f32: {costs['vec_add_with_barrier_ms']:.2f} ms with one syncthreads(), "
            f"{costs['vec_add_ms']:.2f} ms without ({costs['vec_add_with_barrier_ms'] / costs['vec_add_ms']:.2f}x)",
        ]
    weft_times = results.get("weft") or {}
    sim_times = results.get("simulator") or {}
    header = f"{'kernel (ms)':<34}{'weft cpu':>10}{'no barrier':>12}{'numba sim':>12}{'sim/weft':>10}"
    lines += ["", header, "-" * len(header)]
    labels = {
        "vec_add": f"vec_add {sizes['vec_add']} f32",
        "block_sum": f"block-sum reduction {sizes['block_sum']} f32",
        "matmul": f"tiled matmul {sizes['matmul']}^2 f32",
        "barrier_loop": "barrier loop {}x{} threads, {} its".format(*sizes["barrier_loop"]),
    }
    for name, label in labels.items():
        mine, plain, sim = weft_times.get(name), weft_times.get(f"{name}_no_barrier"), sim_times.get(name)
        ratio = "n/a" if not mine or not sim else f"{sim / mine:.0f}"
        lines.append(f"{label:<34}{ms(mine):>10}{ms(plain):>12}{ms(sim):>12}{ratio:>10}")
    print("\n".join(lines))
    if checks:
        print("results checked against NumPy: " + ", ".join(f"{k} {'ok' if v else 'WRONG'}" for k, v in checks.items()))
    for key, message in errors.items():
        print(f"n/a {key}: {message}")
    out = os.environ.get("OUT")
    if out:
        report = {"versions": bench.versions(), "cpus": workers, "sizes": sizes, "results": results, "checks": checks,
                  "errors": errors, "table": lines}
        pathlib.Path(out, "bench_cpu.json").write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
