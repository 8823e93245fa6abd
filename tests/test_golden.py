"""Generated source, compared with reviewed golden files.

A change to a golden file is a deliberate, reviewed diff: regenerate with
``SYMDIFF_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py`` and read it.
"""
import ast
import os
import pathlib
import subprocess
import sys

import pytest

import symdiff
from golden_functions import GOLDEN, SPECIALISED_ARGS

HERE = pathlib.Path(__file__).parent / "golden"


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_generated_source_matches_golden_file(name):
    f, wrt = GOLDEN[name]
    text = symdiff.source(symdiff.grad(f, wrt=wrt))
    path = HERE / f"{name}.py"
    if os.environ.get("SYMDIFF_UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_specialised_source_matches_golden_file(name):
    """The source for the signature of the arguments it is called with."""
    f, wrt = GOLDEN[name]
    text = symdiff.source(symdiff.grad(f, wrt=wrt), *SPECIALISED_ARGS[name])
    path = HERE / "specialised" / f"{name}.py"
    if os.environ.get("SYMDIFF_UPDATE_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
    assert text == path.read_text()


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_specialised_source_needs_no_helper(name):
    """A reader who never saw symdiff finds nothing to look up: NumPy calls,
    operators and the user's own names only (no ``_sum_to``, ``_unreduce``,
    ``_matmul_adjoint_b``, ``_require_float``...)."""
    tree = ast.parse((HERE / "specialised" / f"{name}.py").read_text())
    called = {node.func.id for node in ast.walk(tree)
              if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    assert not {c for c in called if c.startswith("_")}, called


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_specialised_and_generic_gradients_agree(name):
    import numpy as np
    f, wrt = GOLDEN[name]
    args = SPECIALISED_ARGS[name]
    df = symdiff.grad(f, wrt=wrt)
    generic = symdiff.source(df)
    scope = {"np": np}
    exec(compile(generic, "generic", "exec"), scope)  # (its helpers: symdiff.runtime)
    got, expected = df(*args), None
    for helper in symdiff.runtime.helpers.__dict__:
        if helper.startswith("_") and not helper.startswith("__"):
            scope.setdefault(helper, getattr(symdiff.runtime.helpers, helper))
    expected = scope[f"grad_{f.__name__}"](*args)
    for a, b in zip(got if isinstance(got, tuple) else (got,),
                    expected if isinstance(expected, tuple) else (expected,)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_source_is_pep8_sized_and_free_of_noise(name):
    text = (HERE / f"{name}.py").read_text()
    compile(text, name, "exec")
    for line in text.splitlines():
        assert len(line) <= 79, line
        assert "+ 0.0" not in line and "* 1.0" not in line and "+ 0)" not in line


def test_generation_is_byte_identical_across_processes():
    script = ("import sys; sys.path.insert(0, %r); import symdiff; "
              "from golden_functions import GOLDEN; "
              "print(''.join(symdiff.source(symdiff.grad(f, wrt=w)) "
              "for f, w in GOLDEN.values()))" % str(HERE.parent))
    outputs = {subprocess.run([sys.executable, "-c", script], capture_output=True,
                              text=True, check=True,
                              env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout
               for seed in (1, 2)}
    assert len(outputs) == 1


def test_long_calls_wrap_aligned_else_with_a_hanging_indent():
    import ast
    from symdiff.emit.layout import wrap
    short = "    f(aaaa, " + ", ".join(f"'{'b' * 20}{k}'" for k in range(3)) + ")"
    aligned = wrap(short)
    assert len(aligned) == 2 and aligned[1].startswith(" " * 6 + "'")
    messages = ", ".join(f"'file.py:{k}:1: argument `{'w' * 20}{k}`'" for k in range(3))
    long = f"    _require_float(w0, w1, w2, messages=({messages}))"
    lines = wrap(long)
    assert lines[0] == "    _require_float(w0, w1, w2, messages=("
    assert all(line.startswith(" " * 8 + "'") for line in lines[1:])
    assert max(map(len, lines)) <= 79
    assert ast.dump(ast.parse("\n".join(lines).strip())) == ast.dump(ast.parse(long.strip()))
