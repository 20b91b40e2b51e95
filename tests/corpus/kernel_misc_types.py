from cuda import device
from cuda.device import ConstExpr, float16, int8, uint64


@device.kernel
def histogram(data: device.uint8[:], bins: device.uint32[:], nbins: ConstExpr[int]):
    local = device.local_array(nbins, device.uint32)
    for b in range(nbins):
        local[b] = 0
    i = device.tid()
    if i < data.size:
        local[data[i] % nbins] += 1
    for b in range(nbins):
        device.atomic.add(bins, b, local[b])


@device.kernel
def bit_ops(a: device.uint32[:], out: device.uint32[:]):
    i = device.tid()
    v = a[i]
    v = (v ^ (v >> 16)) * 0x45d9f3b & 0xFFFFFFFF
    v = ~v | (v << 3) & 0b1010_1010 ^ 0o777
    out[i] = v % 7 if v else -v // 3


@device.kernel
def casts(x: device.float64[:], y: device.int64[:]):
    i = device.tid()
    y[i] = int(x[i]) + int(abs(-x[i])) + bool(x[i]) + len(x)
    x[i] = float(y[i]) / 3 ** 2 ** 1 - 1e-3 + 2.5e+10 * .5
