"""Valid kernels the malformed-input fuzzer mutates: small modules covering the dialect's
constructs (arrays and views, shared and local memory, barriers, warps, atomics, structs,
vectors, tuples, helpers, math, print, target conditions, loops), each with annotated parameters
so that weftc compiles it and the Python API can build arguments from the annotations."""

HEADER = "import math\nfrom cuda import device\n\n"

SEEDS = {
    "saxpy": """
@device.kernel
def saxpy(alpha: device.float32, x: device.float32[:], y: device.float32[:], out: device.float32[:]):
    i = device.tid(1)
    if i < out.size:
        out[i] = alpha * x[i] + y[i]
""",
    "stencil": """
@device.kernel
def stencil(u: device.float64[:, :], out: device.float64[:, :]):
    r, c = device.tid(2)
    if 0 < r < u.shape[0] - 1 and 0 < c < u.shape[1] - 1:
        out[r, c] = 0.25 * (u[r - 1, c] + u[r + 1, c] + u[r, c - 1] + u[r, c + 1])
""",
    "shared_reduce": """
BLOCK = 64

@device.kernel
def block_sum(x: device.float32[:], partial: device.float32[:]):
    buf = device.shared_array(BLOCK, device.float32)
    t = int(device.thread_idx.x)
    i = device.tid(1)
    buf[t] = x[i] if i < x.size else 0.0
    device.syncthreads()
    step = BLOCK // 2
    while step > 0:
        if t < step:
            buf[t] += buf[t + step]
        device.syncthreads()
        step //= 2
    if t == 0:
        partial[device.block_idx.x] = buf[0]
""",
    "helpers_tuples": """
SCALE = 3

def divmod_pair(a, b):
    return a // b, a % b

def poly(x):
    return x * x + SCALE * x + 1

@device.kernel
def helpers(a: device.int32[:], b: device.int32[:], out: device.int64[:, :]):
    i = device.tid(1)
    if i < a.size:
        q, r = divmod_pair(a[i], b[i] | 1)
        total = 0
        for k in range(-2, 5, 2):
            if k == 2:
                continue
            total += poly(k) * q
        else:
            total -= r
        out[0, i] = total
        out[1, i] = device.int64(q) << 3
""",
    "math_casts": """
@device.kernel
def mathy(x: device.float32[:], h: device.float16[:], n: device.int64[:], out: device.float64[:]):
    i = device.tid(1)
    if i < x.size:
        v = math.sin(x[i]) + math.sqrt(abs(x[i])) - math.floor(x[i] / 3)
        w = device.float64(h[i]) ** 2 + device.float32(n[i] % 7)
        out[i] = max(v, w, -1.0) if not math.isnan(v) else min(w, 0.5)
""",
    "atomics_local": """
@device.kernel
def histogram(x: device.int32[:], bins: device.int32[:]):
    i = device.tid(1)
    counts = device.local_array(4, device.int32)
    for k in range(4):
        counts[k] = 0
    if i < x.size:
        counts[x[i] % 4] += 1
        device.AtomicRef(bins, x[i] % bins.size).add(1, memory="relaxed")
""",
    "structs_vectors": """
@device.struct
class Pair:
    a: device.float32
    b: device.int16

    @device.func
    def total(self):
        return self.a + self.b

@device.kernel
def structs(x: device.float32[:], out: device.float32[:]):
    i = device.tid(1)
    if i < x.size:
        p = Pair(x[i], device.int16(i))
        v = device.float32x4(x[i], 1.0, 2.0, p.total())
        out[i] = v.x + v[3] + v.w * 2
""",
    "warps_target": """
FULL = 0xFFFFFFFF

@device.kernel
def warps(x: device.int32[:], out: device.int32[:]):
    i = device.tid(1)
    v = x[i]
    offset = 16
    while offset > 0:
        v += device.shfl_down_sync(FULL, v, offset)
        offset //= 2
    if device.lane_id == 0:
        out[i // 32] = v
    if device.target(device.is_device):
        out[0] += 0
""",
    "views_print": """
@device.kernel
def views(a: device.float32[:, :], out: device.float32[:]):
    i = device.tid(1)
    row = a[i % a.shape[0]]
    part = row[1:]
    if i < out.size:
        out[i] = part[0] + a[-1, -1] + len(row)
    if i == 0:
        print("rows", a.shape[0], "first", a[0, 0])
""",
    "complex_bool": """
@device.kernel
def complexes(z: device.complex64[:], flags: device.bool_[:], out: device.complex128[:]):
    i = device.tid(1)
    if i < z.size:
        w = z[i].conjugate() * (1 + 2j)
        out[i] = w if flags[i] and abs(w) > 1 else device.complex128(z[i].real, -z[i].imag)
""",
}


def seed_sources() -> dict:
    """Every seed as a complete module text."""
    return {name: HEADER + body.lstrip("\n") for name, body in SEEDS.items()}
