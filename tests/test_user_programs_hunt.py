"""Defects a hunt over programs users write found (reinforcement learning,
survival analysis and statistics, econometrics and finance, pair potentials,
unrolled optimisers): each as the reduced program, against central
differences or an analytic derivative."""
import numpy as np
import pytest
import scipy.spatial.distance
import scipy.special
import scipy.stats
from scipy.spatial.distance import cdist

import symdiff
from symdiff.errors import InPlaceWriteError
from check_grads import check_grads


def discounted_return_loss(w, rewards, gamma):  # REINFORCE's returns, a loop counting down
    G = np.zeros_like(rewards)
    running = 0.0
    for t in reversed(range(len(rewards))):
        running = rewards[t] + gamma * running
        G[t] = running
    return np.sum(w * G)


def reversed_stepped(x):
    total = 0.0
    for k in reversed(range(1, len(x), 2)):  # 5, 3, 1 for six entries
        total = total * 0.5 + x[k] ** 2
    return total


def reversed_sum(x):
    return sum(np.sin(x[t]) * (t + 1) for t in reversed(range(len(x))))


def reversed_general(x, a, b):
    total = 0.0
    for k in reversed(range(a, b)):
        total = total * 0.5 + x[k] ** 2
    for k in reversed(range(b - 1, a - 1, -3)):  # a step down, reversed: counts up
        total = total * 0.25 + np.sin(x[k])
    return total


def reversed_general_by_hand(x, a, b):
    slopes = np.zeros_like(x)
    for k in reversed(range(a, b)):  # (Python's own order)
        slopes *= 0.5
        slopes[k] += 2 * x[k]
    for k in reversed(range(b - 1, a - 1, -3)):
        slopes *= 0.25
        slopes[k] += np.cos(x[k])
    return slopes


def sliced_range(x, gamma):
    G = np.zeros_like(x)
    acc = 0.0
    for t in range(len(x))[::-1]:  # the same loop, spelled with a slice
        acc = x[t] + gamma * acc
        G[t] = acc
    return np.sum(G ** 2) + sum(x[k] for k in list(range(3))[::-2])


def _sliced_range_by_hand(x, gamma):
    n = len(x)
    G = np.array([sum(gamma ** (k - t) * x[k] for k in range(t, n)) for t in range(n)])
    # d sum(G^2) / d x_k = sum over t <= k of 2 G_t gamma^(k - t); then x[2] + x[0]
    slopes = np.array([sum(2 * G[t] * gamma ** (k - t) for t in range(k + 1)) for k in range(n)])
    slopes[[0, 2]] += 1.0
    return slopes


def zipped_range(x):
    s = 0.0
    for i, xi in zip(range(len(x)), x):
        s = s + i * xi
    return s


def test_a_loop_over_reversed_range_counts_down():
    # `for t in reversed(range(n))` was refused ("no derivative rule for
    # `range`"): it is the loop over range(n - 1, -1, -1)
    rewards = np.array([1.0, -0.5, 2.0, 0.25])
    w = np.array([0.3, -1.2, 0.8, 2.0])
    check_grads(discounted_return_loss, (w, rewards, 0.9), wrt=(1, 2))
    g = symdiff.grad(discounted_return_loss, wrt=2)(w, rewards, 0.9)
    # G[0] = r0 + g r1 + g^2 r2 + g^3 r3, G[1] = r1 + g r2 + g^2 r3, G[2] = r2 + g r3
    gm = 0.9
    expected = w[0] * (rewards[1] + 2 * gm * rewards[2] + 3 * gm ** 2 * rewards[3]) \
        + w[1] * (rewards[2] + 2 * gm * rewards[3]) + w[2] * rewards[3]
    assert np.isclose(g, expected, rtol=1e-12)
    x = np.array([0.5, -1.0, 2.0, 0.3, -0.7, 1.5])
    # x5^2 / 4 + x3^2 / 2 + x1^2: the order counts
    assert np.allclose(symdiff.grad(reversed_stepped)(x),
                       [0.0, 2 * x[1], 0.0, x[3], 0.0, x[5] / 2], rtol=1e-12)
    check_grads(reversed_sum, (x,))
    assert np.allclose(symdiff.grad(reversed_sum)(x), np.cos(x) * np.arange(1, 7), rtol=1e-12)
    check_grads(sliced_range, (x, 0.9))
    assert np.allclose(symdiff.grad(sliced_range)(x, 0.9), _sliced_range_by_hand(x, 0.9),
                       rtol=1e-12)
    # a range known only at run time is what a loop runs over: refused as a
    # value with that said (it was "no derivative rule for `range`", with a
    # custom_gradient for range as the hint)
    with pytest.raises(symdiff.SymdiffError, match="what a loop runs over"):
        symdiff.grad(zipped_range)(x)
    for a, b in [(0, 6), (1, 6), (2, 3), (4, 4), (5, 2), (-4, -1)]:
        assert np.allclose(symdiff.grad(reversed_general)(x, a, b),
                           reversed_general_by_hand(x, a, b), rtol=1e-12), (a, b)


