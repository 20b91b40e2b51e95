"""weft's fuzzers: a differential fuzzer (generated programs on the CPU and GPU targets against a
model of DESIGN.md section 3, and compiled for sm_90) and a malformed-input fuzzer (mutated
kernels must give clean diagnostics). `python -m tests.fuzz --help` runs them."""
