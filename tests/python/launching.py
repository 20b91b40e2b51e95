"""Helpers the test modules share: launching a kernel on a target with NumPy arrays, and finding
a line of a kernel's source (for error locations)."""

import inspect

import numpy as np

import weft


def run(target, kernel, *args, grid=1, block=1, shared=0):
    """Launches `kernel` on `target` and leaves the results in the NumPy arrays of `args` (on the
    GPU they are copied to the device and back)."""
    if target == "gpu":
        dev = [weft.to_device(a) if isinstance(a, np.ndarray) else a for a in args]
        weft.launch(kernel, *dev, grid=grid, block=block, shared=shared, target="gpu")
        weft.synchronize()
        for a, d in zip(args, dev):
            if isinstance(a, np.ndarray):
                a[...] = d.copy_to_host()
    else:
        weft.launch(kernel, *args, grid=grid, block=block, shared=shared, target=target)
        weft.synchronize()


def line_of(function, text):
    """The file line of `function`'s source that contains `text`."""
    lines, first = inspect.getsourcelines(function)
    return first + next(i for i, line in enumerate(lines) if text in line)
