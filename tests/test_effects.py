"""Operations run for what they do (print, logging, input checks): `Op.effect`.

The simplifier keeps them though nothing reads their result and never merges
two of them; a copy of one (a branch the reverse loop recomputes, a
backward_as shadow) is not one, so a print runs once, where the user wrote it;
and what they read is not a use that keeps a where-branch from being guarded.
"""
import dataclasses
import logging
import warnings

import numpy as np
import pytest

import symdiff
from numeric import assert_grad
from symdiff.ir.builder import Builder
from symdiff.ir.nodes import Function, Var
from symdiff.optimize import simplify

log = logging.getLogger("symdiff.tests.effects")
X = np.array([1.0, -1.0, 4.0])
NOISE = np.array([1.1, 0.9, 1.0])


def test_the_builder_marks_effects_and_copies_are_not_effects():
    b = Builder()
    x = Var("x")
    b.op("require_float", x)
    b.op("sqrt", x)
    check, sqrt = b.stmts
    assert check.effect and not sqrt.effect
    assert not dataclasses.replace(check).effect


def test_simplify_keeps_unread_effects_and_never_merges_two():
    b = Builder()
    x = Var("x")
    b.op("effect_call", x, callee="print")
    b.op("effect_call", x, callee="print")
    b.op("require_float", x)
    b.op("sqrt", x)          # unread: dropped
    fn = simplify(Function("f", [x], list(b.stmts), x))
    assert [op.prim for op in fn.body] == ["effect_call", "effect_call", "require_float"]


def test_a_check_of_values_checked_before_is_dropped():
    """A check cannot fail after one of the same kind passed for its values
    (a hessian's inner gradient checks its arguments again); one that may
    not have run (in a branch) does not count."""
    from symdiff.ir.nodes import Const, If
    b = Builder()
    x, y, c = Var("x"), Var("y"), Var("c")
    b.op("require_float", x, y, messages=("x", "y"))
    again = b.op("require_float", y, message="y again")
    b.op("require_float", x, c, messages=("x", "c"))  # c is new: kept
    b.op("require_float", Const(2.0), message="a float constant")  # dropped
    b.op("require_scalar", x, Const(2), message="x")  # kept, without the 2
    with b.block() as then:
        b.op("require_scalar", c, message="in a branch")
    branch = If(Const(True), then, [], [])
    b.stmts.append(branch)
    b.op("require_scalar", c, message="after the branch")  # kept
    b.op("require_scalar", c, message="once more")          # dropped
    fn = simplify(Function("f", [x, y, c], list(b.stmts), again))
    kept = [op.param("message") or op.param("messages") for op in fn.body
            if not isinstance(op, If)]
    assert kept == [("x", "y"), ("x", "c"), "x", "after the branch"]
    assert fn.body[2].args == (x,)
    assert fn.result is y  # the dropped check's value: the value it checked
    assert [op.param("message") for op in branch.then] == ["in a branch"]


def prints_twice(x):
    print("x:", x)
    print("x:", x)
    return np.sum(x * x)


def test_two_identical_prints_both_run(capsys):
    df = symdiff.grad(prints_twice)
    text = symdiff.source(df)
    assert text.count("print('x:', x)") == 2 and "_ = print" not in text
    np.testing.assert_allclose(df(X), 2 * X)
    assert capsys.readouterr().out == f"x: {X}\n" * 2


def prints_after_backward_as(y):
    z = symdiff.backward_as(np.sqrt(y * NOISE), np.sqrt(y))
    print("z is", z)
    return np.sum(z ** 2)


def test_a_print_downstream_of_backward_as_runs_once(capsys):
    y = np.array([1.0, 2.0, 3.0])
    prints_after_backward_as(y)
    expected = capsys.readouterr().out
    df = symdiff.grad(prints_after_backward_as)
    assert symdiff.source(df).count("print(") == 1
    np.testing.assert_allclose(df(y), 1.0)   # as if z were sqrt(y): d(y)/dy
    assert capsys.readouterr().out == expected


