"""The flash-attention forward of examples/tile_attention.py on the CPU target against NumPy
(softmax(Q K^T * scale) V in float64) on seeded random data: causal and not, head dims 64 and
128, bfloat16 and float16 operands, sequences that are not multiples of the blocks, blocks of
other shapes (the causal diagonal then cuts blocks unevenly), scores whose row maximum grows
from block to block (the online softmax must rescale), and stores that keep to the array. The
kernel also compiles for sm_90 through NVRTC and ptxas (on sm_90a with both products as wgmma).
test_tile_attention_gpu.py runs these
tests again on the GPU."""

import collections
import importlib.util
import math
import pathlib
import re
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import weft
from test_sm90_ptxas import CUDA, compile_for_sm90, weftc_path
from test_tiles_cpu import run_tiles

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "tile_attention.py"


def load_example():
    """examples/tile_attention.py as a module (once per process: its kernel keeps its caches)."""
    if "tile_attention" not in sys.modules:
        spec = importlib.util.spec_from_file_location("tile_attention", EXAMPLE)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules["tile_attention"] = module
    return sys.modules["tile_attention"]


example = load_example()


@pytest.fixture(scope="module")
def target():
    return "cpu"


def tolerance(*dtypes):
    """Twice the coarsest machine epsilon among the operand and output types: the output is
    rounded once, and P is rounded to the operands' type before the second mma."""
    return 2 * max(float(ml_dtypes.finfo(t).eps) for t in dtypes)


