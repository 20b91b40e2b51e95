"""The tile differential fuzzer's fixed-seed run (tests/fuzz/tiles.py, `python -m tests.fuzz
tiles`): 16 generated tile kernels in both faces on the CPU target against the NumPy model. A
failure fails this test with the reduced program as a reproducer. The `gpu`-marked test runs 32
on the GPU against the CPU target; the GPU machine runs the long mode (tools/gpu-check.sh, step
`fuzz`)."""

import dataclasses
import pathlib
import sys

import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

from tests.fuzz import tiles  # noqa: E402


def test_fixed_seed_tile_run(tmp_path):
    report = tiles.run(1, 16, ("cpu",), tiles.Config(), tmp_path, batch=8, log=lambda _: None)
    assert not report["failures"], "\n\n".join(
        f"{f['program']} ({f['stage']}): {f['message']}\ngrid {f['grid']}, arrays {f['arrays']}\n{f['reproducer']}"
        for f in report["failures"][:3])
    counts = report["counts"]
    assert counts["programs"] == 16 and counts["kernels"] <= 4 and counts["outputs"] >= 16
    features = counts["features"]
    assert features.get("seed", 0) and features.get("cutile", 0) and features.get("edge_tiles", 0) >= 8
    assert sum(n for f, n in features.items() if f.startswith("pad_") and f != "pad_zero") >= 3


def test_the_comparison_catches_a_wrong_element_and_tolerates_approximate_ones():
    program = tiles.generate(1, 0, tiles.Config())
    store = program.stores[0]
    ins, outs = tiles.inputs(program, 1)
    want = tiles.model(program, ins, outs)[0]
    assert tiles.mismatch(store, want.copy(), want) == ""
    wrong = want.copy()
    wrong.flat[want.size // 2] = wrong.flat[want.size // 2] + 1
    assert "1 elements differ" in tiles.mismatch(store, wrong, want)
    approx = dataclasses.replace(store, value=dataclasses.replace(store.value, dtype="float32", approx=True))
    want32 = np.linspace(-3, 3, 12, dtype=np.float32)
    assert tiles.mismatch(approx, want32 * np.float32(1 + 1e-6), want32) == ""
    assert tiles.mismatch(approx, want32 + np.float32(0.5), want32) != ""


def test_generation_is_deterministic_and_well_typed_by_construction():
    a = tiles.module([tiles.generate(5, 3, tiles.Config())], "k")
    b = tiles.module([tiles.generate(5, 3, tiles.Config())], "k")
    assert a == b
    compile(a, "<tile program>", "exec")


@pytest.mark.gpu
def test_fixed_seed_tile_run_on_the_gpu_against_the_cpu_target(tmp_path):
    report = tiles.run(1, 32, ("cpu", "gpu"), tiles.Config(contraction=True), tmp_path, batch=8, log=lambda _: None)
    assert not report["failures"], "\n\n".join(
        f"{f['program']} ({f['stage']}): {f['message']}\ngrid {f['grid']}, arrays {f['arrays']}\n{f['reproducer']}"
        for f in report["failures"][:3])
    assert report["counts"]["programs"] == 32 and report["counts"]["launches"] >= 8
