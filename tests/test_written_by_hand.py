"""Gradients of functions nobody tuned for, written as a careful person
writes them (issue 16): np.outer of vectors by two products, a variance's
gradient centred by the mean the function computed, one matrix product of a
sum where two shared a factor, constants of a forward product meeting the
gradient's, no leading new axis broadcasting adds anyway. Each gradient is
checked against central differences; the source for what it must not have."""
import re

import numpy as np
import scipy.special as scipy_special
import pytest

import symdiff
from numeric import numeric_grad

RNG = np.random.default_rng(31)


def planar_flow(u, w, b, z):
    h = np.tanh(z @ w + b)
    f = z + np.outer(h, u)
    psi = np.outer(1 - h ** 2, w)
    return np.sum(f ** 2) - np.sum(np.log(np.abs(1 + psi @ u)))


def batch_norm(x, gamma, beta):
    mu = np.mean(x, axis=0)
    var = np.var(x, axis=0)
    out = gamma * (x - mu) / np.sqrt(var + 1e-5) + beta
    return np.mean(out ** 2)


def layer_norm_rows(x):
    mu = x.mean(axis=1)
    var = x.var(axis=1)
    return np.sum(((x - mu[:, None]) / np.sqrt(var[:, None] + 1e-5)) ** 3)


def cholesky_logdet(A):
    L = np.linalg.cholesky(A @ A.T + 3.0 * np.eye(A.shape[0]))
    return 2.0 * np.sum(np.log(np.diag(L)))


def elastic_net(w, X, y, l1, l2):
    r = X @ w - y
    return 0.5 * r @ r / len(y) + l1 * np.sum(np.abs(w)) + 0.5 * l2 * w @ w


def polynomial_features(w, x, y):
    Phi = np.stack([x ** k for k in range(4)], axis=1)
    return np.mean((Phi @ w - y) ** 2)


def swapped_products(A, B):
    return np.sum(np.swapaxes(A, 0, 1) @ B) + np.sum(np.moveaxis(A, 0, -1) * B[0])


U, W = 0.3 * RNG.normal(size=3), RNG.normal(size=3)
Z = RNG.normal(size=(7, 3))
XB = RNG.normal(size=(12, 4))
A = RNG.normal(size=(4, 4))
XE, YE = RNG.normal(size=(12, 4)), RNG.normal(size=12)
CASES = {
    "planar_flow": (planar_flow, (U, W, 0.1, Z), (0, 1, 2)),
    "batch_norm": (batch_norm, (XB, RNG.normal(size=4), RNG.normal(size=4)), (0, 1, 2)),
    "layer_norm_rows": (layer_norm_rows, (XB,), (0,)),
    "cholesky_logdet": (cholesky_logdet, (A,), (0,)),
    "elastic_net": (elastic_net, (RNG.normal(size=4), XE, YE, 0.1, 0.2), (0,)),
    "polynomial_features": (polynomial_features, (RNG.normal(size=4), RNG.normal(size=9),
                                                  RNG.normal(size=9)), (0,)),
    "swapped_products": (swapped_products, (RNG.normal(size=(3, 4)), RNG.normal(size=(3, 3))),
                         (0, 1)),
}


@pytest.mark.parametrize("name", CASES)
def test_gradients_match_central_differences(name):
    f, args, wrt = CASES[name]
    grads = symdiff.grad(f, wrt=wrt)(*args)
    for k, g in zip(wrt, grads):
        np.testing.assert_allclose(g, numeric_grad(f, args, wrt=k), rtol=1e-6, atol=1e-8)


def _source(name):
    f, args, wrt = CASES[name]
    return symdiff.source(symdiff.grad(f, wrt=wrt), *args)


def _code(source):
    return "\n".join(line.split("#")[0] for line in source.split('"""')[-1].splitlines())


def test_outer_products_of_vectors_are_two_products():
    code = _code(_source("planar_flow"))
    assert "ravel" not in code and "reshape" not in code and ".shape" not in code, code


def test_a_variance_is_centred_by_the_functions_own_mean():
    code = _code(_source("batch_norm"))
    # the difference x - mu, once; no second mean with keepdims; no leading [None]
    assert code.count("x - mu") == 1 and "keepdims" not in code and "mu[None]" not in code, code


def test_a_mean_over_rows_is_read_as_a_column():
    code = _code(_source("layer_norm_rows"))
    assert "mean(axis=1, keepdims=True)" not in code and code.count("mean(") == 1, code


def test_two_products_with_a_common_factor_are_one():
    code = _code(_source("cholesky_logdet"))
    # (A @ A.T in the function; one product in the gradient, not two)
    assert code.count("@ A") == 2 and ".T) @ A" in code, code


def test_constants_of_a_forward_product_meet_the_gradients():
    code = _code(_source("elastic_net"))
    assert "l2 * w" in code and "0.5" not in code and " + t + " not in code, code


def test_an_array_stacked_from_a_loop_has_its_shape_known():
    """np.stack of a list a comprehension fills: rows of x's length, so the
    gradient of w in Phi @ w is a product, the mean's seed a number."""
    code = _code(_source("polynomial_features"))
    for helper in ("_matmul_adjoint", "_sum_to", "full_like", "_unreduce"):
        assert helper not in code, code
    assert "@ Phi" in code, code