def run_attention(target, q, k, v, causal, out_dtype=ml_dtypes.bfloat16, scale=None, bm=64, bn=64):
    """The example's kernel on `target` over NumPy arrays, as attention_forward launches it."""
    batch, heads, seq, d = q.shape
    scale = 1 / math.sqrt(d) if scale is None else scale
    out = np.full(q.shape, np.nan, dtype=out_dtype)
    grid = ((seq + bm - 1) // bm, batch * heads)
    run_tiles(target, example.attention, q, k, v, out, scale, causal, bm, bn, d, grid=grid)
    return out


def check(out, q, k, v, causal, scale=None):
    want = example.reference(q, k, v, causal, scale)
    tol = tolerance(q.dtype, out.dtype)
    np.testing.assert_allclose(out.astype(np.float64), want, rtol=tol, atol=tol)


def operands(rng, dtype, shape, spread=1.0):
    return tuple((rng.standard_normal(shape) * spread).astype(dtype) for _ in range(3))


@pytest.mark.parametrize("dtype", [ml_dtypes.bfloat16, np.float16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("seq", [1, 64, 150, 200])
def test_attention_matches_numpy(target, rng, dtype, d, causal, seq):
    # seq 1 and 150 leave most of a block as padding; 64 is one whole block; 200 ends inside
    # the fourth.
    q, k, v = operands(rng, dtype, (2, 3, seq, d))
    check(run_attention(target, q, k, v, causal), q, k, v, causal)


@pytest.mark.parametrize("bm, bn", [(32, 64), (64, 32), (128, 64), (16, 16)])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_blocks_of_other_shapes(target, rng, bm, bn, causal):
    # bn > bm: the diagonal block holds keys after every query of the block's first rows;
    # bn < bm: the loop runs bm / bn blocks past the first diagonal one.
    q, k, v = operands(rng, ml_dtypes.bfloat16, (1, 2, 181, 64))
    check(run_attention(target, q, k, v, causal, bm=bm, bn=bn), q, k, v, causal)


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_several_seeds(target, seed, causal):
    rng = np.random.default_rng([seed, 11])
    q, k, v = operands(rng, np.float16, (2, 2, 130, 128), spread=2.0)
    check(run_attention(target, q, k, v, causal, out_dtype=np.float16), q, k, v, causal)


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_the_running_maximum_grows_block_by_block(target, rng, causal):
    # Keys grow with their position, so each key block raises every row's maximum and the
    # accumulator and sum must be rescaled by exp2(m_old - m_new) at every step; a scale other
    # than 1/sqrt(d) shows that it is folded in with log2(e).
    q, k, v = operands(rng, ml_dtypes.bfloat16, (1, 2, 256, 64))
    k = (k.astype(np.float32) * np.linspace(0.2, 3.0, 256, dtype=np.float32)[:, None]).astype(ml_dtypes.bfloat16)
    q = np.abs(q.astype(np.float32)).astype(ml_dtypes.bfloat16)
    out = run_attention(target, q, k, v, causal, scale=0.3)
    check(out, q, k, v, causal, scale=0.3)


def test_float16_output_and_bfloat16_operands(target, rng):
    q, k, v = operands(rng, ml_dtypes.bfloat16, (1, 2, 100, 128))
    check(run_attention(target, q, k, v, True, out_dtype=np.float16), q, k, v, True)


def test_the_store_keeps_to_the_array(target, rng):
    # The output is a view of the first 90 rows of a larger buffer (in the target's memory): the
    # padded rows of the last query block are not stored past it.
    q, k, v = operands(rng, ml_dtypes.bfloat16, (1, 1, 90, 64))
    buffer = weft.to_device(np.full((1, 1, 128, 64), 7.0, dtype=ml_dtypes.bfloat16), target=target)
    args = [weft.to_device(x, target=target) for x in (q, k, v)]
    weft.launch(example.attention, *args, buffer[:, :, :90, :], 1 / 8, False, 64, 64, 64, grid=(2, 1), target=target)
    weft.synchronize()
    result = buffer.copy_to_host()
    check(result[:, :, :90, :], q, k, v, False)
    assert (result[:, :, 90:, :].astype(np.float32) == 7.0).all()


def test_the_example_launcher_on_the_cpu_target(rng):
    # attention_forward with NumPy arrays runs on the CPU target (as main() does off the GPU).
    q, k, v = operands(rng, np.float16, (1, 2, 70, 64))
    out = np.zeros(q.shape, dtype=ml_dtypes.bfloat16)
    example.attention_forward(q, k, v, out, causal=True)
    check(out, q, k, v, True)


# ---- compiled for sm_90 ----


def annotated_example(dtype, causal, bm, bn, d):
    """The example's file with its kernel's array and scale parameters annotated and its
    constant parameters made globals, as weftc compiles annotated kernels only."""
    text = EXAMPLE.read_text()
    array = f"ct.{dtype}[:, :, :, :]"
    signature = (f"def attention(q: {array}, k: {array}, v: {array}, out: ct.bfloat16[:, :, :, :], "
                 "scale: ct.float32):")
    text, count = re.subn(r"def attention\(.*?\):", lambda _: signature, text, count=1, flags=re.S)
    assert count == 1, "examples/tile_attention.py no longer defines `def attention(...)`"
    constants = f"causal = {causal}\nbm = {bm}\nbn = {bn}\nd = {d}\n"
    return text.replace("LOG2E = ", constants + "LOG2E = ", 1)


@pytest.mark.skipif(not (CUDA / "bin").is_dir(), reason=f"no CUDA toolkit at {CUDA}")
@pytest.mark.parametrize("dtype, causal, bm, bn, d, instruction", [
    ("bfloat16", True, 64, 64, 128, "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"),
    ("float16", False, 64, 32, 64, "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"),
])
def test_the_kernel_compiles_for_sm90(tmp_path, dtype, causal, bm, bn, d, instruction):
    _, ptx = compile_for_sm90(tmp_path, "tile_attention", annotated_example(dtype, causal, bm, bn, d))
    # Both products on the tensor cores, the exponentials as exp2; nothing in local memory (the
    # 4-D loads' extents once kept a table there, 677 stores).
    assert instruction in ptx and "ex2.approx" in ptx
    assert "st.local" not in ptx and "ld.local" not in ptx


@pytest.mark.skipif(not (CUDA / "bin").is_dir(), reason=f"no CUDA toolkit at {CUDA}")
def test_the_key_loop_keeps_the_accumulator_layouts(tmp_path):
    # The scores and P stay in the first product's mma layout, the row statistics in its row
    # layout (their reductions and broadcasts exchange nothing through shared memory), and the
    # broadcasts of the element-wise operations land in the layout they compute in.
    source = tmp_path / "tile_attention.py"
    source.write_text(annotated_example("bfloat16", True, 64, 64, 128))
    cuda = subprocess.run([weftc_path(), str(source), "--emit-cuda"], capture_output=True, text=True, timeout=300)
    assert cuda.returncode == 0, cuda.stderr
    declared = {name: line for line in cuda.stdout.splitlines() for name in re.findall(r"\bv_([a-z_]+)_\d+\{\};", line)}
    for name in ("s", "p"):
        assert "accumulator_layout_t" in declared[name] or "mma_accumulator_t" in declared[name], declared[name]
    for name in ("m", "l", "m_new", "alpha"):
        assert "accumulator_rows_t" in declared[name], declared[name]
    assert "weft::tiles::broadcast_lazily<" in cuda.stdout


@pytest.mark.skipif(not (CUDA / "bin").is_dir(), reason=f"no CUDA toolkit at {CUDA}")
@pytest.mark.parametrize("bm, threads", [(64, 128), (128, 256), (32, 128)])
def test_the_key_loop_reads_its_operands_where_they_are(tmp_path, bm, threads):
    # FlashAttention-2's structure from the plain loop: the key and value tiles are prefetched
    # and both products read them from their stages (views, no load in the loop), Q's fragments
    # are loaded once before the loop, and a warp for each 16 query rows owns whole rows (the row
    # statistics exchange nothing; P is the second product's a-operand in registers); 32 rows
    # would leave two of the block's four warps without rows, so they keep the squarest parts.
    source = tmp_path / "tile_attention.py"
    source.write_text(annotated_example("bfloat16", True, bm, 64, 128))
    cuda = subprocess.run([weftc_path(), str(source), "--emit-cuda"], capture_output=True, text=True, timeout=300)
    assert cuda.returncode == 0, cuda.stderr
    code = cuda.stdout
    assert ("#define WEFT_TILE_MMA_WHOLE_ROWS 1" in code) == (bm >= 64) and f"#define WEFT_TILE_THREADS {threads}\n" in code
    loop = code.split("weft::tiles::prefetch_start")[1].split("weft::tiles::prefetch_finish")[0]
    assert code.count("weft::tiles::prefetch_load<") == 2 and loop.count(".view(") == 2, code
    assert "load_array<" not in loop and "weft::tiles::mma_a_operand<" in code.split("weft::tiles::prefetch_start")[0]


def ptxas_usage(tmp_path, source, arch):
    """weftc's PTX of `source` for `arch` and what ptxas -v reports of its kernel: (PTX,
    registers, bytes of spill stores and of stack frame)."""
    path = tmp_path / "tile_attention.py"
    path.write_text(source)
    ptx = tmp_path / "tile_attention.ptx"
    proc = subprocess.run([weftc_path(), str(path), "--ptx", "-arch", arch, "-o", str(ptx)], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    report = subprocess.run([str(CUDA / "bin" / "ptxas"), "-v", f"-arch={arch}", str(ptx), "-o", str(tmp_path / "k.cubin")],
                            capture_output=True, text=True, timeout=300)
    assert report.returncode == 0, report.stderr
    registers = int(re.search(r"Used (\d+) registers", report.stderr).group(1))
    spills = int(re.search(r"(\d+) bytes spill stores", report.stderr).group(1))
    stack = int(re.search(r"(\d+) bytes stack frame", report.stderr).group(1))
    return ptx.read_text(), registers, spills + stack


@pytest.mark.skipif(not (CUDA / "bin").is_dir(), reason=f"no CUDA toolkit at {CUDA}")
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("bm, d", [(64, 64), (64, 128), (128, 64), (128, 128)])
def test_both_products_are_wgmma_on_sm90a(tmp_path, dtype, causal, bm, d):
    # On sm_90a a warpgroup owns 64 query rows: Q K^T is d / 16 wgmma k16 steps with Q's
    # fragments from registers and K^T K-major from its stage, P V bn / 16 steps with P from
    # registers and V MN-major from its stage; the stages' cp.async writes are fenced for
    # wgmma's reads. (The mma.sync code stays for launches without the stages' shared memory.)
    bn = 64
    ptx, registers, spills = ptxas_usage(tmp_path, annotated_example(dtype, causal, bm, bn, d), "sm_90a")
    kind = "bf16" if dtype == "bfloat16" else "f16"
    steps = collections.Counter(re.findall(rf"wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k16\.f32\.{kind}\.{kind} ", ptx))
    assert steps == collections.Counter({str(bn): d // 16}) + collections.Counter({str(d): bn // 16}), steps
    assert "fence.proxy.async" in ptx and "wgmma.wait_group.sync.aligned 0" in ptx
    # Nothing in local memory: no spills, no stack frame (ptxas -v of CUDA 13.0 on the
    # development machine: 168 to 254 registers).
    assert spills == 0 and "ld.local" not in ptx and "st.local" not in ptx, (registers, spills)


@pytest.mark.skipif(not (CUDA / "bin").is_dir(), reason=f"no CUDA toolkit at {CUDA}")
@pytest.mark.parametrize("bm, bn, d", [(32, 64, 64), (64, 32, 32)])
def test_other_blocks_keep_mma_sync_on_sm90a(tmp_path, bm, bn, d):
    # 32 query rows are half a warpgroup, and rows of 64 bytes are no 128-byte slabs: mma.sync.
    ptx, _, _ = ptxas_usage(tmp_path, annotated_example("bfloat16", True, bm, bn, d), "sm_90a")
    assert "wgmma.mma_async" not in ptx and "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" in ptx
