STEPS="build" OUT=$OUT bash tools/gpu-check.sh > $OUT/check.log 2>&1; tail -2 $OUT/check.log
export WEFT_CACHE_DIR=/tmp/wc PATH=/opt/torch/.venv/bin:$PATH
cd tests/python && timeout 300 python -m pytest -q -m gpu -p no:cacheprovider test_tiles_gpu.py -x 2>&1 | tail -4; cd ../..
timeout 240 python bench/bench_tiles.py > $OUT/bench_tiles.log 2>&1; tail -16 $OUT/bench_tiles.log
