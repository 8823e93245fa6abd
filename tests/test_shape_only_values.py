"""No value computed only for its shape, no array made only to be broadcast,
in a gradient specialised for its arguments: a mean's seed is a number, the
size of a reduction comes from the lengths of the axes it keeps, the
gradient of ``x[None, :, :]`` is a plain sum, a log-sum-exp's gradient
reads scipy's value. Reference derivatives: central differences."""
import numpy as np
import pytest
import scipy.special as scipy_special
import scipy.stats

import symdiff
from check_grads import check_grads
from numeric import numeric_grad

RNG = np.random.default_rng(11)
A = RNG.normal(size=(5, 3))
Y = np.eye(3)[[0, 2, 1, 1, 0]]
M = RNG.normal(size=(3, 2))
X = RNG.normal(size=(6, 2))


def cross_entropy(a, y):
    log_probs = a - scipy_special.logsumexp(a, axis=1, keepdims=True)
    return -np.mean(np.sum(y * log_probs, axis=1))


def negated_lse(a):
    return -np.sum(scipy_special.logsumexp(a, axis=1))


def new_axis_first(means, x):
    return np.sum(np.sin(x[:, None, :] - means[None, :, :]) ** 2)


@pytest.mark.parametrize("f, args", [(cross_entropy, (A, Y)), (negated_lse, (A,)),
                                     (new_axis_first, (M, X))])
def test_gradients_match_central_differences(f, args):
    df = symdiff.grad(f)
    np.testing.assert_allclose(df(*args), numeric_grad(f, args), rtol=1e-6, atol=1e-8)
    source = symdiff.source(df, *args)
    for helper in ("full_like", "_sum_to", "_unreduce", "zeros_like", "[0, :, :]"):
        assert helper not in source, source


def test_a_mean_of_row_sums_reads_no_row_sum():
    source = symdiff.source(symdiff.grad(cross_entropy), A, Y)
    assert "y.shape[0]" in source and ".sum(axis=1).size" not in source
    code = "\n".join(line.split("#")[0] for line in source.split('"""')[-1].splitlines())
    # the value only the gradient reads, once, NumPy's way (optimize/gradient_only.py)
    assert "logsumexp(" not in code and code.count(".max(axis=1, keepdims=True)") == 1, code


def test_the_gradient_of_a_new_axis_is_a_sum():
    source = symdiff.source(symdiff.grad(new_axis_first), M, X)
    # (summed over the new axis: with the product, an einsum; optimize/summed_products.py)
    assert ".sum(axis=0)" in source or "einsum('abc,abc->bc'" in source, source


# ---- a sum of a function's values: the function is not computed for the seed's shape ----
def _summed_reshape(a):
    return np.sum(np.reshape(a, (3, 5)) * 2.0)


def _summed_moves(a):  # np.sum's gradient through entries moved round: the same number
    return np.sum(np.flip(np.roll(a.T, 2), axis=0))


def _summed_joins(a):  # each entry of a join is one of an operand's
    return np.sum(np.vstack([a, np.stack([a[0], a[1]])])) + np.sum(np.hstack([a, a ** 2]))


def _summed_contractions(a, m):  # tensordot's shape from the arguments': np.full
    return np.sum(np.tensordot(a, m, axes=1)) + np.sum(np.sin(np.inner(a, m.T)))


def _summed_var(a):
    return np.sum(np.var(a))


def _summed_logdet(k):
    return np.sum(np.linalg.slogdet(k)[1])


def _summed_log_densities(mean, cov, x):
    return np.sum(scipy.stats.multivariate_normal.logpdf(x, mean, cov))


_SPD = A.T @ A + np.eye(3)


@pytest.mark.parametrize("f, args, call", [
    (_summed_reshape, (A,), "reshape("), (_summed_moves, (A,), "roll("),
    (_summed_joins, (A,), "stack("), (_summed_contractions, (A, M), "tensordot("),
    (_summed_var, (A,), "var("), (_summed_logdet, (_SPD,), "slogdet("),
    (_summed_log_densities, (RNG.normal(size=3), _SPD, RNG.normal(size=(4, 3))), "logpdf(")])
def test_a_summed_function_is_not_computed_for_its_gradient_s_shape(f, args, call):
    df = symdiff.grad(f)
    got, expected = df(*args), numeric_grad(f, args)
    if len(args) == 1:
        got, expected = (got,), (expected,)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-7)
    source = symdiff.source(df, *args)
    code = "\n".join(line.split("#")[0] for line in source.split('"""')[-1].splitlines())
    assert call not in code and "full_like(np." not in code, source
    assert "_adjoint" not in code, source  # (the contractions' helpers: einsums written out)


