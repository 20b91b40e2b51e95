"""CompileError carries its diagnostics as values (weft.Diagnostic: severity, kind, file, line,
column, message, notes), converted from the C++ Diagnostic values, not parsed from the text."""

import numpy as np
import pytest

import weft
from cuda import device
from launching import line_of


def helper_with_two_errors(x):
    y = x + first_missing  # noqa: F821
    return y * second_missing  # noqa: F821


@device.kernel
def calls_a_broken_helper(a):
    a[0] = helper_with_two_errors(a[0])


def compile_error(kernel) -> weft.CompileError:
    with pytest.raises(weft.CompileError) as info:
        weft.launch(kernel, np.zeros(2, np.float32), grid=1, block=1, target="cpu")
    return info.value


def test_diagnostics_are_values_with_positions_and_notes():
    error = compile_error(calls_a_broken_helper)
    first, second = error.diagnostics
    assert all(isinstance(d, weft.Diagnostic) for d in error.diagnostics)
    for diagnostic, name in ((first, "first_missing"), (second, "second_missing")):
        line = line_of(helper_with_two_errors, name)
        source_line = open(__file__).read().splitlines()[line - 1]
        assert diagnostic.severity == "error" and diagnostic.kind == "UndefinedName"
        assert diagnostic.file == __file__ and diagnostic.line == line
        assert diagnostic.column == source_line.index(name) + 1  # 1-based, as printed
        assert name in diagnostic.message and "[" not in diagnostic.message
        (note,) = diagnostic.notes
        assert isinstance(note, weft.DiagnosticNote)
        assert note.message == "in function 'helper_with_two_errors' called from here"
        call = line_of(calls_a_broken_helper, "helper_with_two_errors(")
        assert (note.file, note.line) == (__file__, call)
        assert note.column == open(__file__).read().splitlines()[call - 1].index("helper_with_two_errors") + 1
        # Each diagnostic renders as the error's text does: location line, source, caret, notes.
        text = str(diagnostic)
        assert text.startswith(f"{__file__}:{line}:{diagnostic.column}: error: {diagnostic.message} [UndefinedName]\n")
        assert source_line.strip() in text and "^" in text and f"{__file__}:{call}:" in text
    assert str(error) == str(first) + str(second)


def test_syntax_errors_carry_their_position():
    with pytest.raises(weft.CompileError) as info:
        weft._weft.dump_ast("x = 1\ny = (1,\n", "broken.py")
    (diagnostic,) = info.value.diagnostics
    assert diagnostic.severity == "error" and diagnostic.kind
    assert diagnostic.file == "broken.py" and diagnostic.line >= 2 and diagnostic.column >= 1
    assert str(info.value) == str(diagnostic)
    assert f"[{diagnostic.kind}]" in str(info.value)


def test_an_error_without_a_position_is_one_unlocated_diagnostic():
    namespace = {"device": device}
    exec("def typed_at_the_prompt(a):\n    a[0] = 1\n", namespace)
    kernel = device.kernel(namespace["typed_at_the_prompt"])
    error = compile_error(kernel)
    (diagnostic,) = error.diagnostics
    assert (diagnostic.file, diagnostic.line, diagnostic.column, diagnostic.kind, diagnostic.notes) == (None, 0, 0, "", ())
    assert "source code is not available" in diagnostic.message and diagnostic.message == str(error)
    assert weft.CompileError().diagnostics == []
