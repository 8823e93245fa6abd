"""``checks=False``: gradients without runtime checks, which numba compiles.

numba is in the test extra: these run on a fresh machine.
"""
import math
import os
import subprocess
import sys

import numba
import numpy as np
import pytest

import symdiff
from loop_functions import CASES, newton_sqrt


@pytest.mark.parametrize("name", sorted(CASES))
def test_njit_compiles_the_specialised_gradient_and_matches(name):
    f, args = CASES[name]
    checked = symdiff.grad(f)(*args)
    df = symdiff.grad(f, checks=False)
    plain = symdiff.specialised(df, *args)
    text = symdiff.source(df, *args)
    assert "_require" not in text and "_scalar_predicate" not in text
    assert "reversed(" not in text and "[::-1]" in text
    jitted = numba.njit(plain)
    assert math.isclose(jitted(*args), checked, rel_tol=1e-12, abs_tol=1e-15)
    assert math.isclose(df(*args), checked, rel_tol=1e-12, abs_tol=1e-15)
    other = tuple(1.1 * a for a in args)  # compiled once, run at other points
    assert math.isclose(jitted(*other), symdiff.grad(f)(*other), rel_tol=1e-12)


def test_value_and_grad_without_checks_compiles_too():
    f, args = CASES["ode"]
    vg = symdiff.value_and_grad(f, checks=False)
    value, g = numba.njit(symdiff.specialised(vg, *args))(*args)
    assert math.isclose(value, f(*args), rel_tol=1e-12)
    assert math.isclose(g, symdiff.grad(f)(*args), rel_tol=1e-12)


def test_checks_stay_by_default_and_are_cached_apart():
    checked = symdiff.grad(newton_sqrt)
    plain = symdiff.grad(newton_sqrt, checks=False)
    assert checked is not plain
    assert "_require_float" in symdiff.source(checked)
    assert "_require_float" not in symdiff.source(plain)
    with pytest.raises(symdiff.SymdiffError, match="dtype int"):
        checked(np.array(2))
    assert symdiff.grad(newton_sqrt, checks=False) is plain


def test_njit_of_the_checked_gradient_fails_naming_the_check():
    """What checks=False is for: checks and reversed() are what numba cannot type."""
    f, args = CASES["fixed_point"]
    checked = symdiff.specialised(symdiff.grad(f), *args)
    with pytest.raises(numba.core.errors.TypingError, match="Untyped global name"):
        numba.njit(checked)(*args)


def test_cli_no_checks_writes_plain_code(tmp_path, capsys):
    from symdiff.cli import main
    src = tmp_path / "loops.py"
    src.write_text("import numpy as np\n\n\ndef heron(a):\n    x = 0.5\n"
                   "    for i in range(20):\n        x = 0.5 * (x + a / x)\n    return x\n")
    assert main([f"{src}::heron", "--no-checks"]) == 0
    text = capsys.readouterr().out
    assert "def grad_heron(a):" in text and "_require" not in text
    assert "[::-1]" in text
    assert main([f"{src}::heron"]) == 0
    assert "_require_float" in capsys.readouterr().out


def test_a_module_written_for_floats_without_checks_compiles(tmp_path):
    # symdiff FILE::FUNC --shapes a= --no-checks: what a user ships to numba
    source = tmp_path / "heron.py"
    source.write_text("def heron(a):\n    x = 1.0\n    for i in range(50):\n"
                      "        x = 0.5 * (x + a / x)\n    return x\n")
    out = tmp_path / "heron_grad.py"
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run([sys.executable, os.path.join(root, "cli.py"), f"{source}::heron",
                           "--shapes", "a=", "--no-checks", "-o", str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    namespace = {}
    exec(compile(out.read_text(), str(out), "exec"), namespace)
    jitted = numba.njit(namespace["grad_heron"])
    assert math.isclose(jitted(2.0), 0.5 / math.sqrt(2.0), rel_tol=1e-12)


def _loop_over_rows(W, xs):  # `for x in xs`: xs could be a list, so containers dispatch
    h = np.zeros(W.shape[0])
    for x in xs:
        h = np.tanh(W @ h + x)
    return np.sum(h)


def test_specialised_reaches_the_plain_function_behind_a_container_dispatcher():
    rng = np.random.default_rng(3)
    args = (rng.normal(size=(3, 3)), rng.normal(size=(4, 3)))
    df = symdiff.grad(_loop_over_rows, wrt=0)
    plain = symdiff.specialised(df, *args)
    assert plain.__symdiff_source__ == symdiff.source(df, *args)
    assert plain.__name__ == "grad__loop_over_rows"
    np.testing.assert_array_equal(plain(*args), df(*args))