def test_moved_and_swapped_axes_keep_their_shapes():
    code = _code(_source("swapped_products"))
    assert "_sum_to" not in code and "_matmul_adjoint" not in code, code


def chained_rosenbrock(x):
    total = 0.0
    for i in range(len(x) - 1):
        total += 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1 - x[i]) ** 2
    return total


def test_a_loop_adds_each_entrys_gradient_in_place():
    """``x[i]`` and ``x[i + 1]`` read in one iteration: two additions into the
    gradient array, not a zero-filled array per iteration (quadratic time)."""
    x = RNG.normal(size=7)
    df = symdiff.grad(chained_rosenbrock)
    np.testing.assert_allclose(df(x), numeric_grad(chained_rosenbrock, (x,)), rtol=1e-6)
    code = _code(symdiff.source(df, x))
    assert "zeros_like" in code and code.count("zeros_like") == 1, code
    assert "x_bar[i] += " in code and "x_bar[t_1] += " in code, code


def state_update(p):
    x, y, vx, vy = p[0], p[1], p[2], p[3]
    s = np.array([x + 0.1 * vx, y + 0.1 * vy, vx * 0.99, vy * 0.99 - 0.98])
    return np.sum(s ** 2)


def norms_of_a_vector(x, A):
    return np.linalg.norm(A @ x) ** 2 + np.linalg.norm(x, 1)


@pytest.mark.parametrize("f, args", [(state_update, (RNG.normal(size=4),)),
                                     (norms_of_a_vector, (RNG.normal(size=3),
                                                          RNG.normal(size=(5, 3))))])
def test_arrays_of_numbers_and_norms_of_vectors_have_known_shapes(f, args):
    """np.array of four numbers is a vector of four; the norm of a vector
    needs no test of its number of axes when the code runs."""
    df = symdiff.grad(f)
    np.testing.assert_allclose(df(*args), numeric_grad(f, args), rtol=1e-6, atol=1e-8)
    code = _code(symdiff.source(df, *args))
    for unwanted in ("_sum_to", "full_like", ".ndim", "_require_scalar", "if "):
        assert unwanted not in code, code


def huber_textbook(r, delta):
    a = np.abs(r)
    return np.sum(np.where(a <= delta, 0.5 * r * r, delta * (a - 0.5 * delta)))


def test_a_choice_between_two_expressions_is_one_line():
    """The gradient's two cases for a bound known only when the code runs."""
    r = 3.0 * RNG.normal(size=8)
    for delta in (1.0, -0.5):
        np.testing.assert_allclose(symdiff.grad(huber_textbook)(r, delta),
                                   numeric_grad(huber_textbook, (r, delta)), rtol=1e-6,
                                   atol=1e-9)
    code = _code(symdiff.source(symdiff.grad(huber_textbook), r, 1.0))
    assert "r_bar = np.clip(r, -delta, delta) if delta > 0 else " in code, code


def huber_branch_free(r, delta):
    a = np.abs(r)
    q = np.minimum(a, delta)
    return np.sum(0.5 * q ** 2 + delta * (a - q))


def test_a_bound_at_or_below_zero_is_the_minimum_it_bounds():
    """``sign(r) * minimum(|r|, delta)`` for ``delta <= 0`` is ``sign(r) * delta``
    (|r| >= 0): the other case of the clip needs no minimum computed."""
    r = np.concatenate([3.0 * RNG.normal(size=8), [0.0]])
    for delta in (1.0, 0.0, -0.5):
        np.testing.assert_allclose(symdiff.grad(huber_branch_free)(r, delta),
                                   numeric_grad(huber_branch_free, (r, delta)), rtol=1e-6,
                                   atol=1e-9)
    code = _code(symdiff.source(symdiff.grad(huber_branch_free), r, 1.0))
    assert "r_bar = np.clip(r, -delta, delta) if delta > 0 else np.sign(r) * delta" in code, \
        code


def test_a_conditional_expression_reads_what_its_side_of_an_earlier_if_made():
    """``v if c else w`` after ``if c: v = ...``: v is known on the side that
    reads it (as a statement ``if c:`` would read it); the other side never runs."""
    def f(x, c):
        positive = c > 0
        if positive:
            v = np.sin(x)
        w = x * 2.0
        return np.sum(v if positive else w)

    x = RNG.normal(size=4)
    for c in (1.0, -1.0):
        np.testing.assert_allclose(symdiff.grad(f)(x, c), numeric_grad(f, (x, c)), rtol=1e-6)


def moving_average(x, alpha):
    s = x[0]
    total = 0.0
    for t in range(1, len(x)):
        s = alpha * x[t] + (1 - alpha) * s
        total = total + (x[t] - s) ** 2
    return total