def heavy_ball(lr, w0, A, b):  # the previous iterate carried by a tuple assignment
    w_prev = w0
    w = w0
    for _ in range(4):
        w, w_prev = w - lr * (A @ w - b) + 0.5 * (w - w_prev), w
    return np.sum(w ** 2)


def swapped_while(x):
    a = x
    b = x * 0.5
    k = 0
    while k < 3:
        a, b = np.sin(a) + b, a
        k += 1
    return np.sum(a * b)


def swapped_numbers(lr, w0):
    w_prev = w0
    w = w0
    for _ in range(2):
        w, w_prev = w * lr - w_prev, w
    return w


def test_a_carried_value_read_by_a_later_one_of_a_tuple_assignment_keeps_its_old_value():
    # in `w, w_prev = w_new, w`, generated code gave `w_new` the name `w`
    # (its carried name) and assigned it before `w_prev = w` read the old `w`:
    # the forward pass computed w_prev = w_new, and gradient, jvp and Hessian
    # were wrong (heavy-ball momentum: 0.31 where the derivative is 0.82)
    A = np.array([[2.0, 0.3, 0.0], [0.3, 1.5, 0.2], [0.0, 0.2, 1.0]])
    b = np.array([0.5, -1.0, 0.25])
    w0 = np.array([1.0, -0.5, 0.3])
    check_grads(heavy_ball, (0.1, w0, A, b), wrt=(0, 1, 3))
    check_grads(swapped_while, (np.array([0.3, -0.2, 0.5]),))
    # w2 = (lr w0 - w0) lr - w0: d/dlr = 2 lr w0 - w0, d/dw0 = lr^2 - lr - 1
    _, tangent = symdiff.jvp(swapped_numbers, wrt=(0, 1))(0.7, 1.5, 1.0, 0.0)
    assert np.isclose(tangent, (2 * 0.7 - 1) * 1.5, rtol=1e-12)
    assert np.allclose(symdiff.grad(swapped_numbers, wrt=(0, 1))(0.7, 1.5),
                       ((2 * 0.7 - 1) * 1.5, 0.7 ** 2 - 0.7 - 1), rtol=1e-12)


def stencil(x):  # a padded array filled through slices: np.zeros(len(x) + 2)
    y = np.zeros(len(x) + 2)
    y[1:-1] += x
    y[:-2] += 0.5 * x
    y[2:] -= 0.25 * x
    return np.sum(y ** 2)


def padded_sum(x, w):
    y = np.ones(x.shape[0] + 1) * w
    y[1:] = y[1:] + x
    return np.sum(y ** 2)


def test_an_array_whose_length_is_a_sum_of_numbers_has_one_axis():
    # np.zeros(len(x) + 2) was taken for an array of two axes (`+` read as
    # joining shape tuples), so the gradient specialised for x summed the
    # gradient of `y[2:] - 0.25 * x` over its first axis: a wrong gradient,
    # [2, 6, 5.75] for [4.375, 7.5, 8.125], with no error
    x = np.array([1.0, 2.0, 3.0])
    y = np.array([0.5 * x[0], x[0] + 0.5 * x[1], x[1] + 0.5 * x[2] - 0.25 * x[0],
                  x[2] - 0.25 * x[1], -0.25 * x[2]])
    expected = 2 * (y[1:4] + 0.5 * y[0:3] - 0.25 * y[2:5])
    assert np.allclose(symdiff.grad(stencil)(x), expected, rtol=1e-12)
    check_grads(stencil, (x,))
    check_grads(padded_sum, (x, 0.7))
    assert np.allclose(symdiff.grad(padded_sum)(x, 0.7), 2 * (x + 0.7), rtol=1e-12)


def gp_noise_on_diagonal(X, ell, noise):  # the kernel's diagonal written through positions
    d2 = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = np.exp(-0.5 * d2 / ell ** 2)
    K[np.diag_indices_from(K)] += noise
    L = np.linalg.cholesky(K)
    return np.sum(np.log(np.diag(L)))


