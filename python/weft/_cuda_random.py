"""numba-cuda's `cuda.random`: the xoroshiro128+ generator, with the streams numba gives for the
same seed. The device functions are written in weft's dialect, so they run on both targets and
are called from classic kernels as numba's are::

    from weft import cuda
    from weft.cuda.random import create_xoroshiro128p_states, xoroshiro128p_uniform_float32

    @cuda.jit
    def draw(states, out):
        i = cuda.grid(1)
        if i < out.size:
            out[i] = xoroshiro128p_uniform_float32(states, i)

    states = create_xoroshiro128p_states(n, seed=1)

A state array holds one generator per element (records of two uint64 fields, `s0` and `s1`).
Generator i starts 2**64 * (subsequence_start + i) steps into the sequence that the seed
begins (SplitMix64 of the seed), so generators never overlap in practice. numba jumps from each
generator to the next on the host; weft computes the same states in parallel: the jump by 2**64
steps is a linear map of the 128-bit state over GF(2), so its powers (as bit matrices, found by
running the device's own `xoroshiro128p_jump` on the basis states) take any generator's state
directly from the first one's.
"""

import math

import numpy as np

from . import _runtime, float32, float64, int64, tid, uint32, uint64
from ._decorators import func, kernel

xoroshiro128p_dtype = np.dtype([("s0", np.uint64), ("s1", np.uint64)], align=True)

__all__ = [
    "xoroshiro128p_dtype", "init_xoroshiro128p_states", "create_xoroshiro128p_states", "xoroshiro128p_next",
    "xoroshiro128p_jump", "xoroshiro128p_uniform_float32", "xoroshiro128p_uniform_float64",
    "xoroshiro128p_normal_float32", "xoroshiro128p_normal_float64",
]


# ---- device functions ----


@func
def rotl(x, k):
    """x rotated left by k bits (x a uint64, 0 < k < 64)."""
    return (x << uint32(k)) | (x >> uint32(64 - k))


@func
def xoroshiro128p_next(states, index):
    """The next uint64 of generator `index`, which it advances by one step."""
    state = states[int64(index)]
    s0 = state.s0
    s1 = state.s1
    result = s0 + s1
    s1 ^= s0
    states[int64(index)] = state.replace(s0=rotl(s0, 55) ^ s1 ^ (s1 << uint32(14)), s1=rotl(s1, 36))
    return result


@func
def xoroshiro128p_jump(states, index):
    """Advances generator `index` by 2**64 steps."""
    s0 = uint64(0)
    s1 = uint64(0)
    for word in range(2):
        polynomial = uint64(0xBEAC0467EBA5FACB) if word == 0 else uint64(0xD86B048B86AA9922)
        for bit in range(64):
            if (polynomial >> uint32(bit)) & uint64(1):
                s0 ^= states[int64(index)].s0
                s1 ^= states[int64(index)].s1
            xoroshiro128p_next(states, index)
    states[int64(index)] = states[int64(index)].replace(s0=s0, s1=s1)


@func
def uint64_to_unit_float64(x):
    """The top 53 bits of x as a float64 in [0, 1)."""
    return float64(x >> uint32(11)) * float64(1.1102230246251565e-16)


@func
def uint64_to_unit_float32(x):
    """uint64_to_unit_float64(x) rounded to float32 (as numba does: 1.0 is possible)."""
    return float32(uint64_to_unit_float64(x))


@func
def xoroshiro128p_uniform_float32(states, index):
    """A float32 uniform in [0, 1) from generator `index` (one step)."""
    return uint64_to_unit_float32(xoroshiro128p_next(states, index))


@func
def xoroshiro128p_uniform_float64(states, index):
    """A float64 uniform in [0, 1) from generator `index` (one step)."""
    return uint64_to_unit_float64(xoroshiro128p_next(states, index))


@func
def xoroshiro128p_normal_float32(states, index):
    """A standard normal float32 from generator `index` by the Box-Muller transform (two float32
    uniforms, two steps)."""
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return math.sqrt(float32(-2.0) * math.log(u1)) * math.cos(float32(6.283185307179586) * u2)


@func
def xoroshiro128p_normal_float64(states, index):
    """A standard normal float64 from generator `index`: numba's transform, which draws two
    float32 uniforms (two steps) and takes their logarithm in float32."""
    u1 = xoroshiro128p_uniform_float32(states, index)
    u2 = xoroshiro128p_uniform_float32(states, index)
    return math.sqrt(float64(-2.0) * math.log(u1)) * math.cos(float64(6.283185307179586) * u2)


# ---- initialization ----


@func
def _apply_power(powers, k, s0, s1):
    """The state (s0, s1) mapped by bit matrix `k` of `powers` (column b: the image of bit b)."""
    r0 = uint64(0)
    r1 = uint64(0)
    for bit in range(64):
        if (s0 >> uint32(bit)) & uint64(1):
            r0 ^= powers[k, bit, 0]
            r1 ^= powers[k, bit, 1]
    for bit in range(64):
        if (s1 >> uint32(bit)) & uint64(1):
            r0 ^= powers[k, 64 + bit, 0]
            r1 ^= powers[k, 64 + bit, 1]
    return r0, r1


@kernel
def _jump_each(states):
    i = tid(1)
    if i < states.size:
        xoroshiro128p_jump(states, i)