def test_a_gradient_after_a_loop_adds_into_the_loops_array():
    """``s = x[0]`` before the loop: its gradient goes into the array the loop
    added to, ``x_bar[0] += s_bar``, not a second zeroed array and a sum."""
    x = RNG.normal(size=7)
    df = symdiff.grad(moving_average, wrt=(0, 1))
    for got, k in zip(df(x, 0.3), (0, 1)):
        np.testing.assert_allclose(got, numeric_grad(moving_average, (x, 0.3), wrt=k),
                                   rtol=1e-6)
    code = _code(symdiff.source(df, x, 0.3))
    assert code.count("zeros_like") == 1 and "x_bar[0] += s_bar" in code, code


def kron_energy(A, B):
    return np.sum(np.kron(A, B) ** 2)


def softplus_regression(w, X, y):  # (X @ w written twice: two products, two gradients)
    return np.sum(np.logaddexp(0.0, X @ w) - y * (X @ w))


def test_kron_of_matrices_is_contracted_block_by_block():
    A, B = RNG.normal(size=(2, 3)), RNG.normal(size=(4, 2))
    df = symdiff.grad(kron_energy, wrt=(0, 1))
    for got, k in zip(df(A, B), (0, 1)):
        np.testing.assert_allclose(got, numeric_grad(kron_energy, (A, B), wrt=k), rtol=1e-6)
    code = _code(symdiff.source(df, A, B))
    assert "_kron_adjoint" not in code and code.count("np.einsum('ikjl,") == 2, code


def test_a_negated_operand_of_a_product_is_a_subtraction():
    args = (RNG.normal(size=3), RNG.normal(size=(8, 3)), RNG.random(8))
    df = symdiff.grad(softplus_regression)
    np.testing.assert_allclose(df(*args), numeric_grad(softplus_regression, args), rtol=1e-6)
    code = _code(symdiff.source(df, *args))
    assert "+ -" not in code and "(-y)" not in code and "-y @" not in code, code
    assert code.count("@ X") == 1 and " - y) @ X" in code, code  # (one product of the sum)


def filled_by_hand(W, xs):
    """A hand-written loop's own arrays: np.empty of a shape joined from tuples."""
    steps = xs.shape[0]
    h = np.zeros(W.shape[0])
    hs = np.empty((steps + 1,) + h.shape)
    hs[0] = h
    for t in range(steps):
        h = np.tanh(W @ h + xs[t])
        hs[t + 1] = h
    dzs = np.empty((steps,) + np.shape(h))
    for t in range(steps - 1, -1, -1):
        dzs[t] = hs[t + 1] * 2.0
    return np.sum(dzs.T @ hs[:steps]) + np.sum(dzs.T @ xs)


def test_an_array_of_a_joined_shape_has_that_shape():
    """``np.empty((steps,) + h.shape)`` is a matrix: its pattern was taken
    for one length (a vector), and the gradient raised a broadcast error."""
    W, xs = 0.5 * RNG.normal(size=(4, 4)), RNG.normal(size=(5, 4))
    for args in ((W, xs), (W, xs[:1])):
        np.testing.assert_allclose(symdiff.grad(filled_by_hand)(*args),
                                   numeric_grad(filled_by_hand, args), rtol=1e-6, atol=1e-8)


def gated_recurrence(Wz, Wh, xs):
    h = np.zeros(Wz.shape[0])
    for x in xs:
        z = 1.0 / (1.0 + np.exp(-(Wz @ np.concatenate([h, x]))))
        hc = np.tanh(Wh @ np.concatenate([h, x]))
        h = (1 - z) * h + z * hc
    return np.sum(h ** 2)


def test_a_concatenation_in_a_loop_keeps_the_states_shape():
    """``np.concatenate([h, x])`` is a vector: the state's gradient needs no
    broadcasting helper in the reverse loop."""
    args = (0.5 * RNG.normal(size=(3, 5)), 0.5 * RNG.normal(size=(3, 5)), RNG.normal(size=(4, 2)))
    df = symdiff.grad(gated_recurrence, wrt=(0, 1))
    for got, k in zip(df(*args), (0, 1)):
        np.testing.assert_allclose(got, numeric_grad(gated_recurrence, args, wrt=k), rtol=1e-6)
    code = _code(symdiff.source(df, *args))
    assert "_sum_to" not in code and "_matmul_adjoint_b" not in code, code


def frobenius_and_quadratic(A, x):
    return x @ A @ x + np.trace(A.T @ A)


def test_a_traces_gradient_through_a_product_makes_no_identity():
    """d trace(A^T A) / dA is 2 A: the identity a trace's gradient is, times
    a matrix, is that matrix (no ``_untrace``, no A^T A made for its shape)."""
    args = (RNG.normal(size=(3, 3)), RNG.normal(size=3))
    df = symdiff.grad(frobenius_and_quadratic, wrt=(0, 1))
    for got, k in zip(df(*args), (0, 1)):
        np.testing.assert_allclose(got, numeric_grad(frobenius_and_quadratic, args, wrt=k),
                                   rtol=1e-6, atol=1e-8)
    code = _code(symdiff.source(df, *args))
    assert "_untrace" not in code and "A.T @ A" not in code and ".T.T" not in code, code


def pseudo_inverse_fit(A, y):
    return np.sum((np.linalg.pinv(A) @ y) ** 2)