def _running_sum_mean(x):
    return np.mean(np.cumsum(x) ** 2)


def _running_sum_over(x, n):
    c = np.cumsum(x, axis=-1)
    return np.sum(c ** 2) / n


@pytest.mark.parametrize("f, args", [(_running_sum_mean, (RNG.normal(size=7),)),
                                     (_running_sum_mean, (RNG.normal(size=(3, 4)),)),
                                     (_running_sum_over, (RNG.normal(size=(3, 4)), 4.0))])
def test_a_running_sum_keeps_floats_so_a_seed_folds_into_its_gradient(f, args):
    """cumsum keeps a float operand's dtype: the mean's seed is a number in
    the arithmetic, not np.full_like of the squares; a vector's running sum
    needs no reshape back."""
    df = symdiff.grad(f, wrt=0)
    np.testing.assert_allclose(df(*args), numeric_grad(lambda x: f(x, *args[1:]), args[:1]),
                               rtol=1e-6, atol=1e-8)
    source = symdiff.source(df, *args)
    assert "full_like" not in source and "_sum_to" not in source
    assert ("reshape" in source) == (np.ndim(args[0]) == 2 and f is _running_sum_mean)


# ---- a triangle keeps its matrix's shape: no _sum_to, no value made for its shape ----
_SQUARE = RNG.normal(size=(4, 4))


def _upper_of_a_ratio(a):      # the pairwise-energy form: the mask meets the arithmetic
    return np.sum(np.triu(1.0 / (2.0 + np.cos(a)), 1))


def _lower_squared(a):         # tril(2.0 * tril(a)): one mask
    return np.sum(np.tril(a) ** 2)


def _mean_of_upper(a):
    return np.mean(np.triu(a * a))


def _stacked_lower(b):         # a stack of matrices: the last two axes
    return np.sum(np.tril(b ** 2, -1))


@pytest.mark.parametrize("f, x", [(_upper_of_a_ratio, _SQUARE), (_lower_squared, _SQUARE),
                                  (_mean_of_upper, _SQUARE),
                                  (_stacked_lower, RNG.normal(size=(2, 3, 3)))])
def test_a_triangle_s_gradient_is_one_mask(f, x):
    df = symdiff.grad(f)
    np.testing.assert_allclose(df(x), numeric_grad(f, (x,)), rtol=1e-6, atol=1e-7)
    source = symdiff.source(df, x)
    code = "\n".join(line.split("#")[0] for line in source.split('"""')[-1].splitlines())
    for helper in ("_sum_to", "full_like", "ones_like", ").size"):  # (a.size, not triu(.).size)
        assert helper not in code, source
    assert code.count("np.triu(") + code.count("np.tril(") == 1, source


def test_a_triangle_of_a_vector_is_summed_back():
    def upper_of_vector(v):    # np.triu of a vector: a matrix, summed back to the vector
        return np.sum(np.triu(np.sin(v)) * np.arange(4.0))
    v = RNG.normal(size=4)
    df = symdiff.grad(upper_of_vector)
    np.testing.assert_allclose(df(v), numeric_grad(upper_of_vector, (v,)), rtol=1e-6, atol=1e-7)


# ---- a number spread over an array and summed back: the number times the size ----
def _negative_binomial(theta, y):  # r, a number, broadcast against y
    r = np.exp(theta[0])
    return -np.sum(scipy_special.gammaln(y + r) - scipy_special.gammaln(r) + r * np.log(y))


def _summed_twice(c, y):
    return np.sum(np.sum(np.cos(c) - y, axis=0))


def _mean_of_a_shift(c, y):        # the mean's 1 / n, summed over n entries: 1
    return np.mean(y * 2.0 - np.sin(c))


@pytest.mark.parametrize("f, args", [(_negative_binomial, (np.array([0.3, 0.1]), A[0] ** 2 + 1)),
                                     (_summed_twice, (0.7, A)), (_mean_of_a_shift, (0.7, A))])
def test_a_number_spread_and_summed_is_a_product_with_the_size(f, args):
    df = symdiff.grad(f)
    np.testing.assert_allclose(df(*args), numeric_grad(f, args), rtol=1e-6, atol=1e-7)
    source = symdiff.source(df, *args)
    code = "\n".join(line.split("#")[0] for line in source.split('"""')[-1].splitlines())
    for helper in ("full_like", "np.full(", "_unreduce", "(-"):
        assert helper not in code, source
    assert code.count(".sum(") <= 2, source  # (of digamma(y + r) and log(y): none of a number)