def packed_cholesky(theta, y):  # a covariance's factor filled from a vector
    L = np.zeros((3, 3))
    L[np.tril_indices_from(L)] = theta
    S = L @ L.T + 0.1 * np.eye(3)
    return y @ np.linalg.solve(S, y) + np.linalg.slogdet(S)[1]


def test_positions_computed_from_a_differentiated_array_in_forward_mode():
    # jvp refused `K[np.diag_indices_from(K)] += noise` ("forward mode has no
    # rule for diag_indices_from": the positions were taken to carry a
    # tangent), then copied the tuple of positions as a view of K
    # (AttributeError: 'tuple' object has no attribute 'copy')
    X = np.array([[0.1, 0.5], [1.2, -0.3], [-0.7, 0.8], [0.4, 0.0]])
    check_grads(gp_noise_on_diagonal, (X, 1.3, 0.1))
    check_grads(packed_cholesky, (np.array([1.0, 0.3, 0.8, -0.2, 0.1, 1.1]),
                                  np.array([0.5, -1.0, 2.0])), wrt=(0, 1))


def lbfgs_direction(g, S, Y):  # the two-loop recursion over lists of pairs
    q = g.copy()
    alphas = []
    for s, y in zip(reversed(S), reversed(Y)):
        a = (s @ q) / (y @ s)
        q = q - a * y
        alphas.append(a)
    r = (S[-1] @ Y[-1]) / (Y[-1] @ Y[-1]) * q
    for (s, y), a in zip(zip(S, Y), reversed(alphas)):
        r = r + s * (a - (y @ r) / (y @ s))
    return np.sum(r ** 2)


def named_scales(x, scales):
    weights = dict(zip(("a", "b"), scales))
    pairs = list(enumerate(scales, start=1))
    return weights["a"] * np.sum(x ** 2) + sum(k * w * np.sum(x) for k, w in pairs)


def zipped_rows(x):
    pairs = list(zip(x, x[1:]))
    return pairs[0][0]


def test_zip_and_enumerate_of_lists_as_values():
    # zip(zip(S, Y), reversed(alphas)) was refused ("no derivative rule for
    # `zip`", with a custom_gradient for zip as the hint): zip and enumerate
    # of lists known when compiling are their items' tuples
    rng = np.random.default_rng(0)
    S = [rng.standard_normal(3) for _ in range(3)]
    Y = [s + 0.1 * rng.standard_normal(3) for s in S]
    check_grads(lbfgs_direction, (rng.standard_normal(3), S, Y), wrt=(0,))
    g = symdiff.grad(lbfgs_direction, wrt=("S", "Y"))(rng.standard_normal(3), S, Y)
    assert [np.shape(v) for v in g[0] + g[1]] == [(3,)] * 6
    x = np.array([0.5, -1.0, 2.0])
    gx, gs = symdiff.grad(named_scales, wrt=(0, 1))(x, (0.7, 1.3))
    assert np.allclose(gx, 2 * 0.7 * x + (0.7 + 2 * 1.3), rtol=1e-12)
    assert np.allclose(gs, (np.sum(x ** 2) + np.sum(x), 2 * np.sum(x)), rtol=1e-12)
    try:
        symdiff.grad(zipped_rows)(x)
    except symdiff.SymdiffError as error:
        assert "zip() of arrays" in str(error) and error.lineno is not None
    else:
        raise AssertionError("zip of arrays as a value was expected to be refused")


def gram_log_det(a):  # a matrix filled entry by entry, then its log-determinant
    n = a.shape[0]
    M = np.zeros((n, n))
    for i in range(n):
        for j in range(i, n):
            M[i, j] = a[i] * a[j]
            M[j, i] = M[i, j]
    return np.linalg.slogdet(M + n * np.eye(n))[1]


def stencil_then_running_sum(x):
    y = np.zeros(2 * len(x))
    y[::2] = x
    y[1::2] -= 0.5 * x
    return np.sum(np.cumsum(y) ** 2)


