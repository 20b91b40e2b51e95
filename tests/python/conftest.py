"""Shared pytest configuration: tests marked `gpu` run only where weft finds a usable GPU."""

import pytest

import weft


def pytest_collection_modifyitems(config, items):
    if weft.gpu_available():
        return
    skip = pytest.mark.skip(reason="needs an NVIDIA GPU (weft.gpu_available() is False)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
