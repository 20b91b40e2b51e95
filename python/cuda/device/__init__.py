"""`cuda.device`: the CUDA Python device specification's namespace, provided by weft.

`from cuda import device` gives the specification's entities (kernel, func, launch, ConstExpr,
the numeric types and the device intrinsics). `cuda` is a namespace package, shared with
cuda-python, so this folder has no `cuda/__init__.py`.
"""

import weft as _weft

globals().update({_name: getattr(_weft, _name) for _name in _weft.SPEC_NAMES})

__all__ = list(_weft.SPEC_NAMES)
