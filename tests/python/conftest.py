"""Shared pytest configuration: tests marked `gpu` run only where weft finds a usable GPU, and the
random-data fixture every test module uses (the GPU modules re-collect CPU tests, so it lives here)."""

import os
import zlib

import numpy as np
import pytest

import weft


def pytest_collection_modifyitems(config, items):
    if weft.gpu_available():
        return
    skip = pytest.mark.skip(reason="needs an NVIDIA GPU (weft.gpu_available() is False)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


# The suite's seed: fixed, so a failure reproduces; WEFT_TEST_SEED=N checks other data.
SEED = int(os.environ.get("WEFT_TEST_SEED", "20261124"))


def pytest_report_header(config):
    return f"weft test seed: {SEED} (WEFT_TEST_SEED)"


@pytest.fixture
def rng(request):
    """A generator seeded from the suite's seed and the test's id: each test draws its own
    reproducible data."""
    return np.random.default_rng([SEED, zlib.crc32(request.node.nodeid.encode())])
