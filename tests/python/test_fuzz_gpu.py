"""The fuzzers on the GPU (marker `gpu`; skipped where no GPU is usable): a fixed-seed differential
round on the GPU target (float products treated as approximate, since NVRTC may contract them into
fmas) against the model, and the disk-cache stress test with cubins. tools/gpu-check.sh runs the
long modes (steps `fuzz` and `cachestress`)."""

import json
import pathlib
import subprocess
import sys

import pytest

import weft

REPO = pathlib.Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not weft.gpu_available(), reason="needs a usable GPU")]


def test_differential_round_on_the_gpu(tmp_path):
    report_path = tmp_path / "report.json"
    command = [sys.executable, "-m", "tests.fuzz", "differential", "--seed", "3", "--programs", "100", "--batch", "50",
               "--targets", "gpu", "--threads", "64", "--no-sm90", "--json", str(report_path),
               "--work", str(tmp_path / "work")]
    proc = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=900)
    print(proc.stdout[-3000:])
    report = json.loads(report_path.read_text())
    assert report["targets"] == ["gpu"] and report["config"]["contraction"]
    new = report["failures"]
    assert proc.returncode == 0 and not new, "\n\n".join(
        f"{f['program']} ({f['stage']}): {f['message']}\nreproducer:\n{f['reproducer']}" for f in new[:3]) or proc.stderr[-3000:]
    assert report["counts"]["programs"] == 100 and report["counts"]["launches"] == 6


def test_cache_stress_with_cubins(tmp_path):
    report_path = tmp_path / "report.json"
    command = [sys.executable, str(REPO / "tools" / "cache_stress.py"), "--processes", "4", "--waves", "2",
               "--target", "gpu", "--cache", str(tmp_path / "cache"), "--json", str(report_path)]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=900)
    print(proc.stdout[-2000:])
    report = json.loads(report_path.read_text())
    assert proc.returncode == 0 and not report["failures"], "\n".join(report["failures"][:3]) + proc.stderr[-2000:]
    assert report["launches"] == 4 * 2 * 4 * 3 and sum(report["corruptions"].values()) > 0
