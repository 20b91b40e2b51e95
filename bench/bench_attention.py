"""Flash-attention forward (issue 11): weft's tile kernel (examples/tile_attention.py) against a
Triton fused-attention forward in the form of Triton's tutorial and torch's
scaled_dot_product_attention, in one run on one GPU.

    python bench/bench_attention.py [--quick]

Q, K, V of shape (batch 4, heads 16, seq 4096, d 128) in bfloat16, causal and not. Each peer's
output is checked against torch's. Throughput is TFLOP/s counting 4 * b * h * s^2 * d flops (the
two products), half of that when causal. weft and Triton each try a few block shapes and report
their best (all are in the JSON); Triton's are the tutorial's H100 configurations (BLOCK_M 128,
BLOCK_N 64 or 128, num_warps 8, num_stages 3 or 4). Ratios are weft/peer (above 1: weft is
faster). A missing peer (no Triton) is reported, not fatal. With OUT set, writes
$OUT/bench_attention.json.
"""

import importlib.util
import json
import math
import os
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench  # noqa: E402

QUICK = "--quick" in sys.argv
REPS = 3 if QUICK else 10
BATCH, HEADS, SEQ, HEAD_DIM = 4, 16, 4096, 128
WEFT_BLOCKS = ((128, 64),) if QUICK else ((64, 64), (128, 64), (64, 32), (128, 128))
TRITON_CONFIGS = ((128, 64, 8, 3),) if QUICK else ((128, 64, 8, 3), (128, 64, 8, 4), (128, 128, 8, 3), (128, 128, 8, 4))

results = {}
configs = {}
errors = {}
checks = {}


def record(metric, peer, fn):
    bench.record_into(results, errors, metric, peer, fn)


