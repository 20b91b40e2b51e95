"""debug=True in tile kernels (docs/tiles.md "Debugging tile kernels"), on the CPU target against
NumPy on seeded random data: what the seed and cuTile leave undefined raises the SIMT debug
mode's Python exception with the user's file:line; what weft defines keeps its defined result
with or without debug; release code has no check. test_tiles_debug_gpu.py runs the tests that
take `target` on the GPU; the sm_90 tests compile checked tile units through NVRTC and ptxas."""

import ctypes
import pathlib
import re
import subprocess

import numpy as np
import pytest

import weft
from weft import cutile as cu
from weft import tiles as ct
from launching import line_of
from test_sm90_ptxas import CUDA, PTXAS

FILE = __file__  # reports name the file as Python does (its full path)


@pytest.fixture(scope="module")
def target():
    return "cpu"


def launch(target, kernel, *args, grid=1):
    """Launches the tile kernel; NumPy arrays in `args` hold the results afterwards (on the GPU
    they go to the device and back, also when the launch raises)."""
    if target != "gpu":
        weft.launch(kernel, *args, grid=grid, target=target)
        return
    dev = [weft.to_device(a) if isinstance(a, np.ndarray) else a for a in args]
    try:
        weft.launch(kernel, *dev, grid=grid, target="gpu")
        weft.synchronize()
    finally:
        for a, d in zip(args, dev):
            if isinstance(a, np.ndarray):
                a[...] = d.copy_to_host()


def failure(kind, target, kernel, *args, grid=1):
    """The message of the `kind` exception the launch raises."""
    with pytest.raises(kind) as info:
        launch(target, kernel, *args, grid=grid)
    return str(info.value)


def report(kernel, text, what, block=(0, 0, 0)):
    """The first lines of the SIMT debug report of a failure at the line of `kernel` with `text`:
    file:line and what, the source line, the kernel and the tile block (thread 0 on both targets)."""
    line = line_of(kernel, text)
    source = pathlib.Path(FILE).read_text().splitlines()[line - 1].strip()
    return f"{FILE}:{line}: {what}\n    {source}\nin kernel '{kernel.__name__}', block {block}, thread (0, 0, 0)"


# ---- integer division and modulo by zero (ZeroDivisionError), in both faces ----