def test_second_derivatives_of_gradients_that_write_into_a_transpose_or_a_flip():
    # the gradient's reverse loops write into `M_bar`, which starts as
    # `np.linalg.inv(t).mT` (slogdet's gradient), and a cumsum's gradient
    # `np.flip(np.cumsum(np.flip(g)))` is written into: differentiating that
    # code again refused it ("the loop writes into `M_4_bar`, which its next
    # iteration may hold another array (... or a view)", "`y_bar[1::2]`
    # writes in place into `y_bar`, a view of part of an array"). A
    # transpose, a flip or a reshape is a view of every entry of its array
    a = np.array([0.5, -1.0, 2.0])
    # log det(a a^T + 3 I) = log(9 (3 + |a|^2)): gradient 2 a / (3 + |a|^2)
    assert np.allclose(symdiff.grad(gram_log_det)(a), 2 * a / (3 + a @ a), rtol=1e-12)
    r = 3 + a @ a
    expected = 2 * np.eye(3) / r - 4 * np.outer(a, a) / r ** 2
    np.testing.assert_allclose(symdiff.hessian(gram_log_det)(a), expected, rtol=1e-10)
    check_grads(stencil_then_running_sum, (np.array([0.5, -1.0, 2.0, 0.3]),))


def lennard_jones_pdist(pos):
    from_scipy = scipy.spatial.distance.pdist(pos)
    return np.sum(4.0 * (from_scipy ** -12 - from_scipy ** -6))


def kernel_cdist(X, Z, ell):
    K = np.exp(-0.5 * cdist(X, Z, "sqeuclidean") / ell ** 2)
    return np.sum(K) + np.sum(cdist(X, X) ** 3) + np.sum(cdist(X, Z, metric="cityblock"))


def cosine_of_constants(w, A, B):
    return np.sum(w * cdist(A, B, "cosine"))


def test_scipy_distances_are_the_norms_they_compute():
    # pdist and cdist were refused ("no derivative rule for `pdist`"): the
    # pair potentials and kernels of chemistry and GP code call them
    pos = np.array([[0.0, 0.1, 0.2], [1.1, -0.2, 0.3], [0.4, 1.3, -0.5], [-0.9, 0.6, 1.0]])
    check_grads(lennard_jones_pdist, (pos,), rtol=1e-5)
    r = np.linalg.norm(pos[0] - pos[1])  # the first pair: its own term's slope
    d = pos[0] - pos[1]
    g = symdiff.grad(lennard_jones_pdist)(pos)
    others = sum(4.0 * (-12 * np.linalg.norm(pos[0] - pos[k]) ** -14
                        + 6 * np.linalg.norm(pos[0] - pos[k]) ** -8) * (pos[0] - pos[k])
                 for k in (2, 3))
    assert np.allclose(g[0], 4.0 * (-12 * r ** -14 + 6 * r ** -8) * d + others, rtol=1e-10)
    X, Z = pos[:3], pos[1:] * 0.7 + 0.31
    check_grads(kernel_cdist, (X, Z, 1.3))
    value, _ = symdiff.value_and_grad(kernel_cdist)(X, Z, 1.3)
    assert np.isclose(value, kernel_cdist(X, Z, 1.3), rtol=1e-13)
    # cdist(X, X) ** 3 at the diagonal: the distance of a point to itself
    # is 0 however it moves (no NaN from the norm's corner)
    assert np.all(np.isfinite(symdiff.grad(kernel_cdist)(X, Z, 1.3)))
    # another metric stays SciPy's call: fine where no gradient reaches it
    w = np.ones((3, 3))
    assert np.allclose(symdiff.grad(cosine_of_constants)(w, X, Z), cdist(X, Z, "cosine"))


def heat_ping_pong(u0, k):  # two buffers, swapped after each step
    u = u0.copy()
    v = np.zeros_like(u0)
    for t in range(4):
        v[1:-1] = u[1:-1] + k * (u[2:] - 2 * u[1:-1] + u[:-2])
        v[0] = u[0]
        v[-1] = u[-1]
        u, v = v, u
    return np.sum(u ** 2)


def heat_copied(u0, k):  # the same steps, each in a new array
    u = u0.copy()
    for t in range(4):
        v = u.copy()
        v[1:-1] = u[1:-1] + k * (u[2:] - 2 * u[1:-1] + u[:-2])
        u = v
    return np.sum(u ** 2)


@pytest.mark.xfail(strict=True, raises=symdiff.SymdiffError, reason=(
    "refused: 'the loop writes into `v`, which its next iteration may hold another "
    "array (one the function did not make for itself, or a view)'. `v` holds, in "
    "turn, the two arrays the function made; frontend/loop_writes.py's "
    "check_carried wants a carried array's update among its own arrays, and taking "
    "the union of the two buffers' arrays would make the read of `u` after the "
    "write into `v` stale (the analysis does not tell the iterations apart)"))
