"""jacobian, hessian, vjp and grad of grad: symdiff differentiating its own code."""
import numpy as np
import pytest

import symdiff
from check_grads import check_grads
from numeric import numeric_grad

RNG = np.random.default_rng(11)


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def rosenbrock_hessian(x):
    n = x.shape[0]
    H = np.zeros((n, n))
    for i in range(n - 1):
        H[i, i] += 1200 * x[i] ** 2 - 400 * x[i + 1] + 2
        H[i, i + 1] += -400 * x[i]
        H[i + 1, i] += -400 * x[i]
        H[i + 1, i + 1] += 200
    return H


def logistic(w, X, y):
    z = X @ w
    return np.sum(np.logaddexp(0.0, z) - y * z)


def logistic_hessian(w, X, y):
    p = 1 / (1 + np.exp(-(X @ w)))
    return X.T @ (X * (p * (1 - p))[:, None])


def test_hessian_of_rosenbrock_is_exact():
    x = RNG.normal(size=5)
    np.testing.assert_allclose(symdiff.hessian(rosenbrock)(x), rosenbrock_hessian(x),
                               rtol=1e-12, atol=1e-9)


def test_hessian_of_logistic_loss_is_exact():
    w, X = RNG.normal(size=3), RNG.normal(size=(8, 3))
    y = (RNG.uniform(size=8) > 0.5).astype(float)
    H = symdiff.hessian(logistic)(w, X, y)
    np.testing.assert_allclose(H, logistic_hessian(w, X, y), rtol=1e-10, atol=1e-12)


def test_hessian_source_is_readable_generated_code():
    text = symdiff.source(symdiff.hessian(rosenbrock))
    compile(text, "hessian", "exec")
    assert "def vjp_grad_rosenbrock(x, x_bar_bar):" in text


@pytest.mark.parametrize("f, d2f", [
    (lambda x: x ** 3 * np.sin(x),
     lambda x: 6 * x * np.sin(x) + 6 * x ** 2 * np.cos(x) - x ** 3 * np.sin(x)),
    (lambda x: np.exp(-x ** 2), lambda x: (4 * x ** 2 - 2) * np.exp(-x ** 2)),
    (lambda x: np.log1p(x ** 2) / (1 + x),
     None),
])
@pytest.mark.parametrize("x", [0.3, -1.2, 2.0])
def test_grad_of_grad_for_scalar_functions(f, d2f, x):
    second = symdiff.grad(symdiff.grad(f))(x)
    expected = d2f(x) if d2f else numeric_grad(symdiff.grad(f), (x,))
    assert second == pytest.approx(expected, rel=1e-7)


def test_jacobian_of_vector_functions():
    def built(x):
        return np.array([x[0] * x[1], np.sin(x[0]) + x[1] ** 2, np.exp(x[1])])

    def stacked(x):
        return np.stack([x * 2.0, np.cos(x)])

    def arithmetic(x, A):
        return np.tanh(A @ x)

    x = np.array([0.3, 2.0])
    A = RNG.normal(size=(3, 2))
    for f, args in ((built, (x,)), (stacked, (x,)), (arithmetic, (x, A))):
        J = symdiff.jacobian(f)(*args)
        value = f(*args)
        assert J.shape == np.shape(value) + x.shape
        for index in np.ndindex(np.shape(value)):
            row = numeric_grad(lambda *a: f(*a)[index], args)
            np.testing.assert_allclose(J[index], row, rtol=1e-6, atol=1e-8)


def test_jacobian_with_respect_to_several_arguments():
    def f(a, b):
        return a * b ** 2

    a, b = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    Ja, Jb = symdiff.jacobian(f, wrt=(0, 1))(a, b)
    np.testing.assert_allclose(Ja, np.diag(b ** 2))
    np.testing.assert_allclose(Jb, np.diag(2 * a * b))


def test_vjp_returns_value_and_product():
    def f(x):
        return np.sin(x) * x

    x, v = np.array([0.5, -1.0, 2.0]), np.array([1.0, 2.0, -3.0])
    value, product = symdiff.vjp(f)(x, v)
    np.testing.assert_allclose(value, f(x))
    np.testing.assert_allclose(product, v * (np.cos(x) * x + np.sin(x)))


def _jvp_cases():
    def layer(x, W):
        h = np.tanh(W @ x)
        return np.where(h > 0, np.sqrt(h), h ** 2)

    def recurrence(h, xs):
        for t in range(xs.shape[0]):
            h = np.tanh(h * 0.5 + xs[t])
        return np.sum(h ** 2)

    def branchy(x):
        if np.sum(x) > 0:
            y = np.max(x * np.sin(x))
        else:
            y = np.linalg.norm(x) + np.prod(x)
        return np.concatenate([x, np.stack([y, y * 2])])

    return [(layer, (RNG.normal(size=3), RNG.normal(size=(4, 3)))),
            (recurrence, (RNG.normal(size=3), RNG.normal(size=(4, 3)))),
            (branchy, (np.array([0.3, 1.2, -0.4]),)),
            (branchy, (np.array([-0.3, -1.2, 0.4]),))]


