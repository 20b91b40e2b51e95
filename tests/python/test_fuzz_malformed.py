"""The malformed-input fuzzer (tests/fuzz/malformed.py, `python -m tests.fuzz malformed`): 150
mutants of valid kernels through weftc and the Python API must each compile or give a clean
diagnostic: no crash, no hang, no internal compiler error, no C++ error from generated code."""

import json
import pathlib
import random
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.fuzz import malformed  # noqa: E402


def test_fixed_seed_malformed_run(tmp_path):
    report_path = tmp_path / "report.json"
    command = [sys.executable, "-m", "tests.fuzz", "malformed", "--seed", "1", "--mutants", "150",
               "--json", str(report_path), "--work", str(tmp_path / "work")]
    proc = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=1800)
    print(proc.stdout[-3000:])
    assert report_path.exists(), proc.stdout[-3000:] + proc.stderr[-3000:]
    report = json.loads(report_path.read_text())
    new = report["failures"]
    assert proc.returncode == 0 and not new, "\n\n".join(
        f"mutant {f['id']} ({f['mode']}: {f['outcome']}; {f['mutations']}): {f['detail']}\n{f['text'][:3000]}" for f in new[:3])
    counts = report["counts"]
    assert sum(counts["weftc"].values()) == 150
    assert counts["weftc"].get("diagnostic", 0) > 50 and counts["api"].get("diagnostic", 0) > 20
    assert sum(counts["api"].values()) > 40, "mutants CPython accepts go through the Python API too"


def test_outcomes_are_classified():
    assert malformed.classify_weftc(None, "")[0] == "hang"
    assert malformed.classify_weftc(-11, "")[0] == "crash"
    assert malformed.classify_weftc(1, "weftc: internal compiler error: x")[0] == "ice"
    assert malformed.classify_weftc(1, "k.py:3:5: error: name 'q' is not defined [UndefinedName]\n  q\n  ^")[0] == "diagnostic"
    assert malformed.classify_weftc(1, "error: something\n")[0] == "unclean-error"
    assert malformed.classify_weftc(1, "weftc: error: NVRTC failed to compile the unit of k.py:\n")[0] == "generated-code-error"


def test_mutants_are_deterministic_and_varied():
    first = malformed.make_cases(3, 40)
    assert [c.text for c in first] == [c.text for c in malformed.make_cases(3, 40)]
    kinds = {m.split()[0] for c in first for m in c.mutations}
    assert len(kinds) >= 8, kinds
    mutator = malformed.Mutator(random.Random(0), nesting=True)
    text, what = mutator.deep_parens("x = a + 1\n")
    assert what.startswith("deep_parens") and text.count("(") == text.count(")") > 10
