"""weft's side of the interop test: interoperable functions and a kernel whose C++ signatures
(extern "C", each parameter's machine representation) tests/interop/caller.cu declares with the
CUDA C++ types the specification names."""

from cuda import device


@device.struct(align=16)
class Particle:
    x: device.float32
    mass: device.float64


@device.func(interop=True)
def cmul(a: device.complex64, b: device.complex64) -> device.complex64:
    return a * b


@device.func(interop=True)
def hdiff(a: device.float16, b: device.float16) -> device.float16:
    return abs(a - b)


@device.func(interop=True)
def dot2(a: device.int32x2, b: device.int32x2) -> device.int32:
    return a.x * b.x + a.y * b.y


@device.func(interop=True)
def momentum(p: Particle) -> device.float64:
    return p.mass * p.x


@device.func(interop=True)
def swap(t: tuple[device.int32, device.float64]) -> tuple[device.float64, device.int32]:
    return t[1], t[0]


@device.func(interop=True)
def total(a: device.float32[:]) -> device.float32:
    s = device.float32(0)
    for i in range(a.size):
        s += a[i]
    return s


@device.func(interop=True)
def is_null(p: None) -> bool:
    return p is None


@device.kernel(interop=True)
def scale_rows(m: device.float64[:, :], k: device.float64):
    i, j = device.tid(2)
    if i < m.shape[0] and j < m.shape[1]:
        m[i, j] = m[i, j] * k * (i + 1)


# The same evaluations as caller.cu's call_weft, from weft itself (launched by weft: the JIT
# path, on the CPU target and the GPU). `evens` is vector[::2], a strided view.
@device.kernel
def evaluate(inputs: device.float32[:], ints: device.int32[:], evens: device.float32[:], vector: device.float32[:],
             out: device.float64[:]):
    product = cmul(device.complex64(inputs[0], inputs[1]), device.complex64(inputs[2], inputs[3]))
    out[0] = product.real
    out[1] = product.imag
    out[2] = hdiff(device.float16(inputs[4]), device.float16(inputs[5]))
    out[3] = dot2(device.int32x2(ints[0], ints[1]), device.int32x2(ints[2], ints[3]))
    out[4] = momentum(Particle(inputs[6], device.float64(inputs[7])))
    swapped = swap((ints[4], device.float64(inputs[0])))
    out[5] = swapped[0]
    out[6] = swapped[1]
    out[7] = total(evens)
    out[8] = total(vector)
    out[9] = is_null(None)
