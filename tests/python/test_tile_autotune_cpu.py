"""Autotuning of tile kernels (docs/tiles.md, "Autotuning") and the `stages` kernel option, on
the CPU target against NumPy on seeded random data: the chosen configuration is one of those
given and computes what the untuned kernel computes, arguments the kernel reads and writes are
restored between trials, keys tune separately, a new process reads the choice from the disk
cache, failing configurations are skipped (all failing raises the first error), bad use is a
clear error, and `stages` reaches the emitted code (which compiles for sm_90).
test_tile_autotune_gpu.py runs the tuning on the GPU."""

import os
import pathlib
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import weft
from weft import cutile as cu
from weft import tiles as ct
from test_tiles_debug_cpu import CUDA, PTXAS, nvrtc_ptx


@pytest.fixture(scope="module")
def target():
    return "cpu"


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch):
    """Each test tunes afresh: its own disk cache."""
    monkeypatch.setenv("WEFT_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def cdiv(a, b):
    return -(-a // b)


ADD_CONFIGS = [cu.Config(tm=8, tn=16), cu.Config(tm=16, tn=8), cu.Config(tm=32, tn=32)]


@cu.kernel(autotune=cu.Autotune(ADD_CONFIGS))
def add_tuned(a, b, c, tm: cu.Constant[int], tn: cu.Constant[int]):
    i, j = cu.bid(0), cu.bid(1)
    cu.store(c, (i, j), cu.load(a, (i, j), (tm, tn)) + cu.load(b, (i, j), (tm, tn)))


def add_grid(meta):
    return (cdiv(meta["a"].shape[0], meta["tm"]), cdiv(meta["a"].shape[1], meta["tn"]))


# c += a @ b: c is read and written, so every trial must start from the c of the launch.
GEMM_CONFIGS = [cu.Config(tm=16, tn=16, tk=16, stages=2), cu.Config(tm=32, tn=16, tk=32, stages=3),
                cu.Config(tm=16, tn=32, tk=16)]


@cu.kernel(autotune=cu.Autotune(GEMM_CONFIGS, restore=("c",), repetitions=2))
def gemm_acc_tuned(a, b, c, tm: cu.Constant[int], tn: cu.Constant[int], tk: cu.Constant[int]):
    bm, bn = cu.bid(0), cu.bid(1)
    acc = cu.load(c, (bm, bn), (tm, tn))
    for k in range(cu.num_tiles(a, axis=1, shape=(tm, tk))):
        acc = cu.mma(cu.load(a, (bm, k), (tm, tk)), cu.load(b, (k, bn), (tk, tn)), acc)
    cu.store(c, (bm, bn), acc)


@cu.kernel
def gemm_acc(a, b, c, tm: cu.Constant[int], tn: cu.Constant[int], tk: cu.Constant[int]):
    bm, bn = cu.bid(0), cu.bid(1)
    acc = cu.load(c, (bm, bn), (tm, tn))
    for k in range(cu.num_tiles(a, axis=1, shape=(tm, tk))):
        acc = cu.mma(cu.load(a, (bm, k), (tm, tk)), cu.load(b, (k, bn), (tk, tn)), acc)
    cu.store(c, (bm, bn), acc)


def gemm_grid(meta):
    return (cdiv(meta["c"].shape[0], meta["tm"]), cdiv(meta["c"].shape[1], meta["tn"]))


def test_add_chooses_one_of_the_configs_and_adds(target, rng):
    a, b = rng.standard_normal((40, 56), np.float32), rng.standard_normal((40, 56), np.float32)
    c = np.zeros_like(a)
    assert add_tuned.best_config(a, b, c) is None
    cu.launch(None, add_grid, add_tuned, (a, b, c))
    np.testing.assert_array_equal(c, a + b)
    (result,) = add_tuned.autotune_results
    assert result.config in ADD_CONFIGS and not result.from_cache and result.target == "cpu"
    assert all(s is not None and s > 0 for s in result.seconds) and result.errors == {}
    assert add_tuned.best_config(a, b, c) == result.config
    # Later launches reuse the choice: no new tuning, and the other launch forms work too.
    c2 = np.zeros_like(a)
    weft.launch(add_tuned, a, b, c2, grid=add_grid, target="cpu")
    np.testing.assert_array_equal(c2, a + b)
    c3 = np.zeros_like(a)
    add_tuned[add_grid](a, b, c3)
    np.testing.assert_array_equal(c3, a + b)
    assert len(add_tuned.autotune_results) == 1


def test_restored_accumulator_equals_the_untuned_kernel_and_numpy(target, rng):
    m, n, k = 48, 40, 80
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c0 = rng.standard_normal((m, n)).astype(np.float32)
    c = c0.copy()
    weft.launch(gemm_acc_tuned, a, b, c, grid=gemm_grid, target=target)
    (result,) = gemm_acc_tuned.autotune_results
    chosen = result.config
    assert chosen in GEMM_CONFIGS
    # The untuned kernel with the chosen tile sizes, from the same c: the same bits (had a trial
    # left its sum in c, c would hold several products).
    expected = c0.copy()
    weft.launch(gemm_acc, a, b, expected, chosen["tm"], chosen["tn"], chosen["tk"],
                grid=(cdiv(m, chosen["tm"]), cdiv(n, chosen["tn"])), target=target)
    np.testing.assert_array_equal(c, expected)
    np.testing.assert_allclose(c, c0 + a.astype(np.float32) @ b.astype(np.float32), rtol=1e-4, atol=1e-3)


def test_different_keys_tune_separately(target, rng):
    @cu.kernel(autotune=[cu.Config(tm=8, tn=8), cu.Config(tm=16, tn=16)])
    def add_keyed(a, b, c, tm: cu.Constant[int], tn: cu.Constant[int]):
        i, j = cu.bid(0), cu.bid(1)
        cu.store(c, (i, j), cu.load(a, (i, j), (tm, tn)) + cu.load(b, (i, j), (tm, tn)))

    for shape in ((16, 24), (33, 17), (16, 24)):
        a, b = rng.standard_normal(shape, np.float32), rng.standard_normal(shape, np.float32)
        c = np.zeros_like(a)
        cu.launch(None, add_grid, add_keyed, (a, b, c))
        np.testing.assert_array_equal(c, a + b)
    keys = [result.key for result in add_keyed.autotune_results]
    assert keys == [repr((((16, 24), "float32"),) * 3), repr((((33, 17), "float32"),) * 3)]
    # Another dtype is another key.
    a = rng.integers(-9, 9, (16, 24)).astype(np.int32)
    c = np.zeros_like(a)
    cu.launch(None, add_grid, add_keyed, (a, a, c))
    np.testing.assert_array_equal(c, a + a)
    assert len(add_keyed.autotune_results) == 3


def test_key_by_names_and_by_function(target, rng):
    @ct.kernel(autotune=ct.Autotune([ct.Config(t=16), ct.Config(t=32)], key=("n",)))
    def scale(x, y, n, t: ct.ConstExpr):
        i = ct.bid(0)
        ct.store(y, (i,), ct.load(x, (i,), (t,)) * n)

    @ct.kernel(autotune=ct.Autotune([ct.Config(t=16), ct.Config(t=32)], key=lambda x, y, n: x.shape[0] // 64))
    def scale_bucketed(x, y, n, t: ct.ConstExpr):
        i = ct.bid(0)
        ct.store(y, (i,), ct.load(x, (i,), (t,)) * n)

    def grid(meta):
        return (cdiv(meta["x"].shape[0], meta["t"]),)

    for size, n in ((100, 2.0), (120, 2.0), (100, 3.0)):
        x = rng.standard_normal(size).astype(np.float32)
        for kernel in (scale, scale_bucketed):
            y = np.zeros_like(x)
            ct.launch(None, grid, kernel, (x, y, n))
            np.testing.assert_array_equal(y, x * np.float32(n))
    assert [r.key for r in scale.autotune_results] == ["(2.0,)", "(3.0,)"]
    assert [r.key for r in scale_bucketed.autotune_results] == ["1"]


# A tile of 24 is not a power of 2 (TileShape): that config fails to compile and is skipped.
@cu.kernel(autotune=cu.Autotune([cu.Config(tm=24, tn=8), cu.Config(tm=8, tn=8), cu.Config(tm=16, tn=16)]))
def add_one_bad(a, b, c, tm: cu.Constant[int], tn: cu.Constant[int]):
    i, j = cu.bid(0), cu.bid(1)
    cu.store(c, (i, j), cu.load(a, (i, j), (tm, tn)) + cu.load(b, (i, j), (tm, tn)))


@cu.kernel(autotune=cu.Autotune([cu.Config(tm=24, tn=8), cu.Config(tm=8, tn=12)]))
def add_all_bad(a, b, c, tm: cu.Constant[int], tn: cu.Constant[int]):
    i, j = cu.bid(0), cu.bid(1)
    cu.store(c, (i, j), cu.load(a, (i, j), (tm, tn)) + cu.load(b, (i, j), (tm, tn)))


def test_a_failing_config_is_skipped_with_its_reason(target, rng, monkeypatch, capfd):
    monkeypatch.setenv("WEFT_AUTOTUNE_VERBOSE", "1")
    a, b = rng.standard_normal((32, 32), np.float32), rng.standard_normal((32, 32), np.float32)
    c = np.zeros_like(a)
    cu.launch(None, add_grid, add_one_bad, (a, b, c))
    np.testing.assert_array_equal(c, a + b)
    (result,) = add_one_bad.autotune_results
    bad = cu.Config(tm=24, tn=8)
    assert result.seconds[0] is None and result.config != bad
    assert "CompileError" in result.errors[bad] and "TileShape" in result.errors[bad]
    (line,) = capfd.readouterr().err.splitlines()
    assert line.startswith("weft autotune: kernel 'add_one_bad', key ")
    assert f"chose {result.config!r} (tuned)" in line and "Config(tm=24, tn=8) failed (" in line
    assert re.search(r"Config\(tm=8, tn=8\) [0-9.e+-]+ ms", line)


def test_all_failing_raises_the_first_error_at_the_users_line(target, rng):
    a = rng.standard_normal((32, 32), np.float32)
    with pytest.raises(weft.CompileError) as raised:
        cu.launch(None, add_grid, add_all_bad, (a, a, np.zeros_like(a)))
    assert "TileShape" in str(raised.value) and "24" in str(raised.value)
    assert "test_tile_autotune_cpu.py" in str(raised.value)
    assert add_all_bad.autotune_results == []


SCRIPT = """
import sys
import numpy as np
from weft import cutile as cu

@cu.kernel(autotune=cu.Autotune([cu.Config(t=16), cu.Config(t=32), cu.Config(t=64)]))
def double(x, y, t: cu.Constant[int]):
    i = cu.bid(0)
    cu.store(y, (i,), cu.load(x, (i,), (t,)) * 2)

x = np.random.default_rng(7).standard_normal(int(sys.argv[1])).astype(np.float32)
y = np.zeros_like(x)
cu.launch(None, lambda meta: (-(-x.size // meta["t"]),), double, (x, y))
assert np.array_equal(y, x * 2)
(result,) = double.autotune_results
print("from_cache", result.from_cache, repr(result.config))
"""


def run_script(path, size, cache, environment=None):
    """Runs `path` in a new process with `cache` as its disk cache; its stdout and stderr."""
    environment = {**os.environ, "WEFT_CACHE_DIR": str(cache), "WEFT_AUTOTUNE_VERBOSE": "1", "WEFT_TARGET": "cpu",
                   **(environment or {})}
    process = subprocess.run([sys.executable, str(path), str(size)], capture_output=True, text=True,
                             env=environment, timeout=300)
    assert process.returncode == 0, process.stderr
    return process.stdout.strip(), process.stderr.strip()


def test_a_new_process_reads_the_choice_from_the_disk_cache(tmp_path, cache_dir):
    script = tmp_path / "tuned_script.py"
    script.write_text(SCRIPT)
    out, err = run_script(script, 200, cache_dir)
    assert out.startswith("from_cache False") and "(tuned)" in err
    chosen = out.split(" ", 2)[2]
    out, err = run_script(script, 200, cache_dir)
    assert out == f"from_cache True {chosen}" and "(from the disk cache)" in err and err.count("\n") == 0
    # Another key tunes; a corrupt entry is ignored (tuned again, then rewritten).
    out, _ = run_script(script, 300, cache_dir)
    assert out.startswith("from_cache False")
    entries = sorted((cache_dir / "autotune").glob("*.json"))
    assert len(entries) == 2
    for entry in entries:
        entry.write_text('{"configs": [')
    out, _ = run_script(script, 200, cache_dir)
    assert out.startswith("from_cache False")
    out, _ = run_script(script, 200, cache_dir)
    assert out.startswith("from_cache True")
    # A stale entry (other configs under the same name) is not used.
    for entry in sorted((cache_dir / "autotune").glob("*.json")):
        entry.write_text(entry.read_text().replace("Config(t=16)", "Config(t=8)"))
    out, _ = run_script(script, 300, cache_dir)
    assert out.startswith("from_cache False")
    # Editing the kernel's file is another kernel: it tunes again.
    script.write_text(SCRIPT + "\n# edited\n")
    out, _ = run_script(script, 200, cache_dir)
    assert out.startswith("from_cache False")
    # WEFT_CACHE=0 turns the disk cache off for the choices too: neither read nor written.
    for entry in (cache_dir / "autotune").glob("*.json"):
        entry.unlink()
    for _ in range(2):
        out, _ = run_script(script, 200, cache_dir, {"WEFT_CACHE": "0"})
        assert out.startswith("from_cache False")
    assert list((cache_dir / "autotune").glob("*.json")) == []


def test_bad_autotune_use_is_a_clear_error(target, rng):
    with pytest.raises(TypeError, match="at least one kernel parameter"):
        cu.Config()
    with pytest.raises(TypeError, match="a value must be an int"):
        cu.Config(tm=[16])
    with pytest.raises(TypeError, match="non-empty list of Config"):
        cu.Autotune([])
    with pytest.raises(TypeError, match="is not a Config"):
        cu.Autotune([{"tm": 16}])
    with pytest.raises(ValueError, match="must set the same parameters"):
        cu.Autotune([cu.Config(tm=16), cu.Config(tn=16)])
    with pytest.raises(TypeError, match="parameter names"):
        cu.Autotune([cu.Config(tm=16)], restore=[3])
    with pytest.raises(TypeError, match="repetitions"):
        cu.Autotune([cu.Config(tm=16)], repetitions=0)
    with pytest.raises(TypeError, match="takes an Autotune or a list of Config"):
        cu.kernel(autotune="fast")

    def body(a, c, t: cu.Constant[int]):
        cu.store(c, (cu.bid(0),), cu.load(a, (cu.bid(0),), (t,)))

    with pytest.raises(TypeError, match="Config sets 'tm', which is not one of its parameters"):
        cu.kernel(autotune=[cu.Config(tm=16)])(body)
    with pytest.raises(TypeError, match="names 't', which is set by the configs"):
        cu.kernel(autotune=cu.Autotune([cu.Config(t=16)], restore="t"))(body)
    with pytest.raises(TypeError, match="names 'b', which is not one of its parameters"):
        cu.kernel(autotune=cu.Autotune([cu.Config(t=16)], key=["b"]))(body)

    copy = cu.kernel(autotune=cu.Autotune([cu.Config(t=16)], restore="c"))(body)
    a = rng.standard_normal(32).astype(np.float32)
    with pytest.raises(TypeError, match=r"autotuned over t: pass the other 2 arguments \(a, c\), not 3"):
        cu.launch(None, 2, copy, (a, a, 16))
    with pytest.raises(TypeError, match="argument 'c' must be a NumPy array"):
        cu.launch(None, 2, copy, (a, [0.0] * 32))
    with pytest.raises(TypeError, match="launch it with a grid only"):
        weft.launch(copy, a, np.zeros_like(a), grid=2, block=32)
    with pytest.raises(TypeError, match="cannot be called like a function"):
        copy(a, a)
    keyed = cu.kernel(autotune=cu.Autotune([cu.Config(t=16)], key=lambda a, c: object()))(body)
    with pytest.raises(TypeError, match="key=...\\) must return ints"):
        cu.launch(None, 2, keyed, (a, np.zeros_like(a)))
    out = np.zeros_like(a)
    cu.launch(None, 2, copy, (a, out))
    np.testing.assert_array_equal(out, a)


# ---- the stages option ----


@ct.kernel
def gemm_default(a, b, c, tm: ct.ConstExpr, tn: ct.ConstExpr, tk: ct.ConstExpr):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), ct.float32)
    for k in range(ct.num_tiles(a, 1, (tm, tk))):
        acc = ct.mma(ct.load(a, (bm, k), (tm, tk)), ct.load(b, (k, bn), (tk, tn)), acc)
    ct.store(c, (bm, bn), acc)


def staged(stages):
    return ct.kernel(stages=stages)(gemm_default.underlying)


def pipeline_stages(source):
    """The cp.async stages of each pipelined K loop (float16 loops over kernel parameters also have
    the Hopper path's, test_tma_stages_follow_the_option)."""
    return [int(s) for s in re.findall(r"mma_pipeline(?:_tma)?_arrays<[^>]*>, [^>]*>, (\d+)[,>]", source)]


def tma_stages(source):
    return [int(s) for s in re.findall(r"mma_pipeline_tma_arrays<[^>]*>, [^>]*>, \d+, (\d+)>", source)]


@pytest.mark.parametrize("stages, tiles, expected", [
    (None, (64, 64, 32), 4), (2, (64, 64, 32), 2), (3, (64, 64, 32), 3), (8, (64, 64, 32), 8),
    # 32 KiB a stage: sema's own choice keeps the ring within 64 KiB; the option goes to the
    # shared memory budget (144 KiB: 4 stages).
    (None, (128, 128, 64), 2), (4, (128, 128, 64), 4), (8, (128, 128, 64), 4),
])
def test_stages_reach_the_emitted_pipeline(stages, tiles, expected):
    kernel = staged(stages)
    assert kernel.stages == stages
    a = np.zeros((256, 256), np.float16)
    c = np.zeros((256, 256), np.float32)
    assert pipeline_stages(kernel._emit_cuda(a, a, c, *tiles, target="cpu")) == [expected]


# The Hopper path's ring (32 KiB stages here): 4 stages by default, else the option's within its
# 200 KiB budget (8 -> 6).
@pytest.mark.parametrize("stages, expected", [(None, 4), (2, 2), (3, 3), (8, 6)])
def test_tma_stages_follow_the_option(stages, expected):
    a = np.zeros((256, 256), np.float16)
    c = np.zeros((256, 256), np.float32)
    assert tma_stages(staged(stages)._emit_cuda(a, a, c, 128, 128, 64, target="cpu")) == [expected]


@pytest.mark.parametrize("stages", [2, 3, 8])
def test_staged_gemm_against_numpy(target, rng, stages):
    m, n, k = 70, 50, 200
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float32)
    weft.launch(staged(stages), a, b, c, 32, 32, 16, grid=(cdiv(m, 32), cdiv(n, 32)), target=target)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-4, atol=1e-3)


