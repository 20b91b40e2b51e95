"""weft's parser against CPython's: `ast.dump(ast.parse(src))` must equal weft's dump for every
file of tests/corpus/, every example and every standard-library module outside its tests."""
import ast
import io
import os
import sys
import sysconfig
import tokenize
import warnings
from pathlib import Path

import pytest

if sys.version_info[:2] != (3, 11):
    pytest.skip("weft's dump follows CPython 3.11's ast", allow_module_level=True)

from weft import _weft  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EXCLUDED_DIRS = {"test", "tests", "idle_test", "site-packages"}


def _stdlib_files():
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for dirpath, dirnames, filenames in os.walk(stdlib):
        dirnames[:] = sorted(d for d in dirnames if d not in EXCLUDED_DIRS)
        for name in sorted(filenames):
            if name.endswith(".py"):
                path = Path(dirpath, name)
                yield pytest.param(path, id="stdlib/" + path.relative_to(stdlib).as_posix())


def _local_files(folder):
    for path in sorted((ROOT / folder).glob("*.py")):
        yield pytest.param(path, id=f"{folder}/{path.name}")


def _read_source(path):
    """The text CPython would compile: decoded by its coding cookie, line breaks untouched."""
    raw = path.read_bytes()
    encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    return raw.decode(encoding)


def _check(path, must_parse):
    try:
        source = _read_source(path)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes etc. are deliberate in the corpus
            tree = ast.parse(source, filename=str(path))
    except (SyntaxError, UnicodeDecodeError, ValueError):
        if must_parse:
            raise
        pytest.skip("CPython cannot parse this file")
    if any(isinstance(node, ast.Match) for node in ast.walk(tree)):
        pytest.skip("uses a match statement, which weft does not parse")
    expected = ast.dump(tree)
    actual = _weft.dump_ast(source, str(path))
    assert actual == expected


@pytest.mark.parametrize("path", list(_local_files("tests/corpus")))
def test_corpus(path):
    _check(path, must_parse=True)


def test_corpus_is_large_enough():
    assert len(list((ROOT / "tests/corpus").glob("*.py"))) >= 30


@pytest.mark.parametrize("path", list(_local_files("examples")))
def test_examples(path):
    _check(path, must_parse=True)


@pytest.mark.parametrize("path", list(_stdlib_files()))
def test_stdlib(path):
    _check(path, must_parse=False)


def test_identifiers_are_nfkc_normalized_like_cpython():
    """Every identifier character whose NFKD differs from it (ligatures, fullwidth, mathematical
    letters, Hangul syllables...), then seeded random sequences of letters, combining marks and
    jamo, which exercise canonical reordering and composition: weft's names equal CPython's."""
    import random
    import unicodedata

    chars = [chr(c) for c in range(0x80, 0x110000) if ("a" + chr(c)).isidentifier()]
    changing = [c for c in chars if unicodedata.normalize("NFKD", c) != c]
    assert len(changing) > 15000
    marks = [c for c in chars if unicodedata.combining(c)]
    jamo = [chr(c) for c in range(0x1100, 0x1200)] + [chr(c) for c in range(0x3131, 0x318F)]
    pool = changing + marks * 5 + jamo * 10 + list("aeiouAEIOUnrs") * 40
    rng = random.Random(20240611)
    lines = [f"a{c} = 1" for c in changing]
    lines += ["q" + "".join(rng.choice(pool) for _ in range(rng.randint(1, 6))) + " = 1" for _ in range(5000)]
    source = "\n".join(lines) + "\n"
    assert _weft.dump_ast(source, "nfkc.py") == ast.dump(ast.parse(source))
