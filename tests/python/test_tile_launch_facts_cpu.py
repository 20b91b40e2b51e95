"""Launch facts (docs/tiles.md "Launch facts"): a tile kernel is specialized on what each array
argument's layout guarantees (16-byte aligned data, unit inner stride, outer strides and inner
extent of whole 16 bytes), so that its loads and stores compile without the checks and the
element-by-element fallback the facts make unnecessary. Every layout against NumPy on the CPU
target (test_tile_launch_facts_gpu.py: on the GPU), the specializations the facts make, and the
ahead-of-time form T[..., ::1]."""

import subprocess

import ml_dtypes
import numpy as np
import pytest

import weft
from weft import cutile as cu
from weft import tiles as ct
from test_sm90_ptxas import weftc_path
from test_tiles_cpu import run_tiles

ALL_FACTS = "15u"  # weft/tiles/span_facts.h: all_span_facts


@pytest.fixture(scope="module")
def target():
    return "cpu"


def aligned_empty(shape, dtype):
    """A C-contiguous array whose data starts on a 16-byte boundary."""
    dtype = np.dtype(dtype)
    count = int(np.prod(shape))
    raw = np.zeros(count * dtype.itemsize + 16, np.uint8)
    start = (-raw.ctypes.data) % 16
    return raw[start:start + count * dtype.itemsize].view(dtype).reshape(shape)


def laid_out(rng, rows, cols, dtype, layout):
    """Random data (rows x cols) in `layout`: aligned (whole 16-byte rows), offset (data one
    element past a 16-byte boundary), strided (every other column), odd (997 columns)."""
    if layout == "odd":
        cols = 997
    full = aligned_empty((rows, 2 * cols + 8), dtype)
    full[...] = (rng.standard_normal(full.shape) * 3).astype(dtype)
    if layout == "aligned":
        return full[:, :cols]
    if layout == "offset":
        return full[:, 1:cols + 1]
    if layout == "strided":
        return full[:, :2 * cols:2]
    return full[:, :cols]


@cu.kernel
def row_facts(x, out, sums, maxes, n: cu.Constant[int]):
    r = cu.bid(0)
    c = cu.bid(1)
    cu.store(out, (r, c), cu.load(x, (r, c), (1, n), padding_mode=cu.PaddingMode.NAN))
    z = cu.load(x, (r, c), (1, n)).astype(cu.float32)
    m = cu.load(x, (r, c), (1, n), padding_mode=cu.PaddingMode.NEG_INF).astype(cu.float32)
    cu.store(sums, (r, c), cu.sum(z, axis=1, keepdims=True))
    cu.store(maxes, (r, c), cu.max(m, axis=1, keepdims=True))


@ct.kernel
def block_facts(x, out):
    i = ct.bid(0)
    j = ct.bid(1)
    ct.store(out, (i, j), ct.load(x, (i, j), (4, 32), padding="nan") * 2)


def padded_with(x, shape, value):
    padded = np.full(shape, value, np.float32)
    padded[:x.shape[0], :x.shape[1]] = x.astype(np.float32)
    return padded


LAYOUTS = ["aligned", "offset", "strided", "odd"]


