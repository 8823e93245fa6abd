"""The code linear-algebra gradients are written as, for arguments of known
shape: triangular solves for a Cholesky factor where the function calls SciPy
anyway, no helper where the ranks decide what it does (``_as_columns``,
``_undiag``, ``_sum_to``, the matmul adjoints), no check that recomputes a
product whose rank is known. Each form is checked against central
differences (check_grads), so a rewrite that changed a value fails here.
"""
import numpy as np
import pytest
import scipy.linalg
import scipy.special

import symdiff
from check_grads import check_grads
from numeric import numeric_grad

RNG = np.random.default_rng(7)


def _spd(n, batch=()):
    a = RNG.normal(size=batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def chol_logdet_scipy(K, y):  # the GP objective: SciPy's solve, NumPy's factor
    L = np.linalg.cholesky(K)
    v = scipy.linalg.solve_triangular(L, y, lower=True)
    return 0.5 * v @ v + np.sum(np.log(np.diag(L)))


def chol_logdet_numpy(K, y):  # NumPy only: the gradient must not need SciPy
    L = np.linalg.cholesky(K)
    v = np.linalg.solve(L, y)
    return 0.5 * v @ v + np.sum(np.log(np.diag(L)))


def chol_upper_special(K, y):  # SciPy through scipy.special only; the upper factor
    U = np.linalg.cholesky(K, upper=True)
    return np.sum(scipy.special.expit(U)) + y @ (U @ y)


def chol_stack_special(K):  # stacks of matrices: NumPy's solve (SciPy may solve no stacks)
    return np.sum(scipy.special.expit(np.linalg.cholesky(K)))


def slogdet_solve(K, y):
    sign, logdet = np.linalg.slogdet(K)
    return 0.5 * y @ np.linalg.solve(K, y) + 0.5 * logdet


def cho_solve_logdet(K, y):
    c = scipy.linalg.cho_factor(K, lower=True)
    return 0.5 * y @ scipy.linalg.cho_solve(c, y) + np.sum(np.log(np.diag(c[0])))


def eigh_values(A, y):  # a symmetric function of the eigenvalues, squared vectors
    w, v = np.linalg.eigh(A)
    return w @ w + y @ (v ** 2) @ y


def det_squared(A, y):
    return np.linalg.det(A) ** 2 + y @ np.linalg.solve(A, y)


HELPERS = ("_as_columns", "_from_columns", "_undiag", "_sum_to", "_matmul_adjoint",
           "_require_scalar")


@pytest.mark.parametrize("f, args", [
    (chol_logdet_scipy, (_spd(5), RNG.normal(size=5))),
    (chol_logdet_numpy, (_spd(5), RNG.normal(size=5))),
    (chol_upper_special, (_spd(4), RNG.normal(size=4))),
    (slogdet_solve, (_spd(5), RNG.normal(size=5))),
    (cho_solve_logdet, (_spd(5), RNG.normal(size=5))),
    (eigh_values, (np.diag([1.0, 2.0, 3.5, 5.0]) + 0.1 * _spd(4), RNG.normal(size=4))),
    (det_squared, (_spd(3) / 3, RNG.normal(size=3))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_specialised_linalg_has_no_helpers_and_is_right(f, args):
    source = symdiff.source(symdiff.grad(f, wrt=0), *args)
    assert not [h for h in HELPERS if h in source], source
    check_grads(f, args, wrt=(0, 1))


def test_cholesky_solves_triangles_with_scipy_when_the_function_calls_it():
    args = (_spd(5), RNG.normal(size=5))
    source = symdiff.source(symdiff.grad(chol_logdet_scipy, wrt=0), *args)
    assert "np.linalg.solve" not in source and source.count("solve_triangular") >= 3, source
    upper = symdiff.source(symdiff.grad(chol_upper_special, wrt=0), _spd(4), args[1][:4])
    assert "np.linalg.solve" not in upper and "scipy.linalg.solve_triangular" in upper, upper


def test_cholesky_stays_with_numpy_without_scipy_or_for_stacks():
    args = (_spd(5), RNG.normal(size=5))
    numpy_only = symdiff.source(symdiff.grad(chol_logdet_numpy, wrt=0), *args)
    assert "scipy" not in numpy_only and "np.linalg.solve(" in numpy_only, numpy_only
    stack = _spd(3, batch=(2,))
    stacked = symdiff.source(symdiff.grad(chol_stack_special), stack)
    assert "solve_triangular" not in stacked and "np.linalg.solve(" in stacked, stacked
    check_grads(chol_stack_special, (stack,))


def test_cholesky_tangent_with_scipy_solves():
    """Forward mode (and so forward over reverse) through the SciPy solves."""
    K, y = _spd(4), RNG.normal(size=4)
    dK = RNG.normal(size=(4, 4))
    _, tangent = symdiff.jvp(chol_logdet_scipy, wrt=0)(K, y, dK)
    h = 1e-6
    expected = (chol_logdet_scipy(K + h * dK, y) - chol_logdet_scipy(K - h * dK, y)) / (2 * h)
    assert np.isclose(tangent, expected, rtol=1e-6)


def test_ill_conditioned_factor_with_scipy_solves():
    """Condition number ~1e8: the triangular solves agree with the LU ones."""
    q, _ = np.linalg.qr(RNG.normal(size=(6, 6)))
    K = q @ np.diag(np.logspace(0, -8, 6)) @ q.T
    K = 0.5 * (K + K.T)
    y = RNG.normal(size=6)
    with_scipy = symdiff.grad(chol_logdet_scipy, wrt=0)(K, y)
    with_numpy = symdiff.grad(chol_logdet_numpy, wrt=0)(K, y)
    scale = np.max(np.abs(with_numpy))
    assert np.max(np.abs(with_scipy - with_numpy)) <= 1e-6 * scale


def test_a_solve_the_gradient_adds_uses_the_inverse_slogdet_computes():
    """slogdet's gradient needs inv(K); the solve's adjoint (a solve with K^T)
    becomes a product with it, and so does the user's own solve, whose value
    only the gradient reads (alpha = K_inv @ y, as a hand-written gradient)."""
    args = (_spd(5), RNG.normal(size=5))
    source = _code(symdiff.source(symdiff.grad(slogdet_solve, wrt=0), *args))
    assert "linalg.solve(" not in source and source.count("np.linalg.inv(") == 1, source
    assert "inverse.mT @" in source and "inverse @ y" in source, source
    check_grads(slogdet_solve, args, wrt=(0, 1))
    without_slogdet = _code(symdiff.source(symdiff.grad(lambda K, y: y @ np.linalg.solve(K, y),
                                                  wrt=0), *args))
    assert without_slogdet.count("np.linalg.solve(") == 2 and "inv(" not in without_slogdet


def test_a_solve_whose_value_is_the_users_stays_a_solve():
    """Returned (value_and_grad) or branched on, the solve's value is the
    user's: it is computed as they wrote it, bit for bit."""
    K, y = _spd(5), RNG.normal(size=5)
    value_and_grad = symdiff.value_and_grad(slogdet_solve, wrt=0)
    source = _code(symdiff.source(value_and_grad, K, y))
    assert source.count("np.linalg.solve(") == 1 and source.count("np.linalg.inv(") == 1
    assert value_and_grad(K, y)[0] == slogdet_solve(K, y)
    branched = _code(symdiff.source(symdiff.grad(_solve_branched_on, wrt=0), K, y))
    assert "np.linalg.solve(K, y)" in branched, branched
    check_grads(_solve_branched_on, (K, y), wrt=(0, 1))
    check_grads(_solve_branched_on, (K, -y), wrt=(0, 1))


def _solve_branched_on(K, y):
    x = np.linalg.solve(K, y)
    if x[0] > 0:
        return np.linalg.slogdet(K)[1] + x @ x
    return np.linalg.slogdet(K)[1] - np.sum(x)


def _code(source):
    """The source without its comments (which quote the user's lines)."""
    return "\n".join(line.split("#")[0] for line in source.splitlines())


def _inverse_in_branch(K, y):  # the inverse only on one path: the solve stays
    if y[0] > 0:
        return np.sum(np.linalg.inv(K)) + y @ np.linalg.solve(K, y)
    return y @ np.linalg.solve(K, y)


def test_an_inverse_inside_a_branch_is_not_reused_outside_it():
    K, y = _spd(4), np.abs(RNG.normal(size=4))
    check_grads(_inverse_in_branch, (K, y), wrt=(0, 1))
    check_grads(_inverse_in_branch, (K, -y), wrt=(0, 1))


def chol_general(K, y):  # a factor's gradient with no structure: the whole product
    L = np.linalg.cholesky(K)
    return np.sum(np.sin(L)) + np.sum(np.log(np.diag(L))) + y @ (L @ y)


def cho_factor_upper(K, y):  # the upper factor: the whole product, both triangles
    c = scipy.linalg.cho_factor(K, lower=False)
    return 0.5 * y @ scipy.linalg.cho_solve(c, y) + np.sum(np.log(np.diag(c[0])))


@pytest.mark.parametrize("f", [chol_logdet_scipy, chol_logdet_numpy, cho_solve_logdet])
def test_a_gaussian_log_density_factor_gradient_needs_no_solve_with_n_columns(f):
    """log(diag(L)) gives L_bar c / diag(L), whose part of the adjoint is
    c K^-1 (LAPACK's potri from the factor, NumPy's inverse of L); a quadratic
    form through a solve a symmetric outer product: K_bar is K^-1 - a a^T on
    the lower triangle, as a hand-written GP gradient has it."""
    args = (_spd(6), RNG.normal(size=6))
    code = _code(symdiff.source(symdiff.grad(f, wrt=0), *args))
    assert "L_bar" not in code and "phi" not in code and "(1.0 - lower)" not in code, code
    assert ("scipy.linalg.lapack.dpotri(" in code) != (f is chol_logdet_numpy), code
    assert ("np.linalg.inv(L)" in code) == (f is chol_logdet_numpy), code
    check_grads(f, args, wrt=(0, 1))
    check_grads(f, (np.float32(1.0) * args[0], args[1]), wrt=(0, 1))


def test_the_inverse_from_a_factor_has_the_precision_of_the_factor():
    K, y = _spd(5).astype(np.float32), RNG.normal(size=5).astype(np.float32)
    code = _code(symdiff.source(symdiff.grad(chol_logdet_scipy, wrt=0), K, y))
    assert "scipy.linalg.lapack.spotri(" in code, code
    got = symdiff.grad(chol_logdet_scipy, wrt=0)(K, y)
    assert got.dtype == np.float32
    exact = symdiff.grad(chol_logdet_scipy, wrt=0)(K.astype(float), y.astype(float))
    assert np.allclose(got, exact, rtol=1e-3, atol=1e-4)


def test_spotri_has_the_derivatives_of_dpotri_to_float32_precision():
    c = np.linalg.cholesky(_spd(4)) + np.triu(RNG.normal(size=(4, 4)), 1)

    def single(c):
        return np.sum(np.sin(scipy.linalg.lapack.spotri(c, lower=1)[0]))

    def double(c):
        return np.sum(np.sin(scipy.linalg.lapack.dpotri(c, lower=1)[0]))
    assert np.allclose(symdiff.grad(single)(c), symdiff.grad(double)(c), rtol=1e-4, atol=1e-5)
    direction = RNG.normal(size=(4, 4))
    assert np.isclose(symdiff.jvp(single)(c, direction)[1], symdiff.jvp(double)(c, direction)[1],
                      rtol=1e-4, atol=1e-5)


def test_the_closed_forms_have_second_derivatives():
    """The gradient with the closed forms (potri where specialised; the
    generic one, which second derivatives read, solves with the identity),
    in both modes, against central differences of the gradient (potri's own
    rules: its rows in rows_linalg.py)."""
    def log_det_only(K):
        L = np.linalg.cholesky(K)
        v = scipy.linalg.solve_triangular(L, K[:, 0], lower=True)
        return np.sum(np.log(np.diag(L))) + 0.5 * v @ v
    K = _spd(5)
    gradient = symdiff.grad(log_det_only)
    assert "dpotri(" in symdiff.source(gradient, K)
    direction, weights = _spd(5) / 10, RNG.normal(size=(5, 5))
    h = 1e-6
    expected = (gradient(K + h * direction) - gradient(K - h * direction)) / (2 * h)
    _, tangent = symdiff.jvp(gradient)(K, direction)
    assert np.allclose(tangent, expected, rtol=1e-5, atol=1e-7)
    _, back = symdiff.vjp(gradient)(K, weights)
    assert np.isclose(np.sum(back * direction), np.sum(weights * expected), rtol=1e-5)


@pytest.mark.parametrize("f", [chol_general, cho_factor_upper])
def test_other_factor_gradients_are_multiplied_whole(f):
    args = (_spd(5), RNG.normal(size=5))
    check_grads(f, args, wrt=(0, 1))
    ill = (np.diag(np.logspace(0, -6, 5)) + 1e-7 * _spd(5), RNG.normal(size=5))
    got = symdiff.grad(f, wrt=0)(*ill)
    h, u = 1e-9, _spd(5) / 50
    expected = (f(ill[0] + h * u, ill[1]) - f(ill[0] - h * u, ill[1])) / (2 * h)
    assert np.isclose(np.sum(got * u), expected, rtol=1e-4)


def _quadratic_cho(K, y):
    c = scipy.linalg.cho_factor(K, lower=True)
    return 0.5 * y @ scipy.linalg.cho_solve(c, y)


def _bilinear_cho(K, y, z):
    c = scipy.linalg.cho_factor(K, lower=True)
    return y @ scipy.linalg.cho_solve(c, z)


def test_a_quadratic_form_s_solve_adjoint_is_its_solution():
    """``y @ K^-1 y``: K is symmetric, so the solve's adjoint of k y is k times
    the solution (no second cho_solve); ``y @ K^-1 z`` still solves."""
    K, y, z = _spd(5), RNG.normal(size=5), RNG.normal(size=5)
    code = _code(symdiff.source(symdiff.grad(_quadratic_cho, wrt=(0, 1)), K, y))
    assert code.count("cho_solve(") == 1, code
    check_grads(_quadratic_cho, (K, y), wrt=(0, 1))
    code = _code(symdiff.source(symdiff.grad(_bilinear_cho, wrt=(0, 1, 2)), K, y, z))
    assert code.count("cho_solve(") == 2, code
    check_grads(_bilinear_cho, (K, y, z), wrt=(0, 1, 2))


@pytest.mark.parametrize("f", [chol_logdet_scipy, chol_logdet_numpy, cho_solve_logdet,
                               _quadratic_cho])
def test_the_closed_forms_hold_on_an_ill_conditioned_matrix(f):
    """K with condition number 1e8: the gradient against K^-1 - a a^T (a
    quadratic form alone: -a a^T) on the lower triangle, half on the
    diagonal, a = K^-1 y, computed with 40 digits by mpmath (independent of
    NumPy's and LAPACK's rounding)."""
    import mpmath
    n = 5
    q, _ = np.linalg.qr(RNG.normal(size=(n, n)))
    K = (q * np.logspace(0, -8, n)) @ q.T
    K = 0.5 * (K + K.T)
    y = RNG.normal(size=n)
    with mpmath.workdps(40):
        inverse = mpmath.matrix(K.tolist()) ** -1
        a = inverse * mpmath.matrix(y.tolist())
        exact = -(a * a.T) if f is _quadratic_cho else inverse - a * a.T
        exact = np.array(exact.tolist(), dtype=float)
    expected = exact * (np.tri(n) - 0.5 * np.eye(n))
    got = symdiff.grad(f, wrt=0)(K, y)
    error = np.max(np.abs(got - expected)) / np.max(np.abs(expected))
    assert error <= 2e-8, error  # (the condition number times float64's epsilon)


# ---- the trace of a product is never a matrix (optimize/trace_products.py) ----------------
def _ridge(lam, X, y):
    A = X.T @ X + lam * np.eye(X.shape[1])
    return np.sum((X @ np.linalg.solve(A, X.T @ y) - y) ** 2)


def _ridge_identity(lam, X, y):
    A = X.T @ X + lam * np.identity(X.shape[1])
    return np.sum(np.linalg.solve(A, X.T @ y) ** 2)


def _ridge_column(lam, X, y):      # the solve of a column, its column read
    A = X.T @ X + np.eye(X.shape[1]) * lam
    return np.sum(np.linalg.solve(A, (X.T @ y)[:, None])[:, 0] ** 2)


def _ridge_matrix(lam, X, B):      # of a matrix: sum(P * Q^T), one vdot
    A = X.T @ X + lam * np.eye(X.shape[1])
    return np.sum(np.linalg.solve(A, B) ** 2)


def _ridge_inverse(lam, X, y):
    A = X.T @ X + lam * np.eye(X.shape[1])
    return np.sum(np.sin(np.linalg.inv(A) @ (X.T @ y)))


@pytest.mark.parametrize("f, last", [(_ridge, RNG.normal(size=8)),
                                     (_ridge_identity, RNG.normal(size=8)),
                                     (_ridge_column, RNG.normal(size=8)),
                                     (_ridge_matrix, RNG.normal(size=(3, 2))),
                                     (_ridge_inverse, RNG.normal(size=8))],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_the_gradient_of_a_diagonal_shift_is_no_matrix_product(f, last):
    args = (0.5, RNG.normal(size=(8, 3)), last)
    source = symdiff.source(symdiff.grad(f), *args)
    code = source.split('"""')[-1].split("# L", 1)[-1]
    assert "trace" not in code and "identity, " not in code, source
    assert "[:, None]" not in code.split("\n", 2)[-1], source
    if last.ndim == 1 and f is not _ridge_inverse:  # -solve(A^T, w_bar) @ w: two vectors
        assert "@ w" in code or "@ t" in code, source
    check_grads(f, args, wrt=(0, 1))


def _eigenvalues_cubed(A):
    return np.sum(np.linalg.eigvalsh(A + A.T) ** 3)


def _nuclear_norm(A):
    return np.sum(np.linalg.svd(A, compute_uv=False))


def _eigenvalues_returned_too(A):
    w = np.linalg.eigvalsh(A + A.T)
    return np.sum(w ** 3), w


@pytest.mark.parametrize("f, args, words", [
    (_eigenvalues_cubed, (RNG.normal(size=(4, 4)),), ("= np.linalg.eigh(",)),
    (_nuclear_norm, (RNG.normal(size=(3, 5)),), ("u, ", "= np.linalg.svd(")),
], ids=lambda v: getattr(v, "__name__", ""))
def test_values_the_gradient_reads_come_from_the_decomposition_its_rule_makes(f, args, words):
    # (was: np.linalg.eigh(t)[1], and np.linalg.eigvalsh(t) again for 3 w ** 2)
    source = symdiff.source(symdiff.grad(f), *args)
    code = "\n".join(line.split("#")[0] for line in source.split('"""')[-1].splitlines())
    assert "linalg.eigvalsh(" not in code and "linalg.svdvals(" not in code, source
    for word in words:
        assert word in code, source
    check_grads(f, args)


def test_eigenvalues_the_function_returns_are_computed_as_written():
    A = RNG.normal(size=(3, 3))
    cotangent = (1.0, np.array([0.5, -1.0, 2.0]))
    source = symdiff.source(symdiff.vjp(_eigenvalues_returned_too), A, cotangent)
    assert "np.linalg.eigvalsh(" in source, source
    value, _ = symdiff.vjp(_eigenvalues_returned_too)(A, cotangent)
    np.testing.assert_array_equal(value[1], np.linalg.eigvalsh(A + A.T))

    def scalar(A):
        total, w = _eigenvalues_returned_too(A)
        return total + w @ cotangent[1]
    check_grads(scalar, (A,))


def _logdet_regulariser(L):
    S = L @ L.T + np.eye(L.shape[0])
    return -np.linalg.slogdet(S)[1] + np.trace(S)


def test_a_trace_s_gradient_of_a_square_matrix_is_an_identity():
    """``np.trace(S)`` of a matrix the signature knows is square: its
    gradient is ``np.eye(S.shape[0])``, not the ``_untrace`` helper."""
    L = np.random.default_rng(4).normal(size=(4, 4))
    df = symdiff.grad(_logdet_regulariser)
    source = symdiff.source(df, L)
    assert "_untrace" not in source and "np.eye(S.shape[0])" in source, source
    np.testing.assert_allclose(df(L), numeric_grad(_logdet_regulariser, [L]), rtol=1e-6,
                               atol=1e-8)
