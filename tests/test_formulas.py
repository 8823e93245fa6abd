"""The derivative table shipped with symdiff, and compiling without SymPy."""
import os
import subprocess
import sys

import pytest

from symdiff.rules import formulas


@pytest.mark.parametrize("entry", list(formulas.shipped_keys()), ids=str)
def test_shipped_derivatives_are_what_sympy_derives_now(entry):
    # Fails when a formula changes without `python -m symdiff.rules.formulas`.
    import json
    with open(formulas.SHIPPED, encoding="utf-8") as handle:
        table = json.load(handle)
    assert table[formulas.key(*entry)] == formulas.derive(*entry)


def test_compiling_common_functions_does_not_import_sympy(tmp_path):
    code = (
        "import sys, numpy as np, symdiff\n"
        "def f(x, w):\n"
        "    z = np.tanh(x @ w) + np.sqrt(np.abs(x[0]) + 1.0)\n"
        "    return np.sum(np.where(z > 0, np.log1p(z ** 2), np.exp(z))) / 3.0\n"
        "symdiff.grad(f, wrt=(0, 1))(np.ones((2, 2)), np.ones(2))\n"
        "print('sympy' in sys.modules)\n")
    path = tmp_path / "no_sympy.py"
    path.write_text(code)
    env = dict(os.environ, SYMDIFF_CACHE_DIR=str(tmp_path / "cache"))
    out = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                         env=env, check=True).stdout
    assert out.strip() == "False"


def test_a_new_derivative_is_cached_for_the_next_process(tmp_path):
    code = ("import sys, numpy as np, symdiff\n"
            "def f(x):\n    return np.sum(x ** 0.75)\n"
            "print(symdiff.grad(f)(np.array([1.0, 16.0])).tolist(), 'sympy' in sys.modules)\n")
    path = tmp_path / "cached.py"
    path.write_text(code)
    env = dict(os.environ, SYMDIFF_CACHE_DIR=str(tmp_path / "cache"))
    runs = [subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                           env=env, check=True).stdout.split() for _ in range(2)]
    assert runs[0][-1] == "True" and runs[1][-1] == "False"
    assert runs[0][:-1] == runs[1][:-1]


def test_a_derivative_numpy_cannot_spell_is_a_located_error(monkeypatch):
    import numpy as np

    import symdiff
    from symdiff.errors import NoDerivativeRuleError
    import dataclasses

    from symdiff.ir.primitive import TABLE, Formula

    # the derivative of elliptic_k(a) holds elliptic_e(a): no NumPy or SciPy spelling
    monkeypatch.setitem(TABLE, "sinc", dataclasses.replace(TABLE["sinc"],
                                                           formula=Formula("elliptic_k(a)")))
    monkeypatch.setattr(formulas, "_memory", {})
    monkeypatch.setattr(formulas, "_loaded", True)

    def f(x):
        return np.sum(np.sinc(x))  # E:sinc

    with pytest.raises(NoDerivativeRuleError) as info:
        symdiff.grad(f)(np.ones(2))
    assert info.value.lineno == f.__code__.co_firstlineno + 1
    assert "sinc" in info.value.message and info.value.hint
