"""@struct classes and heterogeneous tuples end to end on the CPU target: construction,
fields, methods, replace, struct and tuple kernel arguments, arrays of structs (NumPy
structured dtypes), and the errors of the chapter's user requirements; checked against NumPy
on random data."""

import numpy as np
import pytest

import weft
from cuda import device


@device.struct
class Vec:
    x: device.float32
    y: device.float32
    z: device.float32

    @device.func
    def dot(self, other):
        return self.x * other.x + self.y * other.y + self.z * other.z

    @device.func
    def scaled(self, s):
        return Vec(self.x * s, self.y * s, self.z * s)


@device.struct(align=16)
class Body:
    pos: Vec
    mass: device.float64
    tag: device.int32


def run(kernel, *args, n=1, block=64):
    device.launch(kernel, *args, grid=(n + block - 1) // block, block=block, target="cpu")


def test_host_side_struct_behaviour():
    v = Vec(1.0, y=2.0, z=3.0)
    assert (v.x, v.y, v.z) == (1.0, 2.0, 3.0)
    assert v.dot(Vec(1.0, 1.0, 1.0)) == 6.0  # @func methods run their Python body on the host
    assert v.replace(y=5.0) == Vec(1.0, 5.0, 3.0)
    assert Vec.underlying is not Vec and issubclass(Vec, Vec.underlying)
    with pytest.raises(AttributeError, match=r"immutable @struct: field 'x' cannot be assigned; .*s.replace\(x=...\)"):
        v.x = 2.0
    with pytest.raises(AttributeError, match="attributes cannot be added"):
        v.w = 2.0
    with pytest.raises(TypeError, match="missing a value for field 'z'"):
        Vec(1.0, 2.0)
    with pytest.raises(TypeError, match="unknown keyword argument"):
        device.struct(pack=True)
    with pytest.raises(TypeError, match="power of two"):
        device.struct(align=3)
    assert device.machine_representation() == "itanium"


def test_struct_dtype_layout_matches_the_machine_representation():
    assert Vec.dtype.itemsize == 12
    assert Body.dtype.itemsize == 32
    assert Body.dtype.fields["mass"][1] == 16
    assert Body.dtype.fields["tag"][1] == 24
    aligned = device.align(Vec, 16)
    assert aligned.dtype.itemsize == 16
    assert aligned(1.0, 2.0, 3.0).x == 1.0


@device.kernel
def struct_math(xs, ys, out, scale: Vec):
    i = device.tid(1)
    if i < out.size:
        a = Vec(xs[i], ys[i], xs[i] * ys[i])
        b = a.scaled(2.0).replace(z=1.0)
        out[i] = a.dot(scale) + b.z + b.x


def test_struct_values_methods_and_struct_argument():
    rng = np.random.default_rng(1)
    n = 300
    xs = rng.standard_normal(n).astype(np.float32)
    ys = rng.standard_normal(n).astype(np.float32)
    out = np.zeros(n, np.float32)
    scale = Vec(0.5, -1.5, 2.0)
    run(struct_math, xs, ys, out, scale, n=n)
    expected = xs * 0.5 + ys * -1.5 + xs * ys * 2.0 + 1.0 + xs * 2.0
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


@device.kernel
def update_bodies(bodies, dt: device.float64):
    i = device.tid(1)
    if i < bodies.size:
        b = bodies[i]
        moved = b.pos.replace(x=b.pos.x + device.float32(dt * b.mass))
        bodies[i] = b.replace(pos=moved, tag=b.tag + 1)


def test_array_of_structs_from_a_structured_dtype():
    rng = np.random.default_rng(2)
    n = 257
    bodies = np.zeros(n, Body.dtype)
    bodies["pos"]["x"] = rng.standard_normal(n)
    bodies["pos"]["y"] = rng.standard_normal(n)
    bodies["mass"] = rng.random(n)
    bodies["tag"] = rng.integers(0, 100, n)
    expected = bodies.copy()
    expected["pos"]["x"] = (expected["pos"]["x"] + (0.25 * expected["mass"]).astype(np.float32)).astype(np.float32)
    expected["tag"] += 1
    run(update_bodies, bodies, 0.25, n=n)
    np.testing.assert_allclose(bodies["pos"]["x"], expected["pos"]["x"], rtol=1e-6)
    np.testing.assert_array_equal(bodies["pos"]["y"], expected["pos"]["y"])
    np.testing.assert_array_equal(bodies["tag"], expected["tag"])


@device.kernel
def mirror_bodies_in_shared_memory(bodies, out, masses):
    tile = device.shared_array(64, Body)
    scratch = device.local_array(2, Vec)
    t = device.thread_idx.x
    i = device.tid(1)
    tile[t] = bodies[i]
    device.syncthreads()
    b = tile[63 - t]
    scratch[0] = b.pos
    scratch[1] = scratch[0].scaled(2.0)
    out[i] = scratch[1]
    masses[i] = b.mass


def test_shared_and_local_arrays_of_structs(rng):
    n = 128
    bodies = np.zeros(n, Body.dtype)
    for axis in "xyz":
        bodies["pos"][axis] = rng.standard_normal(n)
    bodies["mass"] = rng.random(n)
    out = np.zeros(n, Vec.dtype)
    masses = np.zeros(n)
    run(mirror_bodies_in_shared_memory, bodies, out, masses, n=n, block=64)
    mirrored = bodies.reshape(2, 64)[:, ::-1].reshape(n)
    for axis in "xyz":
        np.testing.assert_array_equal(out[axis], mirrored["pos"][axis] * np.float32(2))
    np.testing.assert_array_equal(masses, mirrored["mass"])


@device.struct
class Lanes:
    mask: device.WarpMask
    tag: device.int8


@device.kernel
def lane_of_a_mask_field(lanes, out):
    i = device.tid(1)
    if i < out.size:
        out[i] = lanes[i].mask[lanes[i].tag]


def test_a_warp_mask_field(rng):
    assert Lanes.dtype.fields["mask"] == (np.dtype(np.uint32), 0) and Lanes.dtype.itemsize == 8
    n = 100
    lanes = np.zeros(n, Lanes.dtype)
    lanes["mask"] = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    lanes["tag"] = rng.integers(0, 32, n)
    out = np.zeros(n, np.bool_)
    run(lane_of_a_mask_field, lanes, out, n=n)
    np.testing.assert_array_equal(out, (lanes["mask"] >> lanes["tag"].astype(np.uint32)) & 1 == 1)


@device.kernel
def record_sum(records, out):
    i = device.tid(1)
    if i < out.size:
        r = records[i]
        out[i] = r.a * device.float64(r.b) + r.c


def test_array_of_anonymous_records():
    rng = np.random.default_rng(3)
    n = 100
    dtype = np.dtype([("a", np.float64), ("b", np.int16), ("c", np.float64)], align=True)
    records = np.zeros(n, dtype)
    records["a"] = rng.standard_normal(n)
    records["b"] = rng.integers(-50, 50, n)
    records["c"] = rng.standard_normal(n)
    out = np.zeros(n, np.float64)
    run(record_sum, records, out, n=n)
    np.testing.assert_allclose(out, records["a"] * records["b"] + records["c"], rtol=1e-12)
    # A packed dtype (align=False: c at byte 10) is read byte by byte, with the same results.
    packed = records.astype(np.dtype([("a", np.float64), ("b", np.int16), ("c", np.float64)]))
    assert packed.dtype.itemsize == 18 and packed.dtype.fields["c"][1] == 10
    packed_out = np.zeros(n, np.float64)
    run(record_sum, packed, packed_out, n=n)
    np.testing.assert_array_equal(packed_out, out)


@device.kernel
def particle_step(ps, out, dt):
    i = device.tid(1)
    if i < ps.size:
        p = ps[i]
        speed = 0.0
        for k in range(len(p.vel)):
            speed += p.vel[k] * p.vel[k]
        out[i] = speed + p.tag.weight * p.m[1, -1] + p.m.size
        for k in range(p.pos.shape[0]):
            ps[i].pos[k] = p.pos[k] + dt * p.vel[k]  # writes the record in its array
        ps[i].m[-1, 0] = device.int16(p.tag.id)


def particle_dtype(align):
    tag = np.dtype([("id", np.int8), ("weight", np.float32)], align=align)
    return np.dtype([("id", np.uint8), ("pos", np.float32, 3), ("vel", np.float64, (3,)), ("tag", tag),
                     ("m", np.int16, (2, 3))], align=align)


def random_particles(rng, n, dtype):
    ps = np.zeros(n, dtype)
    ps["id"] = rng.integers(0, 255, n)
    ps["pos"] = rng.standard_normal((n, 3))
    ps["vel"] = rng.standard_normal((n, 3))
    ps["tag"]["id"] = rng.integers(-100, 100, n)
    ps["tag"]["weight"] = rng.standard_normal(n)
    ps["m"] = rng.integers(-1000, 1000, (n, 2, 3))
    return ps


def expected_particle_step(ps, dt):
    speed = np.zeros(len(ps))
    for k in range(3):
        speed = speed + ps["vel"][:, k] * ps["vel"][:, k]
    out = speed + (ps["tag"]["weight"] * ps["m"][:, 1, -1].astype(np.float32)).astype(np.float64) + 6
    moved = ps.copy()
    moved["pos"] = (ps["pos"] + dt * ps["vel"]).astype(np.float32)
    moved["m"][:, -1, 0] = ps["tag"]["id"]
    return out, moved


@pytest.mark.parametrize("align", [False, True], ids=["packed", "aligned"])
def test_records_with_sub_array_fields_and_nested_records(align):
    # NumPy records field by field: sub-array fields (read r.vel[k], written ps[i].pos[k] in
    # place), a nested record, packed (align=False: fields at any byte) or aligned as C.
    rng = np.random.default_rng(31)
    n = 150
    ps = random_particles(rng, n, particle_dtype(align))
    assert ps.dtype.isalignedstruct == align
    out = np.zeros(n)
    expected_out, expected_ps = expected_particle_step(ps, 0.125)
    run(particle_step, ps, out, 0.125, n=n)
    np.testing.assert_allclose(out, expected_out, rtol=1e-12)
    for field in ("id", "pos", "vel", "tag", "m"):
        np.testing.assert_array_equal(ps[field], expected_ps[field], err_msg=field)


@device.kernel
def one_record(r, body, out):
    out[0] = r.a * r.b + r.pos[2]
    out[1] = body.pos.x + body.mass
    out[2] = r.pos.ndim


def test_a_single_record_is_a_kernel_argument():
    rng = np.random.default_rng(32)
    for align in (False, True):
        records = np.zeros(3, np.dtype([("a", np.float64), ("b", np.int16), ("pos", np.float32, 3)], align=align))
        records["a"] = rng.standard_normal(3)
        records["b"] = rng.integers(-9, 9, 3)
        records["pos"] = rng.standard_normal((3, 3))
        bodies = np.zeros(2, Body.dtype)
        bodies["pos"]["x"] = rng.standard_normal(2)
        bodies["mass"] = rng.standard_normal(2)
        out = np.zeros(3)
        run(one_record, records[1], bodies[1], out)  # a numpy.void of a record, and of Body.dtype
        assert out[0] == records["a"][1] * records["b"][1] + np.float64(records["pos"][1, 2])
        assert out[1] == np.float64(bodies["pos"]["x"][1]) + bodies["mass"][1]
        assert out[2] == 1


class HostRecords:
    """Records in host memory behind the array interface (as CuPy describes a structured array
    in __cuda_array_interface__: typestr '|V<itemsize>' and the fields in 'descr')."""

    def __init__(self, array):
        self.array = array
        self.__array_interface__ = {"shape": array.shape, "typestr": f"|V{array.dtype.itemsize}",
                                    "descr": array.dtype.descr, "data": (array.ctypes.data, False),
                                    "strides": None, "version": 3}


def test_records_through_the_array_interface():
    rng = np.random.default_rng(33)
    n = 64
    for align in (False, True):
        ps = random_particles(rng, n, particle_dtype(align))
        out = np.zeros(n)
        expected_out, expected_ps = expected_particle_step(ps, 0.5)
        run(particle_step, HostRecords(ps), out, 0.5, n=n)
        np.testing.assert_allclose(out, expected_out, rtol=1e-12)
        np.testing.assert_array_equal(ps["pos"], expected_ps["pos"])
        np.testing.assert_array_equal(ps["m"], expected_ps["m"])


class FakeCudaArray:
    """A stand-in for a CuPy array: only __cuda_array_interface__ (no GPU memory behind it), of
    numbers or, as CuPy describes a structured array, of records (typestr '|V<itemsize>' and
    the fields in 'descr')."""

    def __init__(self, dtype, n):
        typestr = f"|V{dtype.itemsize}" if dtype.names else dtype.str
        self.__cuda_array_interface__ = {"shape": (n,), "typestr": typestr, "descr": dtype.descr,
                                         "data": (0x10000, False), "strides": None, "version": 3}


def test_records_through_the_cuda_array_interface_compile_for_sm90():
    # Typing a GPU launch needs no GPU: the front end types the records the interface
    # describes, and NVRTC compiles the unit for sm_90.
    from test_classic_cpu import _nvrtc_compile_sm90

    for align in (False, True):
        records = FakeCudaArray(particle_dtype(align), 8)
        source = particle_step._emit_cuda(records, FakeCudaArray(np.dtype(np.float64), 8), 0.5, target="gpu")
        assert ("weft::Unaligned<" in source) != align, source
        assert _nvrtc_compile_sm90(source) == ""


@device.kernel
def record_slice(rs, out):
    out[0] = rs[0].pos[0:2][0]


@device.kernel
def record_with_a_struct(rs, out):
    i = device.tid(1)
    if i < rs.size:
        out[i] = rs[i].v.dot(rs[i].v) + rs[i].k


def test_records_of_one_layout_are_one_type_and_may_hold_structs():
    rng = np.random.default_rng(36)
    n = 40
    compiled = record_with_a_struct._compile_count
    for _ in range(2):
        # a new dtype object each time, of the same layout: one specialization
        dtype = np.dtype([("k", np.int16), ("v", Vec.dtype)])
        rs = np.zeros(n, dtype)
        for axis in "xyz":
            rs["v"][axis] = rng.standard_normal(n)
        rs["k"] = rng.integers(-5, 5, n)
        out = np.zeros(n, np.float32)
        run(record_with_a_struct, rs, out, n=n)
        v = rs["v"]
        expected = v["x"] * v["x"] + v["y"] * v["y"] + v["z"] * v["z"] + rs["k"].astype(np.float32)
        np.testing.assert_allclose(out, expected, rtol=1e-6)
    assert record_with_a_struct._compile_count == compiled + 1
    # The same fields as a plain nested record (NumPy prints both dtypes alike): a record, with
    # no methods.
    plain = np.zeros(n, np.dtype([("k", np.int16), ("v", [("x", np.float32), ("y", np.float32), ("z", np.float32)])]))
    assert repr(plain.dtype) == repr(rs.dtype)
    with pytest.raises(weft.CompileError, match="record has no field 'dot'"):
        run(record_with_a_struct, plain, out, n=n)


def test_record_errors():
    with pytest.raises(TypeError, match=r"kernel 'record_sum', parameter 'records': field 'b' of record has dtype "
                                        r"'object', which device code does not support"):
        run(record_sum, np.zeros(2, np.dtype([("a", np.float64), ("b", object), ("c", np.float64)])), np.zeros(2))
    with pytest.raises(TypeError, match=r"parameter 'records': field 'b' of record has dtype 'str256'"):
        run(record_sum, np.zeros(2, np.dtype([("a", np.float64), ("b", "U8"), ("c", np.float64)])), np.zeros(2))
    with pytest.raises(TypeError, match=r"parameter 'records': field 'b' of record has dtype 'a sub-array of records'"):
        run(record_sum, np.zeros(2, np.dtype([("a", np.float64), ("b", [("x", np.int8)], 2), ("c", np.float64)])),
            np.zeros(2))
    with pytest.raises(TypeError, match=r"parameter 'records': field 'b' of its structured dtype is big-endian"):
        run(record_sum, np.zeros(2, np.dtype([("a", "<f8"), ("b", ">i2"), ("c", "<f8")])), np.zeros(2))
    with pytest.raises(weft.CompileError, match=r"a slice or ellipsis of a record's sub-array field is not supported"):
        run(record_slice, np.zeros(2, particle_dtype(False)), np.zeros(1))


def swap(t):
    a, b, c = t
    return (c, b, a)


@device.kernel
def tuple_kernel(pair, out):
    x, y, z = swap(pair)
    out[0] = x
    out[1] = y + pair[0]
    out[2] = z


def test_tuple_argument_unpacking_and_return():
    out = np.zeros(3, np.float64)
    run(tuple_kernel, (2, 3.5, 7.25), out)
    np.testing.assert_allclose(out, [7.25, 3.5 + 2, 2.0])


@device.kernel
def struct_in_tuple(t, out):
    v, k = t
    out[0] = v.x * k + v.z


def test_struct_as_tuple_member():
    out = np.zeros(1, np.float32)
    run(struct_in_tuple, (Vec(1.5, 0.0, -2.0), 4), out)
    assert out[0] == pytest.approx(1.5 * 4 - 2.0)


@device.kernel
def mutate(v, out):
    v.x = 2.0
    out[0] = v.x


@device.kernel
def add_attribute(v, out):
    v.w = 2.0
    out[0] = v.x


@device.kernel
def bad_construct(out):
    out[0] = Vec(1.0, 2.0).x


def test_errors_show_message_and_location():
    with pytest.raises(weft.CompileError, match=r"test_structs_cpu.py:\d+:\d+: error: structs are immutable: field 'x' of "
                                               r"struct Vec cannot be assigned; make a modified copy with s.replace\(x=...\)"):
        run(mutate, Vec(1.0, 2.0, 3.0), np.zeros(1, np.float32))
    with pytest.raises(weft.CompileError, match="struct Vec has no field 'w', and attributes cannot be added"):
        run(add_attribute, Vec(1.0, 2.0, 3.0), np.zeros(1, np.float32))
    with pytest.raises(weft.CompileError, match=r"Vec\(\) is missing a value for field 'z'"):
        run(bad_construct, np.zeros(1, np.float32))


SM90_SOURCE = """from cuda import device

@device.struct
class Vec:
    x: device.float32
    y: device.float32
    z: device.float32

    @device.func
    def dot(self, other):
        return self.x * other.x + self.y * other.y + self.z * other.z

@device.struct(align=16)
class Body:
    pos: Vec
    mass: device.float64
    tag: device.int32

def pair(a, b):
    return (a, b)

@device.kernel
def k(bodies: Body[:], out: device.float32[:], v: Vec, t: device.int8):
    i = device.tid(1)
    if i < bodies.size:
        b = bodies[i]
        x, m = pair(b.pos.dot(v), b.mass)
        bodies[i] = b.replace(tag=b.tag + t)
        out[i] = x + device.float32(m)
"""


def test_structs_and_tuples_compile_for_sm90_with_nvrtc(tmp_path):
    # NVRTC compiles the unit with its layout static_asserts; ptxas accepts the PTX.
    from test_sm90_ptxas import compile_for_sm90

    compile_for_sm90(tmp_path, "structs", SM90_SOURCE)


@pytest.mark.gpu
def test_structs_and_tuples_on_the_gpu():
    rng = np.random.default_rng(4)
    n = 1000
    xs = rng.standard_normal(n).astype(np.float32)
    ys = rng.standard_normal(n).astype(np.float32)
    out = weft.zeros(n, np.float32, target="gpu")
    scale = Vec(0.5, -1.5, 2.0)
    device.launch(struct_math, weft.to_device(xs), weft.to_device(ys), out, scale, grid=8, block=128, target="gpu")
    expected = xs * 0.5 + ys * -1.5 + xs * ys * 2.0 + 1.0 + xs * 2.0
    np.testing.assert_allclose(out.copy_to_host(), expected, rtol=1e-5, atol=1e-5)
    result = weft.zeros(3, np.float64, target="gpu")
    device.launch(tuple_kernel, (2, 3.5, 7.25), result, grid=1, block=1, target="gpu")
    np.testing.assert_allclose(result.copy_to_host(), [7.25, 5.5, 2.0])


@pytest.mark.gpu
def test_records_on_the_gpu():
    rng = np.random.default_rng(34)
    n = 300
    for align in (False, True):
        ps = random_particles(rng, n, particle_dtype(align))
        expected_out, expected_ps = expected_particle_step(ps, 0.25)
        records = weft.to_device(ps)
        out = weft.zeros(n, np.float64, target="gpu")
        device.launch(particle_step, records, out, 0.25, grid=(n + 127) // 128, block=128, target="gpu")
        # the GPU may contract a * b + c into one fma
        np.testing.assert_allclose(out.copy_to_host(), expected_out, rtol=1e-12)
        moved = records.copy_to_host()
        np.testing.assert_allclose(moved["pos"], expected_ps["pos"], rtol=1e-6)
        np.testing.assert_array_equal(moved["m"], expected_ps["m"])
        # one record (a numpy.void) by value
        record = np.zeros(1, np.dtype([("a", np.float64), ("b", np.int16), ("pos", np.float32, 3)], align=align))
        record["a"], record["b"], record["pos"] = rng.standard_normal(), 5, rng.standard_normal(3)
        body = np.zeros(1, Body.dtype)
        body["pos"]["x"], body["mass"] = rng.standard_normal(), rng.standard_normal()
        single = weft.zeros(3, np.float64, target="gpu")
        device.launch(one_record, record[0], body[0], single, grid=1, block=1, target="gpu")
        host = single.copy_to_host()
        assert host[0] == pytest.approx(record["a"][0] * 5 + np.float64(record["pos"][0, 2]), rel=1e-12)
        assert host[1] == np.float64(body["pos"]["x"][0]) + body["mass"][0]
        assert host[2] == 1


@pytest.mark.gpu
def test_cupy_record_arrays_through_the_cuda_array_interface():
    cupy = pytest.importorskip("cupy")
    rng = np.random.default_rng(35)
    n = 200
    for align in (False, True):
        ps = random_particles(rng, n, particle_dtype(align))
        expected_out, expected_ps = expected_particle_step(ps, 0.5)
        try:
            records = cupy.empty(n, dtype=ps.dtype)
            records.set(ps)
        except (TypeError, ValueError, NotImplementedError) as error:
            pytest.skip(f"this CuPy does not hold structured dtypes: {error}")
        assert records.__cuda_array_interface__["typestr"] == f"|V{ps.dtype.itemsize}"
        out = cupy.zeros(n, np.float64)
        device.launch(particle_step, records, out, 0.5, grid=(n + 127) // 128, block=128, target="gpu")
        cupy.cuda.runtime.deviceSynchronize()
        np.testing.assert_allclose(out.get(), expected_out, rtol=1e-12)
        moved = records.get()
        np.testing.assert_allclose(moved["pos"], expected_ps["pos"], rtol=1e-6)
        np.testing.assert_array_equal(moved["m"], expected_ps["m"])
