"""Tile kernels (docs/tiles.md) compiled for sm_90 by weftc through NVRTC, and their PTX accepted
by ptxas: the tile header's GPU path in CI, where no GPU is present. test_tiles_cpu.py checks
the same operations' results on the CPU target, test_tiles_gpu.py on the GPU."""

import re
import subprocess

import pytest

from test_sm90_ptxas import CUDA, compile_for_sm90, weftc_path

pytestmark = pytest.mark.skipif(not (CUDA / "bin").is_dir(), reason=f"no CUDA toolkit at {CUDA}")

PRELUDE = "from weft import tiles as ct\nfrom weft import cutile as cu\n\n"

SOURCES = {
    "vec_add": """
@ct.kernel
def vec_add(a: ct.float32[:], b: ct.float32[:], c: ct.float32[:]):
    i = ct.bid(0)
    ct.store(c, (i,), ct.load(a, (i,), (1024,)) + ct.load(b, (i,), (1024,)))
""",
    "softmax_bf16": """
@cu.kernel
def softmax(x: cu.bfloat16[:, :], out: cu.bfloat16[:, :]):
    r = cu.bid(0)
    t = cu.load(x, (r, 0), (1, 4096), padding_mode=cu.PaddingMode.NEG_INF).astype(cu.float32)
    e = cu.exp(t - cu.max(t, axis=1, keepdims=True))
    cu.store(out, (r, 0), (e / cu.sum(e, axis=1, keepdims=True)).astype(cu.bfloat16))
""",
    "reductions_scans": """
@ct.kernel
def reduce(a: ct.int32[:, :], s0: ct.int32[:], m1: ct.int32[:], c1: ct.int32[:, :], i1: ct.int32[:]):
    t = ct.load(a, (0, 0), (64, 32))
    ct.store(s0, (0,), ct.sum(t, axis=0))
    ct.store(m1, (0,), ct.max(t, axis=1))
    ct.store(c1, (0, 0), ct.cumsum(t, axis=1))
    ct.store(i1, (0,), ct.argmin(t, axis=1))
""",
    "shape_ops": """
@ct.kernel
def shapes(a: ct.float16[:, :], t: ct.float16[:, :], j: ct.float16[:, :], p: ct.float16[:, :]):
    x = ct.load(a, (0, 0), (32, 64))
    ct.store(t, (0, 0), ct.transpose(x))
    ct.store(j, (0, 0), ct.cat((x, x), 0))
    ct.store(p, (0, 0), ct.extract(x, (1, 1), (16, 32)) * 2)
""",
    "mma_bf16": """
@cu.kernel
def gemm(a: cu.bfloat16[:, :], b: cu.bfloat16[:, :], c: cu.float32[:, :]):
    acc = cu.zeros((128, 128), dtype=cu.float32)
    for k in range(cu.num_tiles(a, axis=1, shape=(128, 32))):
        acc = cu.mma(cu.load(a, (cu.bid(0), k), (128, 32)), cu.load(b, (k, cu.bid(1)), (32, 128)), acc)
    cu.store(c, (cu.bid(0), cu.bid(1)), acc)
""",
    "mma_f64_int8": """
@ct.kernel
def products(a: ct.float64[:, :], b: ct.float64[:, :], c: ct.float64[:, :], i: ct.int8[:, :], o: ct.int32[:, :]):
    ct.store(c, (0, 0), ct.load(a, (0, 0), (32, 16)) @ ct.load(b, (0, 0), (16, 32)))
    ct.store(o, (0, 0), ct.load(i, (0, 0), (64, 64)) @ ct.load(i, (0, 0), (64, 64)))
""",
}


def test_k_loops_of_mma_are_pipelined(tmp_path):
    # The K loop becomes one mma_pipeline: cp.async into shared memory, ldmatrix (.trans for b).
    _, ptx = compile_for_sm90(tmp_path, "mma_bf16", PRELUDE + SOURCES["mma_bf16"])
    assert "cp.async.cg.shared.global" in ptx and "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16" in ptx
    assert "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" in ptx


@pytest.mark.parametrize("body, pipelined", [
    ("acc = cu.mma(cu.load(a, (0, k), (64, 32)), cu.load(b, (k, 0), (32, 64)), acc)", True),
    ("x = cu.load(a, (0, k), (64, 32))\n        y = cu.load(b, (k, 0), (32, 64))\n        acc = cu.mma(x, y, acc)", True),
    # The loop variable, or a loaded tile, is read after the loop; a padding other than zero; an
    # index that can trap; another statement in the loop; float32 operands.
    ("acc = cu.mma(cu.load(a, (0, k), (64, 32)), cu.load(b, (k, 0), (32, 64)), acc)\n    c[0, 0] = k", False),
    ("x = cu.load(a, (0, k), (64, 32))\n        acc = cu.mma(x, cu.load(b, (k, 0), (32, 64)), acc)\n    cu.store(d, (0, 0), x)", False),
    ("acc = cu.mma(cu.load(a, (0, k), (64, 32), padding_mode=cu.PaddingMode.NAN), cu.load(b, (k, 0), (32, 64)), acc)", False),
    ("acc = cu.mma(cu.load(a, (0, k // 1), (64, 32)), cu.load(b, (k, 0), (32, 64)), acc)", False),
    ("acc = cu.mma(cu.load(a, (0, k), (64, 32)), cu.load(b, (k, 0), (32, 64)), acc)\n        acc = acc * 1", False),
])
def test_which_k_loops_are_pipelined(tmp_path, body, pipelined):
    source = PRELUDE + f"""
@cu.kernel
def gemm(a: cu.float16[:, :], b: cu.float16[:, :], c: cu.float32[:, :], d: cu.float16[:, :]):
    acc = cu.zeros((64, 64), dtype=cu.float32)
    for k in range(cu.num_tiles(a, axis=1, shape=(64, 32))):
        {body}
    cu.store(c, (0, 0), acc)
"""
    src = tmp_path / "gemm.py"
    src.write_text(source)
    proc = subprocess.run([weftc_path(), str(src), "--emit-cuda"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert ("weft::tiles::mma_pipeline_arrays<" in proc.stdout) == pipelined


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_tile_kernel_compiles_for_sm90(tmp_path, name):
    _, ptx = compile_for_sm90(tmp_path, name, PRELUDE + SOURCES[name])
    # A tile block is one CTA of 128 to 512 threads by the size of its tiles; with mma, a warp for
    # each 64 x 64 part of the accumulator (128 to 256 threads).
    threads = {"vec_add": 128, "softmax_bf16": 256, "reductions_scans": 128, "shape_ops": 256, "mma_bf16": 128,
               "mma_f64_int8": 128}[name]
    assert re.search(rf"\.maxntid {threads}\b", ptx), re.findall(r"\.maxntid \d+", ptx)
