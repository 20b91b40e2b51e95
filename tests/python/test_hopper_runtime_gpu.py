"""Launch attributes on the GPU: a launch with cluster= goes through cuLaunchKernelEx on devices
of compute capability 9.0 and later (the cluster's blocks are co-scheduled; the results are those
of the same launch without it), and is a ValueError on older ones. The tests of what a cluster's
blocks see (%cluster_ctarank), of sm_90a code and of tensor maps are C++ tests on hand-written
CUDA units (build/tests/weft_tests --gtest_filter='HopperFixture.*'), which the last test runs."""

import pathlib
import subprocess

import numpy as np
import pytest

import weft
from cuda import device

from test_hopper_runtime import _expected, scale_by_block

pytestmark = pytest.mark.gpu


def _has_clusters():
    return weft._runtime.runtime().gpu_architecture() >= 90


def test_a_cluster_launch_on_the_gpu():
    if not _has_clusters():
        pytest.skip("thread block clusters need compute capability 9.0")
    a = np.random.default_rng(21).standard_normal(1000)
    for cluster in (2, (4, 1, 1), 8, None):
        out = weft.zeros(1000, np.float64, target="gpu")
        device.launch(scale_by_block, weft.to_device(a, target="gpu"), out, grid=8, block=128, cluster=cluster,
                      target="gpu")
        np.testing.assert_array_equal(out.copy_to_host(), _expected(a, 128))


def test_a_cluster_that_does_not_divide_the_grid_is_a_value_error_on_the_gpu():
    a = weft.to_device(np.random.default_rng(22).standard_normal(64), target="gpu")
    message = (r"cluster \(3, 1, 1\) does not divide grid" if _has_clusters()
               else r"the device has no thread block clusters")
    with pytest.raises(ValueError, match=message):
        device.launch(scale_by_block, a, weft.zeros(64, np.float64, target="gpu"), grid=8, block=8, cluster=3,
                      target="gpu")


def test_the_cpp_hopper_tests_pass_on_this_gpu():
    # sm_90a code (setmaxnreg), %cluster_ctarank in a 2-CTA cluster and a cp.async.bulk.tensor
    # load through an encoded tensor map are hand-written CUDA units in the C++ tests
    # (tests/cpp/test_hopper_runtime.cpp); this runs them where the GPU suite runs.
    binary = pathlib.Path(__file__).resolve().parents[2] / "build" / "tests" / "weft_tests"
    if not binary.exists():
        pytest.skip(f"the C++ tests are not built ({binary})")
    result = subprocess.run([str(binary), "--gtest_filter=HopperFixture.*:HopperUnit.*"], capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "[  SKIPPED ]" not in result.stdout or not _has_clusters(), result.stdout[-3000:]
