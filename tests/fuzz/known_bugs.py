"""Known open weft bugs the fuzzers find, each with the generator switch that avoids it, how to
recognize a failure it causes, and a minimal reproducer (tests/python/test_fuzz_known_bugs.py
runs each reproducer as a strict xfail, so a fix shows up as an unexpected pass)."""


def classify(failure) -> str:
    """The id of the known bug a differential failure matches, or ""."""
    return ""


def classify_malformed(mutations: list, mode: str, outcome: str, detail: str) -> str:
    """The id of the known bug a malformed-input failure matches, or ""."""
    return ""
