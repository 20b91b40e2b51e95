"""weft's exception types and the diagnostics a CompileError carries. The C++ extension raises
them by name, so they live in a module of their own that imports nothing heavy."""


class DiagnosticNote:
    """A note of a diagnostic ("inferred int32 from the assignment at line 12"): `file`, `line`
    and `column` (1-based, as printed) say where, or are None, 0, 0 for a note without a position."""

    __slots__ = ("file", "line", "column", "message")

    def __init__(self, file, line: int, column: int, message: str):
        self.file = file
        self.line = line
        self.column = column
        self.message = message

    def __repr__(self) -> str:
        return f"DiagnosticNote({self.file!r}, {self.line}, {self.column}, {self.message!r})"


class Diagnostic:
    """One diagnostic of a CompileError.

    `severity` ("error" or "warning"), `kind` (the registered kind printed in brackets, e.g.
    "UndefinedName"; "" for an error that has none), `file`, `line`, `column` (1-based, as
    printed; None, 0, 0 when it has no position), `message`, and `notes` (a tuple of
    DiagnosticNote). ``str(diagnostic)`` is its rendered text: the ``file:line:col:`` line, the
    source line with a caret, and the notes.
    """

    __slots__ = ("severity", "kind", "file", "line", "column", "message", "notes", "_text")

    def __init__(self, severity: str, kind: str, file, line: int, column: int, message: str,
                 notes: tuple = (), text: str = ""):
        self.severity = severity
        self.kind = kind
        self.file = file
        self.line = line
        self.column = column
        self.message = message
        self.notes = tuple(notes)
        self._text = text or f"{severity}: {message}\n"

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return (f"Diagnostic({self.severity!r}, {self.kind!r}, {self.file!r}, {self.line}, {self.column}, "
                f"{self.message!r}, notes={self.notes!r})")


class CompileError(Exception):
    """A kernel (or a function it calls) is not valid device code.

    ``str(error)`` is the rendered diagnostics, each ``file:line:col: error: message [Kind]``
    followed by the source line, a caret and its notes; ``.diagnostics`` lists them as
    Diagnostic values (an error raised with a message alone has one, without a position).
    """

    def __init__(self, text: str = "", diagnostics=None):
        super().__init__(text)
        if diagnostics is None:
            diagnostics = [Diagnostic("error", "", None, 0, 0, text)] if text else []
        self.diagnostics = list(diagnostics)


class CudaError(RuntimeError):
    """A CUDA driver call or a kernel launch failed; the message names the kernel and the call."""


class InternalCompilerError(RuntimeError):
    """A bug in weft (an internal invariant failed), not in the user's program."""