@pytest.mark.parametrize("dtype", [np.float32, ml_dtypes.bfloat16])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_row_tiles_of_every_layout_against_numpy(target, rng, dtype, layout):
    # 1000 columns of 64-column tiles: the last tile is cut (40 columns, whole vectors) and one
    # more lies wholly past the end; a row of tiles lies past the last row. Each padding shows:
    # NaN in the stored tile, zero in the sums, -inf in the maxima.
    rows, n = 5, 64
    x = laid_out(rng, rows, 1000, dtype, layout)
    grid = (rows + 1, x.shape[1] // n + 2)
    out = np.zeros((grid[0], grid[1] * n), dtype)
    sums = np.zeros(grid, np.float32)
    maxes = np.zeros(grid, np.float32)
    run_tiles(target, row_facts, x, out, sums, maxes, n, grid=grid)
    np.testing.assert_array_equal(out.astype(np.float32), padded_with(x, out.shape, np.nan))
    tiles = (grid[0], grid[1], n)
    np.testing.assert_allclose(sums, padded_with(x, out.shape, 0).reshape(tiles).sum(axis=2), rtol=1e-5, atol=1e-4)
    np.testing.assert_array_equal(maxes, padded_with(x, out.shape, -np.inf).reshape(tiles).max(axis=2))
    if target == "cpu":
        facts = row_facts._emit_cuda(x, out, sums, maxes, n).count(f"shape<1u, 64u>, {ALL_FACTS}>")
        assert (facts == 3) == (layout == "aligned"), facts


@pytest.mark.parametrize("dtype", [np.float32, ml_dtypes.bfloat16])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_block_tiles_of_every_layout_against_numpy(target, rng, dtype, layout):
    # 4 x 32 tiles (each checked whole, then moved without checks when inside) over 10 rows.
    x = laid_out(rng, 10, 1000, dtype, layout)
    grid = ((10 + 3) // 4, (x.shape[1] + 31) // 32)
    out = np.zeros((grid[0] * 4, grid[1] * 32), dtype)
    run_tiles(target, block_facts, x, out, grid=grid)
    np.testing.assert_array_equal(out.astype(np.float32), padded_with(x, out.shape, np.nan) * 2)


def test_each_set_of_facts_compiles_once():
    @cu.kernel
    def twice(x, y):
        cu.store(y, (cu.bid(0), 0), cu.load(x, (cu.bid(0), 0), (1, 64)) * 2)

    rng = np.random.default_rng(3)
    aligned = aligned_empty((4, 64), np.float32)
    aligned[...] = rng.standard_normal((4, 64))
    offset = laid_out(rng, 4, 64, np.float32, "offset")
    counts = []
    for x in (aligned, aligned.copy(), offset, aligned, offset):
        y = aligned_empty((4, 64), np.float32)
        weft.launch(twice, x, y, grid=4, target="cpu")
        np.testing.assert_array_equal(y, x * 2)
        counts.append(twice._compile_count)
    # aligned arrays share one specialization, the offset view gets its own, and each is reused.
    assert counts == [1, 1, 2, 2, 2]


def test_simt_kernels_take_no_facts():
    @weft.kernel
    def scale(x, y):
        i = weft.tid(1)
        if i < x.size:
            y[i] = x[i] * 2

    base = np.arange(41, dtype=np.float32)
    for x in (base[:32], base[1:33], base[::2][:16]):
        y = np.zeros(x.shape, np.float32)
        weft.launch(scale, x, y, grid=1, block=64, target="cpu")
        np.testing.assert_array_equal(y, x * 2)
    assert scale._compile_count == 1


@ct.kernel
def rebinds(x, y, z, w):
    a = x
    if ct.bid(0) == 1:
        a = y  # a joins x's facts with y's: those both have
    ct.store(z, (ct.bid(0), 0), ct.load(a, (ct.bid(0), 0), (1, 32)) + 1)
    w = z
    ct.store(w, (ct.bid(0), 1), ct.load(y, (ct.bid(0), 0), (1, 32)))


def test_variables_and_rebound_parameters_keep_only_common_facts(rng):
    x = aligned_empty((2, 32), np.float32)
    x[...] = rng.standard_normal((2, 32))
    y = laid_out(rng, 2, 32, np.float32, "offset")
    z = aligned_empty((2, 64), np.float32)
    w = aligned_empty((2, 32), np.float32)
    weft.launch(rebinds, x, y, z, w, grid=2, target="cpu")
    np.testing.assert_array_equal(z[0, :32], x[0] + 1)
    np.testing.assert_array_equal(z[1, :32], y[1] + 1)
    np.testing.assert_array_equal(z[:, 32:], y)
    source = rebinds._emit_cuda(x, y, z, w)
    # z (aligned, never rebound) has every fact; a holds only those x and y share (y's data is
    # not aligned), and w, which the kernel rebinds, none.
    assert f"store_array<{ALL_FACTS}>(v_z" in source
    assert "load_array<weft::tiles::shape<1u, 32u>, 14u>(v_a" in source
    assert "store_array(v_w" in source


@cu.kernel
def declared(x: cu.float32[:, ::1], y: cu.float32[:, ::1]):
    cu.store(y, (cu.bid(0), 0), cu.load(x, (cu.bid(0), 0), (1, 64)) + 1)


def test_declared_layouts_require_their_facts_at_launch(rng):
    x = aligned_empty((3, 64), np.float32)
    x[...] = rng.standard_normal((3, 64))
    y = aligned_empty((3, 64), np.float32)
    weft.launch(declared, x, y, grid=3, target="cpu")
    np.testing.assert_array_equal(y, x + 1)
    assert declared._compile_count == 1
    with pytest.raises(TypeError, match="parameter 'x' is declared .* but the array has no 16-byte aligned data"):
        weft.launch(declared, laid_out(rng, 3, 64, np.float32, "offset"), y, grid=3, target="cpu")
    with pytest.raises(TypeError, match="but the array has no unit inner stride"):
        weft.launch(declared, laid_out(rng, 3, 64, np.float32, "strided"), y, grid=3, target="cpu")
    with pytest.raises(TypeError, match="an inner extent of whole 16 bytes"):
        weft.launch(declared, aligned_empty((3, 63), np.float32), y, grid=3, target="cpu")
    assert declared._compile_count == 1


def test_weftc_compiles_the_fast_form_of_declared_layouts(tmp_path):
    src = tmp_path / "declared.py"
    src.write_text("""from weft import cutile as cu

@cu.kernel
def fast(x: cu.bfloat16[:, ::1], w: cu.bfloat16[::1], y: cu.bfloat16[:, ::1]):
    cu.store(y, (cu.bid(0), 0), cu.load(x, (cu.bid(0), 0), (1, 256)) * cu.reshape(cu.load(w, (0,), (256,)), (1, 256)))

@cu.kernel
def general(x: cu.bfloat16[:, :], y: cu.bfloat16[::1, :]):
    cu.store(y, (cu.bid(0), 0), cu.load(x, (cu.bid(0), 0), (1, 256)))
""")
    proc = subprocess.run([weftc_path(), str(src), "--emit-cuda"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    fast, general = proc.stdout.split("general", 1)[0], proc.stdout.split("general", 1)[1]
    assert fast.count(f"shape<1u, 256u>, {ALL_FACTS}>") == 1 and f"shape<256u>, {ALL_FACTS}>" in fast
    assert f"store_array<{ALL_FACTS}>" in fast
    assert ALL_FACTS not in general
