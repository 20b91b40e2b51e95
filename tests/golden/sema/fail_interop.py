from cuda import device


@device.func(interop=True)
def scaled(x, k: device.float32):  # ERROR: InteropAnnotation
    return x * k


@device.func(interop=True)
def fixed(x: device.float32, n: device.ConstExpr):  # ERROR: InteropConstExpr
    return x


@device.func(interop=True)
def sqrtf(x: device.float32) -> device.float32:  # ERROR: InteropName
    return x


def helper(x):
    return x + device.lane_id  # ERROR: InteropDeviceOnly


@device.func(interop=True)
def lane(x: device.int32):
    s = device.shared_array(4, device.int32)  # ERROR: InteropDeviceOnly
    return helper(x) + s[0]


@device.func(interop=True)
def first(v: device.float32[:]) -> device.float32:
    return v[0]


@device.kernel
def k(a: device.float64[:]):
    a[0] = first(a)  # ERROR: InteropArgument
