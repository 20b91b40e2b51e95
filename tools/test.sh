#!/usr/bin/env bash
# Runs the whole test suite: the GoogleTest unit tests (built in build/tests) and the pytest
# suite against the weft installed in .venv by tools/setup.sh. Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

py=.venv/bin/python
if [ ! -x "$py" ] || ! "$py" -c 'import weft' 2>/dev/null; then
  echo "test: weft is not installed in .venv; run: bash tools/setup.sh" >&2
  exit 2
fi

echo "test: building the C++ unit tests (build/tests, with UndefinedBehaviorSanitizer)"
cmake -G Ninja -S . -B build/tests -DWEFT_BUILD_PYTHON=OFF -DCMAKE_BUILD_TYPE=Debug -DWEFT_SANITIZE=ON >/dev/null
ninja -C build/tests
if [ -x build/tests/weft_tests ]; then
  echo "test: running the C++ unit tests"
  build/tests/weft_tests --gtest_brief=1
fi

echo "test: running the Python tests"
# A cache folder of the suite's own: tests never read artifacts a previous weft left in ~/.cache.
export WEFT_CACHE_DIR=${WEFT_CACHE_DIR:-$(pwd)/build/test-cache}
# One pytest worker per core (pytest-xdist): most tests wait on a compiler.
"$py" -m pytest -q -n auto tests/python "$@"
