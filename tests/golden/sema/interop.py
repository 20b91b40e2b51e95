from cuda import device


# CHECK: twice__f32 (host and device)(x: float32) -> float32
def twice(x):
    return x * 2


# A device-only intrinsic is fine in a branch the host does not take.
# CHECK: (interop)(x: float32, n: int32) -> float32
@device.func(interop=True)
def scaled(x: device.float32, n: device.int32) -> device.float32:
    if device.target(device.is_device):
        n = n + device.lane_id
    return twice(x) * n


# Numbers convert to an interoperable function's declared types.
# CHECK: (kernel) (interop)(a: array(float32, 1d), i: int16)
@device.kernel(interop=True)
def k(a: device.float32[:], i: device.int16):
    a[0] = scaled(a[1], i)