def load_example():
    spec = importlib.util.spec_from_file_location("tile_attention", HERE.parent / "examples" / "tile_attention.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---- Triton: the tutorial's algorithm (online softmax with exp2, the causal loop split into the
# blocks below the diagonal, unmasked, and the diagonal blocks, masked), with plain pointers ----


def triton_attention():
    import triton
    import triton.language as tl

    @triton.jit
    def key_blocks(acc, l_i, m_i, q, k_base, v_base, stride_kn, stride_vn, first, last, rows, qk_scale,
                   BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr, DIAGONAL: tl.constexpr):
        cols = tl.arange(0, BLOCK_N)
        dims = tl.arange(0, HEAD_DIM)
        for n in range(first, last, BLOCK_N):
            start = tl.multiple_of(n, BLOCK_N)
            kt = tl.load(k_base + (start + cols)[None, :] * stride_kn + dims[:, None])
            s = tl.dot(q, kt)
            if DIAGONAL:
                s = s * qk_scale + tl.where(rows[:, None] >= (start + cols)[None, :], 0.0, -1.0e6)
                m_new = tl.maximum(m_i, tl.max(s, 1))
                s = s - m_new[:, None]
            else:
                m_new = tl.maximum(m_i, tl.max(s, 1) * qk_scale)
                s = s * qk_scale - m_new[:, None]
            p = tl.math.exp2(s)
            alpha = tl.math.exp2(m_i - m_new)
            l_i = l_i * alpha + tl.sum(p, 1)
            v = tl.load(v_base + (start + cols)[:, None] * stride_vn + dims[None, :])
            acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
            m_i = m_new
        return acc, l_i, m_i

    @triton.jit
    def forward(Q, K, V, Out, sm_scale, heads, seq, stride_qh, stride_qm, stride_kh, stride_kn, stride_vh,
                stride_vn, stride_oh, stride_om, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                HEAD_DIM: tl.constexpr, CAUSAL: tl.constexpr):
        qb = tl.program_id(0)
        bh = tl.program_id(1)
        rows = qb * BLOCK_M + tl.arange(0, BLOCK_M)
        dims = tl.arange(0, HEAD_DIM)
        # Q, K, V, Out are contiguous (batch, heads, seq, d): batch * heads + head is bh.
        q = tl.load(Q + bh.to(tl.int64) * stride_qh + rows[:, None] * stride_qm + dims[None, :])
        k_base = K + bh.to(tl.int64) * stride_kh
        v_base = V + bh.to(tl.int64) * stride_vh
        qk_scale = sm_scale * 1.44269504
        m_i = tl.full([BLOCK_M], -float("inf"), tl.float32)
        l_i = tl.zeros([BLOCK_M], tl.float32)
        acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
        if CAUSAL:
            acc, l_i, m_i = key_blocks(acc, l_i, m_i, q, k_base, v_base, stride_kn, stride_vn, 0, qb * BLOCK_M,
                                       rows, qk_scale, BLOCK_N, HEAD_DIM, False)
            acc, l_i, m_i = key_blocks(acc, l_i, m_i, q, k_base, v_base, stride_kn, stride_vn, qb * BLOCK_M,
                                       (qb + 1) * BLOCK_M, rows, qk_scale, BLOCK_N, HEAD_DIM, True)
        else:
            acc, l_i, m_i = key_blocks(acc, l_i, m_i, q, k_base, v_base, stride_kn, stride_vn, 0, seq, rows,
                                       qk_scale, BLOCK_N, HEAD_DIM, False)
        out = acc / l_i[:, None]
        tl.store(Out + bh.to(tl.int64) * stride_oh + rows[:, None] * stride_om + dims[None, :],
                 out.to(Out.dtype.element_ty))

    def launch(q, k, v, out, causal, block_m, block_n, num_warps, num_stages):
        batch, heads, seq, d = q.shape
        assert seq % block_m == 0 and seq % block_n == 0, "this peer takes whole blocks only"
        grid = (seq // block_m, batch * heads)
        forward[grid](q, k, v, out, 1 / math.sqrt(d), heads, seq, q.stride(1), q.stride(2), k.stride(1), k.stride(2),
                      v.stride(1), v.stride(2), out.stride(1), out.stride(2), BLOCK_M=block_m, BLOCK_N=block_n,
                      HEAD_DIM=d, CAUSAL=causal, num_warps=num_warps, num_stages=num_stages)

    return launch


def best_of(metric, peer, variants, run, flops, timer, sync, want, tag):
    """Times run(*variant) for each variant; checks each output against `want`; returns the best
    TFLOP/s and records every variant's in `configs`."""
    best = None
    for variant in variants:
        name = "x".join(str(x) for x in variant)
        try:
            out = run(*variant)
            ms = timer.queued_ms(lambda: run(*variant), sync, REPS)
        except Exception as exc:  # noqa: BLE001 - one failing configuration leaves the others
            bench.note_failure(errors, f"{metric}/{peer}/{name}", exc)
            continue
        ok = bool(((out.float() - want).abs() <= 2e-2 + 2e-2 * want.abs()).all())
        checks[f"{tag}/{peer}/{name}"] = ok
        tflops = flops / ms / 1e9
        configs.setdefault(metric, {}).setdefault(peer, {})[name] = tflops
        if ok and (best is None or tflops > best):
            best = tflops
    if best is None:
        raise RuntimeError("no configuration ran and matched torch")
    return best


def main():
    import torch

    timer = bench.Timer()
    sync = torch.cuda.synchronize
    torch.manual_seed(0)
    example = load_example()
    from weft import cutile as ct

    try:
        triton_launch = triton_attention()
    except Exception as exc:  # noqa: BLE001 - no Triton: the peer is reported missing
        triton_launch = None
        errors["triton"] = f"{type(exc).__name__}: {exc}"[:300]

    shape = (BATCH, HEADS, SEQ, HEAD_DIM)
    q, k, v = (torch.randn(shape, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    out = torch.empty_like(q)
    scale = 1 / math.sqrt(HEAD_DIM)
    for causal in (False, True):
        tag = "causal" if causal else "full"
        metric = f"attention_bf16_{tag}_TFLOPs"
        flops = 4 * BATCH * HEADS * SEQ * SEQ * HEAD_DIM * (0.5 if causal else 1.0)
        want = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal).float()

        def weft_run(bm, bn):
            grid = ((SEQ + bm - 1) // bm, BATCH * HEADS)
            ct.launch(None, grid, example.attention, (q, k, v, out, scale, causal, bm, bn, HEAD_DIM))
            return out

        def triton_run(bm, bn, warps, stages):
            triton_launch(q, k, v, out, causal, bm, bn, warps, stages)
            return out

        def torch_sdpa():
            ms = timer.queued_ms(lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal),
                                 sync, REPS)
            return flops / ms / 1e9

        record(metric, "weft", lambda: best_of(metric, "weft", WEFT_BLOCKS, weft_run, flops, timer, sync, want, tag))
        if triton_launch is not None:
            record(metric, "triton",
                   lambda: best_of(metric, "triton", TRITON_CONFIGS, triton_run, flops, timer, sync, want, tag))
        else:
            results[metric]["triton"] = None
        record(metric, "torch", torch_sdpa)

    print(f"device: {bench.device_description()}")
    print(f"shape (batch, heads, seq, d) = {shape}, bfloat16")
    print(f"{'metric':30} " + " ".join(f"{p:>10}" for p in ("weft", "triton", "torch")) + "   ratios weft/peer")
    for metric, by_peer in results.items():
        row = " ".join(f"{bench.fmt(by_peer.get(p)):>10}" for p in ("weft", "triton", "torch"))
        w = by_peer.get("weft")
        ratios = ", ".join(f"{p} {w / v:.2f}" for p, v in by_peer.items() if p != "weft" and v and w)
        print(f"{metric:30} {row}   {ratios}")
    for metric, by_peer in configs.items():
        for peer, by_config in by_peer.items():
            print(f"  {metric} {peer}: " + ", ".join(f"{c} {bench.fmt(t)}" for c, t in by_config.items()))
    print("checks:", checks)
    if errors:
        print("errors:", json.dumps(errors, indent=1))
    if os.environ.get("OUT"):
        pathlib.Path(os.environ["OUT"], "bench_attention.json").write_text(
            json.dumps({"shape": shape, "results": results, "configs": configs, "checks": checks, "errors": errors},
                       indent=1))
    return 0 if checks and all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
