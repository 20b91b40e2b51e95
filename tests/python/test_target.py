"""Target specialization (`if target(...)`): on the host (a @func called from Python), on the CPU
target (only host branches), on the GPU (the current device's branch), and in AOT through weftc,
which runs the front end once and lowers once per -arch into one fatbin."""

import os
import pathlib
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import weft
from cuda import device
from fatbins import ELF, PTX, fatbin_entries

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
def feature_sets(a, out):
    # Each feature set has its own branch: the CPU target and the GPU's JIT take theirs.
    i = device.tid(1)
    if i < out.size:
        x = a[i]
        if device.target(device.provides(device.sm90a)):
            out[i] = x * 3
        elif device.target(device.provides(device.sm100f) | device.is_exactly(device.sm121a)):
            out[i] = x * 5
        elif device.target(device.is_device):
            out[i] = x * 7
        else:
            out[i] = x * 2 + 1


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


def test_every_architecture_cuda_named_has_a_selector():
    # Pre-Turing architectures too (provides(sm70) is the specification's own example), and the
    # a/f variants where CUDA defines them, whether or not this toolkit compiles for them.
    for arch in (35, 37, 50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 88, 89, 90, 100, 101, 103, 110, 120, 121):
        selector = getattr(device, f"sm{arch}")
        assert isinstance(selector, device.SMSelector) and selector.arch == arch and selector.suffix == ""
    for name, arch, suffix in (("sm90a", 90, "a"), ("sm100f", 100, "f"), ("sm103a", 103, "a"), ("sm121f", 121, "f")):
        selector = getattr(device, name)
        assert (selector.arch, selector.suffix, repr(selector)) == (arch, suffix, name)
    for missing in ("sm89a", "sm90f", "sm75a", "sm91"):
        assert not hasattr(device, missing)
    # The compiler decides the list; the package only reads it.
    assert {name for name, _, _ in weft._weft.target_selectors()} == {n for n in weft.SPEC_NAMES if n.startswith("sm")}
    volta = device.provides(device.sm70)
    assert all(volta.matches(arch) for arch in (70, 72, 75, 80, 121)) and not volta.matches(62)


def test_feature_set_descriptions_on_the_host():
    # a: that architecture only; f: the later minors of its major version; sm_90a is an sm_90.
    hopper_a = device.provides(device.sm90a)
    assert hopper_a == device.is_exactly(device.sm90a)
    assert hopper_a.matches(device.sm90a) and not hopper_a.matches(90) and not hopper_a.matches("sm_100a")
    assert device.is_exactly(device.sm90).matches("sm_90a") and device.provides(device.sm80).matches("sm_100f")
    family = device.provides(device.sm100f)
    assert family.matches("sm_103f") and family.matches(device.sm100a) and family.matches("sm_103a")
    assert not family.matches(100) and not family.matches("sm_110f") and not device.target(family)
    assert family.condition() == "(__CUDA_ARCH_FAMILY_SPECIFIC__ >= 1000 && __CUDA_ARCH_FAMILY_SPECIFIC__ < 1100)"
    assert repr(family) == "provides(sm100f)"
    mixed = device.is_host | (device.provides(device.sm90) & ~device.provides(device.sm90a))
    assert device.target(mixed) and mixed.matches(90) and not mixed.matches("sm_90a") and mixed.matches("sm_100a")
    assert repr(mixed) == f"TargetDescription({mixed.condition()})" and "__CUDA_ARCH_SPECIFIC__" in repr(mixed)
    assert ~~mixed == mixed and hash(~~mixed) == hash(mixed)
    with pytest.raises(ValueError, match="not a CUDA architecture"):
        family.matches("sm_89a")
    with pytest.raises(TypeError):
        family.matches(9.0)


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