def test_a_pseudo_inverse_has_the_transposed_shape():
    args = (RNG.normal(size=(4, 3)), RNG.normal(size=4))
    df = symdiff.grad(pseudo_inverse_fit)
    np.testing.assert_allclose(df(*args), numeric_grad(pseudo_inverse_fit, args), rtol=1e-6)
    assert "_matmul_adjoint" not in _code(symdiff.source(df, *args))


def masked_attention(Q, K, mask):
    s = np.where(mask, Q @ K.T / np.sqrt(Q.shape[1]), -1e9)
    a = np.exp(s - s.max(axis=1, keepdims=True))
    return np.sum(a / a.sum(axis=1, keepdims=True) * s)


def test_a_length_under_a_where_is_not_guarded():
    """``np.sqrt(Q.shape[1])`` cannot leak NaN into a gradient (none flows
    through it): its operand is not guarded (``np.sqrt(np.where(mask, ...))``
    made an array of the mask's shape). As a divisor of a value with a
    gradient it is still guarded: a length may be 0."""
    args = (RNG.normal(size=(3, 2)), RNG.normal(size=(4, 2)), RNG.random((3, 4)) < 0.7)
    df = symdiff.grad(masked_attention, wrt=(0, 1))
    for got, k in zip(df(*args), (0, 1)):
        np.testing.assert_allclose(got, numeric_grad(masked_attention, args, wrt=k),
                                   rtol=1e-6, atol=1e-8)
    code = _code(symdiff.source(df, *args))
    assert "np.sqrt(np.where" not in code and "np.sqrt(Q.shape[1])" in code, code
    # (the product Q @ K.T is named after its factors as written: Q and K_t)
    assert "Q_K_t_bar" in code and "Q_T_K" not in code, code


def _in_single_precision(x):
    return np.sum(np.sin(x.astype(np.float32)).astype(np.float64) ** 2)


def test_a_cast_s_gradient_is_cast_back_where_the_dtypes_are_known():
    x = np.array([0.3, -1.2, 0.7, 2.0])
    source = symdiff.source(symdiff.grad(_in_single_precision), x)
    code = source.split('"""')[-1]
    # (was: np.full_like(y ** 2, 1.0) computed for its shape, casts by np.full_like)
    assert "full_like" not in code and ".astype(dtype='float32')" in code, source
    assert ".astype(dtype='float64')" in code, source
    g = symdiff.grad(_in_single_precision)(x)
    assert g.dtype == np.float64
    np.testing.assert_allclose(g, 2 * np.sin(x) * np.cos(x), rtol=1e-6)


def _half_row_norms(x):
    return 0.5 * np.sum(np.linalg.norm(x, axis=1))


def _cross_squared(a, b):
    return np.sum(np.cross(a, b) ** 2)


