"""Generated source, compared with reviewed golden files.

A change to a golden file is a deliberate, reviewed diff: regenerate with
``SYMDIFF_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py`` and read it.
"""
import os
import pathlib
import subprocess
import sys

import pytest

import symdiff
from golden_functions import GOLDEN

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
