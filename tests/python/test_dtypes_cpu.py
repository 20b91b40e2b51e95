"""Every number dtype across the binding, on the CPU target: scalar arguments of every kind
(NumPy's, ml_dtypes' and weft's own scalars), NumPy arrays of every dtype, the scalar-kind table
the package reads from `_weft`, and arrays in and out through DLPack and the array interface.

test_dtypes_gpu.py runs the argument tests again on the GPU (by overriding the `target` fixture)
and round-trips every dtype through torch and CuPy.
"""

import ctypes
import pathlib

import ml_dtypes
import numpy as np
import pytest

import weft
from cuda import device
from launching import run

SEED = 8_2026

# name -> (host dtype, DLPack type code, array-interface typestr or None): written out here, so
# that the table in src/types/scalar_kinds.def is checked against what NumPy, ml_dtypes and
# dlpack.h say, not against itself.
EXPECTED = {
    "bool": (np.dtype(np.bool_), 6, "|b1"),
    "int8": (np.dtype(np.int8), 0, "|i1"),
    "int16": (np.dtype(np.int16), 0, "<i2"),
    "int32": (np.dtype(np.int32), 0, "<i4"),
    "int64": (np.dtype(np.int64), 0, "<i8"),
    "uint8": (np.dtype(np.uint8), 1, "|u1"),
    "uint16": (np.dtype(np.uint16), 1, "<u2"),
    "uint32": (np.dtype(np.uint32), 1, "<u4"),
    "uint64": (np.dtype(np.uint64), 1, "<u8"),
    "float16": (np.dtype(np.float16), 2, "<f2"),
    "float32": (np.dtype(np.float32), 2, "<f4"),
    "float64": (np.dtype(np.float64), 2, "<f8"),
    "complex64": (np.dtype(np.complex64), 5, "<c8"),
    "complex128": (np.dtype(np.complex128), 5, "<c16"),
    "bfloat16": (np.dtype(ml_dtypes.bfloat16), 4, None),
    "float8e4m3": (np.dtype(ml_dtypes.float8_e4m3fn), 10, None),
    "float8e5m2": (np.dtype(ml_dtypes.float8_e5m2), 12, None),
}
NAMES = list(EXPECTED)
NARROW = ["bfloat16", "float8e4m3", "float8e5m2"]
# The dtypes NumPy itself exchanges through DLPack (it has no bfloat16 or fp8 codes).
NUMPY_DLPACK = [name for name in NAMES if name not in NARROW]


@pytest.fixture(scope="module")
def target():
    return "cpu"


def random_values(name, count, rng):
    """`count` random values of dtype `name`, none of them zero."""
    dtype = EXPECTED[name][0]
    if dtype.kind == "b":
        return np.array([bool(i % 2 == 0) for i in range(count)])
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        values = rng.integers(info.min, info.max, size=count, dtype=dtype, endpoint=True)
        values[values == 0] = 1
        return values
    real = rng.uniform(0.25, 2.0, size=count) * rng.choice([-1, 1], size=count)
    if dtype.kind == "c":
        return (real + 1j * rng.uniform(-2.0, 2.0, size=count)).astype(dtype)
    return real.astype(dtype)


def bits(array):
    """The bytes of an array, so that equality is bit for bit (and bool/complex/narrow alike)."""
    return np.ascontiguousarray(array).view(np.uint8)


@device.kernel
def store_scalar(x, out):
    out[0] = x


@device.kernel
def copy(a, out):
    i = device.tid(1)
    if i < out.size:
        out[i] = a[i]


# ---------------------------------------------------------------------------------------------
# Scalar arguments


@pytest.mark.parametrize("name", NAMES)
def test_scalar_arguments_of_every_kind_arrive_intact(target, name):
    # bfloat16 and fp8 scalars used to arrive as 0: the binding's switch over scalar kinds
    # missed them.
    rng = np.random.default_rng(SEED)
    for value in random_values(name, 6, rng):
        out = np.zeros(1, EXPECTED[name][0])
        run(target, store_scalar, value, out)
        np.testing.assert_array_equal(bits(out), bits(np.array([value])), err_msg=f"{name} {value!r}")


@pytest.mark.parametrize("name", NARROW + ["float16"])
def test_weft_narrow_scalars_are_kernel_arguments(target, name):
    rng = np.random.default_rng(SEED + 1)
    number = getattr(weft, name)
    for value in rng.uniform(-3.0, 3.0, size=4):
        x = number(value)
        assert type(x) is EXPECTED[name][0].type
        out = np.zeros(1, np.float32)
        run(target, scale_to_float32, x, out)
        assert out[0] == np.float32(float(x)) * np.float32(2.0) != 0