def log_sum_exp_minus_picked(W, X, y):
    z = X @ W
    lse = np.log(np.sum(np.exp(z), axis=1))
    return np.mean(lse - z[np.arange(len(y)), y])


def test_a_value_made_from_a_reduction_is_not_computed_for_its_size():
    """``np.mean(lse - ...)`` with ``lse = np.log(np.sum(...))``: the mean's
    size is the length of the axis the sum keeps (``z.shape[0]``), not
    ``lse.size``, which kept the log computed for nothing."""
    args = (RNG.normal(size=(4, 3)), RNG.normal(size=(6, 4)), np.array([0, 2, 1, 1, 0, 2]))
    df = symdiff.grad(log_sum_exp_minus_picked)
    source = symdiff.source(df, *args)
    np.testing.assert_allclose(df(*args), numeric_grad(log_sum_exp_minus_picked, list(args)),
                               rtol=1e-6, atol=1e-8)
    code = [line.split("#")[0] for line in source.splitlines()]
    assert not any("np.log" in line or "lse.size" in line for line in code), source


def positional_weights(x, w):
    return np.sum(np.exp(np.arange(4.0) * x) * w)


def test_an_arange_of_numbers_has_a_known_length():
    """``np.arange(4.0) * x``: four entries, not one, so the product has x's
    shape and its gradient needs no ``_sum_to`` and no ``np.full_like`` of a
    product made for its shape."""
    x, w = RNG.normal(size=4), RNG.normal(size=4)
    df = symdiff.grad(positional_weights)
    source = symdiff.source(df, x, w)
    assert "_sum_to" not in source and "full_like" not in source, source
    np.testing.assert_allclose(df(x, w), numeric_grad(positional_weights, [x, w]), rtol=1e-6,
                               atol=1e-8)


def spring_energy(x, k):
    return 0.5 * np.sum(k * (x[1:] - x[:-1] - 1.0) ** 2)


def test_a_named_length_broadcast_with_an_unknown_one_is_the_name():
    """``k * d`` with k of a length the signature names and d = x[1:] - x[:-1]
    of a length it does not know: the product has k's length (d's is 1 and
    broadcasts, or it is k's, or NumPy raises), so the sum's seed is not
    spread over a product made for its shape (was ``np.full_like(k * t_1,
    0.5)``)."""
    x, k = np.cumsum(RNG.random(6) + 0.5), RNG.random(5) + 0.5
    df = symdiff.grad(spring_energy, wrt=(0, 1))
    source = symdiff.source(df, x, k)
    assert "full_like(k *" not in source, source
    for j in (0, 1):
        np.testing.assert_allclose(df(x, k)[j], numeric_grad(spring_energy, [x, k], wrt=j),
                                   rtol=1e-6, atol=1e-8)


def ce_logsumexp_labels(W, X, y):
    scores = X @ W
    log_probs = scores - scipy_special.logsumexp(scores, axis=1, keepdims=True)
    return -np.mean(log_probs[np.arange(len(y)), y])


def ce_shift_labels(W, X, y):
    scores = X @ W
    scores = scores - scores.max(axis=1, keepdims=True)
    log_probs = scores - np.log(np.exp(scores).sum(axis=1, keepdims=True))
    return -log_probs[np.arange(X.shape[0]), y].sum() / X.shape[0]


@pytest.mark.parametrize("f", [ce_logsumexp_labels, ce_shift_labels])
def test_a_value_read_for_its_shape_is_read_from_one_computed_anyway(f):
    """The gradient of ``log_probs[np.arange(n), y]`` is zeros of its shape
    with the picked entries set: ``np.zeros_like(scores)``, and ``log_probs``
    itself (read for nothing else) is not computed."""
    rng = np.random.default_rng(3)
    W, X, y = 0.3 * rng.normal(size=(4, 3)), rng.normal(size=(6, 4)), rng.integers(0, 3, 6)
    text = symdiff.source(symdiff.grad(f, wrt=0), W, X, y)
    code = [line.split("  #")[0] for line in text.splitlines()[3:]
            if not line.strip().startswith("#")]
    assert not any(line.strip().startswith("log_probs =") for line in code), text
    assert "np.zeros_like(scores)" in text, text
    check_grads(f, (W, X, y), wrt=(0,))
