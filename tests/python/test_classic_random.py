"""numba-cuda's cuda.random in weft (issue 10, item 9): the xoroshiro128+ generators, their
initialization and the float conversions, checked against a plain-Python statement of the
algorithm (below, written for these tests) on the target the `target` fixture names, and (marked
`gpu`) against numba-cuda itself where it is installed."""

import math

import numpy as np
import pytest

from classic_support import compiles_for_sm90, target  # noqa: F401
from weft import cuda
from weft.cuda.random import (
    create_xoroshiro128p_states, init_xoroshiro128p_states, xoroshiro128p_dtype, xoroshiro128p_jump,
    xoroshiro128p_next, xoroshiro128p_normal_float32, xoroshiro128p_normal_float64, xoroshiro128p_uniform_float32,
    xoroshiro128p_uniform_float64,
)

MASK = (1 << 64) - 1


# ---- the algorithm in plain Python ----


def splitmix(seed):
    z = (seed + 0x9E3779B97F4A7C15) & MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def rotate_left(x, k):
    return ((x << k) | (x >> (64 - k))) & MASK


def step(state):
    """(next output, next state) of xoroshiro128+."""
    s0, s1 = state
    result = (s0 + s1) & MASK
    s1 ^= s0
    return result, (rotate_left(s0, 55) ^ s1 ^ ((s1 << 14) & MASK), rotate_left(s1, 36))


def jump(state):
    """The state 2**64 steps later."""
    j0, j1 = 0, 0
    for polynomial in (0xBEAC0467EBA5FACB, 0xD86B048B86AA9922):
        for bit in range(64):
            if polynomial >> bit & 1:
                j0 ^= state[0]
                j1 ^= state[1]
            _, state = step(state)
    return j0, j1


def reference_states(n, seed, subsequence_start=0):
    z = splitmix(seed & MASK)
    state = (z, z)
    for _ in range(subsequence_start):
        state = jump(state)
    states = []
    for _ in range(n):
        states.append(state)
        state = jump(state)
    return states


def unit_float64(x):
    return (x >> 11) * (1.0 / (1 << 53))


def unit_float32(x):
    return np.float32(unit_float64(x))


def as_pairs(device_states):
    host = device_states.copy_to_host()
    return [(int(a), int(b)) for a, b in zip(host["s0"], host["s1"])]


# ---- kernels in numba's style ----


@cuda.jit
def draw_uniform(states, out32, out64):
    i = cuda.grid(1)
    if i < out32.shape[0]:
        for j in range(out32.shape[1]):
            out32[i, j] = xoroshiro128p_uniform_float32(states, i)
            out64[i, j] = xoroshiro128p_uniform_float64(states, i)


@cuda.jit
def draw_normal(states, out32, out64):
    i = cuda.grid(1)
    if i < out32.shape[0]:
        for j in range(out32.shape[1]):
            out32[i, j] = xoroshiro128p_normal_float32(states, i)
            out64[i, j] = xoroshiro128p_normal_float64(states, i)