def test_two_buffers_swapped_after_each_step():
    u0 = np.array([0.0, 0.5, 1.0, 0.3, -0.2, 0.0])
    expected = symdiff.grad(heat_copied, wrt=(0, 1))(u0, 0.2)
    check_grads(heat_copied, (u0, 0.2))
    got = symdiff.grad(heat_ping_pong, wrt=(0, 1))(u0, 0.2)
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-12)
    np.testing.assert_allclose(got[1], expected[1], rtol=1e-12)


def grouped_log_sums(w, groups, n):  # a sum per group, np.bincount's weights
    totals = np.bincount(groups, weights=np.exp(w), minlength=n)
    return np.sum(np.log(totals + 1.0)) + np.sum(np.bincount(groups) * w[:1])


def test_bincount_weights_are_added_into_their_bins():
    # np.bincount(groups, weights=np.exp(w)) was refused ("`weights` of
    # `bincount` must be a constant", hint: write it as a number)
    w = np.array([0.3, -1.2, 0.5, 2.0, -0.4, 0.1])
    groups = np.array([0, 2, 2, 1, 0, 2])
    check_grads(grouped_log_sums, (w, groups, 4), wrt=(0,))
    totals = np.array([np.exp(w[0]) + np.exp(w[4]), np.exp(w[3]),
                       np.exp(w[1]) + np.exp(w[2]) + np.exp(w[5]), 0.0])
    expected = np.exp(w) / (totals[groups] + 1.0)
    expected[0] += 6  # (the counts times w[0])
    assert np.allclose(symdiff.grad(grouped_log_sums)(w, groups, 4), expected, rtol=1e-12)
    value, _ = symdiff.value_and_grad(grouped_log_sums)(w, groups, 4)
    assert np.isclose(value, grouped_log_sums(w, groups, 4), rtol=1e-14)


def stacked_shape(X):
    out = np.ones((*X.shape, 2))
    out[..., 1] = np.sin(X)
    return np.sum(out ** 2)


def joined_shape(X):
    out = np.ones(X.shape + (2,))
    out[..., 1] = np.sin(X)
    return np.sum(out ** 2)


def test_a_shape_spread_into_a_tuple_is_refused_with_the_join_that_works():
    X = np.array([[0.1, 0.5], [1.2, -0.3]])
    with pytest.raises(symdiff.SymdiffError, match="spreads a list or tuple") as caught:
        symdiff.grad(stacked_shape)(X)
    assert "x.shape + (2,)" in caught.value.hint
    assert np.allclose(symdiff.grad(joined_shape)(X), np.sin(2 * X), rtol=1e-12)


def var_residual_log_det(Y):  # a VAR(1) fitted by least squares
    X = np.hstack([np.ones((Y.shape[0] - 1, 1)), Y[:-1]])
    B, *_ = np.linalg.lstsq(X, Y[1:], rcond=None)
    resid = Y[1:] - X @ B
    return np.linalg.slogdet(resid.T @ resid / len(resid))[1]


def first_and_rest(params, x):
    w0, *ws = params
    head, *middle, last = (1.0, 2.0, 3.0, 4.0)
    return w0 * np.sum(x) + sum(w * np.sum(x ** (k + 2)) for k, w in enumerate(ws)) \
        + head * last + sum(middle)


def test_a_starred_name_in_an_unpacking():
    # `B, *_ = np.linalg.lstsq(...)` was refused ("cannot unpack 4 values
    # into 2 names"): a starred name takes the middle items, as in Python
    Y = np.cumsum(np.random.default_rng(0).standard_normal((12, 2)), axis=0)
    check_grads(var_residual_log_det, (Y,), order=1, rtol=1e-5)
    g = symdiff.grad(first_and_rest)((0.5, 1.0, 2.0), np.array([1.0, 2.0]))
    assert np.allclose(g, (3.0, 5.0, 9.0), rtol=1e-12)
    assert np.isclose(symdiff.value_and_grad(first_and_rest)(
        (0.5, 1.0, 2.0), np.array([1.0, 2.0]))[0], first_and_rest((0.5, 1.0, 2.0),
                                                                  np.array([1.0, 2.0])))


