"""tools/cache_stress.py on the CPU target (the disk cache is shared by both targets): waves of
worker processes compile and run the same kernels against one cache directory while its entries
are truncated, flipped, emptied, deleted and overwritten; every result must match NumPy. The GPU
machine runs 8 processes per wave (tools/gpu-check.sh, step `cachestress`)."""

import json
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]


def test_concurrent_compiles_with_corrupted_entries(tmp_path):
    report_path = tmp_path / "report.json"
    command = [sys.executable, str(REPO / "tools" / "cache_stress.py"), "--processes", "3", "--waves", "2",
               "--variants", "2", "--target", "cpu", "--cache", str(tmp_path / "cache"), "--pause", "0.01",
               "--json", str(report_path)]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=1200)
    print(proc.stdout[-2000:])
    report = json.loads(report_path.read_text())
    assert proc.returncode == 0 and not report["failures"], "\n".join(report["failures"][:3]) + proc.stderr[-2000:]
    assert report["processes"] == 6 and report["launches"] == 6 * 2 * 3
    assert sum(report["corruptions"].values()) > 20
