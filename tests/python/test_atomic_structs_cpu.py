"""Structs with atomic fields on the CPU target (docs/structs.md): the specification's
ticket_mutex locked by many contending blocks and threads, Atomic fields of a struct in shared
memory, a nested struct with atomic fields, the NumPy dtypes of such structs, and the errors
for copying one; checked against NumPy on random data.

test_atomic_structs_gpu.py runs the same tests on the GPU by overriding the `target` fixture.
"""

import importlib.util
import sys

import numpy as np
import pytest

import weft
from cuda import device
from launching import run, line_of


@pytest.fixture(scope="module")
def target():
    return "cpu"


# The specification's example, verbatim.
@device.struct
class ticket_mutex:
    line: device.Atomic(int, align=16)
    current: device.Atomic(int, align=16)

    @device.func
    def lock(self):
        my = self.line.add(1)
        while True:
            now = self.current.load()
            if now == my:
                break
            self.current.wait(now)

    @device.func
    def unlock(self):
        self.current.add(1)
        self.current.notify_all()


def test_the_dtype_of_a_struct_with_atomic_fields():
    dtype = ticket_mutex.dtype
    assert dtype.names == ("line", "current")
    assert dtype.fields["line"] == (np.dtype(np.int32), 0)
    assert dtype.fields["current"] == (np.dtype(np.int32), 16)
    assert dtype.itemsize == 32
    assert Guarded.dtype.fields["mutex"][1] == 0 and Guarded.dtype.fields["count"][1] == 32
    assert Guarded.dtype.fields["total"][1] == 40 and Guarded.dtype.itemsize == 48
    # An Atomic occupies its alignment: the field after it starts past the padding.
    assert Flag.dtype.fields["tag"][1] == 4 and Flag.dtype.itemsize == 8



@device.kernel
def lock_in_a_record(records, out):
    records[0].m.lock()
    out[0] = records[0].k
    records[0].m.unlock()


def test_a_packed_record_cannot_hold_atomics(target):
    # Atomics are used in place, at their alignment; a packed record's fields would be copies.
    packed = np.zeros(2, np.dtype([("k", np.int8), ("m", ticket_mutex.dtype)]))
    with pytest.raises(TypeError, match=r"parameter 'records': record cannot be laid out in device code: field 'm' "
                                        r"holds atomics, which a packed record cannot align; make the dtype with "
                                        r"numpy.dtype\(..., align=True\)"):
        run(target, lock_in_a_record, packed, np.zeros(1, np.int8))


