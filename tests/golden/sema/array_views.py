from cuda import device


def first(v):
    return v[0]


@device.kernel
def k(a: device.float32[:, :, :, :], out: device.float64[:], n: device.int64):
    # CHECK: local row: array(float32, 1d)
    row = a[0, -1, n]
    # CHECK: local block: array(float32, 4d)
    block = a[..., ::-2][1:]
    # CHECK: local flat: array(float32, 1d)
    flat = a.reshape(-1)
    # CHECK: local bits: array(uint32, 4d)
    bits = a.view(device.uint32)
    # CHECK: function #0 first__a1f32(v: array(float32, 1d)) -> float32
    out[0] = first(row) + block[0, 0, 0, 0] + flat[n] + bits[0, 0, 0, 0] + a.dtype(1)
