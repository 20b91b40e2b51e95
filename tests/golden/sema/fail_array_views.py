from cuda import device


@device.kernel
def k(a: device.float32[:, :], out: device.float64[:]):
    out[0] = a[::0][0, 0]  # ERROR: SliceStep
    a[0] = 1.0  # ERROR: SliceAssign
    b = a.astype(device.float64, copy=False)  # ERROR: ArrayAllocates
    c = a.reshape(-1, 2, -1)  # ERROR: ReshapeShape
    d = a[0, ..., ...]  # ERROR: IndexEllipsis
