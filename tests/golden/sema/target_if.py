from cuda import device

DEBUG = False


def lane_value(x):
    if device.target(device.is_device):
        return x + 1
    else:
        return x - 1


@device.kernel
def k(a: device.int32[:]):
    a[0] = lane_value(a[0])
    # CHECK: if #(!__CUDA_ARCH__):
    if device.target(device.is_host):
        a[1] = 1
    # CHECK: if #(__CUDA_ARCH__):
    if device.target(device.is_device):
        a[1] = 2
    # CHECK: if #(__CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 900 || __CUDA_ARCH__ == 1000):
    if device.target(device.is_exactly(device.sm80) | device.is_exactly(device.sm90) | device.is_exactly(device.sm100)):
        a[2] = 3
    # CHECK: if #(__CUDA_ARCH__ < 800):
    if device.target(~device.provides(device.sm80)):
        a[2] = 4
    # CHECK: if #(__CUDA_ARCH__ <= 800):
    if device.target(~device.provides(device.sm80) | device.is_exactly(device.sm80)):
        a[2] = 5
    # CHECK: if #(__CUDA_ARCH__ > 800):
    if device.target(device.provides(device.sm80) & ~device.is_exactly(device.sm80)):
        a[2] = 6
    # CHECK: if #(__CUDA_ARCH__ >= 800):
    if device.target(device.provides(device.sm80)):
        a[2] = 7
    # CHECK: if #(1):
    if device.target(device.any_target):
        a[3] = 8
    # CHECK: if #(0):
    if device.target(device.no_target) or DEBUG:
        a[3] = 9
    # CHECK: if #(!__CUDA_ARCH__ || __CUDA_ARCH__ == 900):
    if device.target(device.is_host | device.is_exactly(device.sm90)):
        a[4] = 10
    # CHECK: if #((__CUDA_ARCH__ > 0 && __CUDA_ARCH__ < 900)):
    if device.target(device.is_device) and not device.target(device.provides(device.sm90)):
        a[4] = 11
    # CHECK: if #(__CUDA_ARCH__ == 1210):
    if device.target(device.is_exactly(device.sm121)):
        a[4] = 12
    else:
        a[4] = 13
