"""Shared pytest configuration: tests marked `gpu` run only where weft finds a usable GPU, and the
random-data fixture every test module uses (the GPU modules re-collect CPU tests, so it lives here)."""

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


@pytest.fixture
def rng():
    """A fresh, unseeded generator: every run checks other random data."""
    return np.random.default_rng()