def test_feature_set_branches_on_cpu():
    a = np.random.default_rng(90).integers(-10_000, 10_000, 333).astype(np.int64)
    out = np.zeros_like(a)
    device.launch(feature_sets, a, out, grid=3, block=128, target="cpu")
    np.testing.assert_array_equal(out, 2 * a + 1)
    source = feature_sets._emit_cuda(a, out, target="cpu")
    assert "#if __CUDA_ARCH_SPECIFIC__ == 900\n" in source, source


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
        elif device.target(device.is_exactly(device.sm90a)):
            out[0] = 90111
        elif device.target(device.provides(device.sm100f)):
            out[0] = 10011
        elif device.target(device.is_exactly(device.sm90)):
            out[0] = 90901
        else:
            out[0] = 12321
""")
BRANCHES = ("80801", "90111", "10011", "90901", "12321")


def _weftc():
    for candidate in (os.environ.get("WEFTC"), os.path.join(os.path.dirname(sys.executable), "weftc"),
                      shutil.which("weftc")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    pytest.skip("weftc is not installed")


def _fatbin_images(data: bytes):
    """(sm, ELF bytes) of each ELF image of a fatbin."""
    return [(sm, image) for kind, sm, image in fatbin_entries(data) if kind == ELF]


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
    # As nvcc's -arch=sm_XY: SASS for sm_XY and PTX for compute_XY.
    assert sorted(sm for kind, sm, _ in fatbin_entries(fatbin.read_bytes()) if kind == PTX) == [80, 90]
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


@pytest.mark.skipif(not (CUDA / "bin").is_dir(), reason="no CUDA toolkit")
def test_weftc_feature_set_targets_take_their_branches(tmp_path):
    weftc = _weftc()
    source = tmp_path / "which.py"
    source.write_text(AOT_SOURCE)
    expected = {"-arch=sm_90a": "90111", "--gpu-architecture=sm_100f": "10011", "-arch=sm_103a": "10011",
                "-arch=sm_100": "12321", "-arch=sm_110f": "12321", "-arch=sm_90": "90901"}
    for flag, constant in expected.items():
        result = subprocess.run([weftc, flag, str(source), "--ptx"], capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        target = flag.split("=")[1]
        assert f".target {target}" in result.stdout, flag
        assert [c for c in BRANCHES if c in result.stdout] == [constant], flag
        # ptxas accepts each variant's PTX.
        ptxas = CUDA / "bin" / "ptxas"
        if ptxas.exists():
            ptx = tmp_path / f"{target}.ptx"
            ptx.write_text(result.stdout)
            subprocess.run([str(ptxas), f"-arch={target}", str(ptx), "-o", str(tmp_path / f"{target}.cubin")], check=True)


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


def _jit_variant(arch):
    """The target the JIT takes for a kernel with `a` branches: sm_XYa where the device has one."""
    suffixes = {suffix for _, selector_arch, suffix in weft._weft.target_selectors() if selector_arch == arch}
    return f"sm_{arch}a" if "a" in suffixes else f"sm_{arch}"


@pytest.mark.gpu
def test_gpu_jit_compiles_for_the_variant_the_kernel_asks_for():
    # feature_sets has an `a` branch: on an H100 the JIT compiles for sm_90a and takes it; on a
    # device without an `a` variant it compiles for sm_XY, where only the is_device branch stays.
    arch = weft._runtime.runtime().gpu_architecture()
    variant = _jit_variant(arch)
    factor = 3 if variant == "sm_90a" else 5 if variant in ("sm_100a", "sm_101a", "sm_103a", "sm_121a") else 7
    a = np.random.default_rng(91).integers(-10_000, 10_000, 300).astype(np.int64)
    out = weft.zeros(300, np.int64, target="gpu")
    device.launch(feature_sets, weft.to_device(a, target="gpu"), out, grid=3, block=128, target="gpu")
    np.testing.assert_array_equal(out.copy_to_host(), factor * a)


@pytest.mark.gpu
def test_gpu_module_level_descriptions():
    arch = weft._runtime.runtime().gpu_architecture()
    out = weft.zeros(40, np.int64, target="gpu")
    device.launch(global_descriptions, out, grid=2, block=32, target="gpu")
    v = (1 if arch == 90 else 0) + 10 + 100
    np.testing.assert_array_equal(out.copy_to_host(), v * (np.arange(40) + 1))
