"""SIMT programming on the CPU target (docs/simt.md): block votes with predicate callables, warp
masks, votes, shuffles and matches (the CPU runner's warp rendezvous), dynamic shared memory,
shared/local array order= and align=, atomics (AtomicRef, Atomic arrays, every method, memory
orders and scopes, wait), threadfence, numeric intrinsics, the new math functions, fastmath,
print(), and the diagnostics of each, checked against NumPy/CPython on random data.

test_simt_gpu.py runs the same tests on the GPU by overriding the `target` fixture.
"""

import math

import numpy as np
import pytest

import weft
from cuda import device
from launching import run, line_of

FULL = 0xFFFFFFFF


@pytest.fixture(scope="module")
def target():
    return "cpu"


def lanes_of(block):
    """(warp, lane) of each linear thread index of a block of `block` threads."""
    t = np.arange(block)
    return t // 32, t % 32


# ---- block votes ----


def thread_is_even():
    return device.thread_idx.x % 2 == 0


@device.kernel
def block_votes(x, counts, ands, ors, evens):
    i = device.tid(1)
    v = x[i]
    c = device.syncthreads_count(lambda: v > 0)
    a = device.syncthreads_and(lambda: v > -90)
    o = device.syncthreads_or(lambda: v > 95)
    e = device.syncthreads_count(thread_is_even)
    if device.thread_idx.x == 0:
        b = device.block_idx.x
        counts[b] = c
        ands[b] = a
        ors[b] = o
        evens[b] = e