def test_bad_atomic_fields_are_reported_where_the_dtype_is_asked_for(tmp_path):
    # S.dtype is laid out by weft's C++ layout code, from the class's source (sema reads it).
    path = tmp_path / "bad_atomics.py"
    path.write_text("from cuda import device\n\n@device.struct\nclass Skewed:\n    x: device.Atomic(int, align=3)\n\n"
                    "@device.struct\nclass Wide:\n    x: device.Atomic(device.complex128)\n")
    spec = importlib.util.spec_from_file_location("bad_atomics", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["bad_atomics"] = module  # inspect finds a class's source through its module
    try:
        spec.loader.exec_module(module)
        with pytest.raises(weft.CompileError, match=r"bad_atomics.py:5:8: error: field 'x' of struct 'Skewed' .*power of two"):
            module.Skewed.dtype
        with pytest.raises(weft.CompileError, match=r"bad_atomics.py:9:8: error: field 'x' of struct 'Wide' .*at most 8 bytes"):
            module.Wide.dtype
    finally:
        del sys.modules["bad_atomics"]
    # A class made by type() has no class statement: the error is at the line applying @struct.
    with pytest.raises(weft.CompileError, match=r"'NoSource' was not found in .*test_atomic_structs_cpu.py at line \d+; .*class statement"):
        device.struct(type("NoSource", (), {"__annotations__": {"x": device.int32}})).dtype


@device.struct
class Flag:
    set: device.Atomic(device.int8, align=4)
    tag: device.int8


# Blocks take turns: each block's thread 0 locks the one mutex, appends its block index to a
# log and adds its value to a total with plain (non-atomic) reads and writes, then unlocks.
@device.kernel
def serialized_by_blocks(mutexes, values, total, log, count):
    if device.thread_idx.x == 0:
        b = device.block_idx.x
        mutexes[0].lock()
        n = count[0]
        log[n] = b
        total[0] = total[0] + values[b]
        count[0] = n + 1
        mutexes[0].unlock()


def test_the_specification_ticket_mutex_serializes_contending_blocks(target, rng):
    blocks = 96
    values = rng.integers(-(10**9), 10**9, blocks, dtype=np.int64)
    mutexes = np.zeros(1, ticket_mutex.dtype)
    total = np.zeros(1, np.int64)
    log = np.full(blocks, -1, np.int32)
    count = np.zeros(1, np.int32)
    run(target, serialized_by_blocks, mutexes, values, total, log, count, grid=blocks, block=32)
    assert count[0] == blocks
    assert total[0] == values.sum()
    assert sorted(log) == list(range(blocks))  # every block entered exactly once
    assert mutexes["line"][0] == blocks and mutexes["current"][0] == blocks


# Several threads of every block contend, for one of several mutexes each; the mutex is passed
# on to a function (its parameter refers to the array element).
def add_locked(mutex, sums, slot, value):
    mutex.lock()
    sums[slot] = sums[slot] + value
    mutex.unlock()


@device.kernel
def contended_by_threads(mutexes, which, values, sums):
    i = device.tid(1)
    if i < which.size and device.thread_idx.x % 3 == 0:
        k = which[i]
        add_locked(mutexes[k], sums, k, values[i])


def test_several_threads_per_block_contend_for_several_mutexes(target, rng):
    blocks, block, locks = 48, 64, 4
    n = blocks * block
    which = rng.integers(0, locks, n).astype(np.int32)
    values = rng.integers(-(2**40), 2**40, n, dtype=np.int64)
    mutexes = np.zeros(locks, ticket_mutex.dtype)
    sums = np.zeros(locks, np.int64)
    run(target, contended_by_threads, mutexes, which, values, sums, grid=blocks, block=block)
    takes = np.arange(n) % block % 3 == 0
    expected = np.array([values[takes & (which == k)].sum() for k in range(locks)])
    np.testing.assert_array_equal(sums, expected)
    entries = np.bincount(which[takes], minlength=locks)
    np.testing.assert_array_equal(mutexes["line"], entries)
    np.testing.assert_array_equal(mutexes["current"], entries)


# A struct of atomics in shared memory, used by every thread of the block.
@device.struct
class BlockStats:
    count: device.Atomic(device.int32)
    total: device.Atomic(device.int64, align=16)
    biggest: device.Atomic(device.float64)
    smallest: device.Atomic(device.float64)
    bits: device.Atomic(device.uint32)

    @device.func
    def reset(self, x):
        self.count.store(0)
        self.total.store(0)
        self.biggest.store(x)
        self.smallest.store(x)
        self.bits.store(0)

    @device.func
    def add(self, key, x):
        self.count.add(1, memory="relaxed", scope="block")
        self.total.add(key, memory="relaxed", scope="block")
        self.biggest.max(x, scope="block")
        self.smallest.min(x, scope="block")
        self.bits.or_(device.uint32(1) << (key % 32), scope="block")


@device.kernel
def shared_stats(keys, xs, counts, totals, extremes, bits):
    stats = device.shared_array(1, BlockStats)
    i = device.tid(1)
    b = device.block_idx.x
    if device.thread_idx.x == 0:
        stats[0].reset(xs[i])  # the block's first x, a key of which is kept below
    device.syncthreads()
    if keys[i] >= 0:
        stats[0].add(keys[i], xs[i])
    device.syncthreads()
    if device.thread_idx.x == 0:
        counts[b] = stats[0].count.load()
        totals[b] = stats[0].total.load()
        extremes[b, 0] = stats[0].biggest.load()
        extremes[b, 1] = stats[0].smallest.load()
        bits[b] = stats[0].bits.load()


def test_atomic_struct_fields_in_shared_memory(target, rng):
    blocks, block = 6, 128
    keys = rng.integers(-20, 100, blocks * block).astype(np.int64)
    keys[::block] = rng.integers(0, 100, blocks)
    xs = rng.standard_normal(blocks * block)
    counts = np.zeros(blocks, np.int32)
    totals = np.zeros(blocks, np.int64)
    extremes = np.zeros((blocks, 2))
    bits = np.zeros(blocks, np.uint32)
    run(target, shared_stats, keys, xs, counts, totals, extremes, bits, grid=blocks, block=block)
    for b in range(blocks):
        k = keys[b * block:(b + 1) * block]
        x = xs[b * block:(b + 1) * block][k >= 0]
        k = k[k >= 0]
        assert counts[b] == len(k)
        assert totals[b] == k.sum()
        assert extremes[b, 0] == x.max() and extremes[b, 1] == x.min()
        assert bits[b] == np.bitwise_or.reduce(np.left_shift(np.uint32(1), (k % 32).astype(np.uint32)))


# A struct whose field is a struct with atomic fields: its methods reach the inner mutex in place.
@device.struct
class Guarded:
    mutex: ticket_mutex
    count: device.Atomic(device.int64)
    total: device.float64

    @device.func
    def enter(self):
        self.mutex.lock()
        return self.count.add(1)

    @device.func
    def leave(self):
        self.mutex.unlock()


@device.kernel
def nested(cells, which, log, order):
    i = device.tid(1)
    if i < which.size:
        n = cells[which[i]].enter()
        log[which[i], n] = i
        cells[which[i]].leave()
        order[i] = n + cells[which[i]].total


def test_a_nested_struct_with_atomic_fields(target, rng):
    cells, n = 3, 200
    which = rng.integers(0, cells, n).astype(np.int32)
    guarded = np.zeros(cells, Guarded.dtype)
    guarded["total"] = rng.integers(0, 1000, cells) * 1000.0
    log = np.full((cells, n), -1, np.int32)
    order = np.zeros(n)
    run(target, nested, guarded, which, log, order, grid=4, block=64)
    for c in range(cells):
        mine = np.flatnonzero(which == c)
        assert guarded["count"][c] == len(mine)
        assert guarded["mutex"]["line"][c] == len(mine) == guarded["mutex"]["current"][c]
        assert sorted(log[c, :len(mine)]) == list(mine)  # each thread got its own slot
        np.testing.assert_array_equal(np.sort(order[mine] - guarded["total"][c]), np.arange(len(mine)))


# ---- errors: such a struct is never copied ----


@device.kernel
def copies_to_a_variable(mutexes, out):
    m = mutexes[0]
    m.lock()


@device.kernel
def constructs_one(out):
    m = ticket_mutex(0, 0)


@device.kernel
def takes_one_by_value(m, out):
    out[0] = 1


@pytest.mark.parametrize("kernel, args, text, message", [
    (copies_to_a_variable, (np.zeros(2, ticket_mutex.dtype), np.zeros(1, np.int32)), "m = mutexes[0]",
     "assigning it to variable 'm' would copy ticket_mutex"),
    (constructs_one, (np.zeros(1, np.int32),), "ticket_mutex(0, 0)",
     "ticket_mutex(...) has atomic fields, so device code cannot make one as a value"),
    (takes_one_by_value, (ticket_mutex(0, 0), np.zeros(1, np.int32)), "def takes_one_by_value",
     "kernel parameter 'm' would receive ticket_mutex by value"),
])
def test_copying_a_struct_with_atomic_fields_is_an_error(kernel, args, text, message):
    with pytest.raises(weft.CompileError) as info:
        weft.launch(kernel, *args, grid=1, block=1, target="cpu")
    assert message in str(info.value)
    assert f"test_atomic_structs_cpu.py:{line_of(kernel, text)}" in str(info.value)


# ---- sm_90 through NVRTC and ptxas (no GPU needed) ----

SM90_SOURCE = '''
from cuda import device


@device.struct
class ticket_mutex:
    line: device.Atomic(int, align=16)
    current: device.Atomic(int, align=16)

    @device.func
    def lock(self):
        my = self.line.add(1)
        while True:
            now = self.current.load()
            if now == my:
                break
            self.current.wait(now)

    @device.func
    def unlock(self):
        self.current.add(1)
        self.current.notify_all()


@device.struct
class guarded:
    mutex: ticket_mutex
    hits: device.Atomic(device.uint64, align=8)
    total: device.float64


@device.kernel
def locked(mutexes: ticket_mutex[:], cells: guarded[:], out: device.float64[:]):
    block = device.shared_array(2, guarded)
    if device.thread_idx.x == 0:
        block[0].mutex.line.store(0)
        block[0].mutex.current.store(0)
    device.syncthreads()
    block[0].mutex.lock()
    out[0] = out[0] + cells[1].total
    block[0].mutex.unlock()
    mutexes[device.block_idx.x].lock()
    cells[0].hits.add(1, memory="relaxed", scope="device")
    mutexes[device.block_idx.x].unlock()
    mask = device.ballot_sync(0xFFFFFFFF, lambda: out[1] > 0)
    mask[device.lane_id] = out[2] > 0
    if mask[0]:
        out[3] = device.popc(mask)
'''


def test_atomic_structs_compile_for_sm90(tmp_path):
    from test_sm90_ptxas import compile_for_sm90

    _, ptx = compile_for_sm90(tmp_path, "atomic_structs", SM90_SOURCE)
    for instruction in ("atom.global.sys.add", "atom.shared.sys.add", "atom.global.add.u64", "nanosleep", "vote.sync.ballot"):
        assert instruction in ptx, instruction