@device.kernel
def scale_to_float32(x, out):
    out[0] = device.float32(x) * device.float32(2.0)


# ---------------------------------------------------------------------------------------------
# NumPy arrays


@pytest.mark.parametrize("name", NAMES)
def test_numpy_arrays_of_every_dtype(target, name):
    rng = np.random.default_rng(SEED + 2)
    a = random_values(name, 37, rng)
    out = np.zeros_like(a)
    run(target, copy, a, out, grid=2, block=32)
    np.testing.assert_array_equal(bits(out), bits(a))


def test_numpy_array_dtype_spellings_and_rejections():
    rng = np.random.default_rng(SEED + 3)
    # 'q' (long long) and 'l' (long) are two NumPy type numbers for one int64 on Linux.
    for spelling in ("q", "l", "int64"):
        a = rng.integers(-(2**40), 2**40, size=5).astype(spelling)
        out = np.zeros(5, np.int64)
        weft.launch(copy, a, out, grid=1, block=8, target="cpu")
        np.testing.assert_array_equal(out, a)
    with pytest.raises(TypeError, match="byte-swapped"):
        weft.launch(copy, np.zeros(4, ">i4"), np.zeros(4, np.int32), grid=1, block=4, target="cpu")
    with pytest.raises(TypeError, match="NumPy arrays of this dtype are not supported; use bool, int8, .*float8e5m2"):
        weft.launch(copy, np.zeros(4, "U3"), np.zeros(4, np.int32), grid=1, block=4, target="cpu")


# ---------------------------------------------------------------------------------------------
# The scalar-kind table


def test_the_package_reads_the_scalar_kind_table():
    kinds = weft._weft.scalar_kinds()
    # Kinds without a host dtype (tfloat32) are tile element types only (test_tile_mma_types_cpu.py).
    tile_only = [kind["name"] for kind in kinds if not kind["dtype_module"]]
    assert tile_only == ["tfloat32"] and not hasattr(weft, "tfloat32")
    kinds = [kind for kind in kinds if kind["dtype_module"]]
    assert [kind["name"] for kind in kinds] == NAMES
    for kind in kinds:
        dtype, _, typestr = EXPECTED[kind["name"]]
        number = getattr(weft, kind["attribute"])
        assert isinstance(number, weft.NumberType) and number.name == kind["name"]
        assert number.dtype == dtype
        assert kind["dtype_name"] == dtype.name
        assert kind["typestr"] == (typestr or "")
        if typestr is not None:
            assert dtype.str == typestr
        assert kind["category"] == {"b": "B", "i": "S", "u": "U", "f": "F", "c": "C", "V": "F"}[dtype.kind]
        # Vectors exist of every real fixed-format type.
        assert hasattr(weft, f"{kind['name']}x4") == (kind["category"] in "SUF")
    assert weft.bool_.name == "bool" and not hasattr(weft, "bool")


# ---------------------------------------------------------------------------------------------
# DLPack and the array interface


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


def capsule_tensor(capsule) -> DLTensor:
    """The DLTensor of an unconsumed "dltensor" capsule (DLManagedTensor begins with it); valid
    while the capsule lives."""
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return DLTensor.from_address(get(capsule, b"dltensor"))


@pytest.mark.parametrize("name", NAMES)
def test_dlpack_export_names_every_dtype(name):
    # A bfloat16 GPU array was exported as float16 (code 2); a CPU one not at all.
    dtype, code, _ = EXPECTED[name]
    a = random_values(name, 6, np.random.default_rng(SEED + 4)).reshape(2, 3)
    array = weft.to_device(a, target="cpu")
    capsule = array.__dlpack__()
    tensor = capsule_tensor(capsule)
    assert (tensor.device.device_type, tensor.device.device_id) == (1, 0)
    assert (tensor.dtype.code, tensor.dtype.bits, tensor.dtype.lanes) == (code, 8 * dtype.itemsize, 1)
    assert tensor.data == array.data and tensor.ndim == 2
    assert [tensor.shape[d] for d in range(2)] == [2, 3] and [tensor.strides[d] for d in range(2)] == [3, 1]
    # A GPU array's fields (no GPU is touched: the export only describes the memory).
    gpu = weft._weft.DeviceArrayBase(0x10000, (5,), (1,), dtype.name, False, a)
    capsule = weft._weft.dlpack_capsule(gpu)
    tensor = capsule_tensor(capsule)
    assert tensor.device.device_type == 2 and (tensor.dtype.code, tensor.dtype.bits) == (code, 8 * dtype.itemsize)


