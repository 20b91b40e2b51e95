"""Tile kernels (docs/tiles.md): weft against Triton, torch and cuBLAS in one run on one GPU.

    python bench/bench_tiles.py [--quick]

- copy bandwidth (torch's device-to-device copy of 2^28 float32) and weft's tile vec_add of 2^26
  float32 (three arrays move), as GB/s;
- row softmax and layernorm of an 8192 x 8192 matrix, float32 and bfloat16: weft's tile kernel
  (examples/tile_softmax.py's form: one tile block per row) against Triton's fused kernel
  written the same way and torch's. Weft's kernels ask for the arithmetic Triton's compiles to,
  through numeric modifiers (docs/tiles.md): an approximate exp (exp2 of x * log2(e), as
  tl.exp), division (RoundingMode.FULL, as `/`) and reciprocal square root (APPROX, as
  tl.rsqrt); with ct.exp, `/` and ct.rsqrt they would compute the accurate ones;
- GEMM, bf16 and fp16 at 4096^3 (and 8192^3 without --quick), and bf16 at M = N = 3000, K = 4096
  (edge tiles): weft's tile K loop of ct.mma against cuBLAS (torch.matmul) and a Triton K loop of
  tl.dot (the faster of 128 x 128 and 128 x 256 tiles; square shapes only, its kernel has no
  masks), as TFLOP/s; the same K loop autotuned over tile sizes and stages (docs/tiles.md,
  "Autotuning"), with the configuration it chose; and for bf16 squares the mma.sync path;
- GEMM of float8 e4m3 at 4096^3 (A M x K row-major, B stored N x K, float32 accumulation,
  bfloat16 out): weft's tile K loop loading B K-major (order=(1, 0): the TMA/wgmma path on an
  H100; the fastest of the tile shapes and stages that path takes, printed) against
  torch._scaled_mm (cuBLASLt; the same B, passed column-major, unit scales), both checked against
  the float32 product of the same fp8 values, as TFLOP/s; and the bf16 GEMM at 4096^3 with the
  same K-major B against cuBLAS, to show what the K-major path costs;
- the first call of a tile kernel (a softmax, and the GEMM) in a fresh process, with a cold and
  (the median of five processes) a warm disk cache.
Times are GPU times of launches queued back to back (bench.Timer.queued_ms; every peer's launch
path is shorter than these kernels). Ratios are weft/peer for throughput (above 1: weft is
faster). With OUT set, writes $OUT/bench_tiles.json.
"""

import functools
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench  # noqa: E402

QUICK = "--quick" in sys.argv
REPS = 5 if QUICK else 20
ROWS = COLS = 8192

results = {}
errors = {}
checks = {}
chosen = {}  # the autotuned GEMM's choice and every configuration's time, by size


def record(metric, peer, fn):
    bench.record_into(results, errors, metric, peer, fn)


# ---- weft ----

from weft import cutile as ct  # noqa: E402
from weft import tiles as wt  # noqa: E402


@wt.kernel
def vec_add(a, b, c, tile: wt.ConstExpr):
    i = wt.bid(0)
    wt.store(c, (i,), wt.load(a, (i,), (tile,)) + wt.load(b, (i,), (tile,)))


# log2(e): Triton's tl.exp of float32 is ex2.approx.f32 of x * log2(e).
LOG2E = 1.4426950408889634


# Triton's softmax below computes tl.exp as 2^(x * log2(e)) (a multiply and ex2.approx.f32) and
# its `/` of float32 as div.full.f32 (an approximate division, 2 ulp); this kernel asks for the
# same arithmetic: ct.exp2 of x * log2(e) (ex2.approx.f32, CUDA's exp2f) and truediv with
# RoundingMode.FULL (docs/tiles.md, "Numeric modifiers"). Written with ct.exp and `/`, it would
# compute the accurate exp (expf) and the correctly rounded division.
@ct.kernel
def softmax(x, out, n: ct.Constant[int]):
    row = ct.bid(0)
    t = ct.load(x, index=(row, 0), shape=(1, n), padding_mode=ct.PaddingMode.NEG_INF).astype(ct.float32)
    e = ct.exp2((t - ct.max(t, axis=1, keepdims=True)) * LOG2E)
    total = ct.sum(e, axis=1, keepdims=True)
    ct.store(out, index=(row, 0), tile=ct.truediv(e, total, rounding_mode=ct.RoundingMode.FULL).astype(out.dtype))


