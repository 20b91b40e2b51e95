"""test_tile_autotune_cpu.py on the GPU (marker `gpu`, skipped without a GPU): tuning times each
configuration with CUDA events, restores the GPU arrays a kernel reads and writes between
trials, reads its choice back from the disk cache in a new process, and the stages option runs
the cp.async pipeline with that many stages against NumPy."""

import numpy as np
import pytest

import weft
from weft import cuda as wcuda
from weft import cutile as cu
from test_tile_autotune_cpu import (  # noqa: F401  (the tests are collected again under this module)
    cache_dir,
    cdiv,
    gemm_acc,
    gemm_grid,
    run_script,
)

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module")
def target():
    return "gpu"


# The bench's configurations (bench/bench_tiles.py), on a GEMM of GPU arrays that accumulates into c.
BENCH_CONFIGS = [cu.Config(tm=128, tn=128, tk=64, stages=s) for s in (2, 3, 4)] + \
                [cu.Config(tm=128, tn=256, tk=64, stages=2), cu.Config(tm=64, tn=256, tk=64, stages=3),
                 cu.Config(tm=128, tn=128, tk=32, stages=4)]


@cu.kernel(autotune=cu.Autotune(BENCH_CONFIGS, restore="c", repetitions=3))
def gemm_acc_gpu(a, b, c, tm: cu.Constant[int], tn: cu.Constant[int], tk: cu.Constant[int]):
    bm, bn = cu.bid(0), cu.bid(1)
    acc = cu.load(c, (bm, bn), (tm, tn))
    for k in range(cu.num_tiles(a, axis=1, shape=(tm, tk))):
        acc = cu.mma(cu.load(a, (bm, k), (tm, tk)), cu.load(b, (k, bn), (tk, tn)), acc)
    cu.store(c, (bm, bn), acc)


def test_gpu_arrays_are_restored_and_timed_with_events(rng):
    m, n, k = 1000, 700, 1024
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c0 = rng.standard_normal((m, n)).astype(np.float32)
    da, db, dc = weft.to_device(a), weft.to_device(b), weft.to_device(c0)
    stream = wcuda.stream()
    cu.launch(stream, gemm_grid, gemm_acc_gpu, (da, db, dc))
    stream.synchronize()
    (result,) = gemm_acc_gpu.autotune_results
    assert result.target == "gpu" and result.config in BENCH_CONFIGS
    assert all(s is None or 0 < s < 1 for s in result.seconds)
    chosen = result.config
    expected = weft.to_device(c0)
    weft.launch(gemm_acc, da, db, expected, chosen["tm"], chosen["tn"], chosen["tk"],
                grid=(cdiv(m, chosen["tm"]), cdiv(n, chosen["tn"])), target="gpu")
    weft.synchronize()
    np.testing.assert_array_equal(dc.copy_to_host(), expected.copy_to_host())
    np.testing.assert_allclose(dc.copy_to_host(), c0 + a.astype(np.float32) @ b.astype(np.float32),
                               rtol=1e-3, atol=1e-2)


GPU_SCRIPT = """
import numpy as np
import weft
from weft import cutile as cu

@cu.kernel(autotune=cu.Autotune([cu.Config(t=256), cu.Config(t=1024), cu.Config(t=4096)]))
def double(x, y, t: cu.Constant[int]):
    i = cu.bid(0)
    cu.store(y, (i,), cu.load(x, (i,), (t,)) * 2)

x = np.random.default_rng(7).standard_normal(1 << 20).astype(np.float32)
dx, dy = weft.to_device(x), weft.to_device(np.zeros_like(x))
cu.launch(None, lambda meta: (-(-x.size // meta["t"]),), double, (dx, dy))
assert np.array_equal(dy.copy_to_host(), x * 2)
(result,) = double.autotune_results
print("from_cache", result.from_cache, repr(result.config))
"""


def test_a_new_process_reads_the_gpu_choice_from_the_disk_cache(tmp_path, cache_dir):
    script = tmp_path / "tuned_gpu_script.py"
    script.write_text(GPU_SCRIPT)
    environment_target = {"WEFT_TARGET": "gpu"}
    out, err = run_script(script, 0, cache_dir, environment_target)
    assert out.startswith("from_cache False") and "target gpu" in err
    chosen = out.split(" ", 2)[2]
    out, err = run_script(script, 0, cache_dir, environment_target)
    assert out == f"from_cache True {chosen}" and "(from the disk cache)" in err
