from cuda import device
from weft import cuda


@device.kernel
def k(a: device.float32[:], n: device.int32):
    c = cuda.const.array_like(n)  # ERROR: ConstArrayArgument
    a[0] = c
    i = cuda.grid(1)
    if i < a.size:
        a[i] = cuda.nonexistent  # ERROR: UnknownAttribute