def test_syncthreads_count_and_or_with_lambdas_and_functions(target, rng):
    blocks, block = 5, 100
    x = rng.integers(-100, 100, blocks * block).astype(np.int32)
    x[:block] = np.abs(x[:block]) - 50  # block 0: all > -90
    counts = np.zeros(blocks, np.int32)
    ands = np.zeros(blocks, np.bool_)
    ors = np.zeros(blocks, np.bool_)
    evens = np.zeros(blocks, np.int32)
    run(target, block_votes, x, counts, ands, ors, evens, grid=blocks, block=block)
    per = x.reshape(blocks, block)
    np.testing.assert_array_equal(counts, (per > 0).sum(axis=1))
    np.testing.assert_array_equal(ands, (per > -90).all(axis=1))
    np.testing.assert_array_equal(ors, (per > 95).any(axis=1))
    np.testing.assert_array_equal(evens, np.full(blocks, block // 2))


# ---- warp votes and masks ----


@device.kernel
def warp_votes(x, alls, anys, eqs, ballots, active, below):
    i = device.tid(1)
    v = x[i]
    alls[i] = device.all_sync(FULL, lambda: v >= 0)
    anys[i] = device.any_sync(FULL, lambda: v > 90)
    eqs[i] = device.eq_sync(FULL, lambda: v % 2 == 0)
    ballots[i] = device.ballot_sync(device.WarpMask(FULL), lambda: v > 50)
    active[i] = device.activemask()
    below[i] = device.lanemask_lt()


def test_warp_votes_ballot_activemask_and_lanemask(target, rng):
    block = 96
    x = rng.integers(0, 100, block).astype(np.int32)
    x[32:64] = np.abs(x[32:64]) * 2  # warp 1: all even, all >= 0
    x[64] = -1  # warp 2: not all >= 0
    outs = [np.zeros(block, t) for t in (np.bool_, np.bool_, np.bool_, np.uint32, np.uint32, np.uint32)]
    run(target, warp_votes, x, *outs, block=block)
    alls, anys, eqs, ballots, active, below = outs
    warps = x.reshape(-1, 32)
    for w in range(3):
        s = slice(32 * w, 32 * w + 32)
        assert (alls[s] == (warps[w] >= 0).all()).all()
        assert (anys[s] == (warps[w] > 90).any()).all()
        assert (eqs[s] == (len(set(warps[w] % 2 == 0)) == 1)).all()
        expected = sum(1 << k for k in range(32) if warps[w][k] > 50)
        assert (ballots[s] == expected).all()
    np.testing.assert_array_equal(active, np.full(block, FULL, np.uint32))
    np.testing.assert_array_equal(below, ((1 << (np.arange(block) % 32)) - 1).astype(np.uint32))


@device.kernel
def warp_mask_lanes(x, mine, rebuilt, changed, below, peers):
    i = device.tid(1)
    lane = device.lane_id
    mask = device.ballot_sync(FULL, lambda: x[i] > 50)
    mine[i] = mask[lane]  # this lane's own vote, read back from the mask
    copy = device.WarpMask()
    for k in range(32):
        copy[k] = mask[k]
    rebuilt[i] = copy
    mask[lane] = False
    mask[31] = x[i] % 2 == 0
    changed[i] = mask
    lower = device.lanemask_lt()
    n = 0
    for k in range(32):
        if lower[k]:
            n += 1
    below[i] = n
    same = device.match_any_sync(device.activemask(), x[i] % 4)
    m = 0
    for k in range(32):
        m += same[k]
    peers[i] = m


def test_warp_mask_lanes_read_and_write_bits(target, rng):
    block = 64
    x = rng.integers(0, 100, block).astype(np.int32)
    mine, rebuilt, changed, below, peers = (np.zeros(block, t) for t in (np.bool_, np.uint32, np.uint32, np.int32,
                                                                         np.int32))
    run(target, warp_mask_lanes, x, mine, rebuilt, changed, below, peers, block=block)
    warp, lane = lanes_of(block)
    np.testing.assert_array_equal(mine, x > 50)
    ballots = np.array([sum(1 << k for k in range(32) if x[32 * w + k] > 50) for w in warp], np.uint64)
    np.testing.assert_array_equal(rebuilt, ballots.astype(np.uint32))
    expected = ballots & ~(np.uint64(1) << lane.astype(np.uint64))
    expected = np.where(x % 2 == 0, expected | np.uint64(1 << 31), expected & np.uint64(FULL >> 1))
    np.testing.assert_array_equal(changed, expected.astype(np.uint32))
    np.testing.assert_array_equal(below, lane)
    keys = (x % 4).reshape(-1, 32)
    np.testing.assert_array_equal(peers, [(keys[w] == keys[w][k]).sum() for w, k in zip(warp, lane)])


@device.kernel
def partial_warp_mask(active):
    active[device.tid(1)] = device.activemask()


def test_activemask_of_a_partial_warp(target):
    active = np.zeros(40, np.uint32)
    run(target, partial_warp_mask, active, block=40)
    assert (active[:32] == FULL).all() and (active[32:] == 0xFF).all()


# ---- shuffles ----


@device.kernel
def shuffles(x, f, small, flags, src, idx_out, up_out, down_out, xor_out, f_out, small_out, flag_out):
    i = device.tid(1)
    lane = device.lane_id
    idx_out[i] = device.shfl_sync(FULL, x[i], src[i])
    up_out[i] = device.shfl_up_sync(FULL, x[i], 3)
    down_out[i] = device.shfl_down_sync(FULL, x[i], 5)
    xor_out[i] = device.shfl_xor_sync(FULL, x[i], 6)
    f_out[i] = device.shfl_down_sync(FULL, f[i], 1)
    small_out[i] = device.shfl_sync(FULL, small[i], 31 - lane)
    flag_out[i] = device.shfl_xor_sync(FULL, flags[i], 1)


def test_shuffles_of_every_width(target, rng):
    block = 64
    x = rng.integers(-(2**31), 2**31 - 1, block, dtype=np.int64).astype(np.int32)
    f = rng.standard_normal(block)  # float64: two 32-bit halves
    small = rng.integers(-128, 127, block).astype(np.int8)
    flags = rng.random(block) < 0.5
    src = rng.integers(0, 32, block).astype(np.int32)
    outs = [np.zeros(block, t) for t in (np.int32, np.int32, np.int32, np.int32, np.float64, np.int8, np.bool_)]
    run(target, shuffles, x, f, small, flags, src, *outs, block=block)
    idx_out, up_out, down_out, xor_out, f_out, small_out, flag_out = outs
    warp, lane = lanes_of(block)
    base = warp * 32
    np.testing.assert_array_equal(idx_out, x[base + src])
    np.testing.assert_array_equal(up_out, np.where(lane >= 3, x[np.maximum(np.arange(block) - 3, 0)], x))
    np.testing.assert_array_equal(down_out, np.where(lane + 5 < 32, x[np.minimum(np.arange(block) + 5, block - 1)], x))
    np.testing.assert_array_equal(xor_out, x[base + (lane ^ 6)])
    np.testing.assert_array_equal(f_out, np.where(lane + 1 < 32, f[np.minimum(np.arange(block) + 1, block - 1)], f))
    np.testing.assert_array_equal(small_out, small[base + 31 - lane])
    np.testing.assert_array_equal(flag_out, flags[base + (lane ^ 1)])


@device.kernel
def warp_sum(x, out):
    i = device.tid(1)
    v = x[i]
    offset = 16
    while offset > 0:
        v += device.shfl_down_sync(FULL, v, offset)
        offset //= 2
    if device.lane_id == 0:
        out[i // 32] = v


def test_warp_shuffle_reduction(target, rng):
    blocks, block = 4, 128
    x = rng.standard_normal(blocks * block).astype(np.float32)
    out = np.zeros(blocks * block // 32, np.float32)
    run(target, warp_sum, x, out, grid=blocks, block=block)
    np.testing.assert_allclose(out, x.reshape(-1, 32).sum(axis=1), rtol=1e-5, atol=1e-5)


# ---- matches and syncwarp ----


@device.kernel
def matches(x, f, any_out, all_mask, all_flag, f_any):
    i = device.tid(1)
    any_out[i] = device.match_any_sync(FULL, x[i])
    mask, same = device.match_all_sync(FULL, x[i] // 1000)
    all_mask[i] = mask
    all_flag[i] = same
    f_any[i] = device.match_any_sync(FULL, f[i])


def test_match_any_and_match_all(target, rng):
    block = 64
    x = rng.integers(0, 4, block).astype(np.int64)
    f = rng.integers(0, 3, block).astype(np.float32) * 0.5
    any_out = np.zeros(block, np.uint32)
    all_mask = np.zeros(block, np.uint32)
    all_flag = np.zeros(block, np.bool_)
    f_any = np.zeros(block, np.uint32)
    run(target, matches, x, f, any_out, all_mask, all_flag, f_any, block=block)
    for t in range(block):
        w = t // 32 * 32
        assert any_out[t] == sum(1 << k for k in range(32) if x[w + k] == x[t])
        assert f_any[t] == sum(1 << k for k in range(32) if f[w + k] == f[t])
    assert (all_mask == FULL).all() and all_flag.all()  # x // 1000 is 0 everywhere


@device.kernel
def syncwarp_exchange(x, out):
    buf = device.shared_array(32, device.int32)
    lane = device.lane_id
    buf[lane] = x[lane] * 3
    device.syncwarp(FULL)
    out[lane] = buf[(lane + 1) % 32]
    device.syncwarp()


def test_syncwarp_orders_shared_memory(target, rng):
    x = rng.integers(-1000, 1000, 32).astype(np.int32)
    out = np.zeros(32, np.int32)
    run(target, syncwarp_exchange, x, out, block=32)
    np.testing.assert_array_equal(out, np.roll(x * 3, -1))


@device.kernel
def lone_shuffle(out):
    lane = device.lane_id
    if lane < 16:
        out[lane] = device.shfl_sync(FULL, lane, 0)
    device.syncthreads()


def test_a_collective_some_lanes_never_reach_is_reported_on_the_cpu():
    with pytest.raises(weft.CudaError, match="wait for each other forever"):
        run("cpu", lone_shuffle, np.zeros(32, np.int32), block=32)


# ---- shared memory: dynamic, order=, align= ----


@device.kernel
def dynamic_shared(x, out, sizes):
    tile = device.shared_array(3, device.float64)
    dyn = device.dynamic_shared_array()
    t = device.thread_idx.x
    dyn[t] = device.uint8(x[t] + 1)
    if t < 3:
        tile[t] = 0.5 * t
    device.syncthreads()
    n = dyn.size
    out[t] = dyn[(t + 1) % n] + device.int32(tile[t % 3] * 2)
    sizes[0] = n


def test_dynamic_shared_array_follows_the_static_arrays(target, rng):
    n = 48
    x = rng.integers(0, 200, n).astype(np.int32)
    out = np.zeros(n, np.int32)
    sizes = np.zeros(1, np.int64)
    run(target, dynamic_shared, x, out, sizes, block=n, shared=n)
    assert sizes[0] == n
    t = np.arange(n)
    np.testing.assert_array_equal(out, ((x[(t + 1) % n] + 1) % 256) + t % 3)


@device.kernel
def ordered_arrays(x, out, strides):
    f = device.shared_array((4, 8), device.int32, order="F", align=64)
    c = device.local_array((4, 8), device.int32, order="C", align=16)
    loc = device.local_array((2, 3), device.float64, "F")
    t = device.thread_idx.x
    if t == 0:
        for i in range(4):
            for j in range(8):
                f[i, j] = x[i, j]
                c[i, j] = x[i, j] * 2
        loc[1, 2] = 7.0
        strides[0] = f.strides[0]
        strides[1] = f.strides[1]
        strides[2] = c.strides[0]
        strides[3] = c.strides[1]
        strides[4] = loc.strides[1]
    device.syncthreads()
    if t == 0:
        for i in range(4):
            for j in range(8):
                out[i, j] = f[i, j] + c[i, j]


def test_shared_and_local_arrays_in_fortran_order_with_alignment(target, rng):
    x = rng.integers(-50, 50, (4, 8)).astype(np.int32)
    out = np.zeros((4, 8), np.int32)
    strides = np.zeros(5, np.int64)
    run(target, ordered_arrays, x, out, strides, block=2)
    np.testing.assert_array_equal(out, 3 * x)
    np.testing.assert_array_equal(strides, [4, 16, 32, 4, 16])


# ---- atomics ----


@device.kernel
def histogram(data, hist, fhist):
    i = device.tid(1)
    if i < data.size:
        b = data[i]
        device.AtomicRef(hist, b).add(1)
        device.AtomicRef(fhist, b).add(0.5, memory="relaxed", scope="device")


def test_histogram_with_atomic_adds_from_many_blocks(target, rng):
    n, bins = 5000, 37
    data = rng.integers(0, bins, n).astype(np.int32)
    hist = np.zeros(bins, np.uint64)
    fhist = np.zeros(bins, np.float64)
    run(target, histogram, data, hist, fhist, grid=(n + 127) // 128, block=128)
    np.testing.assert_array_equal(hist, np.bincount(data, minlength=bins))
    np.testing.assert_allclose(fhist, 0.5 * np.bincount(data, minlength=bins))


@device.kernel
def contended(x, fx, results):
    i = device.tid(1)
    if i < x.size:
        device.AtomicRef(results, 0).max(x[i])
        device.AtomicRef(results, 1).min(x[i], "acq_rel", "device")
        device.AtomicRef(results, 2).xor(x[i])
        device.AtomicRef(results, 3).sub(x[i])
        device.AtomicRef(results, 4).or_(x[i] & 0xFF)
        device.AtomicRef(results, 5).and_(x[i] | 0xF0, memory="seq_cst", scope="system")
        r = device.AtomicRef(fx, 0)
        r.nanmax(fx[i + 1])
        device.AtomicRef(fx, x.size + 1).max(fx[i + 1])


def test_contended_integer_and_float_atomics(target, rng):
    n = 3000
    x = rng.integers(-(2**40), 2**40, n).astype(np.int64)
    fx = np.concatenate([[-np.inf], rng.standard_normal(n), [-np.inf]])
    fx[10] = np.nan
    results = np.array([-(2**62), 2**62, 0, 100, 0, -1], np.int64)
    run(target, contended, x, fx, results, grid=(n + 255) // 256, block=256)
    assert results[0] == x.max() and results[1] == x.min()
    assert results[2] == np.bitwise_xor.reduce(x)
    assert results[3] == np.int64(100) - x.sum()
    assert results[4] == np.bitwise_or.reduce(x & 0xFF)
    assert results[5] == np.bitwise_and.reduce(x | 0xF0)
    assert fx[0] == np.nanmax(fx[1 : n + 1])  # nanmax ignores the nan
    assert np.isnan(fx[n + 1])  # max propagates it


@device.kernel
def atomic_methods(a, f, old):
    r = device.AtomicRef(a, 0)
    old[0] = r.load()
    r.store(a[1], memory="release")
    old[1] = r.exch(a[2])
    old[2] = r.cas(a[2], a[3])  # succeeds
    old[3] = r.cas(a[1], a[4])  # fails: the value is a[3]
    old[4] = r.load(memory="acquire", scope="thread")
    g = device.AtomicRef(f, 0)
    f[1] = g.nanmin(f[2])
    f[3] = g.add(1.5)
    u = device.AtomicRef(f, 4)
    f[5] = u.nanmin(u.dtype(-1.0))
    device.threadfence()
    device.threadfence(memory="acq_rel", scope="block")
    device.threadfence("relaxed")


def test_every_atomic_method_returns_the_old_value(target, rng):
    a = rng.choice(np.arange(-1000, 1000), 5, replace=False).astype(np.int16)
    a[2] = 12345
    keep = a.copy()
    f = np.array([rng.standard_normal(), 0, rng.standard_normal(), 0, np.nan, 0], np.float32)
    expected_min = min(f[0], f[2])
    old = np.zeros(5, np.int16)
    run(target, atomic_methods, a, f, old)
    np.testing.assert_array_equal(old, [keep[0], keep[1], keep[2], keep[3], keep[3]])
    assert a[0] == keep[3]
    assert f[0] == np.float32(expected_min) + np.float32(1.5)
    assert f[3] == np.float32(expected_min)
    assert np.isnan(f[5]) and f[4] == -1.0  # nanmin of nan and -1 is -1


@device.kernel
def shared_counters(keys, out):
    counters = device.shared_array(4, device.Atomic(device.int32))
    t = device.thread_idx.x
    if t < 4:
        counters[t].store(0)
    device.syncthreads()
    counters[keys[device.tid(1)]].add(1)
    device.syncthreads()
    if t < 4:
        device.AtomicRef(out, (device.block_idx.x, t)).store(counters[t].load())


def test_atomic_arrays_in_shared_memory(target, rng):
    blocks, block = 3, 200
    keys = rng.integers(0, 4, blocks * block).astype(np.int32)
    out = np.zeros((blocks, 4), np.int32)
    run(target, shared_counters, keys, out, grid=blocks, block=block)
    expected = np.stack([np.bincount(k, minlength=4) for k in keys.reshape(blocks, block)])
    np.testing.assert_array_equal(out, expected)


def lock(line, current):
    my = device.AtomicRef(line, 0).add(1)
    while True:
        now = device.AtomicRef(current, 0).load(memory="acquire")
        if now == my:
            break
        device.AtomicRef(current, 0).wait(now)


def unlock(current):
    c = device.AtomicRef(current, 0)
    c.add(1, memory="release")
    c.notify_all()


@device.kernel
def ticket_mutex(line, current, counter):
    if device.thread_idx.x == 0:
        lock(line, current)
        counter[0] = counter[0] + 1  # protected by the lock
        device.threadfence()
        unlock(current)


def test_ticket_mutex_with_many_contending_blocks(target):
    blocks = 200
    line = np.zeros(1, np.int32)
    current = np.zeros(1, np.int32)
    counter = np.zeros(1, np.int64)
    run(target, ticket_mutex, line, current, counter, grid=blocks, block=32)
    assert counter[0] == blocks and line[0] == blocks and current[0] == blocks


# ---- numeric intrinsics and math ----


@device.kernel
def bit_intrinsics(u32, i64, u8, i16, out):
    i = device.tid(1)
    out[0, i] = device.popc(u32[i])
    out[1, i] = device.clz(u32[i])
    out[2, i] = device.ffs(u32[i])
    out[3, i] = device.brev(u32[i])
    out[4, i] = device.popc(i64[i])
    out[5, i] = device.clz(i64[i])
    out[6, i] = device.ffs(i64[i])
    out[7, i] = device.brev(u8[i])
    out[8, i] = device.clz(i16[i])


def test_bit_intrinsics_match_python(target, rng):
    n = 50
    u32 = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    u32[0] = 0
    i64 = rng.integers(-(2**63), 2**63 - 1, n, dtype=np.int64)
    i64[1] = 0
    u8 = rng.integers(0, 256, n).astype(np.uint8)
    i16 = rng.integers(-(2**15), 2**15, n).astype(np.int16)
    out = np.zeros((9, n), np.int64)
    run(target, bit_intrinsics, u32, i64, u8, i16, out, block=n)

    def clz(v, bits):
        return bits - int(v).bit_length()

    def ffs(v):
        v = int(v)
        return (v & -v).bit_length()

    def brev(v, bits):
        return int(format(int(v), f"0{bits}b")[::-1], 2)

    for k in range(n):
        a, b = int(u32[k]), int(i64[k]) & (2**64 - 1)
        assert list(out[:, k]) == [
            bin(a).count("1"), clz(a, 32), ffs(a), np.int64(brev(a, 32)),
            bin(b).count("1"), clz(b, 64), ffs(b), brev(int(u8[k]), 8), clz(int(i16[k]) & 0xFFFF, 16),
        ]


@device.kernel
def new_math(x, y, z, out, finite):
    i = device.tid(1)
    v = x[i]
    out[0, i] = math.erf(v)
    out[1, i] = math.erfc(v)
    out[2, i] = math.gamma(v)
    out[3, i] = math.lgamma(v)
    out[4, i] = math.hypot(v, y[i])
    out[5, i] = math.trunc(v * 3)
    out[6, i] = math.remainder(v * 7, y[i])
    out[7, i] = device.cbrt(v - 2)
    out[8, i] = device.fma(v, y[i], z[i])
    out[9, i] = math.cbrt(y[i])
    finite[i] = math.isfinite(v / (y[i] - y[i]))


@pytest.mark.parametrize("dtype, rtol", [(np.float64, 1e-12), (np.float32, 2e-5)])
def test_new_math_functions_match_cpython(target, rng, dtype, rtol):
    n = 40
    x = rng.uniform(0.2, 4, n).astype(dtype)
    y = rng.uniform(-3, 3, n).astype(dtype)
    y[0] = 0
    z = rng.standard_normal(n).astype(dtype)
    out = np.zeros((10, n), dtype)
    finite = np.ones(n, np.bool_)
    run(target, new_math, x, y, z, out, finite, block=n)
    for k in range(n):
        v, w = float(x[k]), float(y[k])
        expected = [math.erf(v), math.erfc(v), math.gamma(v), math.lgamma(v), math.hypot(v, w),
                    math.trunc(float(dtype(v * 3))), math.remainder(float(dtype(v * 7)), w) if w else math.nan,
                    np.cbrt(v - 2), v * w + float(z[k]), np.cbrt(w)]
        np.testing.assert_allclose(out[:, k], expected, rtol=rtol, atol=rtol)
    assert not finite.any()


@device.kernel(fastmath=True)
def fast_kernel(x, out):
    i = device.tid(1)
    out[i] = math.sqrt(x[i]) * 2 + math.exp(x[i] * 0.1)


def test_fastmath_kernel_option(target, rng):
    x = rng.uniform(0, 10, 64).astype(np.float32)
    out = np.zeros(64, np.float32)
    run(target, fast_kernel, x, out, block=64)
    np.testing.assert_allclose(out, np.sqrt(x) * 2 + np.exp(x * 0.1), rtol=1e-4)


# ---- print ----


@device.kernel
def printing(x, f):
    print("ints", x[0], device.uint8(200), -7)
    print("floats:", f[0], f[1], 2.5, sep="|")
    print(True, x[0] > 0, 100, end=" <end>\n")
    print("100% done", 1 - 2j)
    print()


def test_print_in_device_code(target, capfd):
    x = np.array([42], np.int64)
    f = np.array([3.0, 0.25], np.float32)
    run(target, printing, x, f)
    out = capfd.readouterr().out
    assert out == "ints 42 200 -7\nfloats:|3.0|0.25|2.5\nTrue True 100 <end>\n100% done (1-2j)\n\n"


@device.kernel
def print_per_thread(x):
    print("thread", device.thread_idx.x, "value", x[device.thread_idx.x])


def test_print_from_several_threads_keeps_lines_whole(target, capfd):
    x = np.arange(8, dtype=np.int32) * 11
    run(target, print_per_thread, x, block=8)
    lines = sorted(capfd.readouterr().out.splitlines())
    assert lines == sorted(f"thread {t} value {11 * t}" for t in range(8))


# ---- diagnostics ----


@device.kernel
def bad_memory(a):
    device.AtomicRef(a, 0).add(1, memory="strong")


@device.kernel
def bad_scope(a):
    device.threadfence(scope="cluster")


@device.kernel
def load_release(a):
    a[1] = device.AtomicRef(a, 0).load(memory="release")


@device.kernel
def float_xor(f):
    device.AtomicRef(f, 0).xor(1)


@device.kernel
def atomic_value(a):
    x = device.Atomic(device.int32)
    a[0] = 1


@device.kernel
def not_a_predicate(a):
    a[0] = device.syncthreads_count(a[0] > 0)


@device.kernel
def lambda_elsewhere(a):
    f = lambda: 1  # noqa: E731
    a[0] = 1


@device.kernel
def shuffle_an_array(a):
    a[0] = device.shfl_sync(FULL, a, 0)


@device.kernel
def bad_order(a):
    s = device.shared_array(4, device.int32, order="K")
    a[0] = s[0]


@device.kernel
def bad_align(a):
    s = device.local_array(4, device.int32, align=3)
    a[0] = s[0]


@device.kernel
def print_an_array(a):
    print("a is", a)


@device.kernel
def print_bad_sep(a):
    print(a[0], sep=a[0])


@device.kernel
def print_to_file(a):
    print(a[0], file=None)


@device.kernel
def lane_out_of_range(a):
    mask = device.activemask()
    mask[32] = True
    a[0] = mask


@device.kernel
def atomic_bad_dtype(a):
    s = device.shared_array(2, device.Atomic(device.complex128))
    a[0] = 1


@pytest.mark.parametrize(
    "kernel, text, message",
    [
        (bad_memory, 'memory="strong"', "memory= must be one of 'relaxed', 'consume', 'acquire', 'release', "
                                        "'acq_rel', 'seq_cst' (a string constant), not 'strong'"),
        (bad_scope, '"cluster"', "scope= must be one of 'system', 'device', 'block', 'thread' (a string constant), "
                                 "not 'cluster'"),
        (load_release, '"release"', "memory order 'release' is not valid for AtomicRef.load(): a load has no "
                                    "release part"),
        (float_xor, ".xor(1)", "AtomicRef.xor() needs an atomic int32, uint32, int64 or uint64, not "
                               "AtomicRef(float32)"),
        (atomic_value, "device.Atomic(device.int32)", "device.Atomic(dtype) is a type: use it as the dtype of an array"),
        (not_a_predicate, "a[0] > 0", "argument 1 of device.syncthreads_count() must be a predicate: a callable "
                                      "taking no arguments, such as `lambda: x > 0` or the name of a function, "
                                      "not bool"),
        (lambda_elsewhere, "lambda: 1", "lambda is not supported in device code"),
        (shuffle_an_array, "device.shfl_sync(", "device.shfl_sync() moves a number of at most 8 bytes"),
        (bad_order, '"K"', "order= of device.shared_array() must be 'C' or 'F', not 'K'"),
        (bad_align, "align=3", "align= of device.local_array() must be a constant power of two from 1 to 256, not 3"),
        (print_an_array, 'print("a is", a)', "print() cannot print array(float32, 1d)"),
        (print_bad_sep, "sep=a[0]", "print()'s sep= must be a string constant, not float32"),
        (print_to_file, "file=None", "print() got an unexpected keyword argument 'file'"),
        (lane_out_of_range, "mask[32]", "lane 32 is out of range for a WarpMask, whose lanes are 0 to 31"),
        (atomic_bad_dtype, "device.complex128", "device.Atomic() needs a number type of at most 8 bytes, not "
                                                "type device.complex128"),
    ],
)
def test_simt_errors_name_the_line(target, kernel, text, message):
    with pytest.raises(weft.CompileError) as info:
        run(target, kernel, np.zeros(4, np.float32) if kernel in (float_xor, print_an_array, print_bad_sep)
            else np.zeros(4, np.int32))
    assert message in str(info.value)
    assert f"test_simt_cpu.py:{line_of(kernel, text)}" in str(info.value)


def test_simt_names_exist_in_cuda_device():
    for name in ("syncthreads_count", "shfl_sync", "match_all_sync", "AtomicRef", "Atomic", "WarpMask", "threadfence",
                 "popc", "fma", "dynamic_shared_array", "activemask", "lanemask_lt"):
        assert hasattr(device, name), name
    with pytest.raises(TypeError, match="device-only"):
        device.popc(3)


# ---- sm_90 through NVRTC and ptxas (no GPU needed) ----

SM90_SOURCE = '''
import math
from cuda import device

FULL = 0xFFFFFFFF


def positive():
    return device.thread_idx.x > 3


@device.kernel
def simt_everything(a: device.int32[:], f: device.float64[:], h: device.uint64[:], s: device.int16[:]):
    i = device.tid(1)
    counters = device.shared_array(4, device.Atomic(device.int32))
    tile = device.shared_array((4, 8), device.float32, order="F", align=64)
    loc = device.local_array(4, device.int64, align=32)
    dyn = device.dynamic_shared_array()
    v = a[i]
    c = device.syncthreads_count(lambda: v > 0) + device.syncthreads_and(positive) + device.syncthreads_or(lambda: v < 0)
    m = device.ballot_sync(FULL, lambda: v > 3)
    ok = device.all_sync(m, lambda: True) and device.any_sync(m, positive) and device.eq_sync(FULL, lambda: v == 1)
    x = device.shfl_sync(FULL, f[i], 3) + device.shfl_up_sync(FULL, v, 1) + device.shfl_down_sync(FULL, s[i], 2)
    flag = device.shfl_xor_sync(FULL, ok, 1)
    lanes, same = device.match_all_sync(FULL, f[i])
    mm = device.match_any_sync(device.activemask(), v) & device.lanemask_lt()
    device.syncwarp(mm)
    counters[v % 4].add(1, memory="relaxed", scope="block")
    r = device.AtomicRef(h, i)
    r.add(1, memory="relaxed", scope="block")
    r.max(h[0])
    r.min(h[1], "acquire", "device")
    r.nanmax(h[2])
    r.and_(h[3])
    r.or_(h[4])
    r.xor(h[5])
    r.sub(h[6])
    old = r.exch(5) + r.cas(5, 6) + r.load()
    r.store(old, memory="release", scope="system")
    g = device.AtomicRef(f, 0)
    g.add(1.5)
    g.max(2.0)
    g.nanmin(1.0)
    g.sub(0.5)
    q = device.AtomicRef(s, 0)
    q.exch(s[1])
    q.cas(s[1], s[2])
    q.store(s[3])
    s[4] = q.load()
    q.wait(s[5])
    q.notify_all()
    device.threadfence(memory="acq_rel", scope="block")
    loc[0] = device.popc(v) + device.clz(h[0]) + device.ffs(s[0]) + device.brev(v)
    tile[1, 2] = math.erf(f[i]) + math.gamma(x) + math.hypot(x, 2) + device.fma(x, x, x) + device.cbrt(x)
    tile[2, 1] = math.remainder(x, 3) + math.trunc(x) + math.lgamma(x) + math.erfc(x)
    dyn[0] = device.uint8(dyn.size)
    print("i", i, "f", f[i], "ok", ok, flag, same, lanes, "100%", 1j)
    a[i] = c + mm + loc[0] + math.isfinite(x) + counters[0].load()
'''


def test_simt_kernel_compiles_for_sm90(tmp_path):
    from test_sm90_ptxas import compile_for_sm90

    _, ptx = compile_for_sm90(tmp_path, "simt_everything", SM90_SOURCE)
    for instruction in ("shfl.sync", "vote.sync.ballot", "match.all.sync", "match.any.sync", "bar.red.popc",
                        "atom.shared", "atom.global", "vprintf", "membar", "%dynamic_smem_size"):
        assert instruction in ptx, instruction

