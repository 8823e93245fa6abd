"""Second derivatives of functions with loops: symdiff differentiating the
tapes of its own generated code (`tape.append`, `for ... in reversed(tape)`)."""
import numpy as np
import pytest

import symdiff
from symdiff.errors import UnsupportedSyntaxError
from test_loops import CASES, horner, recurrence


def fd_jacobian(g, args, wrt, eps=1e-6):
    """d g(*args) / d args[wrt] by central differences (g's output first)."""
    x = np.asarray(args[wrt], dtype=float)
    cols = []
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = eps
        hi = list(args[:wrt]) + [x + step] + list(args[wrt + 1:])
        lo = list(args[:wrt]) + [x - step] + list(args[wrt + 1:])
        cols.append((np.asarray(g(*hi)) - np.asarray(g(*lo))) / (2 * eps))
    out = np.stack(cols, axis=-1)
    return out.reshape(out.shape[:-1] + x.shape)


def first(wrt):
    return wrt[0] if isinstance(wrt, tuple) else wrt


@pytest.mark.parametrize("f, args, wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_hessian_of_every_loop_pattern_matches_differences_of_the_gradient(f, args, wrt):
    k = first(wrt)
    args = tuple(np.asarray(a, dtype=float) if i == k else a for i, a in enumerate(args))
    with np.errstate(all="raise"):
        hess = symdiff.hessian(f, wrt=k)(*args)
    expected = fd_jacobian(symdiff.grad(f, wrt=k), args, k)
    np.testing.assert_allclose(hess, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f, args, wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_hessian_vector_products_by_forward_over_reverse(f, args, wrt):
    k = first(wrt)
    args = tuple(np.asarray(a, dtype=float) if i == k else a for i, a in enumerate(args))
    v = np.random.default_rng(5).normal(size=np.shape(args[k]))
    grad = symdiff.grad(f, wrt=k)
    value, hv = symdiff.jvp(grad, wrt=k)(*args, v)
    np.testing.assert_allclose(value, grad(*args), rtol=1e-12, atol=1e-12)
    hess = fd_jacobian(grad, args, k)
    expected = np.tensordot(hess, v, axes=np.ndim(v))
    np.testing.assert_allclose(hv, expected, rtol=1e-5, atol=1e-6)


def test_grad_of_grad_of_a_loop_in_a_scalar():
    c = np.array([0.5, -1.0, 2.0, 3.0])
    d2 = symdiff.grad(symdiff.grad(horner, wrt=1), wrt=1)
    x = 0.7  # p(x) = 0.5 x^3 - x^2 + 2x + 3, p'' = 3x - 2
    assert d2(c, x) == pytest.approx(3 * x - 2, rel=1e-12)


def test_second_derivative_of_a_recurrence_is_exact_to_rounding():
    rng = np.random.default_rng(2)
    W, h0, xs = rng.normal(size=(3, 3)) * 0.5, rng.normal(size=3), rng.normal(size=(5, 3))
    hess = symdiff.hessian(recurrence, wrt=1)(W, h0, xs)
    np.testing.assert_allclose(hess, hess.T, rtol=1e-12, atol=1e-14)
    expected = fd_jacobian(symdiff.grad(recurrence, wrt=1), (W, h0, xs), 1)
    np.testing.assert_allclose(hess, expected, rtol=1e-6, atol=1e-8)


def test_zero_and_varying_trip_counts_in_second_derivatives():
    d2 = symdiff.hessian(lambda x, n: _power_sum(x, n))
    x = np.array([0.3, -0.8])
    np.testing.assert_array_equal(d2(x, 0), np.zeros((2, 2)))
    for n in (1, 3, 5):  # sum_i sum_k x_i^k: second derivative sum_k k (k-1) x^(k-2)
        expected = np.diag([sum(k * (k - 1) * xi ** (k - 2) for k in range(2, n))
                            for xi in x])
        np.testing.assert_allclose(d2(x, n), expected, rtol=1e-12, atol=1e-12)


def _power_sum(x, n):
    s = 0.0
    p = np.ones_like(x)
    for k in range(n):
        s = s + np.sum(p)
        p = p * x
    return s


def test_the_second_derivative_code_has_loops_over_tapes():
    text = symdiff.source(symdiff.hessian(recurrence, wrt=1))
    assert "tape_bar.append(" in text          # adjoints handed back on a tape
    assert "for saved, h_1_bar in zip(reversed(" in text  # read in lockstep
    assert text.count("\n    for ") == 4     # two loops, each with its reverse
    compile(text, "hessian", "exec")


@pytest.mark.parametrize("f, args, wrt", CASES, ids=[c[0].__name__ for c in CASES])
def test_second_derivative_code_fits_79_columns(f, args, wrt):
    k = first(wrt)
    for made in (symdiff.vjp(symdiff.grad(f, wrt=k), wrt=k),
                 symdiff.jvp(symdiff.grad(f, wrt=k), wrt=k)):
        long = [line for line in symdiff.source(made).splitlines()
                if len(line) > 79 and "message='<symdiff:" not in line]
        assert not long, long  # (a check's message names the generated file)


def user_tape(x):
    tape = []
    s = 0.0
    for i in range(x.shape[0]):
        y = np.sin(x[i])
        tape.append((y, x[i]))
        s = s + y
    for y, xi in reversed(tape):
        s = s * 0.5 + y * xi
    return s


def test_a_user_written_tape_is_differentiated():
    x = np.array([0.4, -1.1, 2.0])
    grad = symdiff.grad(user_tape)
    np.testing.assert_allclose(grad(x), fd_jacobian(user_tape, (x,), 0), rtol=1e-6)
    np.testing.assert_allclose(symdiff.hessian(user_tape)(x),
                               fd_jacobian(grad, (x,), 0), rtol=1e-5, atol=1e-7)


def appends_in_a_branch(x):
    tape = []
    for i in range(x.shape[0]):
        if x[i] > 0:
            tape.append(x[i])
    s = 0.0
    for a in reversed(tape):
        s = s + a
    return s


def appends_twice(x):
    tape = []
    for i in range(x.shape[0]):
        tape.append(x[i])
        tape.append(x[i])
    s = 0.0
    for a in reversed(tape):
        s = s + a
    return s


def reads_twice(x):
    tape = []
    for i in range(x.shape[0]):
        tape.append(x[i])
    s = 0.0
    for a in reversed(tape):
        s = s + a
    for a in reversed(tape):
        s = s + a
    return s


def wrong_unpacking(x):
    tape = []
    for i in range(x.shape[0]):
        tape.append((x[i], i))
    s = 0.0
    for a, k, extra in reversed(tape):
        s = s + a
    return s


@pytest.mark.parametrize("f, words", [
    (appends_in_a_branch, "top level"), (appends_twice, "once"),
    (reads_twice, "read twice"), (wrong_unpacking, "unpack the 2 values"),
], ids=lambda v: getattr(v, "__name__", v))
def test_lists_outside_the_tape_idiom_are_located_errors(f, words):
    with pytest.raises(UnsupportedSyntaxError) as info:
        symdiff.grad(f)
    assert words in str(info.value)
    assert info.value.lineno is not None
    assert "hint" in str(info.value)


def scalar_recurrence(a, n):
    h = 0.5
    for _ in range(n):
        h = np.tanh(a * h + 0.3)
    return h


def test_third_derivatives_of_loops():
    c = np.array([0.5, -1.0, 2.0, 3.0])
    d3 = symdiff.grad(symdiff.grad(symdiff.grad(horner, wrt=1), wrt=1), wrt=1)
    assert d3(c, 0.7) == pytest.approx(3.0, rel=1e-12)   # 6 * 0.5
    d2 = symdiff.grad(symdiff.grad(scalar_recurrence))
    d3 = symdiff.grad(d2)
    eps = 1e-5
    for a in (0.4, -1.3):
        assert d3(a, 4) == pytest.approx((d2(a + eps, 4) - d2(a - eps, 4)) / (2 * eps),
                                         rel=1e-6)


def loop_in_a_branch(x0):
    if x0 < 0.5:
        v4 = x0
    else:
        v3 = x0
        for i in range(1):
            v3 = np.sqrt(v3)
        v4 = v3 * v3
    return np.sin(v4)


def test_hessian_of_a_loop_inside_a_branch():
    # reverse over reverse: the tape of the loop in the `else` is read by its
    # reverse loop under a later `if` on the same condition; the adjoints of
    # what it read must reach the forward loop (they were dropped)
    x = np.array(0.92923873)
    grad = symdiff.grad(loop_in_a_branch)
    expected = fd_jacobian(grad, (x,), 0)
    np.testing.assert_allclose(symdiff.hessian(loop_in_a_branch)(x), expected, rtol=1e-6)
    _, hv = symdiff.jvp(grad)(x, np.array(1.0))
    np.testing.assert_allclose(hv, expected, rtol=1e-6)


def tape_read_under_another_condition(x):
    tape = []
    y = x
    if np.sum(x) > 0:
        for i in range(2):
            y = np.sin(y)
            tape.append(y)
    s = x * 0.0
    if x[0] > 0:
        for t in reversed(tape):
            s = s + t * t
    return np.sum(s)


def test_a_tape_read_under_another_condition_is_refused_not_dropped():
    with pytest.raises(UnsupportedSyntaxError, match="another condition"):
        symdiff.grad(tape_read_under_another_condition)
