"""Global and captured NumPy arrays in device code (issue 10, item 2): numba-cuda's semantics,
their contents when the kernel is compiled, carried by the kernel as read-only constant data,
and `cuda.const.array_like(g)`. Checked against NumPy on the CPU target (the GPU in the
`gpu`-marked twins)."""

import numpy as np
import pytest

import weft
from classic_support import compiles_for_sm90, launch1, target  # noqa: F401
from weft import cuda

N = 50
COEFFS = np.random.default_rng(7).standard_normal(8)
TABLE_2D = np.arange(12, dtype=np.int32).reshape(3, 4) * 7 - 20
SPECIAL = np.array([np.nan, np.inf, -np.inf, -0.0, 5e-324, 1.5], np.float64)


@cuda.jit
def horner(x, out):
    i = cuda.grid(1)
    if i < x.size:
        acc = 0.0
        for k in range(COEFFS.size):
            acc = acc * x[i] + COEFFS[k]
        out[i] = acc


def test_global_array_read_in_a_kernel(target, rng):
    x = rng.uniform(-1, 1, N)
    out = np.zeros_like(x)
    launch1(horner, N, x, out)
    np.testing.assert_allclose(out, np.polyval(COEFFS, x), rtol=1e-12, atol=1e-13)


def test_const_array_like_of_a_global(target, rng):
    @cuda.jit
    def k(idx, out):
        table = cuda.const.array_like(TABLE_2D)
        i = cuda.grid(1)
        if i < idx.shape[0]:
            out[i] = table[idx[i, 0], idx[i, 1]] + table.shape[0] * 1000 + table.shape[1] * 100

    idx = np.stack([rng.integers(0, 3, N), rng.integers(0, 4, N)], axis=1).astype(np.int64)
    out = np.zeros(N, np.int32)
    launch1(k, N, idx, out)
    np.testing.assert_array_equal(out, TABLE_2D[idx[:, 0], idx[:, 1]] + 3400)


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.uint64, np.float16, np.float32, np.float64,
                                   np.complex64, np.complex128, np.bool_])