@cuda.jit
def draw_raw(states, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        for j in range(out.shape[1]):
            out[i, j] = xoroshiro128p_next(states, i)


@cuda.jit
def jump_all(states):
    i = cuda.grid(1)
    if i < states.shape[0]:
        xoroshiro128p_jump(states, i)


@cuda.jit
def monte_carlo_pi(states, iterations, out):
    # numba's documentation example: each thread estimates pi from its own generator.
    thread_id = cuda.grid(1)
    inside = 0
    for _ in range(iterations):
        x = xoroshiro128p_uniform_float32(states, thread_id)
        y = xoroshiro128p_uniform_float32(states, thread_id)
        if x * x + y * y <= 1.0:
            inside += 1
    out[thread_id] = 4.0 * inside / iterations


# ---- tests ----


@pytest.mark.parametrize("n, seed, start", [(1, 1, 0), (8, 42, 0), (200, 2**64 - 1, 0), (70, 7, 3), (3, -5, 1)])
def test_states_match_the_sequential_jumps(target, n, seed, start):
    states = create_xoroshiro128p_states(n, seed=seed, subsequence_start=start)
    assert states.dtype == xoroshiro128p_dtype and states.shape == (n,)
    assert as_pairs(states) == reference_states(n, seed, start)


def test_init_into_an_existing_array(target, rng):
    seed = int(rng.integers(0, 2**63))
    states = cuda.device_array(130, dtype=xoroshiro128p_dtype)
    init_xoroshiro128p_states(states, seed)
    assert as_pairs(states) == reference_states(130, seed)
    init_xoroshiro128p_states(states, seed, subsequence_start=2, stream=0)
    assert as_pairs(states) == reference_states(132, seed)[2:]
    with pytest.raises(TypeError, match="xoroshiro128p_dtype"):
        init_xoroshiro128p_states(cuda.device_array(4, np.uint64), seed)


def test_raw_outputs_and_jump(target, rng):
    seed = int(rng.integers(0, 2**63))
    states = create_xoroshiro128p_states(40, seed=seed)
    out = np.zeros((40, 5), np.uint64)
    draw_raw[2, 32](states, out)
    expected = []
    for state in reference_states(40, seed):
        row = []
        for _ in range(5):
            value, state = step(state)
            row.append(value)
        expected.append(row)
    np.testing.assert_array_equal(out, np.array(expected, np.uint64))
    jump_all[2, 32](states)
    after = []
    for state in reference_states(40, seed):
        for _ in range(5):
            _, state = step(state)
        after.append(jump(state))
    assert as_pairs(states) == after


def test_uniform_floats(target, rng):
    seed = int(rng.integers(0, 2**63))
    states = create_xoroshiro128p_states(50, seed=seed)
    out32 = np.zeros((50, 6), np.float32)
    out64 = np.zeros((50, 6), np.float64)
    draw_uniform[2, 32](states, out32, out64)
    for i, state in enumerate(reference_states(50, seed)):
        for j in range(6):
            value, state = step(state)
            assert out32[i, j] == unit_float32(value)
            value, state = step(state)
            assert out64[i, j] == unit_float64(value)
    assert 0 <= out64.min() and out64.max() < 1


def test_normal_floats(target, rng):
    seed = int(rng.integers(0, 2**63))
    states = create_xoroshiro128p_states(40, seed=seed)
    out32 = np.zeros((40, 4), np.float32)
    out64 = np.zeros((40, 4), np.float64)
    draw_normal[2, 32](states, out32, out64)
    two_pi = np.float32(2 * math.pi)
    for i, state in enumerate(reference_states(40, seed)):
        for j in range(4):
            draws = []
            for _ in range(4):
                value, state = step(state)
                draws.append(unit_float32(value))
            # float32: logf, sqrtf and cosf of float32 values.
            expected32 = np.sqrt(np.float32(-2.0) * np.log(draws[0])) * np.cos(two_pi * draws[1])
            # float64: numba takes the logarithm of a float32 uniform in float32, the rest in float64.
            log64 = np.float64(np.log(draws[2]))
            expected64 = math.sqrt(-2.0 * log64) * math.cos(2 * math.pi * np.float64(draws[3]))
            np.testing.assert_allclose(out32[i, j], expected32, rtol=2e-5, atol=2e-6)
            np.testing.assert_allclose(out64[i, j], expected64, rtol=2e-6, atol=1e-7)


def test_monte_carlo_pi_example(target):
    threads, blocks = 64, 16
    states = create_xoroshiro128p_states(threads * blocks, seed=1)
    out = np.zeros(threads * blocks, np.float32)
    monte_carlo_pi[blocks, threads](states, 1000, out)
    assert abs(out.mean() - math.pi) < 0.01


def test_distribution_of_many_generators(target):
    states = create_xoroshiro128p_states(4096, seed=123)
    out32 = np.zeros((4096, 8), np.float32)
    out64 = np.zeros((4096, 8), np.float64)
    draw_normal[64, 64](states, out32, out64)
    assert abs(out32.mean()) < 0.02 and abs(out32.std() - 1) < 0.02
    assert abs(out64.mean()) < 0.02 and abs(out64.std() - 1) < 0.02


@pytest.mark.gpu
def test_same_streams_as_numba_cuda(monkeypatch):
    np.row_stack = np.vstack  # numba-cuda still names it
    numba_cuda = pytest.importorskip("numba.cuda")
    numba_random = pytest.importorskip("numba.cuda.random")
    monkeypatch.setenv("WEFT_TARGET", "gpu")
    n, seed = 300, 987654321
    ours = create_xoroshiro128p_states(n, seed=seed, subsequence_start=2)
    theirs = numba_random.create_xoroshiro128p_states(n, seed=seed, subsequence_start=2)
    theirs_host = theirs.copy_to_host()
    assert as_pairs(ours) == [(int(a), int(b)) for a, b in zip(theirs_host["s0"], theirs_host["s1"])]

    @numba_cuda.jit
    def numba_draw(states, out32, out64, normal32, normal64):
        i = numba_cuda.grid(1)
        if i < out32.shape[0]:
            for j in range(out32.shape[1]):
                out32[i, j] = numba_random.xoroshiro128p_uniform_float32(states, i)
                out64[i, j] = numba_random.xoroshiro128p_uniform_float64(states, i)
                normal32[i, j] = numba_random.xoroshiro128p_normal_float32(states, i)
                normal64[i, j] = numba_random.xoroshiro128p_normal_float64(states, i)

    @cuda.jit
    def weft_draw(states, out32, out64, normal32, normal64):
        i = cuda.grid(1)
        if i < out32.shape[0]:
            for j in range(out32.shape[1]):
                out32[i, j] = xoroshiro128p_uniform_float32(states, i)
                out64[i, j] = xoroshiro128p_uniform_float64(states, i)
                normal32[i, j] = xoroshiro128p_normal_float32(states, i)
                normal64[i, j] = xoroshiro128p_normal_float64(states, i)

    shapes = [np.float32, np.float64, np.float32, np.float64]
    mine = [np.zeros((n, 5), t) for t in shapes]
    numba_out = [np.zeros((n, 5), t) for t in shapes]
    weft_draw[10, 32](ours, *mine)
    numba_draw[10, 32](theirs, *numba_out)
    np.testing.assert_array_equal(mine[0], numba_out[0])
    np.testing.assert_array_equal(mine[1], numba_out[1])
    np.testing.assert_allclose(mine[2], numba_out[2], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mine[3], numba_out[3], rtol=1e-6, atol=1e-7)


def test_device_functions_compile_for_sm90(monkeypatch):
    from test_classic_cpu import _nvrtc_compile_sm90
    from weft import _cuda_random

    monkeypatch.setenv("WEFT_TARGET", "cpu")
    states = create_xoroshiro128p_states(4, seed=3)
    for kernel in (draw_uniform, draw_normal):
        assert compiles_for_sm90(kernel, states, np.zeros((4, 2), np.float32), np.zeros((4, 2))) == ""
    assert compiles_for_sm90(draw_raw, states, np.zeros((4, 2), np.uint64)) == ""
    assert compiles_for_sm90(jump_all, states) == ""
    powers = np.zeros((3, 128, 2), np.uint64)
    source = _cuda_random._fill_states._emit_cuda(states, powers, np.uint64(1), np.uint64(2), 64, target="cpu")
    assert _nvrtc_compile_sm90(source) == ""
