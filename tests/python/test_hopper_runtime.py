"""Launch attributes on the CPU target: launch(..., cluster=) is validated as on an H100 (the
cluster divides the grid, at most 8 blocks) and otherwise runs the grid as without it, since the
CPU's blocks share nothing a cluster could change. tests/python/test_hopper_runtime_gpu.py runs
the same launches on the GPU."""

import numpy as np
import pytest

import weft
from cuda import device


@device.kernel
def scale_by_block(a, out):
    i = device.tid(1)
    if i < a.size:
        out[i] = a[i] * 2.0 + device.block_idx.x


def _expected(a, block):
    return a * 2.0 + np.arange(a.size) // block


def test_a_cluster_launch_on_the_cpu_runs_the_whole_grid():
    a = np.random.default_rng(11).standard_normal(1000)
    for cluster in (2, (4,), (2, 1, 1), None):
        out = np.zeros_like(a)
        device.launch(scale_by_block, a, out, grid=8, block=128, cluster=cluster, target="cpu")
        np.testing.assert_array_equal(out, _expected(a, 128))


@pytest.mark.parametrize("grid, cluster, message", [
    (8, 3, r"kernel 'scale_by_block': cluster \(3, 1, 1\) does not divide grid \(8, 1, 1\) along x"),
    (8, (1, 2), r"cluster \(1, 2, 1\) does not divide grid \(8, 1, 1\) along y"),
    (16, 16, r"cluster \(16, 1, 1\) has 16 blocks; at most 8 are allowed"),
])
def test_a_cluster_that_does_not_fit_the_grid_is_a_value_error(grid, cluster, message):
    a = np.random.default_rng(12).standard_normal(64)
    with pytest.raises(ValueError, match=message):
        device.launch(scale_by_block, a, np.zeros_like(a), grid=grid, block=8, cluster=cluster, target="cpu")


def test_cluster_takes_ints_like_grid():
    a = np.random.default_rng(13).standard_normal(64)
    with pytest.raises(ValueError, match="cluster dimensions must be positive"):
        device.launch(scale_by_block, a, np.zeros_like(a), grid=8, block=8, cluster=0, target="cpu")
    with pytest.raises(TypeError, match="cluster must be an int or a tuple of 1 to 3 ints"):
        device.launch(scale_by_block, a, np.zeros_like(a), grid=8, block=8, cluster="2", target="cpu")
