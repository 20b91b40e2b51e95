"""Launch validation: every bad launch is a clear TypeError/ValueError before the driver sees it
(the CPU target checks sm_90's limits, so a launch that works on the CPU works on an H100), and
launches on non-default streams (cuda.core, torch, CuPy), back to back without host syncs."""

import numpy as np
import pytest

import weft
from cuda import device
from weft import cuda

BIG = 30000  # float64 elements: 240,000 bytes of shared memory, over sm_90's 232,448


@device.kernel
def add_one(a):
    i = device.tid(1)
    if i < a.size:
        a[i] += 1


@device.kernel
def scale_add(a, factor, offset):
    i = device.tid(1)
    if i < a.size:
        a[i] = a[i] * factor + offset


@device.kernel
def too_much_shared(a):
    buffer = device.shared_array(BIG, device.float64)
    buffer[device.thread_idx.x] = 1.0
    a[0] = buffer[0]


@device.kernel
def some_shared(a):
    buffer = device.shared_array(1024, device.float64)
    buffer[device.thread_idx.x] = 2.0
    device.syncthreads()
    a[device.thread_idx.x] = buffer[device.thread_idx.x]


def launch(kernel, *args, grid=1, block=32, target="cpu", **options):
    device.launch(kernel, *args, grid=grid, block=block, target=target, **options)


@pytest.mark.parametrize("block, message", [
    ((32, 33), r"block \(32, 33, 1\) has 1056 threads; the device allows at most 1024 per block"),
    (2048, r"block \(2048, 1, 1\) is too large: the device allows at most 1024 threads along x"),
    ((1, 1, 65), r"block \(1, 1, 65\) is too large: the device allows at most 64 threads along z"),
])
def test_block_limits(block, message):
    a = np.zeros(8, np.float32)
    with pytest.raises(ValueError, match=r"kernel 'add_one': " + message):
        launch(add_one, a, block=block)


@pytest.mark.parametrize("grid, message", [
    (2**31, r"grid \(2147483648, 1, 1\) is too large: the device allows at most 2147483647 blocks along x"),
    ((1, 65536), r"grid \(1, 65536, 1\) is too large: the device allows at most 65535 blocks along y"),
    ((1, 1, 70000), r"at most 65535 blocks along z"),
])
def test_grid_limits(grid, message):
    a = np.zeros(8, np.float32)
    with pytest.raises(ValueError, match=message):
        launch(add_one, a, grid=grid)


def test_zero_and_negative_dimensions():
    a = np.zeros(8, np.float32)
    with pytest.raises(ValueError, match="grid dimensions must be positive"):
        launch(add_one, a, grid=0)
    with pytest.raises(ValueError, match="block dimensions must be positive"):
        launch(add_one, a, block=(4, 0))


def test_too_much_dynamic_shared_memory():
    a = np.zeros(8, np.float32)
    with pytest.raises(ValueError, match=r"300000 bytes of dynamic shared memory requested; the device allows at "
                                         r"most 232448 bytes per block"):
        launch(add_one, a, shared=300000)
    with pytest.raises(ValueError, match=r"plus 8192 bytes of shared_arrays"):
        launch(some_shared, a, shared=230000)
    launch(some_shared, np.zeros(32), shared=1000)


def test_too_much_static_shared_memory():
    with pytest.raises(ValueError, match=r"its shared_arrays take 240000 bytes of shared memory; the device allows "
                                         r"at most 232448"):
        launch(too_much_shared, np.zeros(8))


def test_argument_count_and_types():
    a = np.zeros(8, np.float32)
    with pytest.raises(TypeError, match=r"kernel 'scale_add' takes 3 arguments \(2 given\)"):
        launch(scale_add, a, 2.0)
    with pytest.raises(TypeError, match=r"kernel 'scale_add' takes 3 arguments \(4 given\)"):
        launch(scale_add, a, 2.0, 1.0, 0.0)
    with pytest.raises(TypeError, match="parameter 'a'"):
        launch(scale_add, [1.0, 2.0], 2.0, 1.0)
    with pytest.raises(TypeError, match="parameter 'factor'"):
        launch(scale_add, a, "two", 1.0)
    with pytest.raises(TypeError, match="stream"):
        launch(add_one, a, stream=1.5)
    with pytest.raises(TypeError, match=r"__cuda_stream__\(\) must return a \(version, handle\) tuple"):
        launch(add_one, a, stream=BadStream())


def test_subscript_and_call_errors():
    a = np.zeros(8, np.float32)
    with pytest.raises(TypeError, match=r"kernel\[grid, block\]\(\*args\)"):
        add_one[1]
    with pytest.raises(TypeError, match=r"kernel\[grid, block\]\(\*args\)"):
        add_one[1, 2, None, 0, 5]
    with pytest.raises(TypeError, match="takes no keyword arguments"):
        add_one[1, 8](a=a)
    with pytest.raises(TypeError, match=r"kernel 'add_one' takes 1 argument \(0 given\)"):
        add_one[1, 8]()
    with pytest.raises(ValueError, match="grid dimensions must be positive"):
        add_one[0, 8]
    configured = add_one[1, 8]
    for _ in range(3):
        configured(a)
    np.testing.assert_array_equal(a, 3)


