"""Target specialization (`if target(...)`): on the host (a @func called from Python), on the CPU
target (only host branches), on the GPU (the current device's branch), and in AOT through weftc,
which runs the front end once and lowers once per -arch into one fatbin."""

import os
import pathlib
import shutil
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import weft
from cuda import device

CUDA = pathlib.Path(os.environ.get("CUDA_HOME", "/usr/local/cuda"))
HOST_OR_HOPPER = device.is_host | device.is_exactly(device.sm90)
NOT_HOST = ~device.is_host


@device.func
def lane_or_minus_one():
    # A device-only intrinsic guarded by a device condition: fine in a @func run on the host.
    if device.target(device.is_device):
        return device.lane_id
    else:
        return -1


@device.kernel
def which_branch(out):
    i = device.tid(1)
    if i < out.size:
        if device.target(device.is_host):
            out[i] = 1
        elif device.target(device.is_exactly(device.sm90)):
            out[i] = 90
        elif device.target(device.provides(device.sm80)):
            out[i] = 80
        else:
            out[i] = 2


@device.kernel
def guarded_func(out):
    i = device.tid(1)
    if i < out.size:
        out[i] = lane_or_minus_one() + i


@device.kernel
def global_descriptions(out):
    i = device.tid(1)
    if i < out.size:
        v = 0
        if device.target(HOST_OR_HOPPER):
            v += 1
        if device.target(NOT_HOST):
            v += 10
        if not device.target(device.no_target) and device.target(device.any_target):
            v += 100
        out[i] = v * (i + 1)


@device.kernel
def host_or_device_double(a, out):
    # The two branches compute the same value differently: every target gives one answer.
    i = device.tid(1)
    if i < a.size:
        total = a[i]
        if device.target(device.is_host):
            total = a[i] * 2
        else:
            total = a[i] + a[i]
        out[i] = total


def test_host_python_evaluates_target_on_the_host():
    assert device.target(device.is_host) is True
    assert device.target(device.is_device) is False
    assert device.target(device.any_target) and not device.target(device.no_target)
    assert device.target(~device.is_device)
    assert device.target(HOST_OR_HOPPER)
    assert not device.target(device.provides(device.sm80))
    assert device.provides(device.sm80).matches(90) and not device.provides(device.sm90).matches(80)
    newer = device.provides(device.sm80) & ~device.is_exactly(device.sm80)
    assert newer.matches(86) and newer.matches(121) and not newer.matches(80) and not device.target(newer)
    assert (device.is_device | device.is_host) == device.any_target
    assert (device.is_device & device.is_host) == device.no_target
    assert lane_or_minus_one() == -1


def test_every_nvrtc_architecture_has_a_selector():
    for arch in (75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121):
        selector = getattr(device, f"sm{arch}")
        assert isinstance(selector, device.SMSelector) and selector.arch == arch
    assert not hasattr(device, "sm70")


def test_target_errors_on_the_host():
    with pytest.raises(TypeError, match="TargetDescription"):
        device.target(device.sm90)
    with pytest.raises(TypeError, match="SMSelector"):
        device.provides(device.is_host)
    with pytest.raises(TypeError, match="not a condition"):
        bool(device.is_host)
    with pytest.raises(TypeError):
        device.is_host | 3


def test_cpu_target_takes_host_branches():
    out = np.zeros(37, np.int32)
    device.launch(which_branch, out, grid=2, block=32, target="cpu")
    assert (out == 1).all()


def test_guarded_device_intrinsic_in_func_on_cpu():
    out = np.zeros(50, np.int32)
    device.launch(guarded_func, out, grid=2, block=32, target="cpu")
    np.testing.assert_array_equal(out, np.arange(50) - 1)


def test_module_level_descriptions_on_cpu():
    out = np.zeros(40, np.int64)
    device.launch(global_descriptions, out, grid=2, block=32, target="cpu")
    np.testing.assert_array_equal(out, 101 * (np.arange(40) + 1))


def test_both_branches_agree_on_cpu():
    a = np.random.default_rng(1).integers(-1000, 1000, 300).astype(np.int32)
    out = np.zeros_like(a)
    device.launch(host_or_device_double, a, out, grid=3, block=128, target="cpu")
    np.testing.assert_array_equal(out, 2 * a)


def test_emitted_unit_has_preprocessor_tests():
    out = np.zeros(4, np.int32)
    source = which_branch._emit_cuda(out, target="cpu")
    for line in ("#if !__CUDA_ARCH__\n", "#if __CUDA_ARCH__ == 900\n", "#if __CUDA_ARCH__ >= 800\n", "#else\n", "#endif\n"):
        assert line in source, source


def _compile_error(source, tmp_path, name="k"):
    path = tmp_path / "bad_target.py"
    path.write_text(textwrap.dedent(source))
    sys.path.insert(0, str(tmp_path))
    try:
        import importlib

        module = importlib.import_module("bad_target")
        importlib.reload(module)
        with pytest.raises(weft.CompileError) as error:
            device.launch(getattr(module, name), np.zeros(4, np.int32), 3, grid=1, block=4, target="cpu")
        return str(error.value)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("bad_target", None)


def test_non_constant_condition_is_an_error(tmp_path):
    message = _compile_error("""
        from cuda import device

        @device.kernel
        def k(a, n):
            if device.target(device.is_device) and n > 0:
                a[0] = 1
    """, tmp_path)
    assert "bad_target.py:6" in message and "TargetConditionNotConstant" in message