@pytest.mark.parametrize("f, args, lines", [
    (_half_row_norms, (np.random.default_rng(3).normal(size=(4, 3)),), ("x_bar = 0.5 * ",)),
    (_cross_squared, (np.random.default_rng(4).normal(size=(4, 3)),
                      np.random.default_rng(5).normal(size=3)), ("2.0 * np.cross(a, b)",)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_a_seed_spread_over_an_array_is_a_number(f, args, lines):
    # (was: np.full_like(norm_x, 0.5)[:, None] * ..., np.full_like(t ** 2, 1.0))
    source = symdiff.source(symdiff.grad(f, wrt=tuple(range(len(args)))), *args)
    code = source.split('"""')[-1]
    assert "full_like" not in code, source
    for line in lines:
        assert line in code, source
    for k in range(len(args)):
        ref = numeric_grad(f, list(args), wrt=k)
        got = symdiff.grad(f, wrt=k)(*args)
        np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-8)


def _flipped_products(X):
    return np.sum(np.flip(X, axis=0) * np.rot90(X) * X[::-1, ::-1])


def test_flips_and_quarter_turns_keep_known_shapes():
    X = np.random.default_rng(6).normal(size=(3, 3))
    source = symdiff.source(symdiff.grad(_flipped_products), X)
    code = source.split('"""')[-1]
    # (was: _sum_to at each product, np.full_like(t * X_part, 1.0) for a seed)
    assert "_sum_to" not in code and "full_like" not in code, source
    np.testing.assert_allclose(symdiff.grad(_flipped_products)(X),
                               numeric_grad(_flipped_products, [X], wrt=0), rtol=1e-7, atol=1e-9)


def _gaussian_on_a_grid(a):
    xx, yy = np.meshgrid(np.linspace(0, 1, 3), np.linspace(0, 1, 4))
    return np.sum(np.exp(-a * (xx ** 2 + yy ** 2)))


def _weighted_mean_of_squares(x, w):
    return np.average(x ** 2, weights=w)


@pytest.mark.parametrize("f, args, lines", [
    (_gaussian_on_a_grid, (0.7,), (").sum()",)),
    (_weighted_mean_of_squares, (np.array([0.3, -1.2, 2.0]), np.array([0.5, 1.0, 0.25])),
     ("= w.sum()",)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_grids_and_weights_of_known_shape_need_no_helpers(f, args, lines):
    # (was: _sum_to(..., t) of a number, and t * full_like(t, 1.0), for the grid;
    # _weights_along(w, t), np.full_like and two _sum_to for the weights)
    source = symdiff.source(symdiff.grad(f, wrt=tuple(range(len(args)))), *args)
    code = source.split('"""')[-1]
    assert "_sum_to" not in code and "full_like" not in code and "_weights_along" not in code, \
        source
    for line in lines:
        assert line in code, source
    for k in range(len(args)):
        np.testing.assert_allclose(symdiff.grad(f, wrt=k)(*args),
                                   numeric_grad(f, list(args), wrt=k), rtol=1e-7, atol=1e-9)


def _cross_entropy_of_expit(z, W, x):
    p = scipy_special.expit(z @ W)
    return -np.sum(x * np.log(p) + (1 - x) * np.log(1 - p))


def test_a_sigmoid_s_slope_times_a_cross_entropy_s_is_p_minus_y():
    # (was: p_bar = (1 - x) / (1 - p) - x / p; p * (1.0 - p) * p_bar: the sum
    # 1.0 - p the rule wrote is the forward value 1 - p, which cancels)
    rng = np.random.default_rng(8)
    z, W, x = rng.normal(size=3), rng.normal(size=(3, 4)), (rng.random(4) > 0.5) * 1.0
    source = symdiff.source(symdiff.grad(_cross_entropy_of_expit, wrt=1), z, W, x)
    code = "\n".join(line.split("#")[0] for line in source.split('"""')[-1].splitlines())
    assert "(p - x)" in code and "log" not in code and "1.0 - p" not in code, source
    np.testing.assert_allclose(symdiff.grad(_cross_entropy_of_expit, wrt=1)(z, W, x),
                               numeric_grad(_cross_entropy_of_expit, [z, W, x], wrt=1),
                               rtol=1e-7, atol=1e-9)
    # saturated: p is 1.0 exactly where x is 1; the slope is 0 there, not 0 / 0
    z_far = np.array([40.0, 0.0, 0.0])
    W_far = np.eye(3, 4)
    x_far = np.array([1.0, 0.0, 1.0, 0.0])
    g = symdiff.grad(_cross_entropy_of_expit, wrt=1)(z_far, W_far, x_far)
    assert np.all(np.isfinite(g)) and g[0, 0] == 0.0, g


def _student_t_affinities(Y):
    d = np.sum((Y[:, None] - Y[None]) ** 2, axis=-1)
    return np.sum(np.log1p(d))


def test_pairwise_differences_give_two_sums_of_one_gradient():
    Y = np.random.default_rng(9).normal(size=(5, 2))
    source = symdiff.source(symdiff.grad(_student_t_affinities), Y)
    code = source.split('"""')[-1]
    # (was: (-t_bar.sum(axis=0, keepdims=True))[0] + t_bar.sum(axis=1, keepdims=True)[:, 0])
    assert "keepdims" not in code and ".sum(axis=1) - " in code, source
    np.testing.assert_allclose(symdiff.grad(_student_t_affinities)(Y),
                               numeric_grad(_student_t_affinities, [Y], wrt=0), rtol=1e-7,
                               atol=1e-9)


def _rotated_about_z(theta, P):
    c, s = np.cos(theta), np.sin(theta)
    R = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    return np.sum((P @ R.T - 1.0) ** 2)


def test_a_matrix_built_from_rows_of_numbers_has_known_shape():
    P = np.random.default_rng(10).normal(size=(5, 3))
    df = symdiff.grad(_rotated_about_z, wrt=(0, 1))
    code = symdiff.source(df, 0.4, P).split('"""')[-1]
    # (was: _matmul_adjoint_a/b, np.full_like(t ** 2, 1.0), _sum_to(..., s) of numbers)
    assert "_matmul_adjoint" not in code and "full_like" not in code and "_sum_to" not in code
    assert "P_bar = t_bar @ R" in code and "row_bar" in code, code
    for k, arg in enumerate((0.4, P)):
        np.testing.assert_allclose(symdiff.grad(_rotated_about_z, wrt=k)(0.4, P),
                                   numeric_grad(_rotated_about_z, [0.4, P], wrt=k),
                                   rtol=1e-7, atol=1e-9)


def _squared_norm_penalty(w, X, y, lam):
    return np.sum((X @ w - y) ** 2) + lam * np.linalg.norm(w) ** 2


def _squared_row_norms(A):
    return np.sum(np.linalg.norm(A, axis=1) ** 2 * np.arange(1.0, 4.0))


def test_a_norm_squared_is_differentiated_without_the_norm():
    # (was: w * (2.0 * (norm_w * lam) / safe_norm) with safe_norm = np.where(...))
    rng = np.random.default_rng(11)
    w, X, y = rng.normal(size=3), rng.normal(size=(6, 3)), rng.normal(size=6)
    source = symdiff.source(symdiff.grad(_squared_norm_penalty), w, X, y, 0.1)
    code = "\n".join(line.split("#")[0] for line in source.split('"""')[-1].splitlines())
    assert "norm" not in code and "2.0 * lam * w" in code, source
    np.testing.assert_allclose(symdiff.grad(_squared_norm_penalty)(w, X, y, 0.1),
                               numeric_grad(_squared_norm_penalty, [w, X, y, 0.1], wrt=0),
                               rtol=1e-7, atol=1e-9)
    g = symdiff.grad(_squared_norm_penalty)(np.zeros(3), X, y, 0.1)   # the kink: finite
    np.testing.assert_allclose(g, 2.0 * (X @ np.zeros(3) - y) @ X)
    A = rng.normal(size=(3, 4))
    A[1] = 0.0
    np.testing.assert_allclose(symdiff.grad(_squared_row_norms)(A),
                               2.0 * A * np.arange(1.0, 4.0)[:, None])


def _mean_log_probability_of_labels(W, X, labels):
    logp = scipy_special.log_softmax(X @ W, axis=1)
    return -np.mean(logp[np.arange(len(labels)), labels])


def test_the_size_of_entries_picked_by_labels_is_the_labels_size():
    # (was: -1.0 / logp[arange, labels].size: the picked entries computed for their size)
    rng = np.random.default_rng(12)
    W, X, labels = rng.normal(size=(4, 3)), rng.normal(size=(6, 4)), rng.integers(0, 3, 6)
    code = symdiff.source(symdiff.grad(_mean_log_probability_of_labels), W, X, labels)
    assert "/ labels.size" in code and "labels].size" not in code, code
    np.testing.assert_allclose(symdiff.grad(_mean_log_probability_of_labels)(W, X, labels),
                               numeric_grad(_mean_log_probability_of_labels, [W, X, labels],
                                            wrt=0), rtol=1e-7, atol=1e-9)


def _area_under_squares(y, x):
    return np.trapezoid(y ** 2, x)


def _areas_down_the_columns(Y, x):
    return np.sum(np.trapezoid(np.sin(Y), x, axis=0))


def _areas_along_rows(Y, X):
    return np.sum(np.trapezoid(Y ** 2, X, axis=1) * np.arange(1.0, 5.0))


def _covariance_penalty(X):
    return np.sum(np.cov(X) ** 2) + np.cov(X[0]) + np.sum(np.cov(X, bias=True)[0])


@pytest.mark.parametrize("f, args", [
    (_area_under_squares, (np.random.default_rng(13).normal(size=6), np.linspace(0, 2, 6))),
    (_areas_down_the_columns, (np.random.default_rng(14).normal(size=(4, 3)),
                               np.array([0.0, 0.5, 1.5, 2.0]))),
    (_areas_along_rows, (np.random.default_rng(15).normal(size=(4, 5)),
                         np.cumsum(np.random.default_rng(16).random((4, 5)), axis=1))),
    (_covariance_penalty, (np.random.default_rng(17).normal(size=(3, 7)),)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_trapezoid_and_cov_are_numpy_s_values_and_differentiated(f, args):
    # (were refused: no derivative rule for `trapezoid`, `cov`)
    value, _ = symdiff.value_and_grad(f, wrt=tuple(range(len(args))))(*args)
    assert value == f(*args)
    for k in range(len(args)):
        np.testing.assert_allclose(symdiff.grad(f, wrt=k)(*args),
                                   numeric_grad(f, list(args), wrt=k), rtol=1e-6, atol=1e-8)
    for generic in (True, False):  # (the rank of the sample points decided when it runs)
        df = symdiff.grad(f, wrt=0)
        compile(symdiff.source(df) if generic else symdiff.source(df, *args), "f", "exec")


def test_a_covariance_s_gradient_needs_no_helper():
    X = np.random.default_rng(18).normal(size=(3, 7))
    code = symdiff.source(symdiff.grad(lambda X: np.sum(np.cov(X) ** 2)), X)
    assert "_sum_to" not in code and "_matmul_adjoint" not in code and \
        "reshape" not in code and "atleast" not in code, code


def smooth_l1(w, X, y):
    r = np.abs(X @ w - y)
    return np.sum(np.where(r < 1, 0.5 * r ** 2, r - 0.5))


def test_a_sign_times_a_magnitude_is_the_value():
    """``sign(t) * where(|t| < 1, |t|, 1)`` (the smooth L1 loss written with a
    named magnitude) is ``np.clip(t, -1.0, 1.0)``: ``sign(t) * |t|`` is ``t``."""
    X = RNG.normal(size=(7, 3))
    w = RNG.normal(size=3)
    y = X @ w + np.array([0.0, 1.0, -1.0, 0.5, -2.5, 3.0, -0.25])  # r = 0, and both kinks
    df = symdiff.grad(smooth_l1)
    np.testing.assert_allclose(df(w, X, y), np.clip(X @ w - y, -1.0, 1.0) @ X, rtol=1e-12)
    w_off = w + 0.1 * RNG.normal(size=3)
    np.testing.assert_allclose(df(w_off, X, y), numeric_grad(smooth_l1, (w_off, X, y)),
                               rtol=1e-6, atol=1e-8)
    code = _code(symdiff.source(df, w, X, y))
    assert "np.clip(" in code and "np.where" not in code and "np.sign" not in code, code


def logistic_logaddexp(w, b, X, y, lam):
    z = X @ w + b
    return np.mean(np.logaddexp(0.0, -y * z)) + 0.5 * lam * np.sum(w ** 2)


def test_a_negation_only_the_gradient_reads_is_not_computed():
    """``-y * z`` inside the loss: its derivative reads ``y * z`` (the sign
    goes into the sum it multiplies), so ``t = -y`` and ``t * z``, which only
    the gradient would read, are not computed."""
    X = RNG.normal(size=(9, 3))
    args = (RNG.normal(size=3), 0.3, X, np.sign(RNG.normal(size=9)), 0.1)
    df = symdiff.grad(logistic_logaddexp, wrt=(0, 1))
    for got, i in zip(df(*args), (0, 1)):
        np.testing.assert_allclose(got, numeric_grad(logistic_logaddexp, args, i), rtol=1e-6,
                                   atol=1e-9)
    code = _code(symdiff.source(df, *args))
    assert "-y" not in code and "np.tanh(0.5 * (y * z))" in code, code
    assert len([line for line in code.splitlines() if line.strip()]) <= 6, code


def _bce_divide(w, X, y):
    p = 1 / (1 + np.exp(-(X @ w)))
    return -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))


def _bce_reciprocal(w, X, y):
    p = np.reciprocal(1.0 + np.exp(-X.dot(w)))
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def _bce_power(w, X, y):
    p = (1 + np.exp(-(X @ w))) ** -1
    q = -p + 1
    return -np.mean(y * np.log(p) + (1 - y) * np.log(q))


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def _bce_helper(w, X, y):
    p = _sigmoid(X @ w)
    loss = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    return loss.mean()


@pytest.mark.parametrize("f", [_bce_divide, _bce_reciprocal, _bce_power, _bce_helper])
def test_the_sigmoid_written_out_then_cross_entropy_is_p_minus_y(f):
    """``1 - p`` with ``p = 1 / (1 + e)`` is ``e / (1 + e)``, and terms that
    are a monomial times each term of ``1 + e`` are it times ``1 + e``: the
    gradient is ``(p - y) / n @ X``, exact where ``1 - p`` has lost its digits
    (at z = 36, ``1 - p`` is 4% off ``exp(-36) * p``)."""
    X = RNG.normal(size=(9, 3))
    w = RNG.normal(size=3)
    y = (RNG.random(9) > 0.5) * 1.0
    df = symdiff.grad(f)
    np.testing.assert_allclose(df(w, X, y), numeric_grad(f, (w, X, y)), rtol=1e-6, atol=1e-9)
    code = _code(symdiff.source(df, w, X, y))
    assert "(p - y)" in code and "np.log" not in code and "1 - p" not in code, code
    far = np.array([[36.0, 0.0, 0.0], [-3.0, 0.0, 0.0]])  # p near 1 and y = 0; a usual p
    p = 1.0 / (1.0 + np.exp(-far[:, 0]))
    np.testing.assert_allclose(df(np.array([1.0, 0.0, 0.0]), far, np.zeros(2)),
                               p / 2 @ far, rtol=1e-14)


def _smooth_l1_beta(x, y, beta):  # PyTorch's SmoothL1Loss, beta a parameter
    d = np.abs(x - y)
    return np.mean(np.where(d < beta, 0.5 * d ** 2 / beta, d - 0.5 * beta))


def test_a_select_of_x_and_its_sign_times_a_shared_factor_is_a_scaled_clip():
    """``where(|t| < beta, t / (n beta), sign(t) / n)`` is ``clip(t, -beta,
    beta) / (beta n)`` where beta > 0 (the guard of the division by beta is
    beta where the mask holds), and ``sign(t) / n`` otherwise."""
    y = RNG.normal(size=8)
    x = y + np.array([0.0, 0.5, -0.5, 0.2, -0.3, 2.0, -1.5, 0.7])  # t = 0 and |t| = beta
    df = symdiff.grad(_smooth_l1_beta)
    for beta in (0.5, 0.0, -0.3):
        want = np.clip((x - y) / beta, -1, 1) / 8 if beta > 0 else np.sign(x - y) / 8
        np.testing.assert_allclose(df(x, y, beta), want, rtol=1e-14)
    off = x + 0.01
    np.testing.assert_allclose(df(off, y, 0.5), numeric_grad(_smooth_l1_beta, (off, y, 0.5)),
                               rtol=1e-6, atol=1e-9)
    code = _code(symdiff.source(df, x, y, 0.5))
    assert re.search(r"np\.clip\(t, -beta, beta\) / \((beta \* \w+|\w+ \* beta)\)", code) \
        and "np.where" not in code, code


def _log_cosh(w, X, y):
    return np.sum(np.log(np.cosh(X @ w - y)))


def test_sinh_over_cosh_is_tanh():
    """log cosh's derivative ``sinh(r) / cosh(r)`` is ``np.tanh(r)``: one call,
    and no inf / inf where cosh overflows (there the slope is 1)."""
    X = RNG.normal(size=(6, 3))
    w = RNG.normal(size=3)
    y = RNG.normal(size=6)
    df = symdiff.grad(_log_cosh)
    np.testing.assert_allclose(df(w, X, y), numeric_grad(_log_cosh, (w, X, y)), rtol=1e-6)
    code = _code(symdiff.source(df, w, X, y))
    assert "np.tanh(X @ w - y) @ X" in code and "sinh" not in code, code
    far = np.array([800.0, 0.0, 0.0, 0.0, 0.0, 0.0])  # cosh(800) is inf
    with np.errstate(over="ignore"):
        np.testing.assert_allclose(df(w, X, X @ w - far), np.tanh(far) @ X, rtol=1e-14)


def _squared_hinge(w, X, y):
    return np.sum(np.maximum(0, 1 - y * (X @ w)) ** 2) + 0.01 * w @ w


def test_a_share_of_maximum_times_what_vanishes_outside_it_is_that_value():
    """``maximum(0, t) * heaviside(t, 0.5)`` is ``maximum(0, t)``: zero where
    the step is not 1 (the tie included). A ReLU's share is one pass,
    ``np.heaviside(t, 0.5)``, not ``0.5 + 0.5 * np.sign(t)``."""
    X = RNG.normal(size=(8, 3))
    w = RNG.normal(size=3)
    y = np.sign(RNG.normal(size=8))
    y[0] = 1.0 / (X[0] @ w)  # a margin of exactly 1: t = 0, the kink
    df = symdiff.grad(_squared_hinge)
    want = -2.0 * (y * np.maximum(0, 1 - y * (X @ w))) @ X + 0.02 * w
    np.testing.assert_allclose(df(w, X, y), want, rtol=1e-13)
    w_off = w + 0.05
    np.testing.assert_allclose(df(w_off, X, y), numeric_grad(_squared_hinge, (w_off, X, y)),
                               rtol=1e-6, atol=1e-9)
    code = _code(symdiff.source(df, w, X, y))
    assert "heaviside" not in code and "sign" not in code, code
    relu = _code(symdiff.source(symdiff.grad(_relu_weighted), w, y[:3]))
    assert "x_bar = c * np.heaviside(x, 0.5)" in relu and "np.sign" not in relu, relu
    np.testing.assert_array_equal(symdiff.grad(_relu_weighted)(np.array([-1.0, 0.0, 2.0]), y[:3]),
                                  y[:3] * [0.0, 0.5, 1.0])


def _relu_weighted(x, c):
    return np.sum(np.maximum(x, 0.0) * c)


def _black_scholes(sigma, S, K, T, r):
    d1 = (np.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * np.sqrt(T))
    d2 = d1 - sigma * np.sqrt(T)
    return np.sum(S * scipy_special.ndtr(d1) - K * np.exp(-r * T) * scipy_special.ndtr(d2))


def test_a_forward_product_of_two_values_meets_the_gradient_s_factors():
    """``d1 / (sigma * sqrt_T)``'s derivative times ``sigma``: sigma cancels
    (vega's ``t_2 * T / sigma / sqrt_T * sigma`` is ``t_2 * (T / sqrt_T)``)."""
    args = (np.array([0.2, 0.3]), np.array([100.0, 90.0]), np.array([95.0, 100.0]), 1.0, 0.01)
    df = symdiff.grad(_black_scholes)
    np.testing.assert_allclose(df(*args), numeric_grad(_black_scholes, args), rtol=1e-6)
    code = _code(symdiff.source(df, *args))
    vega = next(line for line in code.splitlines() if "sigma_bar =" in line)
    assert "sigma * " not in vega and "/ t " not in vega and "T / sqrt_T" in vega, code


def _softplus_log(w, X, y):
    return np.sum(np.log(1 + np.exp(-y * (X @ w))))


def _softplus_log1p(w, X, y):
    m = y * X.dot(w)
    return np.log1p(np.exp(-m)).mean()


@pytest.mark.parametrize("f", [_softplus_log, _softplus_log1p])
def test_softplus_s_slope_is_written_without_its_forward_exp(f):
    """``e / (1 + e)`` with ``e = exp(-m)`` is ``1 / (1 + exp(m))``: the
    forward exp (only the gradient reads it) is not computed, and a margin
    where exp(-m) overflows has slope 1, not inf / inf."""
    X = RNG.normal(size=(7, 3))
    w = RNG.normal(size=3)
    y = np.sign(RNG.normal(size=7))
    df = symdiff.grad(f)
    np.testing.assert_allclose(df(w, X, y), numeric_grad(f, (w, X, y)), rtol=1e-6, atol=1e-9)
    code = _code(symdiff.source(df, w, X, y))
    assert code.count("np.exp(") == 1 and "1.0 + np.exp(" in code and "-y" not in code, code
    far = np.array([[-800.0, 0.0, 0.0], [1.0, 0.0, 0.0]])  # exp(800) is inf
    ones = np.ones(2)
    scale = 1.0 if f is _softplus_log else 0.5
    with np.errstate(over="ignore"):
        got = df(np.array([1.0, 0.0, 0.0]), far, ones)
    np.testing.assert_allclose(got, -scale * (1 / (1 + np.exp([-800.0, 1.0]))) @ far,
                               rtol=1e-14)
