"""weft against numba-cuda and CuPy RawKernel (CUDA C++ through NVRTC), from one run on one GPU.

    python bench/bench.py [--quick]

Prints one table: import time, first call of a small kernel with a cold and a warm disk cache,
launch overhead of a kernel with three array arguments, vec_add on 2^26 float32 and the tiled
2048x2048 float32 matrix multiply, each with the ratio weft/peer (below 1: weft is faster).
With OUT set, the numbers also go to $OUT/bench.json. A missing peer prints n/a.
"""

import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time
import traceback

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import kernels  # noqa: E402

PEERS = ["weft", "numba", "cupy"]
PEER_NAMES = {"weft": "weft", "numba": "numba-cuda", "cupy": "CuPy RawKernel"}
QUICK = "--quick" in sys.argv
REPEATS = 3 if QUICK else 5

# metric key -> (label, unit)
METRICS = {
    "import_ms": ("import (numpy preloaded)", "ms"),
    "first_call_cold_ms": ("first call, cold disk cache", "ms"),
    "first_call_warm_ms": ("first call, warm disk cache", "ms"),
    "launch_overhead_us": ("launch overhead, 3 array args", "us"),
    "vec_add_ms": ("vec_add, 2^26 float32", "ms"),
    "matmul_ms": ("tiled matmul 2048^2 f32, 16x16", "ms"),
}

results = {metric: {} for metric in METRICS}
errors = {}
checks = {}


def note_failure(errors, key, exc):
    """Records `exc` in `errors` under `key` (its first line), with the traceback on stderr when
    BENCH_TRACEBACK is set."""
    errors[key] = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
    if os.environ.get("BENCH_TRACEBACK"):
        traceback.print_exc()


def record_into(results, errors, metric, peer, fn):
    """results[metric][peer] = fn(); a failure (missing peer, broken build) is recorded in
    `errors` with None as the result, never fatal."""
    try:
        results.setdefault(metric, {})[peer] = fn()
    except Exception as exc:  # noqa: BLE001 - any failure of a peer must leave the table intact
        results.setdefault(metric, {})[peer] = None
        note_failure(errors, f"{metric}/{peer}", exc)


def measure(metric, peer, fn):
    """Runs one measurement into this module's table."""
    record_into(results, errors, metric, peer, fn)


# ------------------------------------------------------------------------------------------------
# Fresh-process measurements

IMPORT_CODE = {
    "weft": "import weft",
    "numba": "np.row_stack = getattr(np, 'row_stack', np.vstack)\nfrom numba import cuda",
    "cupy": "import cupy",
}


def child(args, env=None, timeout=300):
    proc = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=timeout, env=env)
    if proc.returncode != 0:
        raise RuntimeError((proc.stderr.strip().splitlines() or ["exit %d" % proc.returncode])[-1])
    return proc.stdout.strip().splitlines()[-1]


def import_ms(peer):
    code = (
        "import numpy as np, time\n"
        "start = time.perf_counter()\n"
        f"{IMPORT_CODE[peer]}\n"
        "print((time.perf_counter() - start) * 1e3)\n"
    )
    return statistics.median(float(child(["-c", code])) for _ in range(REPEATS))


CACHE_VARS = {"weft": "WEFT_CACHE_DIR", "numba": "NUMBA_CACHE_DIR", "cupy": "CUPY_CACHE_DIR"}


def first_call_ms(peer, warm):
    script = str(HERE / f"first_call_{peer}.py")
    times = []
    with tempfile.TemporaryDirectory(prefix=f"bench-{peer}-") as root:
        shared = pathlib.Path(root) / "warm"
        if warm:
            child([script], env=dict(os.environ, **{CACHE_VARS[peer]: str(shared)}))  # fills the cache
        for rep in range(REPEATS if not QUICK else 2):
            cache = shared if warm else pathlib.Path(root) / f"cold{rep}"
            env = dict(os.environ, **{CACHE_VARS[peer]: str(cache)})
            if peer == "weft":
                env.pop("WEFT_CACHE", None)
            times.append(float(child([script], env=env)))
    return statistics.median(times)


# ------------------------------------------------------------------------------------------------
# In-process measurements: each peer with its own arrays and launch path


