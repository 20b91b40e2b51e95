#!/usr/bin/env bash
# Runs on the GPU device machine (no network; Python venv at /opt/torch/.venv with numpy, nanobind,
# scikit-build-core, cmake, ninja, torch, cupy and numba-cuda): builds weft from this checkout,
# runs the GPU tests, the toolkit-dependent CPU tests, every example on both targets, the benchmarks
# (the GPU's, and the CPU target's against numba-cuda's simulator) and the CPU tests; on request
# also compute-sanitizer over the GPU tests and examples (sanitize), the fuzzers' long runs (fuzz,
# malformed) and the disk-cache stress test (cachestress). Every log
# goes under $OUT; a short summary is printed last (and saved as $OUT/summary.txt).
#
#   bash tools/gpu-check.sh            # the default steps: build gpu toolkit examples bench cpu
#   STEPS="build gpu examples" bash tools/gpu-check.sh
#   STEPS="sanitize" bash tools/gpu-check.sh        # on a machine where `build` already ran
#   STEPS="fuzz" bash tools/gpu-check.sh; STEPS="malformed" ...; STEPS="cachestress" ...
#
# Each step is bounded by `timeout` so that a run fits one 10-minute device call: run `build` with
# one or two other steps per call, and the rest in later calls while the machine stays warm.
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
record() { summary+=("$(printf '%-12s %s' "$1" "$2")"); }
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

# The GPU tests in GPU_SHARDS pytest processes at once (files dealt round-robin): NVRTC compiles
# on the CPU, so the shards keep the GPU and the cores busy.
if has_step gpu; then
  shards=${GPU_SHARDS:-4}
  mapfile -t files < <(grep -l gpu tests/python/test_*.py)
  pids=()
  for ((s = 0; s < shards; s++)); do
    group=()
    for ((i = s; i < ${#files[@]}; i += shards)); do group+=("${files[i]}"); done
    timeout 540 "$PY" -m pytest -q -m gpu -rs -p no:cacheprovider "${group[@]}" >"$OUT/pytest-gpu-$s.log" 2>&1 &
    pids+=($!)
  done
  rc=0
  for pid in "${pids[@]}"; do wait "$pid" || rc=$?; done
  cat "$OUT"/pytest-gpu-*.log >"$OUT/pytest-gpu.log"
  grep -E '^(FAILED|ERROR)' "$OUT/pytest-gpu.log"
  record gpu-tests "rc=$rc $(for s in $(seq 0 $((shards - 1))); do tail -n 1 "$OUT/pytest-gpu-$s.log"; done | tr '\n' ';')"
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
  # shellcheck disable=SC2086 # BENCH_CPU_ARGS: e.g. --quick
  OUT=$OUT timeout 420 "$PY" bench/bench_cpu.py ${BENCH_CPU_ARGS-} 2>&1 | tee "$OUT/bench_cpu.log"
  record bench-cpu "rc=$? (table in bench_cpu.log, data in bench_cpu.json)"
fi

# compute-sanitizer (memcheck: out-of-bounds and misaligned accesses, leaks of device memory;
# racecheck: shared-memory hazards) over a representative subset of the GPU tests and over every
# example. Skipped: the test that faults on purpose and the foreign-array test (other libraries'
# kernels). SANITIZE_TESTS overrides the subset.
if has_step sanitize; then
  sanitizer=/usr/local/cuda/bin/compute-sanitizer
  tests=${SANITIZE_TESTS:-tests/python/test_kernels_gpu.py tests/python/test_simt_gpu.py tests/python/test_types_gpu.py \
    tests/python/test_array_views_gpu.py tests/python/test_atomic_structs_gpu.py}
  for tool in memcheck racecheck; do
    log="$OUT/sanitize-$tool.log"
    # shellcheck disable=SC2086 # $tests is a list of paths
    timeout 200 "$sanitizer" --tool "$tool" --error-exitcode 99 --target-processes all "$PY" -m pytest -q -m gpu \
      -p no:cacheprovider -k "not illegal_address and not foreign_arrays" $tests >"$log" 2>&1
    rc=$?
    for ex in examples/*.py; do
      echo "== $tool $ex"
      WEFT_TARGET=gpu timeout 60 "$sanitizer" --tool "$tool" --error-exitcode 99 "$PY" "$ex" || echo "FAILED: $ex (rc=$?)"
    done >>"$log" 2>&1
    # memcheck ends a process with "ERROR SUMMARY: N errors", racecheck with "RACECHECK SUMMARY: N hazards".
    errors=$(grep -cE '(ERROR SUMMARY: [1-9]|RACECHECK SUMMARY: [1-9])' "$log")
    clean=$(grep -cE '(ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards)' "$log")
    tail -n 5 "$log"
    record "$tool" "pytest rc=$rc; $clean clean process(es), $errors with errors, $(grep -c '^FAILED:' "$log") example(s) failed"
  done
fi

# The differential fuzzer's long run (tests/fuzz): generated programs on the GPU and the CPU target
# against the model, compiled to sm_90 cubins, a job per CPU; no batch starts after 200 s. Then the
# tile fuzzer's (the two timeouts together fit one 10-minute device call).
if has_step fuzz; then
  timeout 450 "$PY" -m tests.fuzz differential --long --seed "${FUZZ_SEED:-7}" --time-limit 200 \
    --json "$OUT/fuzz-differential.json" --work /tmp/weft-fuzz-differential 2>&1 | tee "$OUT/fuzz-differential.log"
  record fuzz "rc=$? $(tail -n 1 "$OUT/fuzz-differential.log")"
  # The tile fuzzer's long run (tests/fuzz/tiles.py): generated tile kernels on the GPU against
  # the CPU target and the CPU target against the NumPy model; no batch starts after 90 s.
  timeout 140 "$PY" -m tests.fuzz tiles --long --seed "${FUZZ_SEED:-7}" --time-limit 90 \
    --json "$OUT/fuzz-tiles.json" --work /tmp/weft-fuzz-tiles 2>&1 | tee "$OUT/fuzz-tiles.log"
  record fuzz-tiles "rc=$? $(tail -n 1 "$OUT/fuzz-tiles.log")"
fi

# The malformed-input fuzzer's long run: mutated kernels through weftc and the Python API.
if has_step malformed; then
  timeout 300 "$PY" -m tests.fuzz malformed --seed "${FUZZ_SEED:-7}" --mutants 1000 --jobs "$(nproc)" \
    --json "$OUT/fuzz-malformed.json" --work /tmp/weft-fuzz-malformed 2>&1 | tee "$OUT/fuzz-malformed.log"
  record malformed "rc=$? $(tail -n 1 "$OUT/fuzz-malformed.log")"
fi

# The disk cache under stress: 8 processes at once compile the same kernels against one cache
# directory while entries are corrupted, on the GPU (cubins) and on the CPU target (shared objects).
if has_step cachestress; then
  for target in gpu cpu; do
    timeout 200 "$PY" tools/cache_stress.py --processes 8 --waves 3 --target "$target" \
      --cache "/tmp/weft-cache-stress-$target" --json "$OUT/cachestress-$target.json" 2>&1 | tee "$OUT/cachestress-$target.log"
    record "stress-$target" "rc=$? $(grep '^cache stress' "$OUT/cachestress-$target.log")"
  done
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
