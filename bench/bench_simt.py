"""SIMT kernels: weft against numba-cuda and the same kernel in CUDA C++ (CuPy RawKernel), one run
on one GPU.

    python bench/bench_simt.py [--quick]

Kernels (each peer's version does the same work the same way):
- shared-memory tree reduction of 2^24 float32 (256 threads per block, one partial per block);
- histogram of 2^26 uint8 into 256 bins with relaxed atomics on a per-block shared histogram,
  merged into the global one with relaxed device-scope atomics (grid-stride loop);
- warp-shuffle reduction of 2^24 float32 (shfl_down_sync, one partial per warp).
Prints the kernel times and the ratios weft/peer (below 1: weft is faster); the timing helpers,
peer runtimes and report helpers are bench.py's. With OUT set, also writes $OUT/bench_simt.json.
"""

import json
import os
import pathlib
import sys
import traceback

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench  # noqa: E402
import kernels  # noqa: E402
from cuda import device  # noqa: E402

REPS = 5 if "--quick" in sys.argv else 20
N_REDUCE = 1 << 24
N_HIST = 1 << 26
BLOCK = 256
HIST_GRID = 1024

METRICS = {
    "shared_reduce_ms": "shared-memory reduction, 2^24 f32",
    "histogram_ms": "histogram 2^26 u8, shared atomics",
    "warp_reduce_ms": "warp-shuffle reduction, 2^24 f32",
}
results = {metric: {} for metric in METRICS}
errors = {}
checks = {}


# weft: module-level kernels (sema resolves their globals, such as `device`, in this module).


@device.kernel
def shared_reduce(x, partial):
    buf = device.shared_array(256, device.float32)
    t = device.thread_idx.x
    i = device.tid(1)
    buf[t] = x[i] if i < x.size else device.float32(0)
    device.syncthreads()
    s = 128
    while s > 0:
        if t < s:
            buf[t] += buf[t + s]
        device.syncthreads()
        s //= 2
    if t == 0:
        partial[device.block_idx.x] = buf[0]


@device.kernel
def histogram(data, hist):
    h = device.shared_array(256, device.uint32)
    t = device.thread_idx.x
    h[t] = 0
    device.syncthreads()
    i = device.tid(1)
    stride = device.grid_size(1)
    while i < data.size:
        device.AtomicRef(h, data[i]).add(1, memory="relaxed", scope="block")
        i += stride
    device.syncthreads()
    device.AtomicRef(hist, t).add(h[t], memory="relaxed", scope="device")