# Triton's layernorm below computes tl.rsqrt as rsqrt.approx.ftz.f32; this kernel asks for an
# approximate square root and reciprocal (APPROX), where ct.rsqrt would be a correctly rounded
# square root and division (whose slow paths also kept the weights and biases in registers).
@ct.kernel
def layernorm(x, w, b, y, n: ct.Constant[int]):
    row = ct.bid(0)
    t = ct.load(x, index=(row, 0), shape=(1, n)).astype(ct.float32)
    mean = ct.sum(t, axis=1, keepdims=True) / n
    centered = t - mean
    var = ct.sum(centered * centered, axis=1, keepdims=True) / n
    scale = ct.load(w, index=(0,), shape=(n,)).astype(ct.float32)
    shift = ct.load(b, index=(0,), shape=(n,)).astype(ct.float32)
    rstd = ct.truediv(1.0, ct.sqrt(var + 1e-5, rounding_mode=ct.RoundingMode.APPROX),
                      rounding_mode=ct.RoundingMode.APPROX)
    ct.store(y, index=(row, 0), tile=(centered * rstd * scale + shift).astype(y.dtype))


@ct.kernel
def gemm(a, b, c, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(a, (bm, k), (tm, tk)), ct.load(b, (k, bn), (tk, tn)), acc)
    ct.store(c, (bm, bn), acc.astype(c.dtype))