def test_captured_array_of_every_dtype(target, rng, dtype):
    if np.dtype(dtype).kind == "c":
        values = (rng.standard_normal(9) + 1j * rng.standard_normal(9)).astype(dtype)
    elif np.dtype(dtype).kind == "b":
        values = rng.integers(0, 2, 9).astype(dtype)
    elif np.dtype(dtype).kind == "f":
        values = rng.standard_normal(9).astype(dtype)
    else:
        info = np.iinfo(dtype)
        values = rng.integers(info.min, info.max, 9, dtype=dtype, endpoint=True)

    @cuda.jit
    def k(out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = values[i]

    out = np.zeros(9, dtype)
    k[1, 16](out)
    np.testing.assert_array_equal(out, values)


def test_special_floats_are_exact(target):
    @cuda.jit
    def k(out):
        for i in range(SPECIAL.size):
            out[i] = SPECIAL[i]

    out = np.zeros(SPECIAL.size)
    k[1, 1](out)
    np.testing.assert_array_equal(out.view(np.uint64), SPECIAL.view(np.uint64))


def test_non_contiguous_and_big_endian_arrays(target, rng):
    base = rng.standard_normal((6, 8))
    strided = base[::2, ::3]
    swapped = np.arange(5, dtype=">i4")

    @cuda.jit
    def k(out, out2):
        for r in range(strided.shape[0]):
            for c in range(strided.shape[1]):
                out[r, c] = strided[r, c]
        for j in range(swapped.size):
            out2[j] = swapped[j]

    out, out2 = np.zeros(strided.shape), np.zeros(5, np.int32)
    k[1, 1](out, out2)
    np.testing.assert_array_equal(out, strided)
    np.testing.assert_array_equal(out2, np.arange(5))


def test_array_in_a_kernel_factory(target, rng):
    def make_lookup(table):
        @cuda.jit
        def lookup(idx, out):
            i = cuda.grid(1)
            if i < idx.size:
                out[i] = table[idx[i]]

        return lookup

    t1, t2 = rng.standard_normal(10), rng.standard_normal(20)
    idx = rng.integers(0, 10, N).astype(np.int32)
    out1, out2 = np.zeros(N), np.zeros(N)
    launch1(make_lookup(t1), N, idx, out1)
    launch1(make_lookup(t2), N, idx, out2)
    np.testing.assert_array_equal(out1, t1[idx])
    np.testing.assert_array_equal(out2, t2[idx])


def test_helper_reads_a_global_array_passed_to_it(target, rng):
    @cuda.jit(device=True)
    def dot(a, b):
        s = 0.0
        for j in range(a.size):
            s += a[j] * b[j]
        return s

    @cuda.jit
    def k(x, out):
        i = cuda.grid(1)
        if i < x.shape[0]:
            out[i] = dot(COEFFS, x[i])

    x = rng.standard_normal((N, COEFFS.size))
    out = np.zeros(N)
    launch1(k, N, x, out)
    np.testing.assert_allclose(out, x @ COEFFS, rtol=1e-12)


def test_contents_at_compile_time_and_rebinding_compiles_again(target):
    table = np.array([1.0, 2.0, 3.0])

    @cuda.jit
    def k(out):
        for j in range(3):
            out[j] = table[j]

    out = np.zeros(3)
    k[1, 1](out)
    np.testing.assert_array_equal(out, [1, 2, 3])
    table[0] = 100.0  # numba's semantics: the compiled kernel keeps the contents it was compiled with
    k[1, 1](out)
    assert out[0] == 1.0
    table = np.array([7.0, 8.0, 9.0])  # a new object: the kernel compiles again
    k[1, 1](out)
    np.testing.assert_array_equal(out, [7, 8, 9])
    assert k._kernel._compile_count == 2


@pytest.mark.parametrize("body", ["COEFFS[0] = 1.0", "COEFFS[0] += 1.0", "cuda.atomic.add(COEFFS, 0, 1.0)"])
def test_global_array_is_read_only(body, tmp_path, monkeypatch):
    monkeypatch.setenv("WEFT_TARGET", "cpu")
    path = tmp_path / "readonly.py"
    path.write_text(f"import numpy as np\nfrom weft import cuda\nCOEFFS = np.zeros(4)\n\n@cuda.jit\ndef k(a):\n    {body}\n")
    namespace = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    with pytest.raises(weft.CompileError, match=r"readonly.py:7:.*read-only in device code.*\[ConstantArrayStore\]"):
        namespace["k"][1, 1](np.zeros(1))


def test_object_arrays_are_not_constant_data(monkeypatch):
    monkeypatch.setenv("WEFT_TARGET", "cpu")
    objects = np.array([1, "a"], dtype=object)

    @cuda.jit
    def k(a):
        a[0] = objects[0]

    with pytest.raises(weft.CompileError, match="numpy.ndarray"):
        k[1, 1](np.zeros(1))


def test_too_large_array_says_to_pass_it(monkeypatch):
    monkeypatch.setenv("WEFT_TARGET", "cpu")
    big = np.zeros(600_000)

    @cuda.jit
    def k(a):
        a[0] = big[0]

    with pytest.raises(weft.CompileError, match="ConstantArrayTooLarge"):
        k[1, 1](np.zeros(1))


def test_constant_array_kernels_compile_for_sm90():
    assert compiles_for_sm90(horner, np.zeros(4), np.zeros(4)) == ""
    big = np.arange(10_000, dtype=np.float64)  # beyond the constant memory weft uses: global memory

    @cuda.jit
    def k(out):
        out[0] = big[9999] + COEFFS[1] + TABLE_2D[2, 3]

    assert compiles_for_sm90(k, np.zeros(1)) == ""
