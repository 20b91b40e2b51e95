"""tile_attention: the flash-attention forward, softmax(Q K^T * scale) V, as a tile kernel in
cuTile Python's face. Q, K and V are (batch, heads, seq, d) arrays of bfloat16 or float16; one
tile block computes a (bm, d) block of the output for one query block of one (batch, head). It
walks the key blocks once, with two ct.mma per step (the scores Q K^T, then P V) and an online
softmax: a running row maximum m and row sum l, and the accumulator rescaled by
exp2(m_old - m_new) whenever the maximum grows. The scale is folded into the scores together
with log2(e), so the exponentials are exp2. With causal=True the loop stops after the block that
holds the diagonal and masks the keys after each query within it. The sequence need not be a
multiple of the blocks: loads pad with zeros, the keys past the end are masked to -inf and the
store keeps to the array.

Runs on the GPU when one is usable, otherwise on weft's CPU target (WEFT_TARGET chooses), and
checks the result against NumPy (softmax in float64).
"""

import math
import sys

import ml_dtypes
import numpy as np

import weft
from weft import cutile as ct

LOG2E = 1.4426950408889634
BLOCK_M, BLOCK_N = 64, 64


@ct.kernel
def attention(q, k, v, out, scale: float, causal: ct.Constant[bool], bm: ct.Constant[int], bn: ct.Constant[int],
              d: ct.Constant[int]):
    qb = ct.bid(0)
    bh = ct.bid(1)
    heads = q.shape[1]
    seq = q.shape[2]
    b = bh // heads
    h = bh % heads
    qt = ct.load(q, index=(b, h, qb, 0), shape=(1, 1, bm, d)).reshape((bm, d))
    qk_scale = scale * LOG2E
    m = ct.full((bm, 1), -math.inf, dtype=ct.float32)
    l = ct.zeros((bm, 1), dtype=ct.float32)
    acc = ct.zeros((bm, d), dtype=ct.float32)
    rows = ct.reshape(qb * bm + ct.arange(bm), (bm, 1))
    blocks = ct.cdiv(seq, bn)
    if causal:
        blocks = min(blocks, ct.cdiv((qb + 1) * bm, bn))
    for j in range(blocks):
        # K^T through the load's order: tile axes 2 and 3 run along the array's axes 3 and 2.
        kt = ct.load(k, index=(b, h, 0, j), shape=(1, 1, d, bn), order=(0, 1, 3, 2)).reshape((d, bn))
        s = ct.mma(qt, kt, ct.zeros((bm, bn), dtype=ct.float32)) * qk_scale
        cols = ct.reshape(j * bn + ct.arange(bn), (1, bn))
        s = ct.where(cols < seq, s, -math.inf)
        if causal:
            s = ct.where(cols <= rows, s, -math.inf)
        # Block 0 gives every row a finite maximum (key 0 is never masked), so no -inf - -inf.
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp2(s - m_new)
        alpha = ct.exp2(m - m_new)
        l = l * alpha + ct.sum(p, axis=1, keepdims=True)
        vt = ct.load(v, index=(b, h, j, 0), shape=(1, 1, bn, d)).reshape((bn, d))
        acc = ct.mma(p.astype(q.dtype), vt, acc * alpha)
        m = m_new
    ct.store(out, index=(b, h, qb, 0), tile=(acc / l).astype(out.dtype).reshape((1, 1, bm, d)))


def attention_forward(q, k, v, out, causal, scale=None, bm=BLOCK_M, bn=BLOCK_N):
    """Launches `attention` over (q, k, v) of shape (batch, heads, seq, d) into `out` (same
    shape): one tile block per (query block, batch * head). The scale defaults to 1/sqrt(d)."""
    batch, heads, seq, d = q.shape
    scale = 1 / math.sqrt(d) if scale is None else scale
    grid = ((seq + bm - 1) // bm, batch * heads)
    ct.launch(None, grid, attention, (q, k, v, out, scale, causal, bm, bn, d))


def reference(q, k, v, causal, scale=None):
    """softmax(Q K^T * scale) V in float64, with keys after the query masked when causal."""
    d = q.shape[-1]
    scale = 1 / math.sqrt(d) if scale is None else scale
    s = np.einsum("bhqd,bhkd->bhqk", q.astype(np.float64), k.astype(np.float64)) * scale
    if causal:
        n = s.shape[-1]
        s = np.where(np.tril(np.ones((n, n), dtype=bool)), s, -np.inf)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return np.einsum("bhqk,bhkd->bhqd", e / e.sum(axis=-1, keepdims=True), v.astype(np.float64))


def main() -> int:
    batch, heads, seq, d = 2, 3, 200, 64
    rng = np.random.default_rng()
    q, k, v = (rng.standard_normal((batch, heads, seq, d)).astype(ml_dtypes.bfloat16) for _ in range(3))
    d_q, d_k, d_v = weft.to_device(q), weft.to_device(k), weft.to_device(v)
    target = weft.default_target()
    for causal in (False, True):
        d_out = weft.empty((batch, heads, seq, d), ml_dtypes.bfloat16)
        attention_forward(d_q, d_k, d_v, d_out, causal)
        out = d_out.copy_to_host().astype(np.float64)
        want = reference(q, k, v, causal)
        # bfloat16 keeps 8 significant bits: the output and P (converted for the second mma).
        if not np.allclose(out, want, rtol=2e-2, atol=2e-2):
            print(f"tile_attention on {target}: MISMATCH (causal={causal}), largest error {np.abs(out - want).max()}")
            return 1
    print(f"tile_attention on {target}: {batch} x {heads} heads, seq {seq}, d {d}, causal and not: "
          "result matches NumPy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