# The same K loop over locals that alias a and b: the Hopper path takes only loops over the
# kernel's parameters (docs/tiles.md), so this one measures the mma.sync (cp.async) path.
@ct.kernel
def gemm_mma_sync(a, b, c, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    x = a
    y = b
    bm = ct.bid(0)
    bn = ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(x, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(x, (bm, k), (tm, tk)), ct.load(y, (k, bn), (tk, tn)), acc)
    ct.store(c, (bm, bn), acc.astype(c.dtype))


# The same K loop autotuned: tile sizes, and the pipeline stages of the K loop.
GEMM_TILES = ((128, 256, 64), (256, 128, 64), (128, 128, 64))
GEMM_CONFIGS = [ct.Config(tm=tm, tn=tn, tk=tk, stages=stages) for tm, tn, tk in GEMM_TILES for stages in (3, 4)]


gemm_tuned = ct.kernel(autotune=ct.Autotune(GEMM_CONFIGS, repetitions=3))(gemm.underlying)


def gemm_grid(meta):
    return (-(-meta["c"].shape[0] // meta["tm"]), -(-meta["c"].shape[1] // meta["tn"]))


# ---- Triton: the same kernels, one program per row / per output tile ----


def triton_kernels():
    import triton
    import triton.language as tl

    @triton.jit
    def t_softmax(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        offs = tl.arange(0, BLOCK)
        mask = offs < n_cols
        x = tl.load(x_ptr + row * stride + offs, mask=mask, other=-float("inf")).to(tl.float32)
        e = tl.exp(x - tl.max(x, axis=0))
        tl.store(y_ptr + row * stride + offs, (e / tl.sum(e, axis=0)).to(y_ptr.dtype.element_ty), mask=mask)

    @triton.jit
    def t_layernorm(x_ptr, w_ptr, b_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        offs = tl.arange(0, BLOCK)
        mask = offs < n_cols
        x = tl.load(x_ptr + row * stride + offs, mask=mask, other=0.0).to(tl.float32)
        mean = tl.sum(x, axis=0) / n_cols
        centered = tl.where(mask, x - mean, 0.0)
        var = tl.sum(centered * centered, axis=0) / n_cols
        w = tl.load(w_ptr + offs, mask=mask).to(tl.float32)
        b = tl.load(b_ptr + offs, mask=mask).to(tl.float32)
        y = centered * tl.rsqrt(var + 1e-5) * w + b
        tl.store(y_ptr + row * stride + offs, y.to(y_ptr.dtype.element_ty), mask=mask)

    @triton.jit
    def t_gemm(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        pm = tl.program_id(0)
        pn = tl.program_id(1)
        rm = pm * BM + tl.arange(0, BM)
        rn = pn * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            a = tl.load(a_ptr + rm[:, None] * K + (k * BK + rk)[None, :])
            b = tl.load(b_ptr + (k * BK + rk)[:, None] * N + rn[None, :])
            acc = tl.dot(a, b, acc)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty))

    return t_softmax, t_layernorm, t_gemm


# The GEMM with b K-major: loaded with order=(1, 0) from bt, stored N x K (torch._scaled_mm's and
# cuBLAS's "TN" layout); wgmma reads fp8 b K-major only, so fp8 K loops take the Hopper path so.
@ct.kernel
def gemm_kmajor(a, bt, c, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(a, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(a, (bm, k), (tm, tk)), ct.load(bt, (k, bn), (tk, tn), order=(1, 0)), acc)
    ct.store(c, (bm, bn), acc.astype(c.dtype))


# fp8 GEMM tiles (tm, tn, tk) the Hopper path takes (sm90::pipeline_tiles_fit: K tiles of whole
# 128-byte slabs; a loop whose cp.async ring of 2 stages exceeds its budget, as 128 x 256 x 256's,
# is not pipelined at all), and stage limits (None: weft's, up to 4 within the ring's budget).
FP8_GEMM_TILES = ((128, 128, 128), (128, 256, 128), (256, 128, 128), (128, 128, 256), (64, 256, 128))
FP8_GEMM_STAGES = (None, 3, 2)


def fp8_gemm(timer, sync):
    """float8 e4m3 GEMM at 4096^3: weft's K loop with b K-major (gemm_kmajor, over the N x K array
    torch uses; every tile and stage limit of FP8_GEMM_TILES x FP8_GEMM_STAGES, the best one
    recorded and printed) against torch._scaled_mm, both stored as bfloat16 and checked against
    the float32 product of the same fp8 values within the tensor cores' fp8 tolerance
    (docs/tiles.md, "How mma runs") plus bfloat16's rounding; then the bf16 GEMM at 4096^3 with
    b K-major against cuBLAS (torch.matmul of the transposed view), to show what K-major b costs
    next to the bf16 GEMM above. A peer that cannot run (no float8 in torch, no _scaled_mm, no
    ml_dtypes) is recorded as an error, as every peer's failure is."""
    import torch

    m = n = k = 4096
    flops = 2 * m * n * k
    reps = max(2, REPS // 4)
    name = f"gemm_fp8e4m3_{m}"

    @functools.cache
    def operands():
        # B is generated N x K row-major: torch._scaled_mm takes its transpose (K x N
        # column-major), weft the same array through a K-major load.
        a8 = torch.randn(m, k, device="cuda").to(torch.float8_e4m3fn)
        b8_nk = torch.randn(n, k, device="cuda").to(torch.float8_e4m3fn)
        a32, b32 = a8.float(), b8_nk.float().t()
        want = a32 @ b32
        allowed = 2.0 ** -10 * (a32.abs() @ b32.abs()) + 2.0 ** -8 * want.abs()
        return a8, b8_nk, want, allowed

    def within(label, result):
        _, _, want, allowed = operands()
        checks[f"{label}_{name}"] = bool(((result.float() - want).abs() <= allowed).all())

    def weft_fp8():
        import ml_dtypes

        import weft

        a8, b8_nk, _, _ = operands()

        # weft's own device arrays of the fp8 bits (ml_dtypes), so that no DLPack fp8 support of
        # torch's is needed; the output is torch's bfloat16 tensor, as in the GEMMs above.
        def device(t):
            return weft.to_device(t.view(torch.uint8).cpu().numpy().view(ml_dtypes.float8_e4m3fn))

        a_dev, bt_dev = device(a8), device(b8_nk)
        out = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        best, times = 0.0, []
        for stages in FP8_GEMM_STAGES:
            kernel = gemm_kmajor if stages is None else ct.kernel(stages=stages)(gemm_kmajor.underlying)
            for tm, tn, tk in FP8_GEMM_TILES:
                grid = (-(-m // tm), -(-n // tn))
                out.zero_()
                ms = timer.queued_ms(lambda: ct.launch(None, grid, kernel, (a_dev, bt_dev, out, tm, tn, tk)), sync, reps)
                label = f"{tm}x{tn}x{tk}" + ("" if stages is None else f"_stages{stages}")
                within(f"weft{label}", out)
                times.append(f"{label} {flops / ms / 1e9:.0f}")
                best = max(best, flops / ms / 1e9)
        print(f"{name} by tile and stage limit (TFLOP/s): " + ", ".join(times))
        return best

    def scaled_mm():
        a8, b8_nk, _, _ = operands()
        one = torch.ones((), device="cuda", dtype=torch.float32)

        def launch():
            result = torch._scaled_mm(a8, b8_nk.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
            # torch 2.1 - 2.3 returned (out, amax).
            return result[0] if isinstance(result, tuple) else result

        within("scaled_mm", launch())
        return flops / timer.queued_ms(launch, sync, reps) / 1e9

    record(f"{name}_TFLOPs", "weft", weft_fp8)
    record(f"{name}_TFLOPs", "torch", scaled_mm)

    # bf16 with b K-major, the 16-bit GEMM above's best tile.
    bf16 = f"gemm_bf16_kmajor_{m}"
    A = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    Bt = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    C = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    want16 = A.float() @ Bt.float().t()

    def weft_bf16_kmajor():
        C.zero_()
        ms = timer.queued_ms(lambda: ct.launch(None, (m // 128, n // 256), gemm_kmajor, (A, Bt, C, 128, 256, 64)), sync,
                             reps)
        checks[f"weft_{bf16}"] = bool(torch.allclose(C.float(), want16, rtol=2e-2, atol=k**0.5 * 2e-2))
        return flops / ms / 1e9

    record(f"{bf16}_TFLOPs", "weft", weft_bf16_kmajor)
    record(f"{bf16}_TFLOPs", "cublas",
           lambda: flops / timer.queued_ms(lambda: torch.matmul(A, Bt.t(), out=C), sync, reps) / 1e9)


def main():
    import torch

    timer = bench.Timer()
    sync = torch.cuda.synchronize
    torch.manual_seed(0)
    have_triton = True
    try:
        t_softmax, t_layernorm, t_gemm = triton_kernels()
    except Exception as exc:  # noqa: BLE001
        have_triton = False
        errors["triton"] = f"{type(exc).__name__}: {exc}"[:300]

    # Copy bandwidth and vec_add.
    n = 1 << 26
    src = torch.randn(1 << 28 >> 2, device="cuda")
    dst = torch.empty_like(src)
    record("copy_GBps", "torch", lambda: 2 * src.numel() * 4 / timer.queued_ms(lambda: dst.copy_(src), sync, REPS) / 1e6)
    a, b = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    c = torch.empty_like(a)

    def weft_vec_add():
        ms = timer.queued_ms(lambda: wt.launch(None, (n // 4096,), vec_add, (a, b, c, 4096)), sync, REPS)
        checks["vec_add"] = bool(torch.equal(c, a + b))
        return 3 * n * 4 / ms / 1e6

    record("vec_add_GBps", "weft", weft_vec_add)
    record("vec_add_GBps", "torch", lambda: 3 * n * 4 / timer.queued_ms(lambda: torch.add(a, b, out=c), sync, REPS) / 1e6)

    # Softmax and layernorm, f32 and bf16.
    for dtype, name in ((torch.float32, "f32"), (torch.bfloat16, "bf16")):
        x = torch.randn(ROWS, COLS, device="cuda", dtype=dtype)
        y = torch.empty_like(x)
        w = torch.randn(COLS, device="cuda", dtype=dtype)
        bias = torch.randn(COLS, device="cuda", dtype=dtype)
        moved = 2 * x.numel() * x.element_size()
        want_softmax = torch.softmax(x.float(), dim=1)
        want_norm = torch.nn.functional.layer_norm(x.float(), (COLS,), w.float(), bias.float(), 1e-5)
        tol = 1e-5 if dtype == torch.float32 else 2e-2

        def weft_softmax():
            ms = timer.queued_ms(lambda: ct.launch(None, (ROWS,), softmax, (x, y, COLS)), sync, REPS)
            checks[f"softmax_{name}"] = bool(torch.allclose(y.float(), want_softmax, rtol=tol, atol=tol * 1e-2))
            return moved / ms / 1e6

        def triton_softmax():
            ms = timer.queued_ms(lambda: t_softmax[(ROWS,)](x, y, COLS, COLS, BLOCK=COLS, num_warps=16), sync, REPS)
            return moved / ms / 1e6

        def weft_layernorm():
            ms = timer.queued_ms(lambda: ct.launch(None, (ROWS,), layernorm, (x, w, bias, y, COLS)), sync, REPS)
            checks[f"layernorm_{name}"] = bool(torch.allclose(y.float(), want_norm, rtol=tol * 10, atol=tol * 10))
            return moved / ms / 1e6

        def triton_layernorm():
            ms = timer.queued_ms(lambda: t_layernorm[(ROWS,)](x, w, bias, y, COLS, COLS, BLOCK=COLS, num_warps=16),
                                 sync, REPS)
            return moved / ms / 1e6

        record(f"softmax_{name}_GBps", "weft", weft_softmax)
        if have_triton:
            record(f"softmax_{name}_GBps", "triton", triton_softmax)
        record(f"softmax_{name}_GBps", "torch",
               lambda: moved / timer.queued_ms(lambda: torch.softmax(x, dim=1), sync, REPS) / 1e6)
        record(f"layernorm_{name}_GBps", "weft", weft_layernorm)
        if have_triton:
            record(f"layernorm_{name}_GBps", "triton", triton_layernorm)
        record(f"layernorm_{name}_GBps", "torch",
               lambda: moved / timer.queued_ms(
                   lambda: torch.nn.functional.layer_norm(x, (COLS,), w, bias, 1e-5), sync, REPS) / 1e6)

    # GEMM: bf16 and fp16 squares, and an odd shape (M, N, K not multiples of the tile).
    shapes = [(4096, 4096, 4096, torch.bfloat16), (4096, 4096, 4096, torch.float16), (3000, 3000, 4096, torch.bfloat16)]
    if not QUICK:
        shapes[1:1] = [(8192, 8192, 8192, torch.bfloat16), (8192, 8192, 8192, torch.float16)]
    for m, n, k, dtype in shapes:
        A = torch.randn(m, k, device="cuda", dtype=dtype)
        B = torch.randn(k, n, device="cuda", dtype=dtype)
        C = torch.empty(m, n, device="cuda", dtype=dtype)
        flops = 2 * m * n * k
        want = A.float() @ B.float()
        name = f"gemm_{'bf16' if dtype == torch.bfloat16 else 'fp16'}_{m}x{n}x{k}" if m != k else \
            f"gemm_{'bf16' if dtype == torch.bfloat16 else 'fp16'}_{m}"
        reps = max(2, REPS // 4)

        def checked(label, launch):
            C.zero_()
            ms = timer.queued_ms(launch, sync, reps)
            checks[f"{label}_{name}"] = bool(torch.allclose(C.float(), want, rtol=2e-2, atol=k**0.5 * 2e-2))
            return flops / ms / 1e9

        def weft_gemm(kernel, tm, tn, tk):
            grid = (-(-m // tm), -(-n // tn))
            return lambda: checked(kernel.__name__, lambda: ct.launch(None, grid, kernel, (A, B, C, tm, tn, tk)))

        def weft_gemm_tuned():
            ct.launch(None, gemm_grid, gemm_tuned, (A, B, C))  # tunes (or reads the disk cache) first
            chosen[name] = gemm_tuned.autotune_results[-1].summary()
            return checked("autotuned", lambda: ct.launch(None, gemm_grid, gemm_tuned, (A, B, C)))

        def triton_gemm():
            # Its best of the usual H100 configurations (128 x 128 and 128 x 256 tiles, 8 warps).
            return max(checked(f"triton{bn}", lambda: t_gemm[(m // 128, n // bn)](
                A, B, C, m, n, k, BM=128, BN=bn, BK=64, num_warps=8, num_stages=3)) for bn in (128, 256))

        # The Hopper path (TMA + wgmma on sm_90a) with its best tile on the H100, the autotuned
        # kernel, and (bf16 squares) the mma.sync path of issue 9 with its own tile; cuBLAS once.
        # cuBLAS is timed again right after each weft kernel: a long run of products warms the
        # GPU and lowers its clocks, so a ratio compares kernels timed back to back.
        def cublas():
            return flops / timer.queued_ms(lambda: torch.matmul(A, B, out=C), sync, reps) / 1e9

        record(f"{name}_TFLOPs", "weft", weft_gemm(gemm, 128, 256, 64))
        record(f"{name}_TFLOPs", "cublas", cublas)
        record(f"{name}_tuned_TFLOPs", "weft", weft_gemm_tuned)
        record(f"{name}_tuned_TFLOPs", "cublas", cublas)
        if dtype == torch.bfloat16 and m == k:
            record(f"gemm_mma_sync_bf16_{m}_TFLOPs", "weft", weft_gemm(gemm_mma_sync, 128, 128, 64))
            record(f"gemm_mma_sync_bf16_{m}_TFLOPs", "cublas", cublas)
        if have_triton and m % 256 == 0 and n % 256 == 0 and k % 64 == 0:  # its kernel has no masks
            record(f"{name}_TFLOPs", "triton", triton_gemm)

    fp8_gemm(timer, sync)

    # First call of a tile kernel in a fresh process (cold and warm disk cache).
    with tempfile.TemporaryDirectory() as cache:
        script = (
            "import time, torch\nfrom weft import cutile as ct\n"
            f"import sys; sys.path.insert(0, {str(HERE)!r})\nimport bench_tiles as b\n"
            "x = torch.randn(64, 1024, device='cuda'); y = torch.empty_like(x); torch.cuda.synchronize()\n"
            "t = time.perf_counter(); ct.launch(None, (64,), b.softmax, (x, y, 1024)); torch.cuda.synchronize()\n"
            "print((time.perf_counter() - t) * 1e3)\n"
            "a = torch.randn(512, 512, device='cuda', dtype=torch.bfloat16); c = torch.empty_like(a)\n"
            "torch.cuda.synchronize()\n"
            "t = time.perf_counter(); ct.launch(None, (4, 2), b.gemm, (a, a, c, 128, 256, 64)); torch.cuda.synchronize()\n"
            "print((time.perf_counter() - t) * 1e3)\n"
        )
        env = dict(os.environ, WEFT_CACHE_DIR=cache)
        # The cold call once (it fills the cache); the warm one is the median of five fresh
        # processes, as a few milliseconds vary from process to process (3.6 to 6.2 ms in one day).
        for cache_state, runs in (("cold", 1), ("warm", 5)):
            times = {"first_call": [], "first_call_gemm": []}
            for _ in range(runs):
                proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                                      timeout=300)
                lines = proc.stdout.strip().splitlines()
                for kernel, line in (("first_call", -2), ("first_call_gemm", -1)):
                    try:
                        times[kernel].append(float(lines[line]))
                    except (ValueError, IndexError):
                        errors[f"{kernel}_{cache_state}_ms"] = proc.stderr[-300:]
            for kernel, measured in times.items():
                ok = len(measured) == runs
                results.setdefault(f"{kernel}_{cache_state}_ms", {})["weft"] = statistics.median(measured) if ok else None

    print(f"device: {bench.device_description()}")
    print(f"{'metric':28} " + " ".join(f"{p:>10}" for p in ("weft", "triton", "torch", "cublas")) + "   ratios weft/peer")
    for metric, by_peer in results.items():
        row = " ".join(f"{bench.fmt(by_peer.get(p)):>10}" for p in ("weft", "triton", "torch", "cublas"))
        w = by_peer.get("weft")
        ratios = ", ".join(f"{p} {w / v:.2f}" for p, v in by_peer.items() if p != "weft" and v and w)
        print(f"{metric:28} {row}   {ratios}")
    if "copy_GBps" in results and results.get("vec_add_GBps", {}).get("weft"):
        print(f"vec_add / copy bandwidth: {results['vec_add_GBps']['weft'] / results['copy_GBps']['torch']:.2f}")
    for name, summary in chosen.items():
        print(f"autotuned {name}: {summary}")
    print("checks:", checks)
    if errors:
        print("errors:", json.dumps(errors, indent=1))
    if os.environ.get("OUT"):
        pathlib.Path(os.environ["OUT"], "bench_tiles.json").write_text(
            json.dumps({"results": results, "checks": checks, "errors": errors, "autotuned": chosen}, indent=1))
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
