"""Every program in examples/ runs as a user would run it and checks itself against NumPy.

Each example is a separate process (a fresh interpreter, as in the README). Where no GPU is
usable the CPU target is forced with WEFT_TARGET=cpu, so this runs in CI.
"""

import os
import pathlib
import subprocess
import sys

import pytest

import weft

EXAMPLES_DIR = pathlib.Path(__file__).resolve().parents[2] / "examples"
EXAMPLES = sorted(p for p in EXAMPLES_DIR.glob("*.py") if not p.name.startswith("_"))


def test_the_examples_are_there():
    names = {p.stem for p in EXAMPLES}
    assert {"vec_add", "saxpy", "stencil2d", "matmul_tiled", "block_reduce"} <= names


def _run(example: pathlib.Path, target: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, WEFT_TARGET=target)
    return subprocess.run([sys.executable, str(example)], env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_example_runs_on_the_default_target(example):
    target = "gpu" if weft.gpu_available() else "cpu"
    proc = _run(example, target)
    assert proc.returncode == 0, f"{example.name} failed:\n{proc.stdout}\n{proc.stderr}"
    assert f"{example.stem} on {target}" in proc.stdout
    assert "matches NumPy" in proc.stdout


@pytest.mark.gpu
@pytest.mark.skipif(not weft.gpu_available(), reason="needs a GPU")
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_example_runs_on_the_cpu_target_beside_a_gpu(example):
    proc = _run(example, "cpu")
    assert proc.returncode == 0, f"{example.name} failed:\n{proc.stdout}\n{proc.stderr}"
    assert f"{example.stem} on cpu" in proc.stdout