@pytest.mark.parametrize("f, args", _jvp_cases(), ids=lambda v: getattr(v, "__name__", ""))
def test_jvp_equals_jacobian_times_tangent(f, args):
    v = RNG.normal(size=np.shape(args[0]))
    value, tangent = symdiff.jvp(f)(*args, v)
    with np.errstate(invalid="ignore"):  # the user's own where warns; symdiff does not
        np.testing.assert_allclose(value, f(*args))
    J = symdiff.jacobian(f)(*args)
    expected = np.tensordot(J, v, axes=np.ndim(v))
    np.testing.assert_allclose(tangent, expected, rtol=1e-10, atol=1e-12)


def test_jvp_keeps_one_forward_loop():
    f = _jvp_cases()[1][0]
    text = symdiff.source(symdiff.jvp(f))
    code = [line.strip() for line in text.splitlines() if not line.strip().startswith("#")]
    assert sum(line.startswith("for ") for line in code) == 1


def two_outputs(x, A):
    return np.tanh(A @ x), np.sum(x ** 3)


def test_vjp_and_jacobian_of_a_function_with_several_outputs():
    x, A = RNG.normal(size=3), RNG.normal(size=(2, 3))
    v = (RNG.normal(size=2), 0.7)
    value, grad = symdiff.vjp(two_outputs)(x, A, v)
    t = np.tanh(A @ x)
    np.testing.assert_allclose(value[0], t, rtol=1e-15)
    np.testing.assert_allclose(grad, A.T @ ((1 - t ** 2) * v[0]) + 0.7 * 3 * x ** 2,
                               rtol=1e-12)
    J_tanh, J_cubes = symdiff.jacobian(two_outputs)(x, A)
    np.testing.assert_allclose(J_tanh, (1 - t ** 2)[:, None] * A, rtol=1e-12)
    np.testing.assert_allclose(J_cubes, 3 * x ** 2, rtol=1e-12)


def test_grad_of_a_function_with_several_outputs_is_a_clear_error():
    with pytest.raises(symdiff.SymdiffError) as info:
        symdiff.grad(two_outputs)
    assert type(info.value).__name__ == "NonScalarOutputError"
    assert "2 values" in str(info.value) and "jacobian" in str(info.value)


def coupled(w, b):
    return np.sum(np.tanh(w * b) ** 2) + np.sum(w ** 3 * b)


