"""A sum of a product of factors that broadcast differently is written as the
contraction it is, in specialised code: ``(a * b[..., None]).sum(0)`` as a
stack of matrix products, ``np.sum(a * b[:, None], axis=0)`` as ``b @ a``,
with the factors constant along the summed axes applied after the sum; never
where the product is needed anyway or its factors have one shape
(optimize/summed_products.py)."""
import numpy as np
import pytest

import symdiff
from check_grads import check_grads


def stacked(a, b):             # (N, K, d) * (N, K)[..., None], summed over N
    return np.sum(np.sin((a * b[..., None]).sum(0)))


def row_times_matrix(a, b):    # np.sum(a * b[:, None], axis=0) is b @ a
    return np.sum(np.cos(np.sum(a * b[:, None], axis=0)))


def matrix_times_column(a, c):  # summed over the second axis: a @ c
    return np.sum(np.sin(np.sum(a * c, axis=1)))


def kept_axis(a, b):
    return np.sum(np.sin(np.sum(a * b[:, None], axis=0, keepdims=True)))


def scaled_and_divided(a, b, c):  # -3 and 1 / c after the sum
    return np.sum(np.tanh(np.sum(-3.0 * (a * b[:, None]) / c, axis=0)))


def length_one_axis(a, b1):    # b1 of shape (N, 1): b1[:, 0] @ a
    return np.sum(np.sin(np.sum(a * b1, axis=0)))


def everything_summed(a, b):
    return np.sin(np.sum(a * b[:, None]))


def same_shapes(a, b):         # one pass, no temporary: an einsum
    return np.sum(np.sin(np.sum(a * b, axis=0)))


def squares_of_a_difference(x, m):  # a forward sum only the gradient reads
    d = x[:, None, :] - m
    return np.sum(np.exp(-np.sum(d ** 2, axis=-1)))


def product_read_again(a, b):  # the product is needed anyway: stays
    p = a * b[:, None]
    return np.sum(np.sin(p.sum(0))) + np.sum(p ** 2)


def gmm(logits, means, log_sigmas, X):
    d = X.shape[1]
    log_weights = logits - np.max(logits)
    log_weights = log_weights - np.log(np.sum(np.exp(log_weights)))
    diff = X[:, None, :] - means
    a = (log_weights - 0.5 * np.sum(diff ** 2, axis=-1) / np.exp(2 * log_sigmas)
         - d * log_sigmas - 0.5 * d * np.log(2 * np.pi))
    m = np.max(a, axis=1)
    return -np.sum(m + np.log(np.sum(np.exp(a - m[:, None]), axis=1)))


RNG = np.random.default_rng(3)
A3, B2 = RNG.standard_normal((6, 4, 3)), RNG.standard_normal((6, 4))
A2, B1, C1 = RNG.standard_normal((6, 4)), RNG.standard_normal(6), RNG.random(4) + 1.0

# function, arguments, what the specialised gradient's code has, what it has not
FIRES = [
    (stacked, (A3, B2), ["b.T[:, None] @ np.transpose(a, axes=(1, 0, 2))"], ["a * b"]),
    (row_times_matrix, (A2, B1), ["b @ a", "b_bar = a @ t_bar"], ["a * b", ".sum("]),
    (matrix_times_column, (A2, C1), ["a @ c"], ["a * c"]),
    (kept_axis, (A2, B1), ["(b @ a)[None]"], ["a * b"]),
    (length_one_axis, (A2, B1[:, None]), ["b1[:, 0] @ a"], ["a * b1"]),
    (everything_summed, (A2, B1), ["a.sum(axis=1)", "@ b"], ["a * b"]),
    (same_shapes, (A2, A2 + 1.0), ["np.einsum('ab,ab->b', a, b)"], ["a * b"]),
    (squares_of_a_difference, (A2, A2[:2] + 0.5), ["np.einsum('abc,abc->ab', d, d)"],
     ["d ** 2"]),
]
STAYS = [
    (product_read_again, (A2, B1), ["p = a * b_part", "p.sum(axis=0)"]),
]


def _code(f, args, wrt=None):
    """The specialised gradient's source, without its docstring and comments."""
    wrt = tuple(range(len(args))) if wrt is None else wrt
    text = symdiff.source(symdiff.grad(f, wrt=wrt), *args)
    body = text.split('"""')[-1]
    return "\n".join(line.split("  #")[0] for line in body.splitlines()
                     if not line.strip().startswith("#"))


@pytest.mark.parametrize("f, args, has, lacks", FIRES, ids=[c[0].__name__ for c in FIRES])
def test_a_summed_broadcast_product_is_a_contraction(f, args, has, lacks):
    code = _code(f, args)
    for text in has:
        assert text in code, code
    for text in lacks:
        assert text not in code, code
    check_grads(f, args)