def sqrt_printed_in_loop(x):
    acc = 0.0
    for i in range(2):
        a = np.sqrt(x)
        if np.sum(x) > 0:
            print("a", a)
        acc = acc + np.sum(np.where(x > 0, a, 0.0))
    return acc


def test_a_printed_where_branch_in_a_loop(capsys):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        sqrt_printed_in_loop(X)
        expected = capsys.readouterr().out
        g = symdiff.grad(sqrt_printed_in_loop)(X)
    assert capsys.readouterr().out == expected   # the user's values, NaN included
    np.testing.assert_allclose(g, [1.0, 0.0, 0.5])
    assert_grad(sqrt_printed_in_loop, symdiff.grad(sqrt_printed_in_loop),
                (np.array([1.0, 0.5, 4.0]),))


def logged_branch(x):
    y = np.sqrt(x)
    log.warning(f"y = {np.round(y, 3)}")
    return np.sum(np.where(x > 0, y * 2.0, 0.0))


def test_logging_a_where_branch_keeps_its_gradient_finite(caplog):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        expected = f"y = {np.round(np.sqrt(X), 3)}"
        with caplog.at_level(logging.WARNING):
            g = symdiff.grad(logged_branch)(X)
    assert [r.getMessage() for r in caplog.records] == [expected]
    np.testing.assert_allclose(g, [1.0, 0.0, 0.5])


def printed_value_used_twice(x):
    y = np.sqrt(x)
    print(y)
    return np.sum(np.where(x > 0, y, 0.0)) + np.sum(y)


def test_a_printed_value_used_outside_the_where_is_not_guarded():
    """The where is not its only user: the gradient is NaN where sqrt is, as
    the function's value is (never hidden)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        g = symdiff.grad(printed_value_used_twice)(X)
    assert np.isnan(g[1]) and np.all(np.isfinite(g[[0, 2]]))


def test_effects_in_the_forward_pass_keep_their_order(capsys):
    def f(x):
        print("first")
        y = np.sqrt(x)
        print("second", y)
        return np.sum(np.where(x > 0, y, 0.0))
    x = np.array([4.0, 9.0])
    np.testing.assert_allclose(symdiff.grad(f)(x), [0.25, 1 / 6])
    assert capsys.readouterr().out == f"first\nsecond {np.sqrt(x)}\n"


def _checked(x, w):
    assert x.ndim == 1, "x must be a vector"
    assert np.all(w > 0), f"weights must be positive, got {np.min(w)}"
    assert x.shape == w.shape
    return np.sum(w * x ** 3)


def test_an_assert_runs_where_the_function_would_run_it():
    x, w = np.array([1.0, -2.0]), np.array([0.5, 1.5])
    df = symdiff.grad(_checked)
    np.testing.assert_allclose(df(x, w), 3 * w * x ** 2)
    with pytest.raises(AssertionError, match="weights must be positive, got -1.5"):
        df(x, -w)
    code = symdiff.source(df, x, w).split('"""')[-1]
    # (known true for the signature: left out; the message made only if the test fails)
    assert "ndim" not in code and "shape" not in code, code
    assert "assert np.all(w > 0), 'weights must be positive, got {}'.format(" in code, code
    generic = symdiff.source(df).split('"""')[-1]
    assert "assert np.ndim(x) == 1, 'x must be a vector'" in generic, generic
    # read back for second derivatives, the formatted message included
    np.testing.assert_allclose(symdiff.hessian(_checked)(x, w), np.diag(6 * w * x))
    with pytest.raises(AssertionError, match="x must be a vector"):
        symdiff.grad(_checked)(np.ones((2, 2)), np.ones((2, 2)))


def _printed_with_an_f_string(x):
    print(f"x = {np.sum(x)}")
    return np.sum(x ** 3)


def test_an_f_string_s_formatted_text_is_read_back_for_second_derivatives(capsys):
    # (was: `'x = {}'.format` calls a method of an object of type `str`)
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(symdiff.hessian(_printed_with_an_f_string)(x), np.diag(6 * x))
    assert "x = 3.0" in capsys.readouterr().out
