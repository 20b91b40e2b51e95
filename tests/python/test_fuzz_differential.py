"""The differential fuzzer's fixed-seed run (tests/fuzz/, `python -m tests.fuzz differential`):
200 generated programs in batches of 50, each run on the CPU target with random inputs against
the model of DESIGN.md section 3, with their global constants changed between launches, and
compiled for sm_90 through weftc (NVRTC). A failure fails this test with the failing program as
a reproducer; once fixed, its reproducer becomes a test of test_fuzz_regressions.py.

The GPU machine runs the long mode (tools/gpu-check.sh, step `fuzz`).
"""

import json
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]
TOOLKIT = pathlib.Path("/usr/local/cuda/bin").is_dir()


def test_fixed_seed_differential_run(tmp_path):
    report_path = tmp_path / "report.json"
    command = [sys.executable, "-m", "tests.fuzz", "differential", "--seed", "1", "--programs", "200", "--batch", "50",
               "--json", str(report_path), "--work", str(tmp_path / "work")]
    if not TOOLKIT:
        command.append("--no-sm90")
    proc = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=1800)
    print(proc.stdout[-3000:])
    assert report_path.exists(), proc.stdout[-3000:] + proc.stderr[-3000:]
    report = json.loads(report_path.read_text())
    new = report["failures"]
    assert proc.returncode == 0 and not new, "\n\n".join(
        f"{f['program']} ({f['stage']}): {f['message']}\nreproducer:\n{f['reproducer']}" for f in new[:3]) or proc.stderr[-3000:]
    counts = report["counts"]
    assert counts["programs"] == 200 and counts["batches"] == 4 and counts["launches"] == 12
    assert counts["outputs_exact"] > 10000 and counts["outputs_tolerance"] > 500
    assert counts["compilations"] >= 8, "every batch compiles again when its globals change"
    if TOOLKIT:
        assert counts["sm90_units"] == 4
    for feature in ("helpers", "helper_specializations", "constant_branch", "globals", "while", "break", "continue",
                    "tuples", "math", "casts", "comparison_chain", "and_or_values", "shift", "pow", "floor_division"):
        assert counts["features"].get(feature, 0) > 5, feature


def test_first_reruns_a_batch_of_a_report(tmp_path):
    # --first N numbers the programs from N: the batch of a long run's report runs again alone.
    report_path = tmp_path / "report.json"
    command = [sys.executable, "-m", "tests.fuzz", "differential", "--seed", "7", "--first", "50", "--programs", "4",
               "--batch", "2", "--no-sm90", "--json", str(report_path), "--work", str(tmp_path / "work")]
    proc = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    report = json.loads(report_path.read_text())
    assert report["counts"]["programs"] == 4 and report["counts"]["batches"] == 2