class DLPackOnly:
    """An array seen only through DLPack."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, stream=None, **kwargs):
        return self.array.__dlpack__()

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


class ArrayInterfaceOnly:
    """An array seen only through NumPy's __array_interface__ (the CPU face of the typestr table)."""

    def __init__(self, array):
        self.keep = array
        self.__array_interface__ = array.__array_interface__


@pytest.mark.parametrize("name", NAMES)
def test_every_dtype_round_trips_through_dlpack_on_the_cpu(name):
    a = random_values(name, 40, np.random.default_rng(SEED + 5))
    # weft -> NumPy, where NumPy has the DLPack dtype; weft -> weft for every dtype.
    array = weft.to_device(a, target="cpu")
    if name in NUMPY_DLPACK:
        back = np.from_dlpack(array)
        assert back.dtype == a.dtype and back.ctypes.data == array.data
        np.testing.assert_array_equal(bits(back), bits(a))
    out = weft.zeros(a.shape, a.dtype, target="cpu")
    weft.launch(copy, DLPackOnly(array), DLPackOnly(out), grid=2, block=32, target="cpu")
    np.testing.assert_array_equal(bits(out.copy_to_host()), bits(a))
    # NumPy -> weft: NumPy's own DLPack export.
    if name in NUMPY_DLPACK:
        host_out = np.zeros_like(a)
        weft.launch(copy, DLPackOnly(a), host_out, grid=2, block=32, target="cpu")
        np.testing.assert_array_equal(bits(host_out), bits(a))


@pytest.mark.parametrize("name", NAMES)
def test_array_interface_typestrs(name):
    a = random_values(name, 9, np.random.default_rng(SEED + 6))
    out = np.zeros_like(a)
    if name in NARROW:
        # NumPy's typestr for these ('<V2', '<V1', '<f1') names no number format.
        with pytest.raises(TypeError, match="bfloat16 and the fp8 types have no typestr: pass such arrays through DLPack"):
            weft.launch(copy, ArrayInterfaceOnly(a), out, grid=1, block=16, target="cpu")
        return
    weft.launch(copy, ArrayInterfaceOnly(a), out, grid=1, block=16, target="cpu")
    np.testing.assert_array_equal(bits(out), bits(a))


@pytest.mark.parametrize("name", NAMES)
def test_cuda_array_interface_typestrs(name):
    # The dict a GPU DeviceArray exports, built over fields that describe memory never touched.
    dtype, _, typestr = EXPECTED[name]
    array = weft.DeviceArray.__new__(weft.DeviceArray)
    weft._weft.DeviceArrayBase.__init__(array, 0x10000, (4,), (1,), dtype.name, False, dtype)
    array._host, array._dtype = None, dtype
    if typestr is None:
        assert not hasattr(array, "__cuda_array_interface__")
        with pytest.raises(AttributeError, match=f"a {name} DeviceArray has no __cuda_array_interface__.*__dlpack__"):
            array.__cuda_array_interface__
        return
    interface = array.__cuda_array_interface__
    assert interface["typestr"] == typestr and interface["shape"] == (4,) and interface["data"] == (0x10000, False)


def test_structured_device_arrays_export_their_fields_not_a_dlpack_dtype():
    record = np.dtype([("x", np.float32), ("n", np.int32)], align=True)
    array = weft.DeviceArray.__new__(weft.DeviceArray)
    weft._weft.DeviceArrayBase.__init__(array, 0x10000, (4,), (1,), record.name, False, record)
    array._host, array._dtype = None, record
    interface = array.__cuda_array_interface__
    assert interface["typestr"] == record.str and interface["descr"] == record.descr
    with pytest.raises(BufferError, match="structured dtype has no DLPack dtype"):
        array.__dlpack__()


@pytest.mark.skipif(not pathlib.Path("/usr/local/cuda/bin/ptxas").exists(), reason="no CUDA toolkit")
def test_narrow_scalar_parameters_compile_for_sm90(tmp_path):
    from test_sm90_ptxas import compile_for_sm90

    compile_for_sm90(tmp_path, "narrow_scalars", '''
from cuda import device

@device.kernel
def narrow_scalars(b: device.bfloat16, e4: device.float8e4m3, e5: device.float8e5m2, h: device.float16,
                   out: device.float32[:]):
    out[0] = device.float32(b) + device.float32(e4) + device.float32(e5) + device.float32(h)
''')