def test_target_outside_an_if_is_an_error(tmp_path):
    message = _compile_error("""
        from cuda import device

        @device.kernel
        def k(a, n):
            a[0] = device.target(device.is_host)
    """, tmp_path)
    assert "bad_target.py:6" in message and "TargetOutsideIf" in message


# ---- AOT: weftc -arch sm_80 -arch sm_90 ----

AOT_SOURCE = textwrap.dedent("""
    from cuda import device


    @device.kernel
    def which(out: device.int32[:]):
        if device.target(device.is_exactly(device.sm80)):
            out[0] = 80801
        elif device.target(device.is_exactly(device.sm90)):
            out[0] = 90901
        else:
            out[0] = 12321
""")


def _weftc():
    for candidate in (os.environ.get("WEFTC"), os.path.join(os.path.dirname(sys.executable), "weftc"),
                      shutil.which("weftc")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    pytest.skip("weftc is not installed")


def _fatbin_images(data: bytes):
    """(sm, ELF bytes) of each ELF image of a fatbin (header: magic, version, header size, size)."""
    magic, _, header_size, total = struct.unpack_from("<IHHQ", data, 0)
    assert magic == 0xBA55ED50
    images, offset = [], header_size
    while offset < header_size + total:
        kind, _, entry_header = struct.unpack_from("<HHI", data, offset)
        (payload,) = struct.unpack_from("<Q", data, offset + 8)
        (sm,) = struct.unpack_from("<I", data, offset + 28)
        if kind == 2:
            images.append((sm, data[offset + entry_header: offset + entry_header + payload]))
        offset += entry_header + payload
    return images


@pytest.mark.skipif(not (CUDA / "bin" / "fatbinary").exists(), reason="no CUDA toolkit with fatbinary")
def test_weftc_fatbin_holds_each_architecture(tmp_path):
    weftc = _weftc()
    source = tmp_path / "which.py"
    source.write_text(AOT_SOURCE)
    fatbin = tmp_path / "out.fatbin"
    subprocess.run([weftc, "-arch", "sm_80", "-arch", "sm_90", str(source), "--fatbin", "-o", str(fatbin)],
                   check=True, capture_output=True, text=True)
    images = _fatbin_images(fatbin.read_bytes())
    assert sorted(sm for sm, _ in images) == [80, 90]
    for sm, elf in images:
        assert elf.startswith(b"\x7fELF")
        cubin = tmp_path / f"sm{sm}.cubin"
        subprocess.run([weftc, "-arch", f"sm_{sm}", str(source), "--cubin", "-o", str(cubin)], check=True)
        assert cubin.read_bytes() == elf
    # --cubin with several architectures makes a fatbin too.
    both = tmp_path / "both.fatbin"
    subprocess.run([weftc, "-arch", "sm_80", "-arch", "sm_90", str(source), "--cubin", "-o", str(both)], check=True)
    assert sorted(sm for sm, _ in _fatbin_images(both.read_bytes())) == [80, 90]
    cuobjdump = CUDA / "bin" / "cuobjdump"
    if cuobjdump.exists():
        listing = subprocess.run([str(cuobjdump), "--list-elf", str(fatbin)], check=True, capture_output=True,
                                 text=True).stdout
        assert "sm_80" in listing and "sm_90" in listing


@pytest.mark.skipif(not (CUDA / "bin").is_dir(), reason="no CUDA toolkit")
def test_weftc_ptx_keeps_each_architectures_branch(tmp_path):
    weftc = _weftc()
    source = tmp_path / "which.py"
    source.write_text(AOT_SOURCE)
    ptx = {}
    for arch in ("sm_80", "sm_90", "sm_75"):
        ptx[arch] = subprocess.run([weftc, "-arch", arch, str(source), "--ptx"], check=True, capture_output=True,
                                   text=True).stdout
    assert "80801" in ptx["sm_80"] and "90901" not in ptx["sm_80"] and "12321" not in ptx["sm_80"]
    assert "90901" in ptx["sm_90"] and "80801" not in ptx["sm_90"]
    assert "12321" in ptx["sm_75"] and "80801" not in ptx["sm_75"]
    both = subprocess.run([weftc, "-arch", "sm_80", "-arch", "sm_90", str(source), "--ptx"], check=True,
                          capture_output=True, text=True).stdout
    assert "// sm_80" in both and "// sm_90" in both and "80801" in both and "90901" in both


# ---- GPU ----


@pytest.mark.gpu
def test_gpu_takes_the_current_architectures_branch():
    arch = weft._runtime.runtime().gpu_architecture()
    out = weft.zeros(33, np.int32, target="gpu")
    device.launch(which_branch, out, grid=2, block=32, target="gpu")
    expected = 90 if arch == 90 else 80 if arch >= 80 else 2
    assert (out.copy_to_host() == expected).all()


@pytest.mark.gpu
def test_gpu_guarded_func_uses_the_device_branch():
    out = weft.zeros(64, np.int32, target="gpu")
    device.launch(guarded_func, out, grid=2, block=32, target="gpu")
    np.testing.assert_array_equal(out.copy_to_host(), np.arange(64) % 32 + np.arange(64))


@pytest.mark.gpu
def test_gpu_module_level_descriptions():
    arch = weft._runtime.runtime().gpu_architecture()
    out = weft.zeros(40, np.int64, target="gpu")
    device.launch(global_descriptions, out, grid=2, block=32, target="gpu")
    v = (1 if arch == 90 else 0) + 10 + 100
    np.testing.assert_array_equal(out.copy_to_host(), v * (np.arange(40) + 1))
