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
    "max_min_narrow": """
@cu.kernel
def narrow(a: cu.float16[:], b: cu.bfloat16[:], out: cu.float16[:], out2: cu.bfloat16[:]):
    cu.store(out, (0,), cu.maximum(cu.load(a, (0,), (128,)), cu.load(a, (1,), (128,))))
    cu.store(out2, (0,), cu.minimum(cu.load(b, (0,), (128,)), cu.load(b, (1,), (128,))))
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
    "reduce_scan_functions": """
@ct.function
def larger(a, b):
    return a if a > b else b

@cu.kernel
def combine(a: cu.float16[:, :], m: cu.float16[:], s: cu.float16[:, :], t: cu.float32[:, :]):
    x = cu.load(a, (0, 0), (64, 32))
    cu.store(m, (0,), cu.reduce(x, 1, larger, -1.0))
    cu.store(s, (0, 0), cu.scan(x, axis=0, func=lambda p, q: p + q, identity=0))
    cu.store(s, (0, 0), cu.scan(x, axis=1, func=lambda p, q: p * q, identity=1, reverse=True))
    cu.store(t, (0, 0), cu.reduce(x.astype(cu.float32), None, lambda p, q: p * q, 1, keepdims=True))
""",
    "assumptions": """
@ct.kernel
def hinted(a: ct.float32[:], out: ct.float32[:], n: ct.int32):
    i = ct.assume_bounded(ct.bid(0), 0, 65535)
    m = ct.assume_bounded_above(ct.assume_bounded_below(ct.assume_divisible(n, 16), 0), 4096)
    ct.store(out, (i,), ct.load(a, (i,), (256,)) * ct.assume_divisible(m, 8))
""",
    "load_store_orders": """
@cu.kernel
def orders(a: cu.float32[:, :], b: cu.float16[:, :, :], out: cu.float32[:, :], o3: cu.float16[:, :, :]):
    t = cu.load(a, (cu.bid(1), cu.bid(0)), shape=(64, 32), order=(1, 0), padding_mode=cu.PaddingMode.ZERO)
    cu.store(out, (cu.bid(1), cu.bid(0)), t, order="F")
    cu.store(o3, (0, 0, 0), cu.load(b, (0, 0, 0), (16, 8, 4), order="F") + 1, order=(2, 0, 1))
""",
    "fp8": """
@ct.kernel
def fp8(a: ct.float8e4m3[:, :], b: ct.float8e5m2[:, :], c: ct.float32[:, :], d: ct.float8e5m2[:, :]):
    x = ct.load(a, (0, 0), (64, 32))
    ct.store(c, (0, 0), ct.mma(x, ct.load(a, (0, 0), (32, 64)), ct.zeros((64, 64), ct.float32)))
    y = ct.load(b, (0, 0), (32, 64), padding="-inf")
    ct.store(d, (0, 0), (y.astype(ct.float32) * 2).astype(ct.float8e5m2), order=(1, 0))
""",
    "partition_views": """
@ct.function
def doubled(v, i, j):
    return v.load((i, j)) * 2

@ct.kernel
def views(a: ct.bfloat16[:, :], out: ct.bfloat16[:, :], n: ct.int32[:]):
    v = ct.partition_view(ct.tensor_span(a), (64, 64), padding="nan")
    o = ct.partition_view(out, (64, 64))
    o.store((ct.bid(0), ct.bid(1)), doubled(v, ct.bid(0), ct.bid(1)))
    ct.store(o, (ct.bid(1), ct.bid(0)), ct.load(v, (ct.bid(0), ct.bid(1))), order="F")
    n[0] = v.num_tiles(0) * ct.num_tiles(o, 1)
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
    "mma_tf32": """
@ct.kernel
def tf32(a: ct.float32[:, :], b: ct.float32[:, :], c: ct.float32[:, :]):
    x = ct.astype(ct.load(a, (0, 0), (64, 32)), ct.tfloat32)
    ct.store(c, (0, 0), ct.mma(x, ct.astype(ct.load(b, (0, 0), (32, 64)), ct.tfloat32), ct.zeros((64, 64), ct.float32)))
""",
    "mma_f64_int8": """
@ct.kernel
def products(a: ct.float64[:, :], b: ct.float64[:, :], c: ct.float64[:, :], i: ct.int8[:, :], o: ct.int32[:, :]):
    ct.store(c, (0, 0), ct.load(a, (0, 0), (32, 16)) @ ct.load(b, (0, 0), (16, 32)))
    ct.store(o, (0, 0), ct.load(i, (0, 0), (64, 64)) @ ct.load(i, (0, 0), (64, 64)))
""",
}