@kernel
def _fill_states(states, powers, s0, s1, chunk):
    # Thread t makes generators t*chunk ... t*chunk + chunk - 1: the first by the powers of the
    # jump that its index's bits select, each next one by one jump (power 0).
    t = tid(1)
    first = int64(t) * int64(chunk)
    if first < states.size:
        for k in range(powers.shape[0]):
            if (first >> k) & 1:
                s0, s1 = _apply_power(powers, k, s0, s1)
        for j in range(chunk):
            if first + j < states.size:
                states[first + j] = states[first + j].replace(s0=s0, s1=s1)
                s0, s1 = _apply_power(powers, 0, s0, s1)


_CHUNK = 64  # generators per thread of _fill_states: one jump each after the thread's first
_powers = []  # the jump's powers found so far: _powers[k] is the bit matrix (128 x 128) of 2**k jumps


def _to_bits(s0: np.ndarray, s1: np.ndarray) -> np.ndarray:
    """States (arrays of s0 and s1) as rows of 128 bits: bit j of s0, then bit j of s1."""
    shifts = np.arange(64, dtype=np.uint64)
    return np.concatenate([(s0[:, None] >> shifts) & 1, (s1[:, None] >> shifts) & 1], axis=1).astype(np.uint8)


def _to_words(bits: np.ndarray) -> np.ndarray:
    """Rows of 128 bits as (s0, s1) uint64 pairs."""
    weights = np.uint64(1) << np.arange(64, dtype=np.uint64)
    words = bits.reshape(bits.shape[0], 2, 64).astype(np.uint64) * weights
    return np.bitwise_or.reduce(words, axis=2)


def _jump_powers(count: int) -> list:
    """The bit matrices of 2**k jumps for k < count: the first by jumping the 128 basis states
    with the device's own xoroshiro128p_jump, each next one the square of the one before."""
    if not _powers:
        from ._arrays import to_device

        basis = np.zeros(128, xoroshiro128p_dtype)
        for bit in range(128):
            basis[bit]["s0" if bit < 64 else "s1"] = np.uint64(1) << np.uint64(bit % 64)
        states = to_device(basis)
        _launch(_jump_each, states, grid=1, block=128)
        jumped = states.copy_to_host()
        # Column b is the image of basis state b.
        _powers.append(_to_bits(jumped["s0"], jumped["s1"]).T.copy())
    while len(_powers) < count:
        last = _powers[-1].astype(np.int64)
        _powers.append(((last @ last) & 1).astype(np.uint8))
    return _powers[:count]


# (count, target) -> the first `count` powers as a DeviceArray of _fill_states's layout. Kept for
# the process: a launch is asynchronous, so the array must outlive the launches that read it.
_power_arrays = {}


def _power_columns(count: int, target: str):
    """The jump's first `count` powers on `target`: [k, b] is the (s0, s1) image of state bit b."""
    found = _power_arrays.get((count, target))
    if found is None:
        from ._arrays import to_device

        words = np.stack([_to_words(np.ascontiguousarray(power.T)) for power in _jump_powers(count)])
        found = _power_arrays[(count, target)] = to_device(words, target)
    return found


def _launch(kernel_, *args, grid, block, stream=0):
    from ._weft import launch

    launch(kernel_, *args, grid=grid, block=block, stream=stream)


def _first_state(seed: int, subsequence_start: int) -> tuple:
    """Generator 0's state: SplitMix64 of the seed (both words), then `subsequence_start` jumps."""
    mask = (1 << 64) - 1
    z = (int(seed) + 0x9E3779B97F4A7C15) & mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    z ^= z >> 31
    bits = _to_bits(np.array([z], np.uint64), np.array([z], np.uint64))[0].astype(np.int64)
    start = int(subsequence_start)
    for k, power in enumerate(_jump_powers(start.bit_length())):
        if (start >> k) & 1:
            bits = (power.astype(np.int64) @ bits) & 1
    s0, s1 = _to_words(bits[None, :].astype(np.uint8))[0]
    return np.uint64(s0), np.uint64(s1)


def init_xoroshiro128p_states(states, seed, subsequence_start=0, stream=0) -> None:
    """numba's `init_xoroshiro128p_states`: fills a device array of xoroshiro128p_dtype with
    generators 2**64 steps apart, the first `subsequence_start` jumps after the seed's start."""
    if states.dtype != xoroshiro128p_dtype or len(states.shape) != 1:
        raise TypeError("init_xoroshiro128p_states takes a 1-d device array of xoroshiro128p_dtype")
    if int(subsequence_start) < 0:
        raise ValueError("subsequence_start must be non-negative")
    n = states.shape[0]
    if n == 0:
        return
    s0, s1 = _first_state(int(seed) & ((1 << 64) - 1), int(subsequence_start))
    threads = (n + _CHUNK - 1) // _CHUNK
    powers = _power_columns(max(1, ((threads - 1) * _CHUNK).bit_length()), _runtime.runtime().default_target())
    _launch(_fill_states, states, powers, s0, s1, _CHUNK, grid=(threads + 127) // 128, block=128, stream=stream)


def create_xoroshiro128p_states(n, seed, subsequence_start=0, stream=0):
    """numba's `create_xoroshiro128p_states`: a new device array of `n` generators (see
    init_xoroshiro128p_states)."""
    from ._cuda_host import device_array

    states = device_array(n, dtype=xoroshiro128p_dtype, stream=stream)
    init_xoroshiro128p_states(states, seed, subsequence_start, stream)
    return states