def binomial_tree(S0, K, r, sigma):  # a European call, rolled back in place
    N, dt = 6, 1.0 / 6
    u = np.exp(sigma * np.sqrt(dt))
    d = 1 / u
    p = (np.exp(r * dt) - d) / (u - d)
    V = np.zeros(N + 1)
    for k in range(N + 1):
        V[k] = max(S0 * u ** (N - k) * d ** k - K, 0.0)
    for i in range(N - 1, -1, -1):
        for k in range(i + 1):
            V[k] = np.exp(-r * dt) * (p * V[k] + (1 - p) * V[k + 1])
    return V[0]


def rolled_back(a):
    V = np.arange(4.0) * a
    for i in range(2, -1, -1):
        for k in range(i + 1):
            V[k] = 0.5 * (V[k] + V[k + 1])
    return V[0]


def test_second_derivative_of_an_array_rolled_back_in_nested_loops():
    # the gradient starts V_bar as `_unindex(1.0, V, np.s_[0])`, whose dtype
    # was taken from the 1.0 (a Python float), so its tangent, zeros_like of
    # it, became the number 0.0, then indexed in the loop: "'float' object is
    # not subscriptable" in jvp(grad(f))
    check_grads(rolled_back, (0.7,))
    # V[0] = (V0 + 3 V1 + 3 V2 + V3) / 8 = (0 + 3 + 6 + 3) a / 8: linear
    assert symdiff.grad(rolled_back)(0.7) == 1.5
    assert symdiff.hessian(rolled_back)(0.7) == 0.0
    assert symdiff.jvp(symdiff.grad(rolled_back))(0.7, 1.0) == (1.5, 0.0)
    check_grads(binomial_tree, (100.0, 95.0, 0.03, 0.25), rtol=1e-5)
    g = symdiff.grad(binomial_tree, wrt=(0, 1, 2, 3))
    args, u, step = (100.0, 95.0, 0.03, 0.25), np.array([0.3, -0.2, 0.01, 0.02]), 1e-5
    _, hvp = symdiff.jvp(g, wrt=(0, 1, 2, 3))(*args, *u)
    expected = (np.array(g(*(args + step * u))) - np.array(g(*(args - step * u)))) / (2 * step)
    np.testing.assert_allclose(hvp, expected, rtol=1e-5, atol=1e-7)


def cox_log_risk_sets(beta, X, event):  # rows by increasing time, log risk sets stable
    eta = X @ beta
    log_risk = np.logaddexp.accumulate(eta[::-1])[::-1]
    return -np.sum(event * (eta - log_risk))


def cox_risk_sets(beta, X, event):  # the same, as sums of exponentials
    eta = X @ beta
    return -np.sum(event * (eta - np.log(np.cumsum(np.exp(eta)[::-1])[::-1])))


def running_log_sum(a):
    return np.sum(np.logaddexp.accumulate(a) * np.array([1.0, 2.0, -1.0, 0.5]))


def test_a_running_log_sum_exp():
    # np.logaddexp.accumulate was refused ("no derivative rule for
    # `np.logaddexp.accumulate`"), the stable spelling of a Cox model's
    # log risk sets (and of log-space forward passes)
    X = np.array([[0.1, 0.5], [1.2, -0.3], [-0.7, 0.8], [0.4, 0.0], [0.9, 1.1]])
    event = np.array([1.0, 0.0, 1.0, 1.0, 0.0])
    beta = np.array([0.4, -0.3])
    check_grads(cox_log_risk_sets, (beta, X, event), wrt=(0,))
    assert np.allclose(symdiff.grad(cox_log_risk_sets)(beta, X, event),
                       symdiff.grad(cox_risk_sets)(beta, X, event), rtol=1e-12)
    # entries at -inf before the first finite one: their own slope is 0, the
    # others' finite (y[i] = log of the sum of the finite entries up to i)
    a = np.array([-np.inf, -np.inf, 0.3, -1.2])
    w = np.array([1.0, 2.0, -1.0, 0.5])
    y = np.logaddexp.accumulate(a)
    expected = np.array([0.0, 0.0, w[2] + w[3] * np.exp(a[2] - y[3]), w[3] * np.exp(a[3] - y[3])])
    assert np.allclose(symdiff.grad(running_log_sum)(a), expected, rtol=1e-12)


def stick_breaking_log_density(z):  # a Dirichlet on the simplex stick breaking makes
    K = z.shape[0] + 1
    x = np.zeros(K)
    remaining = 1.0
    logdet = 0.0
    for k in range(K - 1):
        v = scipy.special.expit(z[k] - np.log(K - k - 1))
        x[k] = remaining * v
        logdet += np.log(remaining) + np.log(v) + np.log1p(-v)
        remaining = remaining - x[k]
    x[-1] = remaining
    alpha = np.arange(1, K + 1) * 0.5
    return np.sum((alpha - 1) * np.log(x)) + logdet


