"""weft's exception types. The C++ extension raises them by name, so they live in a module of
their own that imports nothing heavy."""

import re

# The first line of one rendered diagnostic: `file:line:col: error: message [Kind]`.
_DIAGNOSTIC_START = re.compile(r"^\S.*?:\d+:\d+: (?:error|warning): ", re.MULTILINE)


class CompileError(Exception):
    """A kernel (or a function it calls) is not valid device code.

    ``str(error)`` is the rendered diagnostics, each ``file:line:col: error: message [Kind]``
    followed by the source line, a caret and its notes; ``.diagnostics`` lists them one by one.
    """

    def __init__(self, text: str = ""):
        super().__init__(text)
        starts = [m.start() for m in _DIAGNOSTIC_START.finditer(text)]
        if not starts:
            self.diagnostics = [text] if text else []
        else:
            ends = starts[1:] + [len(text)]
            self.diagnostics = [text[s:e].rstrip("\n") for s, e in zip(starts, ends)]


class CudaError(RuntimeError):
    """A CUDA driver call or a kernel launch failed; the message names the kernel and the call."""


class InternalCompilerError(RuntimeError):
    """A bug in weft (an internal invariant failed), not in the user's program."""
