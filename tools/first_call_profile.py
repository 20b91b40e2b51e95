"""The warm first call of bench/bench_tiles.py's tile kernels in fresh processes, on the CPU target.

    python tools/first_call_profile.py [--cprofile]

Runs the bench's first calls (its softmax, then its 128 x 256 x 64 bf16 GEMM on one tile) in
fresh processes with WEFT_TARGET=cpu and NumPy arrays: once to fill a temporary disk cache, then
five times warm, and prints the median time of each call (the GEMM's includes running its tile on
the CPU) and how often the warm processes ran the front end (0 when the front-end records held:
docs/architecture.md, "Front-end records"). With --cprofile, also prints a warm process's profile
of the two calls (Python frames; the extension's work shows as the launch's own time)."""

import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(os.path.dirname(HERE), "bench")

SCRIPT = f"""
import sys, time
t0 = time.perf_counter()
import numpy as np
from weft import cutile as ct
sys.path.insert(0, {BENCH!r})
import bench_tiles as b
t1 = time.perf_counter()
import ml_dtypes
x = np.random.rand(64, 1024).astype(np.float32); y = np.empty_like(x)
# One 128 x 256 tile and one K step: the bench's GEMM specialization, quick on the CPU target.
a = np.random.rand(128, 64).astype(ml_dtypes.bfloat16); bt = np.random.rand(64, 256).astype(ml_dtypes.bfloat16)
c = np.empty((128, 256), ml_dtypes.bfloat16)
profile = "--cprofile" in sys.argv
if profile:
    import cProfile, pstats
    p = cProfile.Profile(); p.enable()
t = time.perf_counter(); ct.launch(None, (1,), b.softmax, (x, y, 1024)); t_softmax = time.perf_counter() - t
t = time.perf_counter(); ct.launch(None, (1, 1), b.gemm, (a, bt, c, 128, 256, 64)); t_gemm = time.perf_counter() - t
if profile:
    p.disable(); pstats.Stats(p).sort_stats("cumulative").print_stats(25)
print("import", (t1 - t0) * 1e3)
print("softmax", t_softmax * 1e3)
print("gemm", t_gemm * 1e3)
print("front_end_runs", b.softmax._front_end_runs + b.gemm._front_end_runs)
"""


def run(env, extra=()):
    proc = subprocess.run([sys.executable, "-c", SCRIPT, *extra], env=env, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        sys.exit(proc.stderr)
    return proc.stdout


def main():
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, WEFT_CACHE_DIR=cache, WEFT_TARGET="cpu")
        run(env)
        times = {}
        for _ in range(5):
            for line in run(env).strip().splitlines():
                name, value = line.split()
                times.setdefault(name, []).append(float(value))
        runs = times.pop("front_end_runs")
        for name, values in times.items():
            print(f"{name:8} median {statistics.median(values):7.2f} ms  (" + " ".join(f"{v:.2f}" for v in values) + ")")
        print("front-end runs of the warm processes:", " ".join(str(int(n)) for n in runs))
        if "--cprofile" in sys.argv:
            print(run(env, ("--cprofile",)))


if __name__ == "__main__":
    main()
