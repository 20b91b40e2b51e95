from cuda import device


@device.kernel
def k(a: device.int8[:], x: device.float64, n: device.int64):
    # CHECK: local y: int8
    y = a[0] + 1
    # CHECK: local z: float64
    z = x * 2
    # CHECK: local w: float64
    w = n / 2
    # CHECK: local v: float32
    v = 0.5
    a[1] = y + z + w + v
