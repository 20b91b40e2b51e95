"""test_warm_first_call.py's fresh processes on the GPU target (marker `gpu`, skipped without a
GPU), and bench_tiles' first calls (a softmax, the 128 x 256 x 64 bf16 GEMM) in fresh processes:
the warm one runs no front end and computes what NumPy does."""

import json
import os
import pathlib
import subprocess
import sys

import pytest

from test_warm_first_call import (  # noqa: F401  (collected again under this module)
    test_a_changed_global_runs_the_front_end,
    test_a_closure_keeps_no_record,
    test_a_new_specialization_runs_the_front_end,
    test_a_rebound_function_runs_the_front_end,
    test_an_edited_source_runs_the_front_end,
    test_warm_first_call_runs_no_front_end,
    warm,
)

pytestmark = pytest.mark.gpu

BENCH = pathlib.Path(__file__).resolve().parents[2] / "bench"

BENCH_CHILD = f"""
import json, sys
import numpy as np, ml_dtypes
import weft
from weft import cutile as ct
sys.path.insert(0, {str(BENCH)!r})
import bench_tiles as b
rng = np.random.default_rng(3)
x = rng.standard_normal((64, 1024)).astype(np.float32)
dy = weft.to_device(np.zeros_like(x))
ct.launch(None, (64,), b.softmax, (weft.to_device(x), dy, 1024))
e = np.exp(x - x.max(axis=1, keepdims=True))
softmax_ok = bool(np.allclose(dy.copy_to_host(), e / e.sum(axis=1, keepdims=True), rtol=1e-3, atol=1e-6))
a = rng.standard_normal((512, 512)).astype(ml_dtypes.bfloat16)
dc = weft.to_device(np.zeros_like(a))
ct.launch(None, (4, 2), b.gemm, (weft.to_device(a), weft.to_device(a), dc, 128, 256, 64))
product = a.astype(np.float32) @ a.astype(np.float32)
gemm_ok = bool(np.allclose(dc.copy_to_host().astype(np.float32), product, rtol=2e-2, atol=0.5))
print(json.dumps({{"ok": softmax_ok and gemm_ok, "front_end_runs": b.softmax._front_end_runs + b.gemm._front_end_runs}}))
"""


@pytest.fixture(scope="module")
def target():
    return "gpu"


def test_bench_first_calls_in_fresh_processes(tmp_path, target):
    env = dict(os.environ, WEFT_TARGET=target, WEFT_CACHE_DIR=str(tmp_path / "cache"))
    results = []
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", BENCH_CHILD], env=env, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr
        results.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    # Cold: each kernel's description and specialization; warm: none.
    assert results == [{"ok": True, "front_end_runs": 4}, {"ok": True, "front_end_runs": 0}]