def test_hessian_with_respect_to_several_arguments_gives_the_blocks():
    w, b = RNG.normal(size=2), RNG.normal(size=2)
    (H_ww, H_wb), (H_bw, H_bb) = symdiff.hessian(coupled, wrt=(0, 1))(w, b)
    for block, (i, j) in ((H_ww, (0, 0)), (H_wb, (0, 1)), (H_bw, (1, 0)), (H_bb, (1, 1))):
        grad_i = symdiff.grad(coupled, wrt=i)
        expected = np.stack([numeric_grad(lambda *a: grad_i(*a)[k], (w, b), wrt=j)
                             for k in range(2)])
        np.testing.assert_allclose(block, expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(H_wb, H_bw.T, rtol=1e-12)


# ---- second derivatives through everything that changes how gradients flow ------
@symdiff.custom_gradient
def _softclip(x):
    def backward(g):
        return g * (1 - np.tanh(x) ** 2)
    return np.tanh(x), backward


_NOISE = np.random.default_rng(4).uniform(0.9, 1.1, 4)


def _h_where(x):
    return np.sum(np.where(x > 0, np.sqrt(x) * x, x ** 3))


def _h_kinks(x):
    return np.sum(np.maximum(x, 0.1) ** 2 * np.abs(x))


def _h_logsumexp(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def _h_custom(x):
    return np.sum(_softclip(x) ** 2)


def _h_stop(x):
    return np.sum(x ** 2 * symdiff.stop_gradient(x))


def _h_straight_through(x):
    return np.sum(symdiff.straight_through(np.round(x * 4) / 4, x) ** 2 * x)


def _h_backward_as(x):
    y = symdiff.backward_as(x * _NOISE, x)
    return np.sum(np.sin(y) * y)


def _h_override(x):
    return np.sum(np.floor(x * 4) ** 2 * x)


@pytest.mark.parametrize("f, overrides", [
    (_h_where, None), (_h_kinks, None), (_h_logsumexp, None), (_h_custom, None),
    (_h_stop, None), (_h_straight_through, None), (_h_backward_as, None),
    (_h_override, {"floor": "identity"})], ids=lambda v: getattr(v, "__name__", ""))
def test_hessian_is_the_jacobian_of_the_gradient_whatever_the_gradient_is(f, overrides):
    x = np.array([0.37, -0.81, 1.23, -0.14])  # away from kinks and rounding steps
    grad = symdiff.grad(f, overrides=overrides)
    expected = np.stack([numeric_grad(lambda v: grad(v)[k], (x,)) for k in range(4)])
    np.testing.assert_allclose(symdiff.hessian(f, overrides=overrides)(x), expected,
                               rtol=1e-6, atol=1e-7)


def _nested_ifs(x, y):
    if np.sum(y) > 100.0:
        z = x
    else:
        if np.sum(y) > 50.0:
            z = x * 2.0
        else:
            z = np.sin(x) * np.sum(y)
    return np.sum(z ** 2)


@pytest.mark.parametrize("scale", [1.0, 40.0, 80.0], ids=["inner else", "inner then",
                                                          "outer then"])
def test_second_derivatives_through_nested_ifs(scale):
    """Adjoints of values an inner branch defines reach it through the outer one
    (the fuzzer found them lost in reverse over reverse)."""
    x, y = np.array([0.3, -0.7, 1.1]), np.array([0.6, 0.2]) * scale
    grad = symdiff.grad(_nested_ifs, wrt=(0, 1))
    t = (np.array([0.5, -1.0, 0.25]), np.array([0.3, 0.8]))
    eps = 1e-6
    hi = grad(x + eps * t[0], y + eps * t[1])
    lo = grad(x - eps * t[0], y - eps * t[1])
    expected = [(h - l) / (2 * eps) for h, l in zip(hi, lo)]
    by_reverse = symdiff.vjp(grad, wrt=(0, 1))(x, y, t)[1]
    by_forward = symdiff.jvp(grad, wrt=(0, 1))(x, y, *t)[1]
    for got in (by_reverse, by_forward):
        for g, e in zip(got, expected):
            np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-8)


def _made_on_one_side(x, c):  # the long fuzz run's program, reduced
    if c > 0.0:
        v = np.sum(x ** 2) ** 1.5
    else:
        v = 0.25
    for i in range(2):
        v = 0.5 * v
    if c < -1.0:
        return 2.0
    return v


@pytest.mark.parametrize("c", [-2.0, -0.5, 0.5], ids=["neither side read", "else", "then"])
def test_second_derivatives_of_a_value_made_on_the_side_not_taken(c):
    """The gradient reads `v`'s parts in an `if c > 0.0` nested in the other
    side of `if c < -1.0`: the zero adjoint that side gives them is made under
    `c > 0.0` too (it raised UnboundLocalError where c <= -1.0)."""
    check_grads(_made_on_one_side, (np.array([1.3, 0.9, -0.7]), c), wrt=(0,))


def checked_twice(a, b):
    return np.sin(a * b) + a ** 3


def test_a_hessian_checks_each_argument_once():
    """The inner gradient's checks of the same values are dropped: they
    cannot fail after the outer ones passed."""
    inner = symdiff.grad(checked_twice, wrt=(0, 1))

    def first(a, b):
        return inner(a, b)[0]
    outer = symdiff.grad(first, wrt=(0, 1))
    text = outer.__symdiff_source__
    assert text.count("_require_float(") == 1 and text.count("_require_scalar(") == 1
    a, b = 0.7, -0.4
    expected = (-b * b * np.sin(a * b) + 6 * a, np.cos(a * b) - a * b * np.sin(a * b))
    np.testing.assert_allclose(outer(a, b), expected, rtol=1e-12)
    with pytest.raises(symdiff.SymdiffError):
        outer(np.ones(2), b)
    with pytest.raises(symdiff.SymdiffError):
        outer(1, b)


def _scaled_waves(x, a=2.0, *, scale=1.0):
    return np.sum(np.sin(a * x)) * scale


def test_hessian_and_jacobian_of_a_function_with_defaults():
    """Arguments left to their defaults, and keyword-only ones given by name:
    the pullback the Hessian calls takes them all in order (it took the
    cotangent for the default: TypeError, 'missing ... x_bar_bar')."""
    x = np.array([0.3, -1.1])
    expected = np.diag(-4.0 * np.sin(2.0 * x))
    np.testing.assert_allclose(symdiff.hessian(_scaled_waves)(x), expected, rtol=1e-12)
    np.testing.assert_allclose(symdiff.hessian(_scaled_waves)(x, 2.0, scale=3.0),
                               3.0 * expected, rtol=1e-12)
    np.testing.assert_allclose(symdiff.jacobian(symdiff.grad(_scaled_waves))(x, scale=0.5),
                               0.5 * expected, rtol=1e-12)