def test_tfloat32_mma_rounds_and_runs_on_tensor_cores(tmp_path):
    _, ptx = compile_for_sm90(tmp_path, "mma_tf32", PRELUDE + SOURCES["mma_tf32"])
    assert "cvt.rna.tf32.f32" in ptx and "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32" in ptx


def test_k_loops_of_mma_are_pipelined(tmp_path):
    # The K loop becomes one mma_pipeline: cp.async into shared memory, ldmatrix (.trans for b).
    _, ptx = compile_for_sm90(tmp_path, "mma_bf16", PRELUDE + SOURCES["mma_bf16"])
    assert "cp.async.cg.shared.global" in ptx and "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16" in ptx
    assert "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" in ptx


@pytest.mark.parametrize("dtype, acc, tiles, instruction", [
    ("int8", "int32", (64, 64, 64), "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32"),
    ("uint8", "int32", (64, 128, 32), "mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32"),
    ("float64", "float64", (64, 64, 16), "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64"),
    ("float8e4m3", "float32", (64, 64, 64), "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32"),
    ("float8e5m2", "float32", (128, 64, 32), "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32"),
])
def test_k_loops_of_every_operand_type_are_pipelined(tmp_path, dtype, acc, tiles, instruction):
    # cp.async into the stages, ldmatrix for the a fragments where the type has them, mma.sync.
    tm, tn, tk = tiles
    source = PRELUDE + f"""
@cu.kernel
def gemm(a: cu.{dtype}[:, :], b: cu.{dtype}[:, :], c: cu.{acc}[:, :]):
    acc = cu.zeros(({tm}, {tn}), dtype=cu.{acc})
    for k in range(cu.num_tiles(a, axis=1, shape=({tm}, {tk}))):
        acc = cu.mma(cu.load(a, (cu.bid(0), k), ({tm}, {tk})), cu.load(b, (k, cu.bid(1)), ({tk}, {tn})), acc)
    cu.store(c, (cu.bid(0), cu.bid(1)), acc)
"""
    _, ptx = compile_for_sm90(tmp_path, f"gemm_{dtype}", source)
    assert "cp.async.cg.shared.global" in ptx and instruction in ptx
    assert ("ldmatrix.sync.aligned.m8n8.x4.shared.b16" in ptx) == (dtype != "float64")


FP8_GEMM = PRELUDE + """
@cu.kernel
def gemm(a: cu.{dtype}[:, :], b: cu.{dtype}[:, :], c: cu.float32[:, :]):
    acc = cu.zeros((128, 128), dtype=cu.float32)
    for k in range(cu.num_tiles(a, axis=1, shape=(128, 64))):
        acc = cu.mma(cu.load(a, (cu.bid(0), k), (128, 64)), cu.load(b, (k, cu.bid(1)), (64, 128)), acc)
    cu.store(c, (cu.bid(0), cu.bid(1)), acc)
    cu.store(c, (0, 0), cu.load(a, (0, 0), (64, 32)) @ cu.load(b, (0, 0), (32, 64)))
"""


@pytest.mark.parametrize("dtype", ["float8e4m3", "float8e5m2"])
def test_float8_mma_on_sm90a_takes_mma_sync(tmp_path, dtype):
    # wgmma reads fp8 operands K-major only and the K loop's b tiles are N-major: on sm_90a the
    # fp8 K loop and the one-tile mma take the cp.async path and mma.sync, never wgmma or TMA.
    _, ptx = compile_for_sm90(tmp_path, "gemm", FP8_GEMM.format(dtype=dtype), arch="sm_90a")
    kind = dtype[len("float8"):]
    assert f"mma.sync.aligned.m16n8k32.row.col.f32.{kind}.{kind}.f32" in ptx
    assert "cp.async.cg.shared.global" in ptx and "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in ptx
    assert "wgmma" not in ptx and "cp.async.bulk.tensor" not in ptx