class Timer:
    """CUDA events on the legacy default stream (every peer here launches on the default stream)."""

    def __init__(self):
        import cupy

        self.cupy = cupy
        self.start = cupy.cuda.Event()
        self.end = cupy.cuda.Event()

    def kernel_ms(self, launch, sync, reps):
        """Median of `reps` single launches, each between two events: the time from the start event
        to the end of the kernel, the host's launch path included."""
        launch()
        sync()
        times = []
        for _ in range(reps):
            self.start.record()
            launch()
            self.end.record()
            self.end.synchronize()
            times.append(self.cupy.cuda.get_elapsed_time(self.start, self.end))
        sync()
        return statistics.median(times)


    def queued_ms(self, launch, sync, reps, rounds=5):
        """Median over `rounds` of the mean time of `reps` launches queued back to back between two
        events: the GPU time of kernels longer than their launch path (the host keeps the queue
        full), as do_bench-style timings measure; a launch path longer than the kernel shows."""
        launch()
        sync()
        times = []
        for _ in range(rounds):
            self.start.record()
            for _ in range(reps):
                launch()
            self.end.record()
            self.end.synchronize()
            times.append(self.cupy.cuda.get_elapsed_time(self.start, self.end) / reps)
        sync()
        return statistics.median(times)


def launch_overhead_us(launch, sync, n=20000):
    for _ in range(200):
        launch()
    sync()
    per_launch = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        for _ in range(n):
            launch()
        sync()
        per_launch.append((time.perf_counter() - start) / n * 1e6)
    return statistics.median(per_launch)


def peer_runtime(peer):
    """(to_device, empty, launch(kernel, grid, block, *args), sync, to_host, kernels) for a peer."""
    if peer == "weft":
        import weft

        vec = kernels.load_example("vec_add").vec_add
        mm = kernels.load_example("matmul_tiled").matmul
        return dict(
            to_device=weft.to_device,
            empty=lambda shape: weft.empty(shape, np.float32),
            launch=lambda k, grid, block, *args: k[grid, block](*args),
            sync=weft.synchronize,
            to_host=lambda d: d.copy_to_host(),
            vec_add=lambda a, b, c: (vec, (a, b, c)),
            vec_add3=lambda a, b, c: (vec, (a, b, c)),
            matmul=lambda a, b, c: (mm, (a, b, c)),
        )
    if peer == "numba":
        cuda, vec, mm = kernels.numba_kernels()
        return dict(
            to_device=cuda.to_device,
            empty=lambda shape: cuda.device_array(shape, np.float32),
            launch=lambda k, grid, block, *args: k[grid, block](*args),
            sync=cuda.synchronize,
            to_host=lambda d: d.copy_to_host(),
            vec_add=lambda a, b, c: (vec, (a, b, c)),
            vec_add3=lambda a, b, c: (vec, (a, b, c)),
            matmul=lambda a, b, c: (mm, (a, b, c)),
        )
    import cupy

    module = kernels.cupy_module()
    vec, vec3, mm = (module.get_function(name) for name in ("vec_add", "vec_add3", "matmul"))

    def as_dim3(v):
        return tuple(v) if isinstance(v, tuple) else (v,)

    return dict(
        to_device=cupy.asarray,
        empty=lambda shape: cupy.empty(shape, cupy.float32),
        launch=lambda k, grid, block, *args: k(as_dim3(grid), as_dim3(block), args),
        sync=cupy.cuda.Device().synchronize,
        to_host=cupy.asnumpy,
        vec_add=lambda a, b, c: (vec, (a, b, c, np.int64(c.size))),
        vec_add3=lambda a, b, c: (vec3, (a, b, c)),
        matmul=lambda a, b, c: (mm, (a, b, c, np.int64(a.shape[0]), np.int64(a.shape[1]), np.int64(b.shape[1]))),
    )


