#!/usr/bin/env python3
"""Stress test of weft's disk cache (DESIGN.md section 5: atomic writes, corrupt entries detected
and rebuilt): waves of worker processes compile and run the same kernels against one
WEFT_CACHE_DIR at once, while the parent corrupts cache entries (truncates them, flips bytes,
empties, deletes, fills with garbage) as they run. Every launch's result is checked against NumPy;
the run fails on any wrong result, exception or crashed worker.

    python tools/cache_stress.py --processes 8 --waves 3 --target gpu
    python tools/cache_stress.py --processes 3 --waves 2 --target cpu --json out.json

Each worker compiles every (kernel, SCALE) variant once: a changed global is a new unit, so the
variants are distinct cache entries; a new process finds them on disk (or damaged, or missing).
"""

import argparse
import json
import os
import pathlib
import random
import subprocess
import sys
import threading
import time

import numpy as np

import weft
from cuda import device

SCALES = (1, 2, 3, 5)
SCALE = 1  # each value makes every kernel a new unit: a distinct cache entry


@device.kernel
def scaled_sum(a, b, out):
    i = device.tid(1)
    if i < out.size:
        out[i] = a[i] * SCALE + b[i] // (SCALE + 1)


@device.kernel
def block_total(x, out):
    buf = device.shared_array(64, device.int64)
    t = int(device.thread_idx.x)
    i = device.tid(1)
    buf[t] = x[i] * SCALE if i < x.size else 0
    device.syncthreads()
    step = 32
    while step > 0:
        if t < step:
            buf[t] += buf[t + step]
        device.syncthreads()
        step //= 2
    if t == 0:
        out[device.block_idx.x] = buf[0]


@device.kernel
def shifted_rows(m, out):
    r, c = device.tid(2)
    if r < m.shape[0] and c < m.shape[1]:
        out[r, c] = m[r, (c + SCALE) % m.shape[1]] - SCALE


