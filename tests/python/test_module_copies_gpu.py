"""Copies of one module on the GPU (marker `gpu`): each copy's kernels launch with its own struct
classes although they share one loaded module, and a reloaded module runs its edited source and
reports its new assert messages. Skipped where no GPU is usable.
"""

import pytest

import weft

# pytest collects these test functions again in this module, where `target` is "gpu".
from test_module_copies_cpu import (  # noqa: F401
    test_a_reloaded_module_launches_with_its_new_classes,
    test_a_reloaded_module_runs_its_edited_source,
    test_two_copies_of_a_module_launch_with_their_own_struct_classes,
)

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not weft.gpu_available(), reason="needs a usable GPU")]


@pytest.fixture(scope="module")
def target():
    return "gpu"