def in_process(peer, timer, rng):
    rt = measure_runtime(peer)
    if rt is None:
        for metric in ("launch_overhead_us", "vec_add_ms", "matmul_ms"):
            results[metric].setdefault(peer, None)
        return
    launch, sync = rt["launch"], rt["sync"]

    def overhead():
        a, b, c = (rt["to_device"](rng.standard_normal(256).astype(np.float32)) for _ in range(3))
        kernel, args = rt["vec_add3"](a, b, c)
        return launch_overhead_us(lambda: launch(kernel, 1, 256, *args), sync)

    def vec_add():
        n = 1 << 26
        ha, hb = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
        a, b, c = rt["to_device"](ha), rt["to_device"](hb), rt["empty"](n)
        kernel, args = rt["vec_add"](a, b, c)
        ms = timer.kernel_ms(lambda: launch(kernel, n // 256, 256, *args), sync, 20)
        checks[f"vec_add/{peer}"] = bool(np.array_equal(rt["to_host"](c), ha + hb))
        return ms

    def matmul():
        n = 2048
        ha, hb = rng.standard_normal((n, n)).astype(np.float32), rng.standard_normal((n, n)).astype(np.float32)
        a, b, c = rt["to_device"](ha), rt["to_device"](hb), rt["empty"]((n, n))
        kernel, args = rt["matmul"](a, b, c)
        t = kernels.TILE
        ms = timer.kernel_ms(lambda: launch(kernel, (n // t, n // t), (t, t), *args), sync, 10)
        got = rt["to_host"](c)
        rows = rng.choice(n, 16, replace=False)
        want = ha[rows].astype(np.float64) @ hb.astype(np.float64)
        checks[f"matmul/{peer}"] = bool(np.allclose(got[rows], want, rtol=1e-3, atol=1e-2))
        return ms

    measure("launch_overhead_us", peer, overhead)
    measure("vec_add_ms", peer, vec_add)
    measure("matmul_ms", peer, matmul)


def measure_runtime(peer):
    try:
        return peer_runtime(peer)
    except Exception as exc:  # noqa: BLE001
        errors[f"runtime/{peer}"] = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
        return None


# ------------------------------------------------------------------------------------------------
# Report


def fmt(value):
    if value is None:
        return "n/a"
    return f"{value:.3f}" if value < 10 else f"{value:.1f}"


def ratio(metric, peer):
    w, p = results[metric].get("weft"), results[metric].get(peer)
    return "n/a" if not w or not p else f"{w / p:.2f}"


def device_description():
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version,compute_cap", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=30,
        )
        return out.stdout.strip().splitlines()[0]
    except Exception:  # noqa: BLE001
        return "unknown GPU"


def versions():
    found = {"python": sys.version.split()[0], "numpy": np.__version__}
    for name, module in (("weft", "weft"), ("numba-cuda", "numba_cuda"), ("cupy", "cupy")):
        try:
            from importlib.metadata import version

            found[name] = version(module.replace("_", "-"))
        except Exception:  # noqa: BLE001
            found[name] = None
    return found


def main():
    rng = np.random.default_rng(2024)
    for peer in PEERS:
        measure("import_ms", peer, lambda: import_ms(peer))
        measure("first_call_cold_ms", peer, lambda: first_call_ms(peer, warm=False))
        measure("first_call_warm_ms", peer, lambda: first_call_ms(peer, warm=True))
    try:
        timer = Timer()
    except Exception as exc:  # noqa: BLE001
        errors["timer"] = f"CuPy events unavailable: {exc}"
        timer = None
    for peer in PEERS:
        if timer is None:
            for metric in ("launch_overhead_us", "vec_add_ms", "matmul_ms"):
                results[metric][peer] = None
            continue
        in_process(peer, timer, rng)

    header = f"{'metric':<34}{'weft':>10}{'numba-cuda':>12}{'CuPy Raw':>10}{'weft/numba':>12}{'weft/CuPy':>11}"
    lines = [f"weft benchmark on {device_description()}", header, "-" * len(header)]
    for metric, (label, unit) in METRICS.items():
        row = results[metric]
        lines.append(
            f"{label + ' (' + unit + ')':<34}{fmt(row.get('weft')):>10}{fmt(row.get('numba')):>12}"
            f"{fmt(row.get('cupy')):>10}{ratio(metric, 'numba'):>12}{ratio(metric, 'cupy'):>11}"
        )
    print("\n".join(lines))
    if checks:
        print("results checked against NumPy: " + ", ".join(f"{k} {'ok' if v else 'WRONG'}" for k, v in checks.items()))
    for key, message in errors.items():
        print(f"n/a {key}: {message}")

    report = {
        "device": device_description(),
        "versions": versions(),
        "units": {metric: unit for metric, (_, unit) in METRICS.items()},
        "results": results,
        "checks": checks,
        "errors": errors,
        "table": lines,
    }
    out = os.environ.get("OUT")
    if out:
        pathlib.Path(out, "bench.json").write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