def rebound_then_written(x):
    y = x * 2.0
    r = y[1:]  # a view of the first y, which the loop never writes into
    for k in range(2):
        y = y + 1.0  # a new array each iteration, before the write
        y[k] = 0.0
    return np.sum(r ** 2) + np.sum(y * x)


def written_then_rebound(x):
    y = x * 2.0
    r = y[1:]
    for k in range(2):
        y[k] = 0.0  # the first iteration writes into the array `r` views
        y = y + 1.0
    return np.sum(r ** 2) + np.sum(y * x)


def rebound_and_written_through_another_name(x):
    y = x * 2.0
    z = y  # the loop writes into the first y through `z`, after reading it as `y`
    for k in range(2):
        y = y + 1.0
        y[k] = 0.0
        z[k + 1] = 5.0 * x[k]
    return np.sum(y * x) + np.sum(z * x)


def test_a_loop_that_rebinds_an_array_before_writing_into_it():
    # `r = y[1:]` before a loop whose every iteration first makes `y` a new
    # array (`y = y + 1.0`) and then writes into it was refused ("`r` shares
    # its array with `y`, which line .. changed in place"): the loop never
    # writes into the array `r` views. Generated code has the same form
    # (`x_bar = x_bar + ...` then `x_bar[k] = 0.0`), so the Hessian of a
    # stick-breaking log density failed with that error in generated code.
    x = np.array([1.0, 2.0, 3.0, 4.0])
    expected = np.array([1.0, 8 * x[1], 12 * x[2] + 2, 12 * x[3] + 2])
    np.testing.assert_allclose(symdiff.grad(rebound_then_written)(x), expected, rtol=1e-12)
    check_grads(rebound_then_written, (x,))
    check_grads(stick_breaking_log_density, (np.array([0.3, -1.2, 0.5, 0.1]),))
    check_grads(rebound_and_written_through_another_name, (x,))
    with pytest.raises(InPlaceWriteError):  # (still refused: the old array changes)
        symdiff.grad(written_then_rebound)(x)


def cumsum_moving_average(x, w):  # the running sums with a 0 put in front
    c = np.cumsum(np.insert(x, 0, 0.0))
    return np.sum(((c[w:] - c[:-w]) / w) ** 3)


def inserted_values(x, v):  # values at positions, one repeated
    return np.sum(np.sin(np.insert(x, [1, 3, 3], v)) * np.arange(1.0, 9.0))


def inserted_columns(A, v):
    B = np.insert(A, [0, 2], v, axis=1)
    return np.sum(B ** 3 * np.arange(B.size).reshape(B.shape))


def inserted_row(A, c):  # one number broadcast along the inserted row
    B = np.insert(A, 1, c, axis=0)
    return np.sum(np.tanh(B) * np.arange(B.size).reshape(B.shape))


def inserted_into_integers(x):
    return np.sum(np.insert(np.arange(4), 1, x) * 1.0)


def test_np_insert():
    # np.insert had no derivative rule (a moving average as differences of
    # np.cumsum(np.insert(x, 0, 0.0)) was refused)
    rng = np.random.default_rng(0)
    x = rng.normal(size=8)
    check_grads(cumsum_moving_average, (x, 3), wrt=(0,))
    c = np.cumsum(x)
    ma = np.concatenate([[c[2]], c[3:] - c[:-3]]) / 3
    expected = np.array([np.sum(ma[max(0, i - 2):i + 1] ** 2) for i in range(8)])
    np.testing.assert_allclose(symdiff.grad(cumsum_moving_average)(x, 3), expected, rtol=1e-12)
    check_grads(inserted_values, (rng.normal(size=5), rng.normal(size=3)))
    check_grads(inserted_columns, (rng.normal(size=(3, 4)), rng.normal(size=(3, 2))))
    check_grads(inserted_row, (rng.normal(size=(3, 4)), 0.7))
    check_grads(inserted_row, (rng.normal(size=(3, 4)), rng.normal(size=4)))
    with pytest.raises(symdiff.SymdiffError):  # (truncated to integers, like a write)
        symdiff.grad(inserted_into_integers)(0.7)