@pytest.mark.parametrize("arch", ["sm_80", "sm_86"])
def test_float8_mma_before_sm89_multiplies_without_tensor_cores(tmp_path, arch):
    # PTX has no fp8 mma.sync before sm_89 (ptxas rejects it): the products are scalar code.
    _, ptx = compile_for_sm90(tmp_path, "gemm", FP8_GEMM.format(dtype="float8e4m3"), arch=arch)
    assert "mma.sync" not in ptx


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
    # float16 loops over kernel parameters ask for the TMA path (test_tile_wgmma_cpu.py).
    assert bool(re.search(r"weft::tiles::mma_pipeline(_tma)?_arrays<", proc.stdout)) == pipelined


# The tf32 K loop in both faces: the float32 loads converted with astype(tfloat32), inline or
# through locals (the conversion, the load or both).
TF32_LOOPS = {
    "ct_inline": ("ct", "acc = ct.mma(ct.astype(ct.load(a, (0, k), (64, 32)), ct.tfloat32), "
                        "ct.astype(ct.load(b, (k, 0), (32, 64)), ct.tfloat32), acc)"),
    "ct_locals": ("ct", "x = ct.astype(ct.load(a, (0, k), (64, 32)), ct.tfloat32)\n        "
                        "y = ct.astype(ct.load(b, (k, 0), (32, 64)), ct.tfloat32)\n        acc = ct.mma(x, y, acc)"),
    "cu_inline": ("cu", "acc = cu.mma(cu.load(a, (0, k), (64, 32)).astype(cu.tfloat32), "
                        "cu.load(b, (k, 0), (32, 64)).astype(cu.tfloat32), acc)"),
    "cu_loads_in_locals": ("cu", "y = cu.load(b, (k, 0), (32, 64))\n        x = cu.load(a, (0, k), (64, 32))\n        "
                                 "acc = cu.mma(x.astype(cu.tfloat32), y.astype(cu.tfloat32), acc)"),
    "cu_both_in_locals": ("cu", "x = cu.load(a, (0, k), (64, 32))\n        xt = x.astype(cu.tfloat32)\n        "
                                "acc = cu.mma(xt, cu.load(b, (k, 0), (32, 64)).astype(cu.tfloat32), acc)"),
    # Not pipelined: float32 operands not converted; a padding other than zero; the loaded float32
    # tile read after the loop; a conversion to another type.
    "float32": ("cu", "acc = cu.mma(cu.load(a, (0, k), (64, 32)), cu.load(b, (k, 0), (32, 64)), acc)"),
    "nan_padding": ("cu", "acc = cu.mma(cu.load(a, (0, k), (64, 32), padding_mode=cu.PaddingMode.NAN)"
                          ".astype(cu.tfloat32), cu.load(b, (k, 0), (32, 64)).astype(cu.tfloat32), acc)"),
    "load_read_after": ("cu", "x = cu.load(a, (0, k), (64, 32))\n        acc = cu.mma(x.astype(cu.tfloat32), "
                              "cu.load(b, (k, 0), (32, 64)).astype(cu.tfloat32), acc)\n    cu.store(c, (0, 0), x)"),
    "float16": ("cu", "acc = cu.mma(cu.load(a, (0, k), (64, 32)).astype(cu.float16), "
                      "cu.load(b, (k, 0), (32, 64)).astype(cu.float16), acc)"),
}


def tf32_loop_source(name):
    face, body = TF32_LOOPS[name]
    return PRELUDE + f"""
@{face}.kernel
def gemm(a: {face}.float32[:, :], b: {face}.float32[:, :], c: {face}.float32[:, :]):
    acc = {face}.zeros((64, 64), dtype={face}.float32)
    for k in range({face}.num_tiles(a, axis=1, shape=(64, 32))):
        {body}
    {face}.store(c, (0, 0), acc)
"""


@pytest.mark.parametrize("name, pipelined", [
    ("ct_inline", True), ("ct_locals", True), ("cu_inline", True), ("cu_loads_in_locals", True),
    ("cu_both_in_locals", True), ("float32", False), ("nan_padding", False), ("load_read_after", False),
    ("float16", False)])