@device.kernel
def warp_reduce(x, partial):
    i = device.tid(1)
    v = x[i] if i < x.size else device.float32(0)
    offset = 16
    while offset > 0:
        v += device.shfl_down_sync(0xFFFFFFFF, v, offset)
        offset //= 2
    if device.lane_id == 0:
        partial[i // 32] = v


def weft_kernels():
    return shared_reduce, histogram, warp_reduce


def numba_kernels():
    cuda = kernels.import_numba_cuda()
    from numba import float32, uint32

    @cuda.jit
    def shared_reduce(x, partial):
        buf = cuda.shared.array(256, float32)
        t = cuda.threadIdx.x
        i = cuda.grid(1)
        buf[t] = x[i] if i < x.size else float32(0)
        cuda.syncthreads()
        s = 128
        while s > 0:
            if t < s:
                buf[t] += buf[t + s]
            cuda.syncthreads()
            s //= 2
        if t == 0:
            partial[cuda.blockIdx.x] = buf[0]

    @cuda.jit
    def histogram(data, hist):
        h = cuda.shared.array(256, uint32)
        t = cuda.threadIdx.x
        h[t] = 0
        cuda.syncthreads()
        i = cuda.grid(1)
        stride = cuda.gridsize(1)
        while i < data.size:
            cuda.atomic.add(h, data[i], 1)
            i += stride
        cuda.syncthreads()
        cuda.atomic.add(hist, t, h[t])

    @cuda.jit
    def warp_reduce(x, partial):
        i = cuda.grid(1)
        v = x[i] if i < x.size else float32(0)
        offset = 16
        while offset > 0:
            v += cuda.shfl_down_sync(0xFFFFFFFF, v, offset)
            offset //= 2
        if cuda.laneid == 0:
            partial[i // 32] = v

    return shared_reduce, histogram, warp_reduce


CUDA_SOURCE = r"""
extern "C" __global__ void shared_reduce(const float* x, float* partial, long long n) {
    __shared__ float buf[256];
    unsigned t = threadIdx.x;
    long long i = blockIdx.x * (long long)blockDim.x + t;
    buf[t] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int s = 128; s > 0; s /= 2) {
        if (t < s) buf[t] += buf[t + s];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = buf[0];
}

extern "C" __global__ void histogram(const unsigned char* data, unsigned* hist, long long n) {
    __shared__ unsigned h[256];
    unsigned t = threadIdx.x;
    h[t] = 0;
    __syncthreads();
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + t; i < n; i += stride) atomicAdd_block(&h[data[i]], 1u);
    __syncthreads();
    atomicAdd(&hist[t], h[t]);
}

extern "C" __global__ void warp_reduce(const float* x, float* partial, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if ((threadIdx.x & 31) == 0) partial[i / 32] = v;
}
"""


def cupy_kernels():
    import cupy

    module = cupy.RawModule(code=CUDA_SOURCE, options=("-std=c++17",))
    names = ("shared_reduce", "histogram", "warp_reduce")
    functions = [module.get_function(name) for name in names]

    def bind(function):
        # CUDA C++ takes the element count as a trailing argument.
        return lambda grid, block, *args: function((grid,), (block,), (*args, np.int64(args[0].size)))

    return [bind(f) for f in functions]


def measure(metric, peer, fn):
    try:
        results[metric][peer] = fn()
    except Exception as exc:  # noqa: BLE001 - a failing peer leaves the table intact
        results[metric][peer] = None
        errors[f"{metric}/{peer}"] = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
        if os.environ.get("BENCH_TRACEBACK"):
            traceback.print_exc()


def run_peer(peer, timer, data):
    try:
        rt = bench.peer_runtime(peer)
        if peer == "weft":
            launches = [lambda g, b, *a, k=k: k[g, b](*a) for k in weft_kernels()]
        elif peer == "numba":
            launches = [lambda g, b, *a, k=k: k[g, b](*a) for k in numba_kernels()]
        else:
            launches = cupy_kernels()
    except Exception as exc:  # noqa: BLE001
        errors[f"runtime/{peer}"] = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
        for metric in METRICS:
            results[metric][peer] = None
        return
    reduce_launch, hist_launch, warp_launch = launches
    x_host, bytes_host = data
    x = rt["to_device"](x_host)
    sync = rt["sync"]

    def shared_reduce():
        partial = rt["empty"](N_REDUCE // BLOCK)
        ms = timer.kernel_ms(lambda: reduce_launch(N_REDUCE // BLOCK, BLOCK, x, partial), sync, REPS)
        got = rt["to_host"](partial).astype(np.float64).sum()
        checks[f"shared_reduce/{peer}"] = bool(np.isclose(got, x_host.astype(np.float64).sum(), rtol=1e-4, atol=1e-1))
        return ms

    def histogram():
        data = rt["to_device"](bytes_host)
        hist = rt["to_device"](np.zeros(256, np.uint32))
        ms = timer.kernel_ms(lambda: hist_launch(HIST_GRID, BLOCK, data, hist), sync, REPS)
        calls = REPS + 1  # kernel_ms launches once to warm up
        got = rt["to_host"](hist).astype(np.int64)
        checks[f"histogram/{peer}"] = bool(np.array_equal(got, calls * np.bincount(bytes_host, minlength=256)))
        return ms

    def warp_reduce():
        partial = rt["empty"](N_REDUCE // 32)
        ms = timer.kernel_ms(lambda: warp_launch(N_REDUCE // BLOCK, BLOCK, x, partial), sync, REPS)
        got = rt["to_host"](partial)
        want = x_host.reshape(-1, 32).sum(axis=1)
        checks[f"warp_reduce/{peer}"] = bool(np.allclose(got, want, rtol=1e-4, atol=1e-4))
        return ms

    measure("shared_reduce_ms", peer, shared_reduce)
    measure("histogram_ms", peer, histogram)
    measure("warp_reduce_ms", peer, warp_reduce)


def ratio(metric, peer):
    w, p = results[metric].get("weft"), results[metric].get(peer)
    return "n/a" if not w or not p else f"{w / p:.2f}"


def main():
    rng = np.random.default_rng(2024)
    data = (rng.standard_normal(N_REDUCE).astype(np.float32), rng.integers(0, 256, N_HIST).astype(np.uint8))
    try:
        timer = bench.Timer()
    except Exception as exc:  # noqa: BLE001
        print(f"CuPy events unavailable: {exc}")
        return 1
    for peer in bench.PEERS:
        run_peer(peer, timer, data)
    header = f"{'kernel (ms)':<40}{'weft':>10}{'numba-cuda':>12}{'CuPy Raw':>10}{'weft/numba':>12}{'weft/CuPy':>11}"
    lines = [f"weft SIMT benchmark on {bench.device_description()}", header, "-" * len(header)]
    for metric, label in METRICS.items():
        row = results[metric]
        lines.append(
            f"{label:<40}{bench.fmt(row.get('weft')):>10}{bench.fmt(row.get('numba')):>12}"
            f"{bench.fmt(row.get('cupy')):>10}{ratio(metric, 'numba'):>12}{ratio(metric, 'cupy'):>11}"
        )
    print("\n".join(lines))
    if checks:
        print("results checked against NumPy: " + ", ".join(f"{k} {'ok' if v else 'WRONG'}" for k, v in checks.items()))
    for key, message in errors.items():
        print(f"n/a {key}: {message}")
    out = os.environ.get("OUT")
    if out:
        report = {"device": bench.device_description(), "versions": bench.versions(), "results": results,
                  "checks": checks, "errors": errors, "table": lines}
        pathlib.Path(out, "bench_simt.json").write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
