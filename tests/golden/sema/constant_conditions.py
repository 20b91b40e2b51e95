from cuda import device

DEBUG = False


def scale_unless(factor, x):
    if factor is None:
        return x
    return x * factor


# Only the branch a constant condition takes is checked: the dead one may be invalid for these
# types, and the code after a taken branch that returns is dead too.
# CHECK: (factor: None, x: float32) -> float32
# CHECK: return x
@device.kernel
def k(a: device.float32[:]):
    if DEBUG:
        a[0] = undefined_name
    a[1] = scale_unless(None, a[1])