def test_config_stages_reach_the_emitted_pipeline():
    a = np.zeros((64, 64), np.float16)
    c = np.zeros((64, 64), np.float32)
    sources = [gemm_acc_tuned._emit_cuda(config, a, a, c, target="cpu") for config in GEMM_CONFIGS]
    # (16 + 16) x 16 halves a stage (1 KiB), well within the ring: the third config's is sema's 4.
    assert [pipeline_stages(source) for source in sources] == [[2], [3], [4]]


@pytest.mark.parametrize("bad, error", [(1, ValueError), (9, ValueError), (0, ValueError), (3.0, TypeError),
                                        (True, TypeError), ("3", TypeError)])
def test_bad_stages_are_errors(bad, error):
    with pytest.raises(error, match="stages"):
        ct.kernel(stages=bad)
    with pytest.raises(error, match="stages"):
        cu.Config(tm=16, stages=bad)


@pytest.mark.skipif(not (CUDA / "lib64" / "libnvrtc.so").exists(), reason=f"no NVRTC at {CUDA}")
def test_staged_pipeline_compiles_for_sm90(tmp_path):
    a = np.zeros((256, 256), np.float16)
    c = np.zeros((256, 256), np.float32)
    ptx = nvrtc_ptx(staged(3)._emit_cuda(a, a, c, 128, 128, 64, target="cpu"))
    assert re.search(r"\.target\s+sm_90", ptx) and "cp.async" in ptx
    if PTXAS.exists():
        (tmp_path / "unit.ptx").write_text(ptx)
        process = subprocess.run([str(PTXAS), "-arch=sm_90", str(tmp_path / "unit.ptx"), "-o",
                                  str(tmp_path / "unit.cubin")], capture_output=True, text=True, timeout=300)
        assert process.returncode == 0, process.stderr