@pytest.mark.parametrize("f, args, has", STAYS, ids=[c[0].__name__ for c in STAYS])
def test_nothing_to_gain_is_left_as_it_is(f, args, has):
    code = _code(f, args)
    for text in has:
        assert text in code, code
    assert "@" not in code and code.count(" * b_part") == 1, code  # (p is made once)
    check_grads(f, args)


def test_numbers_and_divisors_constant_along_the_sum_come_after_it():
    args = (A2, B1, C1)
    # in a only: the forward product is not needed by the gradient
    code = _code(scaled_and_divided, args, wrt=(0,))
    assert "-3.0 * (b @ a / c)" in code and "a * b" not in code, code
    check_grads(scaled_and_divided, args, wrt=(0,))
    # in c too: its gradient reads the product, which then stays (summed once)
    code = _code(scaled_and_divided, args)
    assert "(-3.0 * (a * b_part) / c).sum(axis=0)" in code, code
    check_grads(scaled_and_divided, args)


def test_the_means_adjoint_of_a_mixture_is_a_stack_of_matrix_products():
    rng = np.random.default_rng(0)
    args = (0.3 * rng.standard_normal(3), rng.standard_normal((3, 2)),
            0.2 * rng.standard_normal(3), rng.standard_normal((12, 2)))
    code = _code(gmm, args, wrt=(0, 1, 2))
    backward = code.split("m = a.max(axis=1)")[1]
    # no (N, K, d) product in the backward pass: the sum over N is a matmul,
    # and the constants of -0.5 * ... * -2.0 are gone
    assert "@ np.transpose(diff, axes=(1, 0, 2))" in backward, code
    assert "diff *" not in backward and "0.5" not in backward, code
    check_grads(gmm, args, wrt=(0, 1, 2))
    # with X too, the product is X's adjoint as well: made once, summed twice
    code = _code(gmm, args)
    assert "diff_bar = -(diff * (t_bar / t)[..., None])" in code, code


def test_float32_stays_float32():
    a, b = A3.astype(np.float32), B2.astype(np.float32)
    grads = symdiff.grad(stacked, wrt=(0, 1))(a, b)
    assert all(g.dtype == np.float32 for g in grads)
    expected = symdiff.grad(stacked, wrt=(0, 1))(A3, B2)
    for got, want in zip(grads, expected):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_a_number_folds_through_a_getitem_that_adds_axes():
    def f(x, m, s):
        diff = x[:, None, :] - m
        return np.sum(np.exp(-0.5 * np.sum(diff ** 2, axis=-1) / s))

    args = (RNG.standard_normal((5, 3)), RNG.standard_normal((4, 3)), RNG.random(4) + 1.0)
    code = _code(f, args)
    assert "diff_bar = -(diff * (t_1 / s)[..., None])" in code, code
    check_grads(f, args)


def test_a_sum_the_caller_sees_is_computed_as_written():
    """value_and_grad returns the function's value: its sums stay the user's
    (bit for bit), while the gradient's own may be contractions."""
    args = (A2, A2[:2] + 0.5)
    value_and_grad = symdiff.value_and_grad(squares_of_a_difference)
    body = symdiff.source(value_and_grad, *args).split('"""')[-1]
    assert "(d ** 2).sum(axis=-1)" in body and "einsum('abc,abc" not in body, body
    assert value_and_grad(*args)[0] == squares_of_a_difference(*args)


def _pairs_of_points(p):       # the product rule of d * d, and of a difference's two sides
    d = p[:, None, :] - p[None, :, :]
    return np.sum(np.cos(np.sum(d * d, axis=-1)))


def _pairs_written_with_power(p):
    d = p[None, :, :] - p[:, None, :]
    return np.sum(np.cos((d ** 2).sum(-1) + 1.0))


def _pairs_with_einsum(p):
    d = p[:, None, :] - p[None, :, :]
    return np.sum(np.sin(np.einsum('ijk,ijk->ij', d, d)))


@pytest.mark.parametrize("f", [_pairs_of_points, _pairs_written_with_power, _pairs_with_einsum])
def test_the_two_terms_of_a_square_and_of_a_difference_meet(f):
    args = (RNG.standard_normal((5, 3)),)
    code = _code(f, args)
    # the two terms of d * d: one term, 2 * d * g (not d * (g_1 + g_1)); the gradient
    # of d's two sides: one sum less the other (not -x.sum(0) + y.sum(1))
    assert "2.0 * " in code and "_1 + " not in code, code
    assert "p_bar = d_bar.sum(axis=" in code and " - d_bar.sum(axis=" in code, code
    check_grads(f, args)