def test_which_tf32_k_loops_are_pipelined(tmp_path, name, pipelined):
    src = tmp_path / "gemm.py"
    src.write_text(tf32_loop_source(name))
    proc = subprocess.run([weftc_path(), str(src), "--emit-cuda"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    # The products stay tf32: the pipeline rounds the float32 operands as astype(tfloat32) does.
    assert ("weft::tiles::mma_pipeline_arrays<weft::tiles::shape<64u, 32u>, weft::tiles::shape<32u, 64u>, 4, "
            "weft::tiles::tfloat32>(" in proc.stdout) == pipelined
    assert ("weft::tiles::mma_pipeline_arrays<" in proc.stdout) == pipelined


def test_tf32_k_loops_are_pipelined_for_sm90(tmp_path):
    # cp.async of the float32 operands into the stages, then tf32 mma.sync.
    _, ptx = compile_for_sm90(tmp_path, "gemm_tf32", tf32_loop_source("cu_inline"))
    assert "cp.async.cg.shared.global" in ptx and "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32" in ptx


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_tile_kernel_compiles_for_sm90(tmp_path, name):
    _, ptx = compile_for_sm90(tmp_path, name, PRELUDE + SOURCES[name])
    # A tile block is one CTA of 128 to 512 threads by the size of its tiles; with mma, a warp for
    # each 64 x 64 part of the accumulator (128 to 256 threads).
    threads = {"vec_add": 128, "softmax_bf16": 256, "reductions_scans": 128, "reduce_scan_functions": 128,
               "assumptions": 128, "load_store_orders": 128, "fp8": 128, "partition_views": 256, "shape_ops": 256,
               "mma_bf16": 128, "mma_tf32": 128, "mma_f64_int8": 128, "max_min_narrow": 128}[name]
    assert re.search(rf"\.maxntid {threads}\b", ptx), re.findall(r"\.maxntid \d+", ptx)


@pytest.mark.parametrize("name, vector, min_blocks", [
    ("vec_add", 4, 8), ("softmax_bf16", 8, 4), ("fp8", 8, 1), ("mma_f64_int8", 8, 1), ("max_min_narrow", 8, 8),
    ("reductions_scans", 4, 8), ("mma_bf16", 8, 1)])
def test_tile_block_vector_and_registers(tmp_path, name, vector, min_blocks):
    # 16-byte accesses of the narrowest element a tile load or store moves, 4 to 8 elements; at
    # most 64 registers a thread (1024 / threads tile blocks an SM) unless the kernel uses mma
    # (40 for arrays of 16-bit elements with every launch fact: test_row_kernels_fit_...).
    _, ptx = compile_for_sm90(tmp_path, name, PRELUDE + SOURCES[name])
    src = tmp_path / f"{name}_emit.py"
    src.write_text(PRELUDE + SOURCES[name])
    proc = subprocess.run([weftc_path(), str(src), "--emit-cuda"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert f"#define WEFT_TILE_MAX_VECTOR {vector}\n" in proc.stdout
    assert f"#define WEFT_TILE_MIN_BLOCKS {min_blocks}\n" in proc.stdout
    if min_blocks > 1:
        assert re.search(rf"\.minnctapersm {min_blocks}\b", ptx), re.findall(r"\.minnctapersm \d+", ptx)


# bench/bench_tiles.py's row kernels over 8192 columns (one tile block of 512 threads a row).
ROW_KERNELS = """
@cu.kernel
def softmax(x: cu.{t}[:, :], out: cu.{t}[:, :]):
    row = cu.bid(0)
    t = cu.load(x, index=(row, 0), shape=(1, 8192), padding_mode=cu.PaddingMode.NEG_INF).astype(cu.float32)
    e = cu.exp2((t - cu.max(t, axis=1, keepdims=True)) * 1.4426950408889634)
    total = cu.sum(e, axis=1, keepdims=True)
    cu.store(out, index=(row, 0), tile=cu.truediv(e, total, rounding_mode=cu.RoundingMode.FULL).astype(out.dtype))

@cu.kernel
def layernorm(x: cu.{t}[:, :], w: cu.{t}[:], b: cu.{t}[:], y: cu.{t}[:, :]):
    row = cu.bid(0)
    t = cu.load(x, index=(row, 0), shape=(1, 8192)).astype(cu.float32)
    centered = t - cu.sum(t, axis=1, keepdims=True) / 8192
    var = cu.sum(centered * centered, axis=1, keepdims=True) / 8192
    rstd = cu.truediv(1.0, cu.sqrt(var + 1e-5, rounding_mode=cu.RoundingMode.APPROX),
                      rounding_mode=cu.RoundingMode.APPROX)
    scale = cu.load(w, index=(0,), shape=(8192,)).astype(cu.float32)
    shift = cu.load(b, index=(0,), shape=(8192,)).astype(cu.float32)
    cu.store(y, index=(row, 0), tile=(centered * rstd * scale + shift).astype(y.dtype))
"""


def ptxas_resources(tmp_path, ptx_text, arch="sm_90"):
    """{entry function: (registers, spill bytes)} from ptxas -v of the PTX for `arch`."""
    ptx = tmp_path / "resources.ptx"
    ptx.write_text(ptx_text)
    proc = subprocess.run([str(CUDA / "bin" / "ptxas"), f"-arch={arch}", "-v", str(ptx), "-o", str(tmp_path / "r.cubin")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    found = {}
    for entry, body in re.findall(r"Compiling entry function '(\w+)'.*?\n((?:.*\n){1,4})", proc.stderr):
        spills = sum(int(n) for n in re.findall(r"(\d+) bytes spill", body))
        found[entry] = (int(re.search(r"Used (\d+) registers", body).group(1)), spills)
    return found


@pytest.mark.parametrize("dtype, form, softmax_registers, layernorm_registers", [
    ("bfloat16", "fast", 32, 40), ("float32", "fast", 38, 64),
    ("bfloat16", "general", 32, 56), ("float32", "general", 40, 64)])
def test_row_kernels_fit_the_registers_of_more_tile_blocks(tmp_path, dtype, form, softmax_registers,
                                                           layernorm_registers):
    # A block-wide total is combined by one lane a warp partial and shuffles (every thread held
    # all 16 warps' partials in registers). A row's loads and stores take one path, each piece
    # of a thread's elements a vector or its elements on its own (memory.h, visit_tile_pieces):
    # a check of the whole tile choosing between an unchecked path and the checked one joined
    # the two, and the bfloat16 softmax took 39 registers (3 tile blocks of 512 threads an SM);
    # now 32 (4, as Triton's). The bfloat16 layernorm, whose weights and biases join as 32-bit
    # words, took 64 (its cap), now 56; the float32 one spilled 16 bytes at its cap of 64.
    # The fast form declares its arrays C-contiguous, T[..., ::1], which states every launch fact
    # (docs/tiles.md "Launch facts"), as a launch of such arrays from Python specializes them: its
    # pieces are each a vector or padding, and the bfloat16 layernorm keeps no registers for an
    # element-by-element path (47, from 56), and with no element wider than 16 bits its cap is
    # 40 (1536 / 512 threads: three tile blocks an SM, as Triton's), which it fits without
    # spilling (the general form spilled 104 bytes at 40, so it keeps 64).
    if not (CUDA / "bin" / "ptxas").exists():
        pytest.skip("no ptxas")
    source = ROW_KERNELS.replace("{t}", dtype)
    if form == "fast":
        source = source.replace("[:, :]", "[:, ::1]").replace(f"{dtype}[:]", f"{dtype}[::1]")
    _, ptx = compile_for_sm90(tmp_path, f"rows_{dtype}", PRELUDE + source)
    assert "ex2.approx.f32" in ptx and "div.full.f32" in ptx and "div.rn.f32" not in ptx
    resources = ptxas_resources(tmp_path, ptx)
    by_name = {next(n for n in ("softmax", "layernorm") if n in entry): used for entry, used in resources.items()}
    assert by_name["softmax"][0] <= softmax_registers and by_name["softmax"][1] == 0, by_name
    assert by_name["layernorm"][0] <= layernorm_registers and by_name["layernorm"][1] == 0, by_name
    blocks = 3 if dtype == "bfloat16" and form == "fast" else 2
    assert len(re.findall(rf"\.minnctapersm {blocks}\b", ptx)) == 2, re.findall(r"\.minnctapersm \d+", ptx)
