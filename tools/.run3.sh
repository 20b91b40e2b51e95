STEPS="build" OUT=$OUT bash tools/gpu-check.sh > $OUT/check.log 2>&1; tail -1 $OUT/check.log
export WEFT_CACHE_DIR=/tmp/wc PATH=/opt/torch/.venv/bin:$PATH
cd tests/python
t() { timeout 330 python -m pytest -q -m gpu -p no:cacheprovider "$@"; }
t test_classic_closures.py test_classic_numpy.py > $OUT/g1.log 2>&1 &
t test_classic_builtins.py test_classic_function_values.py test_classic_const_arrays.py test_classic_complex.py > $OUT/g2.log 2>&1 &
t test_tiles_gpu.py > $OUT/g3.log 2>&1 &
t test_tiles_debug_gpu.py test_fuzz_tiles.py test_fuzz_regressions_gpu.py > $OUT/g4.log 2>&1 &
wait
for f in $OUT/g?.log; do tail -1 $f; grep -E "^(FAILED|ERROR)" $f | head -5; done
cd ../..
timeout 200 python bench/bench_tiles.py > $OUT/bench_tiles.log 2>&1; tail -16 $OUT/bench_tiles.log
