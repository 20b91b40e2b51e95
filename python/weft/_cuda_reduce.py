"""numba-cuda's `cuda.reduce`: a reduction of a 1-d array by a binary function, compiled from the
user's function into weft kernels (one per dtype)::

    @cuda.reduce
    def sum_reduce(a, b):
        return a + b

    total = sum_reduce(array)              # or sum_reduce(array, init=1.5), res=, size=, stream=

As in numba, `init` (0 unless given) always takes part: the result is f(reduction, init), so a
product with the default init is 0. The order in which elements are combined is the kernels',
not left to right: the function should be associative and commutative.
"""

import numpy as np

from . import _runtime, block_dim, block_idx, grid_dim, kernel, shared_array, syncthreads, thread_idx

_BLOCK = 256  # threads per block, and the shared array of partial results of each
_MAX_BLOCKS = 64  # blocks of the first pass: the second pass reduces their results in one block


def _make_kernel(op, element_type):
    """The reduction kernel of `op` for arrays of `element_type` (a NumPy scalar type)."""

    @kernel
    def reduce_into(values, n, out, init, use_init):
        # Each block folds a grid-strided share of values[:n] into out[block]: first every thread
        # its own elements, then the threads' partial results in a tree. Threads with no element
        # take no part, so no identity element is needed. With use_init (one block), the result
        # is combined with init.
        partial = shared_array(_BLOCK, element_type)
        t = thread_idx.x
        i = block_idx.x * block_dim.x + t
        stride = grid_dim.x * block_dim.x
        if i < n:
            partial[t] = values[i]
            j = i + stride
            while j < n:
                partial[t] = op(partial[t], values[j])
                j += stride
        syncthreads()
        first = block_idx.x * block_dim.x
        count = min(block_dim.x, n - first) if first < n else 0
        while count > 1:
            half = (count + 1) // 2
            if t < count - half:
                partial[t] = op(partial[t], partial[t + half])
            syncthreads()
            count = half
        if t == 0:
            out[block_idx.x] = op(partial[0], init) if use_init else partial[0]

    return reduce_into


class Reduce:
    """numba's `cuda.Reduce` (`cuda.reduce`): `Reduce(f)(array)` reduces a 1-d array (NumPy or a
    device array) with the binary device function `f`, compiled once per dtype."""

    def __init__(self, functor):
        self._functor = functor
        self._kernels = {}
        self.__name__ = getattr(functor, "__name__", "reduce")
        self.__doc__ = getattr(functor, "__doc__", None)

    def _kernel(self, dtype: np.dtype):
        found = self._kernels.get(dtype)
        if found is None:
            found = self._kernels[dtype] = _make_kernel(self._functor, dtype.type)
        return found

    def __call__(self, arr, size=None, res=None, init=0, stream=0):
        """The reduction of `arr[:size]` combined with `init` (of arr's dtype). With `res` (a
        device array, or a NumPy array), the result is written to res[0] and None returned."""
        from ._arrays import DeviceArray, empty, to_device
        from ._weft import launch

        if len(arr.shape) != 1:
            raise TypeError("cuda.reduce takes a 1-d array")
        if size is not None:
            arr = arr[:size]
        dtype = np.dtype(arr.dtype)
        init = dtype.type(init)
        n = arr.shape[0]
        if n == 0:
            if res is not None:
                res[0] = init
                return None
            return init
        if not isinstance(arr, DeviceArray) and _runtime.runtime().default_target() == "gpu":
            arr = to_device(arr)
        reduce_into = self._kernel(dtype)
        blocks = min((n + _BLOCK - 1) // _BLOCK, _MAX_BLOCKS)
        partials = empty(blocks, dtype)
        launch(reduce_into, arr, n, partials, init, blocks == 1, grid=blocks, block=_BLOCK, stream=stream)
        if blocks > 1:
            launch(reduce_into, partials, blocks, partials, init, True, grid=1, block=_BLOCK, stream=stream)
        if res is None:
            return partials[0]
        res[0:1] = partials[0:1] if isinstance(res, DeviceArray) else partials[0:1].copy_to_host()
        return None

    def __repr__(self) -> str:
        return f"<weft.cuda.reduce of {self.__name__}>"


reduce = Reduce
