"""numba's cuda.atomic.inc, dec, compare_and_swap and cas (issue 10, item 8), with numba's
semantics: inc wraps to 0 past `val`, dec to `val` at 0 or above `val`, compare_and_swap works on
element 0 of a 1-d array; all return the old value. Checked against a Python model on the CPU
target (the GPU in the `gpu` twins)."""

import numpy as np
import pytest

import weft
from classic_support import compiles_for_sm90, launch1, target  # noqa: F401
from weft import cuda


@cuda.jit
def count_with_inc(counter, limit, olds):
    i = cuda.grid(1)
    if i < olds.size:
        olds[i] = cuda.atomic.inc(counter, 0, limit)


@cuda.jit
def count_with_dec(counter, limit, olds):
    i = cuda.grid(1)
    if i < olds.size:
        olds[i] = cuda.atomic.dec(counter, 1, limit)


@pytest.mark.parametrize("dtype", [np.uint32, np.uint64])
def test_inc_wraps_to_zero_past_its_limit(target, rng, dtype):
    n, limit = 200, int(rng.integers(5, 40))
    start = int(rng.integers(0, limit + 1))
    counter = np.array([start], dtype)
    olds = np.zeros(n, dtype)
    launch1(count_with_inc, n, counter, dtype(limit), olds)
    assert counter[0] == (start + n) % (limit + 1)
    # The old values are the counter's n successive values, in some order.
    expected = sorted((start + k) % (limit + 1) for k in range(n))
    assert sorted(olds.tolist()) == expected


@pytest.mark.parametrize("dtype", [np.uint32, np.uint64])
def test_dec_wraps_to_its_limit_at_zero(target, rng, dtype):
    n, limit = 150, int(rng.integers(5, 40))
    start = int(rng.integers(0, limit + 1))
    counter = np.array([0, start], dtype)
    olds = np.zeros(n, dtype)
    launch1(count_with_dec, n, counter, dtype(limit), olds)
    assert counter[1] == (start - n) % (limit + 1)
    assert sorted(olds.tolist()) == sorted((start - k) % (limit + 1) for k in range(n))


@cuda.jit
def inc_dec_once(values, limit, olds):
    i = cuda.grid(1)
    if i < values.size:
        olds[i, 0] = cuda.atomic.inc(values, i, limit)
        olds[i, 1] = values[i]
        olds[i, 2] = cuda.atomic.dec(values, i, limit)


def test_inc_and_dec_of_values_above_the_limit(target, rng):
    # Above the limit: inc gives 0, dec gives the limit (numba's, CUDA's atomicInc/atomicDec).
    values = rng.integers(0, 20, 64).astype(np.uint32)
    start = values.copy()
    olds = np.zeros((64, 3), np.uint32)
    launch1(inc_dec_once, 64, values, np.uint32(10), olds)
    after_inc = np.where(start >= 10, 0, start + 1)
    after_dec = np.where((after_inc == 0) | (after_inc > 10), 10, after_inc - 1)
    np.testing.assert_array_equal(olds[:, 0], start)
    np.testing.assert_array_equal(olds[:, 1], after_inc)
    np.testing.assert_array_equal(olds[:, 2], after_inc)
    np.testing.assert_array_equal(values, after_dec)


@cuda.jit
def claim_once(flag, winners):
    i = cuda.grid(1)
    if i < winners.size:
        winners[i] = cuda.atomic.compare_and_swap(flag, 0, i + 1)


@pytest.mark.parametrize("dtype", [np.int32, np.uint32, np.int64, np.uint64])
def test_compare_and_swap_works_on_element_zero(target, dtype):
    flag = np.zeros(3, dtype)
    winners = np.full(100, 7, dtype)
    launch1(claim_once, 100, flag, winners)
    assert 1 <= flag[0] <= 100 and flag[1] == flag[2] == 0
    # Exactly one thread saw 0 (it stored its i + 1); every other saw the winner's value.
    assert (winners == 0).sum() == 1 and winners[flag[0] - 1] == 0
    assert set(winners.tolist()) == {0, int(flag[0])}


@cuda.jit
def cas_sum(values, totals):
    i = cuda.grid(1)
    if i < values.size:
        slot = i % totals.size
        while True:
            old = totals[slot]
            if cuda.atomic.cas(totals, slot, old, old + values[i]) == old:
                break


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint64])
def test_cas_loop_sums(target, rng, dtype):
    values = rng.integers(0, 1000, 300).astype(dtype)
    totals = np.zeros(4, dtype)
    launch1(cas_sum, 300, values, totals)
    np.testing.assert_array_equal(totals, [values[k::4].sum() for k in range(4)])


def test_atomic_errors():
    @cuda.jit
    def signed_inc(a):
        cuda.atomic.inc(a, 0, 5)

    with pytest.raises(weft.CompileError, match=r"an atomic uint32 or uint64.*\[AtomicDtype\]"):
        signed_inc[1, 1](np.zeros(1, np.int32))

    @cuda.jit
    def cas_of_a_matrix(a):
        cuda.atomic.compare_and_swap(a, 0, 1)

    with pytest.raises(weft.CompileError, match=r"a 1-d array.*\[ArgumentType\]"):
        cas_of_a_matrix[1, 1](np.zeros((2, 2), np.int32))

    @cuda.jit
    def cas_wrong_count(a):
        cuda.atomic.compare_and_swap(a, 0, 1, 2)

    with pytest.raises(weft.CompileError, match=r"3 arguments \(array, old, value\).*\[ArgumentCount\]"):
        cas_wrong_count[1, 1](np.zeros(2, np.int32))

    # inc and dec are numba's functions, not methods of weft's AtomicRef.
    @weft.kernel
    def ref_inc(a):
        weft.AtomicRef(a, 0).inc(1)

    with pytest.raises(weft.CompileError, match=r"has no attribute 'inc'"):
        weft.launch(ref_inc, np.zeros(1, np.uint32), grid=1, block=1)


@pytest.mark.parametrize("kernel, args", [
    (count_with_inc, lambda: (np.zeros(1, np.uint32), np.uint32(3), np.zeros(4, np.uint32))),
    (count_with_dec, lambda: (np.zeros(2, np.uint64), np.uint64(3), np.zeros(4, np.uint64))),
    (claim_once, lambda: (np.zeros(1, np.int64), np.zeros(4, np.int64))),
    (cas_sum, lambda: (np.zeros(4, np.int32), np.zeros(2, np.int32))),
], ids=["inc", "dec", "compare_and_swap", "cas"])
def test_atomics_compile_for_sm90(kernel, args):
    assert compiles_for_sm90(kernel, *args()) == ""