def eight_schools_centred(params, y, sigma):  # half-Cauchy and half-normal priors on scales
    mu, log_tau, theta = params["mu"], params["log_tau"], params["theta"]
    tau = np.exp(log_tau)
    lp = scipy.stats.norm.logpdf(theta, mu, tau).sum()
    lp += scipy.stats.norm.logpdf(y, theta, sigma).sum()
    lp += scipy.stats.halfcauchy.logpdf(tau, scale=5.0) + log_tau
    return lp + scipy.stats.halfnorm.logpdf(np.abs(mu) + 0.1, scale=2.0)


def test_half_cauchy_and_half_normal_priors():
    # scipy.stats.halfcauchy and halfnorm had no records ("no derivative rule
    # for scipy.stats.halfcauchy.logpdf"): the usual priors of a hierarchical
    # model's scales
    y = np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
    sigma = np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])
    params = {"mu": 1.3, "log_tau": 0.4,
              "theta": np.array([2.0, 1.0, -0.5, 3.0, 0.2, -1.0, 4.0, 1.5])}
    g = symdiff.grad(eight_schools_centred)(params, y, sigma)
    tau, mu, theta = np.exp(0.4), 1.3, params["theta"]
    d_tau = np.sum(((theta - mu) ** 2 / tau ** 2 - 1) / tau) - 2 * tau / (25 + tau ** 2)
    np.testing.assert_allclose(g["log_tau"], d_tau * tau + 1, rtol=1e-10)
    np.testing.assert_allclose(g["mu"], np.sum(theta - mu) / tau ** 2 - (mu + 0.1) / 4,
                               rtol=1e-10)
    np.testing.assert_allclose(g["theta"], -(theta - mu) / tau ** 2 + (y - theta) / sigma ** 2,
                               rtol=1e-10)


def total_variation(x):  # the first difference 0: x[0] before x
    return np.sum(np.diff(x, prepend=x[0]) ** 2 * np.arange(1.0, 8.0))


def edge_differences(x, c):  # rows before and after, one of them a number
    return np.sum(np.diff(x, axis=0, prepend=x[:1] * 2.0, append=c) ** 3)


def test_diff_with_values_computed_in_the_function():
    # np.diff(x, prepend=x[0]) was refused ("`prepend` of `diff` must be a
    # constant"): it is np.diff of x with x[0] joined before it (a number
    # broadcast to one slice along the axis, as NumPy does)
    rng = np.random.default_rng(3)
    x = rng.normal(size=7)
    check_grads(total_variation, (x,))
    d, w = np.diff(x), np.arange(2.0, 8.0)
    expected = np.zeros(7)
    expected[1:] += 2 * d * w
    expected[:-1] -= 2 * d * w
    np.testing.assert_allclose(symdiff.grad(total_variation)(x), expected, rtol=1e-12)
    check_grads(edge_differences, (rng.normal(size=(3, 2)), 0.4))
    check_grads(edge_differences, (rng.normal(size=(3, 2)), rng.normal(size=(2, 2))))
    with pytest.raises(symdiff.SymdiffError, match="arguments' shapes"):
        symdiff.source(symdiff.grad(total_variation))  # (no arguments: no shapes)


def sdf_scene(p, centers, radii):  # a union and a subtraction of spheres
    d = np.linalg.norm(p[:, None, :] - centers[None, :, :], axis=-1) - radii
    union = np.min([d[:, 0], d[:, 1]], axis=0)
    carved = np.maximum.reduce([union, -d[:, 2], d[:, 0] - 2.0])
    return np.sum(carved ** 2) + np.sum(np.minimum.reduce(d, axis=1))


def test_extrema_of_a_list_of_arrays():
    # np.min([d1, d2], axis=0) failed inside the generated code (TypeError:
    # "Tuple must have size 2, but has size 3" from _ties, given the list),
    # and np.maximum.reduce / np.minimum.reduce had no derivative rule
    rng = np.random.default_rng(5)
    p, centers, radii = rng.normal(size=(6, 3)), rng.normal(size=(3, 3)), np.array([0.5, 0.8, 0.3])
    check_grads(sdf_scene, (p, centers, radii))
    a, b = np.array([0.3, -0.2, 1.0]), np.array([0.1, 0.5, -1.0])
    g = symdiff.grad(lambda a, b: np.sum(np.max([a, b, -a * 2.0], axis=0) ** 2), wrt=(0, 1))
    np.testing.assert_allclose(g(a, b)[0], [0.6, 0.0, 2.0])
    np.testing.assert_allclose(g(a, b)[1], [0.0, 1.0, 0.0])
