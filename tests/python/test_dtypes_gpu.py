"""Every number dtype across the binding on the GPU (marker `gpu`, skipped without a GPU): the
argument tests of test_dtypes_cpu.py again with target "gpu", the DLPack and
__cuda_array_interface__ exports of GPU DeviceArrays, and round trips of every dtype through torch
and CuPy in both directions (each skipped where that library is not installed)."""

import numpy as np
import pytest

import weft
from test_dtypes_cpu import (  # noqa: F401  (the tests are collected again under this module)
    EXPECTED,
    NAMES,
    NARROW,
    SEED,
    bits,
    capsule_tensor,
    copy,
    random_values,
    test_numpy_arrays_of_every_dtype,
    test_scalar_arguments_of_every_kind_arrive_intact,
    test_weft_narrow_scalars_are_kernel_arguments,
)

pytestmark = pytest.mark.gpu

# weft's name -> torch's dtype attribute.
TORCH_NAMES = {name: name for name in NAMES}
TORCH_NAMES.update({"float8e4m3": "float8_e4m3fn", "float8e5m2": "float8_e5m2"})
# CuPy has every dtype but bfloat16 and the fp8 types.
CUPY_NAMES = [name for name in NAMES if name not in NARROW]


@pytest.fixture(scope="module")
def target():
    return "gpu"


def device_copy(a) -> "weft.DeviceArray":
    return weft.to_device(a, target="gpu")


def torch_dtype(torch, name):
    dtype = getattr(torch, TORCH_NAMES[name], None)
    if dtype is None:
        pytest.skip(f"this torch has no {TORCH_NAMES[name]}")
    return dtype


# torch has uint16/32/64 as dtypes with few operations; where this torch's DLPack or array
# interface code does not take them, that is torch's limit, not weft's.
TORCH_LIMITED = ("uint16", "uint32", "uint64")


def torch_call(name, call):
    try:
        return call()
    except (TypeError, KeyError, RuntimeError, BufferError) as error:
        if name not in TORCH_LIMITED:
            raise
        pytest.skip(f"this torch does not exchange {name}: {error}")


def torch_bits(torch, tensor) -> np.ndarray:
    """The bytes of a torch tensor (of any dtype: NumPy may lack it) as NumPy uint8s."""
    return tensor.detach().contiguous().cpu().view(-1).view(torch.uint8).numpy()


def torch_from_bits(torch, data: np.ndarray, dtype):
    """A CUDA tensor of `dtype` holding the bytes `data`, made without torch kernels of that dtype."""
    return torch.from_numpy(data.copy()).cuda().view(dtype)


@pytest.mark.parametrize("name", NAMES)
def test_gpu_dlpack_export_names_every_dtype(name):
    dtype, code, _ = EXPECTED[name]
    array = device_copy(random_values(name, 8, np.random.default_rng(SEED + 10)))
    capsule = array.__dlpack__()
    tensor = capsule_tensor(capsule)
    assert tensor.device.device_type == 2 and tensor.data == array.data
    assert (tensor.dtype.code, tensor.dtype.bits, tensor.dtype.lanes) == (code, 8 * dtype.itemsize, 1)


@pytest.mark.parametrize("name", NAMES)
def test_gpu_cuda_array_interface_typestrs(name):
    _, _, typestr = EXPECTED[name]
    array = device_copy(random_values(name, 8, np.random.default_rng(SEED + 11)))
    if typestr is None:
        assert not hasattr(array, "__cuda_array_interface__")
        return
    interface = array.__cuda_array_interface__
    assert interface["typestr"] == typestr and interface["data"] == (array.data, False)


@pytest.mark.parametrize("name", NAMES)
def test_every_dtype_round_trips_through_torch(name):
    torch = pytest.importorskip("torch")
    dtype = torch_dtype(torch, name)
    a = random_values(name, 300, np.random.default_rng(SEED + 12))
    # weft -> torch through DLPack: the same memory, torch's dtype of that name.
    array = device_copy(a)
    tensor = torch_call(name, lambda: torch.from_dlpack(array))
    assert tensor.dtype == dtype and tensor.device.type == "cuda" and tensor.data_ptr() == array.data
    np.testing.assert_array_equal(torch_bits(torch, tensor), bits(a))
    # torch -> weft: a kernel reads a torch tensor (DLPack) and writes another.
    source = torch_from_bits(torch, bits(a), dtype)
    out = torch_from_bits(torch, np.zeros_like(bits(a)), dtype)
    weft.launch(copy, source, out, grid=3, block=128, target="gpu")
    torch.cuda.synchronize()
    np.testing.assert_array_equal(torch_bits(torch, out), bits(a))
    # __cuda_array_interface__ both ways, for the dtypes a typestr names.
    if EXPECTED[name][2] is not None:
        through_interface = torch_call(name, lambda: torch.as_tensor(array, device="cuda"))
        assert through_interface.dtype == dtype and through_interface.data_ptr() == array.data
        interface = torch_call(name, lambda: source.__cuda_array_interface__)

        class InterfaceOnly:
            __cuda_array_interface__ = interface

        result = weft.zeros(a.shape, a.dtype, target="gpu")
        weft.launch(copy, InterfaceOnly(), result, grid=3, block=128, target="gpu")
        weft.synchronize()
        np.testing.assert_array_equal(bits(result.copy_to_host()), bits(a))


@pytest.mark.parametrize("name", CUPY_NAMES)
def test_every_dtype_round_trips_through_cupy(name):
    cupy = pytest.importorskip("cupy")
    a = random_values(name, 300, np.random.default_rng(SEED + 13))
    array = device_copy(a)
    # weft -> CuPy through DLPack and through __cuda_array_interface__.
    for view in (cupy.from_dlpack(array), cupy.asarray(array)):
        assert view.dtype == a.dtype and view.data.ptr == array.data
        np.testing.assert_array_equal(bits(cupy.asnumpy(view)), bits(a))
    # CuPy -> weft: an array with both protocols (DLPack is taken), and one with only the interface.
    source = cupy.asarray(a)

    class InterfaceOnly:
        __cuda_array_interface__ = source.__cuda_array_interface__

    for argument in (source, InterfaceOnly()):
        out = cupy.zeros_like(source)
        weft.launch(copy, argument, out, grid=3, block=128, target="gpu")
        cupy.cuda.runtime.deviceSynchronize()
        np.testing.assert_array_equal(bits(cupy.asnumpy(out)), bits(a))