class LaunchingArray:
    """An array whose __array_interface__ launches the same kernel: the outer launch's
    arguments must survive the inner launch."""

    def __init__(self, inner, outer):
        self.inner, self.outer = inner, outer

    @property
    def __array_interface__(self):
        add_one[1, 32](self.inner)
        return self.outer.__array_interface__


def test_a_launch_inside_an_argument_conversion():
    inner = np.arange(8, dtype=np.float32)
    outer = np.arange(16, dtype=np.float32)
    add_one[1, 32](LaunchingArray(inner, outer))
    np.testing.assert_array_equal(inner, np.arange(8) + 1)
    np.testing.assert_array_equal(outer, np.arange(16) + 1)


class BadStream:
    def __cuda_stream__(self):
        return 42


class FakeStream:
    """The cuda.core stream protocol; the CPU target accepts and ignores the stream."""

    def __cuda_stream__(self):
        return (0, 0)


def test_stream_protocol_on_the_cpu():
    a = np.arange(100, dtype=np.float32)
    for _ in range(5):
        launch(add_one, a, grid=4, block=32, stream=FakeStream())
    np.testing.assert_array_equal(a, np.arange(100) + 5)


def test_classic_launch_is_validated_too():
    a = np.zeros(8, np.float32)
    with pytest.raises(ValueError, match="1056 threads"):
        jit_add_one[1, (32, 33)](a)


@cuda.jit
def jit_add_one(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1


@pytest.fixture(autouse=True)
def cpu_default(monkeypatch, request):
    if "gpu" not in request.keywords:
        monkeypatch.setenv("WEFT_TARGET", "cpu")


# ---- GPU: the device's own limits, and streams ----


@pytest.mark.gpu
def test_gpu_limits_are_checked_before_the_driver():
    d = weft.zeros(8, np.float32, target="gpu")
    with pytest.raises(ValueError, match="1056 threads"):
        launch(add_one, d, block=(32, 33), target="gpu")
    with pytest.raises(ValueError, match="too large"):
        launch(add_one, d, grid=(1, 1, 70000), target="gpu")
    with pytest.raises(ValueError, match="dynamic shared memory"):
        launch(add_one, d, shared=10**6, target="gpu")
    with pytest.raises(TypeError, match="takes 1 argument"):
        launch(add_one, d, d, target="gpu")
    # The context is still healthy: the driver never saw the bad launches.
    launch(add_one, d, target="gpu")
    np.testing.assert_array_equal(d.copy_to_host(), np.ones(8))


def _chain(stream, target_array, n_steps):
    """n_steps dependent launches on one stream, no host synchronization in between."""
    for step in range(n_steps):
        launch(add_one, target_array, grid=64, block=256, target="gpu", stream=stream)
        launch(scale_add, target_array, 2.0, float(step), grid=64, block=256, target="gpu", stream=stream)


def _expected(start, n_steps):
    x = start.astype(np.float64)
    for step in range(n_steps):
        x = (x + 1) * 2 + step
    return x


@pytest.mark.gpu
def test_back_to_back_on_a_cuda_core_stream():
    core = pytest.importorskip("cuda.core")
    if not hasattr(core, "Device"):  # cuda.core before 0.4 kept its API under .experimental
        core = pytest.importorskip("cuda.core.experimental")
    dev = core.Device()
    dev.set_current()
    stream = dev.create_stream()
    start = np.random.default_rng(1).uniform(-1, 1, 16384)
    d = weft.to_device(start, target="gpu")
    _chain(stream, d, 10)
    stream.sync()
    np.testing.assert_allclose(d.copy_to_host(), _expected(start, 10), rtol=1e-12)


@pytest.mark.gpu
def test_back_to_back_on_a_torch_stream():
    torch = pytest.importorskip("torch")
    start = torch.rand(16384, dtype=torch.float64, device="cuda")
    expected = _expected(start.cpu().numpy(), 10)
    torch.cuda.synchronize()
    stream = torch.cuda.Stream()
    a = start.clone()
    torch.cuda.synchronize()
    _chain(stream, a, 10)
    stream.synchronize()
    np.testing.assert_allclose(a.cpu().numpy(), expected, rtol=1e-12)


@pytest.mark.gpu
def test_back_to_back_on_a_cupy_stream():
    cupy = pytest.importorskip("cupy")
    start = np.random.default_rng(2).uniform(-1, 1, 16384)
    a = cupy.asarray(start)
    cupy.cuda.Device().synchronize()
    stream = cupy.cuda.Stream(non_blocking=True)
    _chain(stream, a, 10)
    stream.synchronize()
    np.testing.assert_allclose(cupy.asnumpy(a), _expected(start, 10), rtol=1e-12)


@pytest.mark.gpu
def test_classic_launch_on_a_stream():
    cupy = pytest.importorskip("cupy")
    stream = cupy.cuda.Stream(non_blocking=True)
    a = cupy.zeros(1000, dtype=cupy.float32)
    cupy.cuda.Device().synchronize()
    for _ in range(20):
        jit_add_one[4, 256, stream, 0](a)
    stream.synchronize()
    assert bool((a == 20).all())