def _check_variant(scale: int, target: str, rng) -> int:
    """Runs each kernel once with SCALE = scale and compares with NumPy (raises on a mismatch);
    returns the number of launches checked."""
    global SCALE
    SCALE = scale

    def launch(kernel, arrays, grid, block):
        if target == "gpu":
            on_device = [weft.to_device(a) for a in arrays]
            weft.launch(kernel, *on_device, grid=grid, block=block, target="gpu")
            weft.synchronize()
            return [d.copy_to_host() for d in on_device]
        weft.launch(kernel, *arrays, grid=grid, block=block, target="cpu")
        return arrays

    a = rng.integers(-1000, 1000, 1000).astype(np.int32)
    b = rng.integers(-1000, 1000, 1000).astype(np.int32)
    out = launch(scaled_sum, [a, b, np.zeros(1000, np.int32)], 4, 256)[2]
    np.testing.assert_array_equal(out, a * scale + b // (scale + 1))

    x = rng.integers(-10**6, 10**6, 500).astype(np.int64)
    totals = launch(block_total, [x, np.zeros(8, np.int64)], 8, 64)[1]
    padded = np.zeros(512, np.int64)
    padded[:500] = x * scale
    np.testing.assert_array_equal(totals, padded.reshape(8, 64).sum(axis=1))

    m = rng.standard_normal((37, 19)).astype(np.float32)
    shifted = launch(shifted_rows, [m, np.zeros_like(m)], (3, 2), (16, 16))[1]  # x covers the rows
    np.testing.assert_array_equal(shifted, np.roll(m, -scale, axis=1) - np.float32(scale))
    return 3


def worker(target: str, seed: int, variants: int) -> int:
    """One worker process: the first `variants` variants in a random order; prints a JSON
    summary."""
    rng = np.random.default_rng(seed)
    order = list(SCALES[:variants])
    random.Random(seed).shuffle(order)
    report = {"launches": 0, "errors": []}
    for scale in order:
        try:
            report["launches"] += _check_variant(scale, target, rng)
        except Exception as error:  # every failure is reported, the run goes on
            report["errors"].append(f"SCALE={scale}: {type(error).__name__}: {str(error)[:800]}")
    print(json.dumps(report), flush=True)
    return 1 if report["errors"] else 0


class Corruptor(threading.Thread):
    """Damages random entries of the cache directory until stopped, counting what it did."""

    KINDS = ("truncate", "flip", "empty", "delete", "garbage", "append")

    def __init__(self, directory: pathlib.Path, seed: int, pause: float):
        super().__init__(daemon=True)
        self.directory = directory
        self.rng = random.Random(seed)
        self.pause = pause
        self.stopped = threading.Event()
        self.done = {kind: 0 for kind in self.KINDS}

    def run(self):
        while not self.stopped.wait(self.pause):
            entries = sorted(self.directory.glob("*.bin"))
            if entries:
                self.damage(self.rng.choice(entries))

    def damage(self, path: pathlib.Path):
        kind = self.rng.choice(self.KINDS)
        try:
            data = path.read_bytes()
            if kind == "truncate":
                path.write_bytes(data[: self.rng.randrange(max(1, len(data)))])
            elif kind == "flip" and data:
                k = self.rng.randrange(len(data))
                path.write_bytes(data[:k] + bytes([data[k] ^ (1 << self.rng.randrange(8))]) + data[k + 1:])
            elif kind == "empty":
                path.write_bytes(b"")
            elif kind == "delete":
                path.unlink()
            elif kind == "garbage":
                path.write_bytes(os.urandom(self.rng.randint(1, 4096)))
            else:
                path.write_bytes(data + os.urandom(self.rng.randint(1, 64)))
        except OSError:
            return  # a writer renamed or a reader removed it meanwhile
        self.done[kind] += 1


def run(processes: int, waves: int, variants: int, target: str, cache: pathlib.Path, seed: int, pause: float,
        timeout: float) -> dict:
    """Runs the waves; the report counts processes, launches, corruptions and failures."""
    cache.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, WEFT_CACHE_DIR=str(cache), WEFT_CACHE="1")
    corruptor = Corruptor(cache, seed, pause)
    corruptor.start()
    report = {"target": target, "processes": 0, "launches": 0, "failures": [], "waves": waves}
    started = time.monotonic()
    try:
        for wave in range(waves):
            procs = [subprocess.Popen([sys.executable, __file__, "--worker", "--target", target, "--variants", str(variants),
                                       "--seed", str(seed * 1000 + wave * 100 + k)],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
                     for k in range(processes)]
            for k, proc in enumerate(procs):
                try:
                    out, err = proc.communicate(timeout=timeout)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    out, err = proc.communicate()
                    report["failures"].append(f"wave {wave} worker {k}: hung for {timeout} s")
                    continue
                report["processes"] += 1
                lines = [line for line in out.splitlines() if line.startswith("{")]
                if proc.returncode not in (0, 1) or not lines:
                    report["failures"].append(f"wave {wave} worker {k}: exit {proc.returncode}: {err[-1500:]}")
                    continue
                result = json.loads(lines[-1])
                report["launches"] += result["launches"]
                report["failures"] += [f"wave {wave} worker {k}: {e}" for e in result["errors"]]
    finally:
        corruptor.stopped.set()
        corruptor.join()
    report["corruptions"] = corruptor.done
    report["entries_left"] = len(list(cache.glob("*.bin")))
    report["seconds"] = round(time.monotonic() - started, 1)
    return report


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--processes", type=int, default=8, help="workers per wave (default 8)")
    parser.add_argument("--waves", type=int, default=3, help="waves of workers (default 3)")
    parser.add_argument("--variants", type=int, default=len(SCALES), choices=range(1, len(SCALES) + 1),
                        help=f"SCALE values each worker compiles (default {len(SCALES)}; three kernels each)")
    parser.add_argument("--target", choices=("cpu", "gpu"), default=None, help="default: gpu when usable")
    parser.add_argument("--cache", type=pathlib.Path, default=None, help="the cache directory (default: a new one under /tmp)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pause", type=float, default=0.02, help="seconds between two corruptions")
    parser.add_argument("--timeout", type=float, default=600, help="seconds a worker may run")
    parser.add_argument("--json", type=pathlib.Path, help="write the report here")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        return worker(args.target, args.seed, args.variants)
    target = args.target or ("gpu" if weft.gpu_available() else "cpu")
    cache = args.cache or pathlib.Path(f"/tmp/weft-cache-stress-{os.getpid()}")
    report = run(args.processes, args.waves, args.variants, target, cache, args.seed, args.pause, args.timeout)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    print(f"cache stress ({target}): {report['processes']} processes in {args.waves} waves, {report['launches']} launches "
          f"checked, {sum(report['corruptions'].values())} corruptions {report['corruptions']}, "
          f"{len(report['failures'])} failures ({report['seconds']} s)")
    for failure in report["failures"]:
        print("  FAILED:", failure)
    return 1 if report["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
