from cuda import device


def helper(x):
    return x + missing  # ERROR: UndefinedName


@device.kernel
def other(a: device.float32[:]):
    pass


@device.kernel
def k(a: device.float32[:]):
    a[0] = helper(a[1])
    other(a)  # ERROR: KernelCall
    a[1] = helper(1, 2)  # ERROR: ArgumentCount
