#!/usr/bin/env bash
# Runs on the GPU device machine (no network; Python venv at /opt/torch/.venv with numpy, nanobind,
# scikit-build-core, cmake, ninja, torch, cupy and numba-cuda): builds weft from this checkout,
# runs the GPU tests, the toolkit-dependent CPU tests, every example on both targets, the benchmarks
# (the GPU's, and the CPU target's against numba-cuda's simulator) and the CPU tests. Every log
# goes under $OUT; a short summary is printed last (and saved as $OUT/summary.txt).
#
#   bash tools/gpu-check.sh            # everything
#   STEPS="build gpu examples" bash tools/gpu-check.sh
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

OUT=${OUT:-/tmp/weft-gpu-check}
mkdir -p "$OUT"
PY=${PY:-/opt/torch/.venv/bin/python}
export PATH="$(dirname "$PY"):/usr/local/cuda/bin:$PATH"
export PYTHONUNBUFFERED=1
export WEFT_CACHE_DIR=${WEFT_CACHE_DIR:-/tmp/weft-gpu-check-cache}
STEPS=${STEPS:-build gpu toolkit examples bench cpu}

declare -a summary=()
record() { summary+=("$(printf '%-9s %s' "$1" "$2")"); }
has_step() { [[ " $STEPS " == *" $1 "* ]]; }

{ nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader || true
  "$PY" --version; ls -d /usr/local/cuda* 2>/dev/null; } 2>&1 | tee "$OUT/env.log"

if has_step build; then
  start=$SECONDS
  CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) "$PY" -m pip install -v --no-build-isolation --no-deps . \
    >"$OUT/build.log" 2>&1
  rc=$?
  tail -n 30 "$OUT/build.log"
  record build "rc=$rc ($((SECONDS - start)) s)"
  if [ $rc -ne 0 ]; then
    printf '%s\n' "${summary[@]}" | tee "$OUT/summary.txt"
    exit 1
  fi
fi

if has_step gpu; then
  timeout 420 "$PY" -m pytest -q -m gpu -rs tests/python 2>&1 | tee "$OUT/pytest-gpu.log"
  record gpu-tests "rc=$? $(tail -n 1 "$OUT/pytest-gpu.log")"
fi

# The CPU tests that use the toolkit's own tools (cuobjdump, nvcc), present on the GPU machine.
if has_step toolkit; then
  timeout 300 "$PY" -m pytest -q -m 'not gpu' -rs tests/python/test_target.py tests/python/test_interop.py \
    tests/python/test_sm90_ptxas.py 2>&1 | tee "$OUT/pytest-toolkit.log"
  record toolkit "rc=$? $(tail -n 1 "$OUT/pytest-toolkit.log")"
fi

if has_step examples; then
  for target in gpu cpu; do
    for ex in examples/*.py; do
      echo "== WEFT_TARGET=$target $ex"
      WEFT_TARGET=$target timeout 300 "$PY" "$ex" || echo "FAILED: $ex on $target"
    done
  done 2>&1 | tee "$OUT/examples.log"
  failed=$(grep -c '^FAILED:' "$OUT/examples.log")
  record examples "$failed failed ($(grep -c 'matches NumPy' "$OUT/examples.log") matched NumPy)"
fi

if has_step bench; then
  OUT=$OUT timeout 240 "$PY" bench/bench.py 2>&1 | tee "$OUT/bench.log"
  record bench "rc=$? (table in bench.log, data in bench.json)"
  OUT=$OUT timeout 180 "$PY" bench/bench_simt.py 2>&1 | tee "$OUT/bench_simt.log"
  record bench-simt "rc=$? (table in bench_simt.log, data in bench_simt.json)"
  # The CPU target against numba-cuda's simulator (NUMBA_ENABLE_CUDASIM=1, in a child process).
  OUT=$OUT timeout 900 "$PY" bench/bench_cpu.py 2>&1 | tee "$OUT/bench_cpu.log"
  record bench-cpu "rc=$? (table in bench_cpu.log, data in bench_cpu.json)"
fi

if has_step cpu; then
  xdist=()
  "$PY" -c 'import xdist' 2>/dev/null && xdist=(-n 8)
  "$PY" -m pytest -q -m 'not gpu' "${xdist[@]}" tests/python 2>&1 | tee "$OUT/pytest-cpu.log"
  record cpu-tests "rc=$? $(tail -n 1 "$OUT/pytest-cpu.log")"
fi

echo
echo "== gpu-check summary"
printf '%s\n' "${summary[@]}" | tee "$OUT/summary.txt"