@ct.kernel(debug=True)
def seed_divide(a, b, q, r, n: ct.ConstExpr):
    x = ct.load(a, (ct.bid(0),), (n,))
    y = ct.load(b, (ct.bid(0),), (n,))
    ct.store(q, (ct.bid(0),), x // y)
    ct.store(r, (ct.bid(0),), x % y)


@cu.kernel(debug=True)
def cutile_divide(a, b, q, r, n: cu.Constant[int]):
    x = cu.load(a, (cu.bid(0),), (n,))
    y = cu.load(b, (cu.bid(0),), (n,))
    cu.store(q, (cu.bid(0),), x // y)
    cu.store(r, (cu.bid(0),), x % y)


@ct.kernel
def seed_divide_release(a, b, q, r, n: ct.ConstExpr):
    x = ct.load(a, (ct.bid(0),), (n,))
    y = ct.load(b, (ct.bid(0),), (n,))
    ct.store(q, (ct.bid(0),), x // y)
    ct.store(r, (ct.bid(0),), x % y)


@pytest.mark.parametrize("kernel", [seed_divide, cutile_divide], ids=["seed", "cutile"])
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.int16])
def test_integer_division_by_zero_in_a_tile_raises(target, kernel, dtype, rng):
    info = np.iinfo(dtype)
    a = rng.integers(max(info.min, -1000), min(info.max, 1000), 256).astype(dtype)
    b = rng.integers(1, min(info.max, 50), 256).astype(dtype)
    q, r = np.zeros_like(a), np.zeros_like(a)
    launch(target, kernel, a, b, q, r, 64, grid=4)
    np.testing.assert_array_equal(q, a // b)
    np.testing.assert_array_equal(r, a % b)
    b[rng.integers(128, 192)] = 0  # in the third tile block
    message = failure(ZeroDivisionError, target, kernel, a, b, q, r, 64, grid=4)
    assert message.startswith(report(kernel, "x // y)", "integer division or modulo by zero", block=(2, 0, 0))), message


@ct.kernel(debug=True)
def guarded_divide(a, b, q):
    x = ct.load(a, (0,), (64,))
    y = ct.load(b, (0,), (64,))
    ct.store(q, (0,), ct.where(y != 0, x % y, 0))


def test_a_tile_division_checks_every_element_as_python_computes_it(target, rng):
    """`x % y` is a whole tile before where() picks from it, so a zero anywhere in y raises,
    even where the condition does not take the quotient."""
    a = rng.integers(-1000, 1000, 64).astype(np.int32)
    b = rng.integers(1, 9, 64).astype(np.int32)
    q = np.zeros_like(a)
    launch(target, guarded_divide, a, b, q)
    np.testing.assert_array_equal(q, a % b)
    b[int(rng.integers(0, 64))] = 0
    message = failure(ZeroDivisionError, target, guarded_divide, a, b, q)
    assert message.startswith(report(guarded_divide, "x % y", "integer division or modulo by zero")), message


def test_without_debug_division_by_zero_gives_weft_s_defined_zero(target, rng):
    a = rng.integers(-1000, 1000, 64).astype(np.int32)
    b = rng.integers(-3, 4, 64).astype(np.int32)
    b[:4] = 0
    q, r = np.zeros_like(a), np.zeros_like(a)
    launch(target, seed_divide_release, a, b, q, r, 64)
    safe = np.where(b == 0, 1, b)
    np.testing.assert_array_equal(q, np.where(b == 0, 0, a // safe))
    np.testing.assert_array_equal(r, np.where(b == 0, 0, a % safe))


@ct.kernel(debug=True)
def tiles_per_row(sizes, out, d):
    out[ct.bid(0)] = ct.cdiv(sizes[ct.bid(0)], d)


def test_cdiv_by_zero_raises(target, rng):
    sizes = rng.integers(1, 1000, 2).astype(np.int32)
    out = np.zeros(2, np.int32)
    launch(target, tiles_per_row, sizes, out, 7, grid=2)
    np.testing.assert_array_equal(out, -(-sizes // 7))
    message = failure(ZeroDivisionError, target, tiles_per_row, sizes, out, 0, grid=2)
    assert message.startswith(f"{FILE}:{line_of(tiles_per_row, 'cdiv')}: integer division or modulo by zero")


# ---- what weft defines stays defined under debug (the same results with and without it) ----


def defined_operations(a, s, f, wrap, shl, shr, conv):
    x = ct.load(a, (0,), (64,))
    k = ct.load(s, (0,), (64,))
    ct.store(wrap, (0,), x // -1 + x * x)  # int32 overflow wraps: INT_MIN // -1 == INT_MIN
    ct.store(shl, (0,), x << k)  # counts outside [0, 32): Python's value in the type, 0 if negative
    ct.store(shr, (0,), x >> k)
    ct.store(conv, (0,), ct.load(f, (0,), (64,)).astype(ct.int32))  # truncates, wraps; nan, inf: 0


defined_debug = ct.kernel(debug=True)(defined_operations)
defined_release = ct.kernel(defined_operations)


def test_defined_results_are_kept_with_and_without_debug(target, rng):
    a = rng.integers(-(2**31), 2**31, 64, dtype=np.int64).astype(np.int32)
    a[:2] = [-(2**31), 2**31 - 1]
    s = rng.integers(-40, 40, 64).astype(np.int32)
    f = (rng.standard_normal(64) * 1e10).astype(np.float32)
    f[:3] = [np.nan, np.inf, -np.inf]
    results = []
    for kernel in (defined_debug, defined_release):
        outs = [np.zeros(64, np.int32) for _ in range(4)]
        launch(target, kernel, a, s, f, *outs)
        results.append(outs)
    for got_debug, got_release in zip(*results):
        np.testing.assert_array_equal(got_debug, got_release)
    wide = a.astype(np.int64)
    wrap, shl, shr, conv = results[0]
    np.testing.assert_array_equal(wrap, (-wide + wide * wide).astype(np.int32))
    shifted_left = [0 if c < 0 else (int(x) << int(c)) & 0xFFFFFFFF for x, c in zip(a, s)]
    np.testing.assert_array_equal(shl, np.array(shifted_left, np.uint32).view(np.int32))
    np.testing.assert_array_equal(shr, [0 if c < 0 else int(x) >> int(c) for x, c in zip(a, s)])
    finite = np.nan_to_num(f, nan=0, posinf=0, neginf=0)
    np.testing.assert_array_equal(conv, np.array([int(v) & 0xFFFFFFFF for v in finite], np.uint32).view(np.int32))


# ---- loads and stores of a tile wholly outside the array (IndexError) ----


@ct.kernel(debug=True)
def shifted_rows(a, out, di, dj):
    t = ct.load(a, (ct.bid(0) + di, dj), (8, 16), padding="nan")
    ct.store(out, (ct.bid(0), 0), t)


def store_source(a, out, i):
    cu.store(out, (i,), cu.load(a, (0,), (32,)))


cutile_store_at = cu.kernel(debug=True)(store_source)


@ct.kernel
def shifted_rows_release(a, out, di, dj):
    t = ct.load(a, (ct.bid(0) + di, dj), (8, 16), padding="nan")
    ct.store(out, (ct.bid(0), 0), t)


def test_a_load_overlapping_the_array_is_padded_and_one_wholly_outside_raises(target, rng):
    rows, cols = int(rng.integers(17, 24)), int(rng.integers(3, 16))  # the last row tile is an edge tile
    a = rng.standard_normal((rows, cols)).astype(np.float32)
    out = np.zeros((24, 16), np.float32)
    launch(target, shifted_rows, a, out, 0, 0, grid=3)
    padded = np.full((24, 16), np.nan, np.float32)
    padded[:rows, :cols] = a
    np.testing.assert_array_equal(out, padded)
    line = "ct.load(a, (ct.bid(0) + di, dj), (8, 16), padding=\"nan\")"
    # Row tile 3 starts at row 24 >= rows: wholly outside. The report names the tile's first element.
    message = failure(IndexError, target, shifted_rows, a, out, 1, 0, grid=3)
    assert message.startswith(report(shifted_rows, line, f"index 24 is out of bounds for axis 0 with size {rows}",
                                     block=(2, 0, 0)) + f": index (24, 0) into an array of shape ({rows}, {cols})"), message
    message = failure(IndexError, target, shifted_rows, a, out, 0, -1, grid=3)
    assert f"index -16 is out of bounds for axis 1 with size {cols}" in message
    assert message.splitlines()[2].startswith(f"in kernel 'shifted_rows', block (0, 0, 0), thread (0, 0, 0)")
    # Without debug a tile wholly outside is all padding (weft's defined result).
    out[...] = 0
    launch(target, shifted_rows_release, a, out, 1, -1, grid=3)
    assert np.isnan(out).all()


def test_a_store_wholly_outside_raises_and_stores_nothing(target, rng):
    a = rng.standard_normal(32).astype(np.float32)
    size = int(rng.integers(33, 64))
    out = np.zeros(size, np.float32)
    launch(target, cutile_store_at, a, out, 1)  # an edge tile: its elements inside are stored
    np.testing.assert_array_equal(out[32:], a[: size - 32])
    for i in (2, -1):
        out[...] = 0
        message = failure(IndexError, target, cutile_store_at, a, out, i)
        assert message.startswith(report(cutile_store_at, "cu.store(out, (i,), cu.load(a, (0,), (32,)))",
                                         f"index {32 * i} is out of bounds for axis 0 with size {size}")), message
        assert not out.any()


# ---- gather, scatter and atomics with check_bounds=False (IndexError) ----


@ct.kernel(debug=True)
def gather_rows_cols(a, rows, cols, out):
    i = ct.load(rows, (0, 0), (8, 16))
    j = ct.load(cols, (0, 0), (8, 16))
    ct.store(out, (0, 0), ct.gather(a, (i, j), mask=j != -7, check_bounds=False))


@cu.kernel(debug=True)
def cutile_scatter(out, idx, values):
    k = cu.load(idx, (0,), (128,))
    cu.scatter(out, k, cu.load(values, (0,), (128,)), check_bounds=False)


@cu.kernel(debug=True)
def cutile_atomic_add(hist, idx):
    k = cu.load(idx, (0,), (256,))
    cu.atomic_add(hist, k, 1, check_bounds=False)


@cu.kernel(debug=True)
def cutile_gather_checked(a, idx, out):
    k = cu.load(idx, (0,), (128,))
    cu.store(out, (0,), cu.gather(a, k, padding_value=-1.0))


def test_gather_indices_outside_raise_naming_the_first_in_row_major_order(target, rng):
    a = rng.standard_normal((5, 7)).astype(np.float32)
    rows = rng.integers(0, 5, (8, 16)).astype(np.int32)
    cols = rng.integers(0, 7, (8, 16)).astype(np.int32)
    out = np.zeros((8, 16), np.float32)
    launch(target, gather_rows_cols, a, rows, cols, out)
    np.testing.assert_array_equal(out, a[rows, cols])
    cols[0, 3] = -7  # masked off: not an access, not an error
    launch(target, gather_rows_cols, a, rows, cols, out)
    bad = sorted(rng.choice(np.arange(8, 128), 3, replace=False))  # in several threads' fragments on the GPU
    rows.flat[bad[0]] = 5
    cols.flat[bad[1]] = -1
    rows.flat[bad[2]] = 99
    message = failure(IndexError, target, gather_rows_cols, a, rows, cols, out)
    first = (5, int(cols.flat[bad[0]]))
    line = "ct.store(out, (0, 0), ct.gather(a, (i, j), mask=j != -7, check_bounds=False))"
    assert message.startswith(report(gather_rows_cols, line, "index 5 is out of bounds for axis 0 with size 5") +
                              f": index {first} into an array of shape (5, 7)"), message


def test_scatter_and_atomic_indices_outside_raise_and_write_nothing(target, rng):
    size = int(rng.integers(100, 200))
    idx = rng.permutation(size)[:128].astype(np.int64)
    values = rng.standard_normal(128).astype(np.float32)
    out = np.zeros(size, np.float32)
    launch(target, cutile_scatter, out, idx, values)
    expected = np.zeros(size, np.float32)
    expected[idx] = values
    np.testing.assert_array_equal(out, expected)
    at = int(rng.integers(0, 128))
    idx[at] = size + 3
    out[...] = 0
    message = failure(IndexError, target, cutile_scatter, out, idx, values)
    assert message.startswith(report(cutile_scatter, "cu.scatter(out, k, cu.load(values, (0,), (128,)), check_bounds=False)",
                                     f"index {size + 3} is out of bounds for axis 0 with size {size}")), message
    assert not out.any()
    keys = rng.integers(0, 16, 256).astype(np.int32)
    hist = np.zeros(16, np.int32)
    launch(target, cutile_atomic_add, hist, keys)
    np.testing.assert_array_equal(hist, np.bincount(keys, minlength=16))
    keys[int(rng.integers(0, 256))] = -2
    hist[...] = 0
    message = failure(IndexError, target, cutile_atomic_add, hist, keys)
    assert "index -2 is out of bounds for axis 0 with size 16" in message and not hist.any()


def test_check_bounds_true_stays_defined_under_debug(target, rng):
    a = rng.standard_normal(50).astype(np.float32)
    idx = rng.integers(-20, 70, 128).astype(np.int32)
    out = np.zeros(128, np.float32)
    launch(target, cutile_gather_checked, a, idx, out)
    inside = (idx >= 0) & (idx < 50)
    np.testing.assert_array_equal(out, np.where(inside, a[np.clip(idx, 0, 49)], -1.0))


# ---- extract (IndexError with debug; without it the index wraps) ----


@ct.kernel(debug=True)
def extract_block(a, out, i, j):
    x = ct.load(a, (0, 0), (16, 32))
    ct.store(out, (0, 0), ct.extract(x, (i, j), (4, 8)))


@ct.kernel
def extract_block_release(a, out, i, j):
    x = ct.load(a, (0, 0), (16, 32))
    ct.store(out, (0, 0), ct.extract(x, (i, j), (4, 8)))


def test_extract_index_outside_raises_and_wraps_without_debug(target, rng):
    a = rng.standard_normal((16, 32)).astype(np.float32)
    out = np.zeros((4, 8), np.float32)
    blocks = a.reshape(4, 4, 4, 8).transpose(0, 2, 1, 3)
    for i, j in [(3, 2), (0, 0), (-1, -4), (-4, 3)]:  # negative indices count from the end, as Python's
        launch(target, extract_block, a, out, i, j)
        np.testing.assert_array_equal(out, blocks[i, j])
    message = failure(IndexError, target, extract_block, a, out, 1, 4)
    assert message.startswith(report(extract_block, "ct.store(out, (0, 0), ct.extract(x, (i, j), (4, 8)))",
                                     "index 4 is out of bounds for axis 1 with size 4") +
                              ": index (1, 4) into an array of shape (4, 4)"), message
    assert "index -5 is out of bounds for axis 0" in failure(IndexError, target, extract_block, a, out, -5, 0)
    # Without debug an index is taken modulo the number of sub-tiles: never a read outside the tile.
    for i, j in [(5, 6), (-3, 9), (2**31 - 1, -(2**31))]:
        launch(target, extract_block_release, a, out, i, j)
        np.testing.assert_array_equal(out, blocks[i % 4, j % 4])


def test_weft_debug_turns_debug_on_for_tile_kernels(monkeypatch, rng):
    monkeypatch.setenv("WEFT_DEBUG", "1")
    kernel = cu.kernel(store_source)
    assert kernel.debug
    out = np.zeros(32, np.float32)
    message = failure(IndexError, "cpu", kernel, rng.standard_normal(32).astype(np.float32), out, 1)
    assert "index 32 is out of bounds for axis 0 with size 32" in message


# ---- release code has no check; checked tile units compile for sm_90 through NVRTC ----


def test_release_tile_code_has_no_check():
    a = np.zeros((16, 32), np.float32)
    out = np.zeros((4, 8), np.float32)
    assert "checked_at" in extract_block._emit_cuda(a, out, 0, 0, target="cpu")
    release = extract_block_release._emit_cuda(a, out, 0, 0, target="cpu")
    assert "checked_at" not in release and "weft_error_record" not in release
    ints = np.zeros(64, np.int32)
    assert "check_divisors" in seed_divide._emit_cuda(ints, ints, ints, ints, 64, target="cpu")
    release = seed_divide_release._emit_cuda(ints, ints, ints, ints, 64, target="cpu")
    assert "check_divisors" not in release and "checked_divisor" not in release
    rows = np.zeros((8, 16), np.float32)
    release = shifted_rows_release._emit_cuda(rows, rows, 0, 0, target="cpu")
    assert "checked_at" not in release and "weft_error_record" not in release


def nvrtc_ptx(source):
    """PTX for sm_90 of a generated unit, compiled by NVRTC as the runtime compiles a checked
    (debug=True) GPU unit (-DWEFT_CHECKS)."""
    nvrtc = ctypes.CDLL(str(CUDA / "lib64" / "libnvrtc.so"))
    program = ctypes.c_void_p()
    assert nvrtc.nvrtcCreateProgram(ctypes.byref(program), source.encode(), b"unit.cu", 0, None, None) == 0
    include = pathlib.Path(weft.__file__).parent / "include"
    options = [b"-arch=compute_90", b"-std=c++20", b"-default-device", b"-I" + str(include).encode(),
               b"-I" + str(CUDA / "include").encode(), b"-DNDEBUG", b"-DWEFT_CHECKS"]
    status = nvrtc.nvrtcCompileProgram(program, len(options), (ctypes.c_char_p * len(options))(*options))
    size = ctypes.c_size_t()
    nvrtc.nvrtcGetProgramLogSize(program, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetProgramLog(program, log)
    assert status == 0, log.value.decode()
    nvrtc.nvrtcGetPTXSize(program, ctypes.byref(size))
    ptx = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetPTX(program, ptx)
    nvrtc.nvrtcDestroyProgram(ctypes.byref(program))
    return ptx.value.decode()


SM90_KERNELS = {
    "divide": (seed_divide, lambda: (np.zeros(64, np.int32),) * 4 + (64,)),
    "loads_stores": (shifted_rows, lambda: (np.zeros((8, 8), np.float32), np.zeros((8, 16), np.float32), 0, 0)),
    "gather": (gather_rows_cols, lambda: (np.zeros((4, 4), np.float32),) + (np.zeros((8, 16), np.int32),) * 2 +
               (np.zeros((8, 16), np.float32),)),
    "scatter": (cutile_scatter, lambda: (np.zeros(8, np.float32), np.zeros(128, np.int64), np.zeros(128, np.float32))),
    "atomic": (cutile_atomic_add, lambda: (np.zeros(8, np.int32), np.zeros(256, np.int32))),
    "extract": (extract_block, lambda: (np.zeros((16, 32), np.float32), np.zeros((4, 8), np.float32), 0, 0)),
}


@pytest.mark.skipif(not (CUDA / "lib64" / "libnvrtc.so").exists(), reason=f"no NVRTC at {CUDA}")
@pytest.mark.parametrize("name", sorted(SM90_KERNELS))
def test_checked_tile_units_compile_for_sm90(tmp_path, name):
    kernel, args = SM90_KERNELS[name]
    ptx = nvrtc_ptx(kernel._emit_cuda(*args(), target="cpu"))
    assert re.search(r"\.target\s+sm_90", ptx) and "weft_error_record" in ptx
    if PTXAS.exists():
        (tmp_path / "unit.ptx").write_text(ptx)
        proc = subprocess.run([str(PTXAS), "-arch=sm_90", str(tmp_path / "unit.ptx"), "-o", str(tmp_path / "unit.cubin")],
                              capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr


# ---- the block-wide search for the first index outside, with the GPU's algorithm on the host ----

FIRST_OUTSIDE_PROGRAM = r"""
#include "tile_test.h"
#include <weft/tiles/arrays.h>

namespace ct = ::cuda::tiles;

// Every thread of the one tile block writes what first_outside found (position, two indices).
template <uint32_t R, uint32_t C>
__tile_global__ void first_kernel(const int64_t* rows, const int64_t* cols, const int32_t* keep, long n0, long n1,
                                  int64_t* out) {
  using I = ct::tile<int32_t, ct::shape<R, C>>;
  auto dense = ct::iota<I>();
  auto mask = ct::load(keep + dense) != 0;
  ::weft::Array<float, 2> array{nullptr, {static_cast<uint64_t>(n0), static_cast<uint64_t>(n1)},
                                {static_cast<uint64_t>(n1), 1}};
  auto first = ct::detail::first_outside(array, mask, ct::load(rows + dense), ct::load(cols + dense));
  int64_t* mine = out + 3 * ct::detail::thread_rank();
  mine[0] = first.position;
  mine[1] = first.index[0];
  mine[2] = first.index[1];
}

template <uint32_t R, uint32_t C>
void run(tile_test::Random& rng) {
  constexpr uint32_t n = R * C;
  for (int trial = 0; trial < 12; ++trial) {
    long n0 = 1 + static_cast<long>(rng.next() % 9), n1 = 1 + static_cast<long>(rng.next() % 9);
    tile_test::Buffer<int64_t> rows(n), cols(n), out(3 * ct::kBlockThreads);
    tile_test::Buffer<int32_t> keep(n);
    for (uint32_t e = 0; e < n; ++e) {
      rows[e] = static_cast<int64_t>(rng.next() % n0);
      cols[e] = static_cast<int64_t>(rng.next() % n1);
      keep[e] = rng.next() % 4 != 0;
    }
    for (uint64_t b = rng.next() % 4; b > 0; --b) {
      uint32_t e = static_cast<uint32_t>(rng.next() % n);
      if (rng.next() % 2) rows[e] = n0 + static_cast<int64_t>(rng.next() % 3);
      else cols[e] = -1 - static_cast<int64_t>(rng.next() % 3);
    }
    int64_t want[3] = {static_cast<int64_t>(~0u), 0, 0};
    for (uint32_t e = 0; e < n; ++e) {
      if (keep[e] && (rows[e] < 0 || rows[e] >= n0 || cols[e] < 0 || cols[e] >= n1)) {
        want[0] = e, want[1] = rows[e], want[2] = cols[e];
        break;
      }
    }
    tile_test::launch(ct::dim3_t{1, 1, 1}, first_kernel<R, C>, rows.get(), cols.get(), keep.get(), n0, n1, out.get());
    for (uint32_t t = 0; t < ct::kBlockThreads; ++t) {
      bool same = out[3 * t] == want[0] && (want[0] == static_cast<int64_t>(~0u) ||
                                             (out[3 * t + 1] == want[1] && out[3 * t + 2] == want[2]));
      tile_test::check(same, std::to_string(R) + "x" + std::to_string(C) + " trial " + std::to_string(trial) +
                                 " thread " + std::to_string(t) + ": got " + std::to_string(out[3 * t]) + " want " +
                                 std::to_string(want[0]));
    }
  }
}

int main() {
  tile_test::Random rng(tile_test::seed());
  run<1, 1>(rng);
  run<2, 4>(rng);
  run<8, 16>(rng);
  run<16, 32>(rng);
  run<32, 64>(rng);
  return tile_test::finish("first_outside");
}
"""


@pytest.mark.parametrize("mode", [[], ["-DWEFT_TILES_EMULATE_BLOCK"],
                                  ["-DWEFT_TILES_EMULATE_BLOCK", "-DWEFT_TILE_THREADS=512"]],
                         ids=["serial", "emulated", "emulated512"])
def test_the_first_index_outside_is_agreed_by_every_thread_of_the_block(tmp_path, mode):
    """check_element_indices' search (weft::tiles::detail::first_outside): the first element in
    row-major order that the mask selects and that lies outside, found by every thread alike; on
    the host with one thread, and with the GPU's algorithm (per-thread fragments of replicated and
    blocked layouts, the scratch buffer, barriers) run by 128 and 512 host threads."""
    repo = pathlib.Path(__file__).resolve().parents[2]
    source = tmp_path / "first_outside.cpp"
    source.write_text(FIRST_OUTSIDE_PROGRAM)
    executable = tmp_path / "first_outside"
    build = subprocess.run(["g++", "-std=c++20", "-O0", "-Wall", "-Wextra", "-Werror", "-DWEFT_HOST", *mode,
                            f"-I{repo / 'include'}", f"-I{repo / 'tests' / 'tiles'}", str(source), "-o", str(executable),
                            "-pthread"], capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr[-6000:]
    run = subprocess.run([str(executable)], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-4000:]
    assert "0 failures" in run.stdout
