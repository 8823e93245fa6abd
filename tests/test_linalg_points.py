"""Linear algebra at its special points: singular and near-singular matrices,
ill-conditioned ones (condition number ~1e6, against derivatives computed
in 50-digit arithmetic), repeated eigen- and singular values, ties and zeros
of norms; and a written module that runs without symdiff.

The rows of tests/rows_linalg.py check every primitive in every mode at
ordinary points; these check what the rules decide where that is not enough.
"""
import itertools
import json
import subprocess
import sys

import mpmath
import numpy as np
import pytest
import scipy.linalg

import symdiff
from check_grads import check_grads

RNG = np.random.default_rng(20261124)
mpmath.mp.dps = 50


def _orthogonal(n):
    q, _ = np.linalg.qr(RNG.normal(size=(n, n)))
    return q


def _with_singular_values(values):
    n = len(values)
    return _orthogonal(n) @ np.diag(values) @ _orthogonal(n).T


def _mp(a):
    return mpmath.matrix(np.asarray(a).tolist())


def _np(m):
    return np.array(m.tolist(), dtype=float)


def _exact_det(rows):
    """The determinant by Leibniz's formula, in 50 digits (small matrices)."""
    total = mpmath.mpf(0)
    for perm in itertools.permutations(range(len(rows))):
        sign = (-1) ** sum(1 for i in range(len(perm)) for j in range(i) if perm[j] > perm[i])
        total += sign * mpmath.fprod(mpmath.mpf(rows[i][perm[i]]) for i in range(len(perm)))
    return total


def _exact_cofactor(a):
    """det(a) inv(a)^T from the (n-1)-minors, in 50 digits: exact at singular a."""
    n = a.shape[0]
    out = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            minor = [[a[r, c] for c in range(n) if c != j] for r in range(n) if r != i]
            out[i, j] = float((-1) ** (i + j) * _exact_det(minor))
    return out


# ---- det at singular matrices: the cofactor matrix, finite -----------------------------------
SINGULAR = {
    "rank n-1": _with_singular_values([2.0, 1.0, 0.5, 0.0]),
    "rank n-2": _with_singular_values([2.0, 1.0, 0.0, 0.0]),
    "zero column": np.array([[1.0, 0.0, 2.0], [3.0, 0.0, 1.0], [0.5, 0.0, 4.0]]),
    "zeros": np.zeros((3, 3)),
}


def det(a):
    return np.linalg.det(a)


@pytest.mark.parametrize("a", SINGULAR.values(), ids=SINGULAR.keys())
def test_det_gradient_at_a_singular_matrix_is_the_cofactor_matrix(a):
    expected = _exact_cofactor(a)
    got = symdiff.grad(det)(a)
    np.testing.assert_allclose(got, expected, atol=1e-12)
    direction = RNG.normal(size=a.shape)
    _, tangent = symdiff.jvp(det)(a, direction)
    assert tangent == pytest.approx(np.sum(expected * direction), abs=1e-12)


@pytest.mark.parametrize("a", SINGULAR.values(), ids=SINGULAR.keys())
def test_det_second_derivative_at_a_singular_matrix_is_finite_and_right(a):
    """det's gradient is a polynomial: central differences of it are exact to rounding."""
    gradient = symdiff.grad(det)
    direction = RNG.normal(size=a.shape)
    _, hvp = symdiff.jvp(gradient)(a, direction)
    step = 1e-4
    expected = (_exact_cofactor(a + step * direction) -
                _exact_cofactor(a - step * direction)) / (2 * step)
    assert np.all(np.isfinite(hvp))
    np.testing.assert_allclose(hvp, expected, atol=1e-7)
    _, back = symdiff.vjp(gradient)(a, direction)  # det's Hessian is symmetric
    np.testing.assert_allclose(back, expected, atol=1e-7)


def test_det_gradient_of_a_stack_with_one_singular_matrix():
    stack = np.stack([SINGULAR["rank n-1"], _with_singular_values([3.0, 2.0, 1.0, 0.5])])
    got = symdiff.grad(lambda a: np.sum(np.linalg.det(a)))(stack)
    for matrix, g in zip(stack, got):
        np.testing.assert_allclose(g, _exact_cofactor(matrix), atol=1e-12)


D = RNG.normal(size=(4, 4))
DET_GRAD = symdiff.grad(det)


def det_curvature(a):
    return np.sum(DET_GRAD(a) * D)


DET_HVP = symdiff.grad(det_curvature)


def test_det_third_derivative_at_a_singular_matrix_is_nan_not_wrong():
    """Documented: det's third derivative divides by det (rules/determinants.py)."""
    third = symdiff.grad(lambda a: np.sum(DET_HVP(a) * D))
    regular = _with_singular_values([3.0, 2.0, 1.0, 0.5])
    check_grads(det_curvature, (regular,), order=2)
    assert np.all(np.isfinite(third(regular)))
    exactly_singular = np.array([[1.0, 2.0, 0.0, 1.0], [0.5, 1.0, 3.0, 2.0],
                                 [2.0, 4.0, 1.0, 0.0], [1.0, 2.0, 2.0, 1.0]])  # det 0
    with np.errstate(all="ignore"):
        got = third(exactly_singular)
    assert not np.all(np.isfinite(got))


def test_slogdet_at_a_singular_matrix_has_no_gradient_and_says_so():
    with pytest.raises(np.linalg.LinAlgError):
        symdiff.grad(lambda a: np.linalg.slogdet(a)[1])(SINGULAR["zero column"])


# ---- ill-conditioned matrices (condition number 1e6), against 50 digits ----------------------
ILL = _with_singular_values([1.0, 0.3, 1e-3, 1e-6])
ILL_SPD = (lambda q: q @ np.diag([1.0, 0.3, 1e-3, 1e-6]) @ q.T)(_orthogonal(4))
W = RNG.normal(size=4)
B = RNG.normal(size=4)


def _relative_error(got, expected):
    return np.max(np.abs(got - expected)) / np.max(np.abs(expected))


def test_solve_gradients_on_an_ill_conditioned_matrix():
    a, b = _mp(ILL), mpmath.matrix(B.tolist())
    x = mpmath.lu_solve(a, b)
    b_bar = mpmath.lu_solve(a.T, mpmath.matrix(W.tolist()))
    a_bar = -_np(b_bar) @ _np(x).T
    got = symdiff.grad(lambda a, b: W @ np.linalg.solve(a, b), wrt=(0, 1))(ILL, B)
    # forward error of a backward-stable solve: ~ cond * eps = 2e-10
    assert _relative_error(got[1], _np(b_bar).ravel()) < 1e-8
    assert _relative_error(got[0], a_bar) < 1e-8


def test_slogdet_and_det_gradients_on_an_ill_conditioned_matrix():
    inverse_t = _np(_mp(ILL) ** -1).T
    got = symdiff.grad(lambda a: np.linalg.slogdet(a)[1])(ILL)
    assert _relative_error(got, inverse_t) < 1e-8
    got = symdiff.grad(det)(ILL)
    assert _relative_error(got, _exact_cofactor(ILL)) < 1e-8


def test_cholesky_gradients_on_an_ill_conditioned_matrix():
    """sum(w^T L^-1 b) through np.linalg.cholesky and through SciPy's factor:
    the same function, against its gradient in 50 digits (A_bar = -L^-T z x^T
    with z = L^-T w, x = L^-1 b, folded onto the lower triangle read)."""
    a = _mp(ILL_SPD)
    lower = mpmath.cholesky(a)
    x = mpmath.lu_solve(lower, mpmath.matrix(B.tolist()))
    z = mpmath.lu_solve(lower.T, mpmath.matrix(W.tolist()))
    l_bar = -_np(z) @ _np(x).T * np.tri(4)
    p = _np(lower).T @ l_bar
    p = p * (np.tri(4) - 0.5 * np.eye(4))
    li = _np(lower ** -1)
    s = li.T @ p @ li
    expected = (s + s.T) * (np.tri(4) - 0.5 * np.eye(4))

    def numpy_way(a):
        return W @ np.linalg.solve(np.linalg.cholesky(a), B)

    def scipy_way(a):
        factor = scipy.linalg.cholesky(a, lower=True)
        return W @ scipy.linalg.solve_triangular(factor, B, lower=True)

    for f in (numpy_way, scipy_way):
        assert _relative_error(symdiff.grad(f)(ILL_SPD), expected) < 1e-7


def test_cho_solve_gradient_on_an_ill_conditioned_matrix():
    a = _mp(ILL_SPD)
    x = mpmath.lu_solve(a, mpmath.matrix(B.tolist()))
    z = mpmath.lu_solve(a, mpmath.matrix(W.tolist()))
    symmetric = -_np(z) @ _np(x).T
    expected = (symmetric + symmetric.T) * (np.tri(4) - 0.5 * np.eye(4))
    got = symdiff.grad(lambda a: W @ scipy.linalg.cho_solve(
        scipy.linalg.cho_factor(a, lower=True), B))(ILL_SPD)
    assert _relative_error(got, expected) < 1e-7


# ---- pinv at a rank-deficient matrix ------------------------------------------------------------
def test_pinv_gradient_at_a_rank_deficient_matrix_is_that_along_its_rank():
    """At a matrix of rank 2, pinv is smooth along matrices of rank 2 (a
    direction that raises the rank makes singular values below the cutoff)."""
    left, right = RNG.normal(size=(4, 2)), RNG.normal(size=(2, 3))
    a = left @ right
    weights = RNG.normal(size=(3, 4))
    got = symdiff.grad(lambda a: np.sum(weights * np.linalg.pinv(a)))(a)
    assert np.all(np.isfinite(got))
    for _ in range(3):  # directions along the rank-2 matrices at a
        d_left, d_right = RNG.normal(size=(4, 2)), RNG.normal(size=(2, 3))
        direction = d_left @ right + left @ d_right
        step = 1e-6
        moved = [np.sum(weights * np.linalg.pinv((left + s * d_left) @ (right + s * d_right)))
                 for s in (step, -step)]
        expected = (moved[0] - moved[1]) / (2 * step)
        assert np.sum(got * direction) == pytest.approx(expected, rel=1e-6)


# ---- repeated eigenvalues and singular values ---------------------------------------------------
REPEATED = (lambda q: q @ np.diag([2.0, 2.0, 2.0, -1.0]) @ q.T)(_orthogonal(4))
REPEATED = np.tril(REPEATED) + np.tril(REPEATED, -1).T  # exactly symmetric


def test_eigenvalue_functions_at_repeated_eigenvalues():
    """Symmetric functions of the eigenvalues are smooth there: their
    gradient (as NumPy reads the matrix: its lower triangle) is exact. (Their
    second derivative goes through the eigenvectors': NaN there, documented.)"""
    def trace(a):
        return np.sum(np.linalg.eigvalsh(a))

    def squares(a):
        return np.sum(np.linalg.eigh(a).eigenvalues ** 2)

    fold = 2.0 * np.tri(4) - np.eye(4)  # off-diagonal entries read twice
    np.testing.assert_allclose(symdiff.grad(trace)(REPEATED), np.eye(4), atol=1e-12)
    np.testing.assert_allclose(symdiff.grad(squares)(REPEATED), 2.0 * REPEATED * fold,
                               atol=1e-12)
    check_grads(squares, (REPEATED,), order=1)
    with np.errstate(all="ignore"):
        _, hvp = symdiff.jvp(symdiff.grad(squares))(REPEATED, np.eye(4))
    assert not np.all(np.isfinite(hvp))


def test_eigenvector_gradients_at_repeated_eigenvalues_are_not_finite():
    """Eigenvectors are not unique there: inf or NaN, never a finite wrong value."""
    with np.errstate(all="ignore"):
        got = symdiff.grad(lambda a: np.sum(np.linalg.eigh(a)[1][:, 0] ** 3))(REPEATED)
    assert not np.all(np.isfinite(got))


def test_singular_values_and_vectors_at_repeated_singular_values():
    a = _with_singular_values([3.0, 1.0, 1.0])
    got = symdiff.grad(lambda a: np.sum(np.linalg.svd(a, compute_uv=False)))(a)
    u, _, vh = np.linalg.svd(a)
    np.testing.assert_allclose(got, u @ vh, atol=1e-12)  # the nuclear norm: smooth there
    with np.errstate(all="ignore"):
        got = symdiff.grad(lambda a: np.sum(np.linalg.svd(a)[0][:, 1] ** 3))(a)
    assert not np.all(np.isfinite(got))


def test_full_matrices_columns_beyond_the_rank_have_no_gradient():
    a = RNG.normal(size=(4, 2))
    used = symdiff.grad(lambda a: np.sum(np.linalg.svd(a)[0][:, :2] ** 3))(a)
    reduced = symdiff.grad(lambda a: np.sum(np.linalg.svd(a, full_matrices=False)[0] ** 3))(a)
    np.testing.assert_allclose(used, reduced, atol=1e-12)
    with pytest.raises(symdiff.SymdiffError, match="full_matrices=True"):
        symdiff.grad(lambda a: np.sum(np.linalg.svd(a)[0] ** 3))(a)


# ---- norms at ties and zeros (the kink policy) ------------------------------------------
def test_norm_ties_split_the_gradient_evenly_and_corners_have_zero():
    x = np.array([1.0, -3.0, 3.0, 0.0])
    np.testing.assert_array_equal(symdiff.grad(lambda x: np.linalg.norm(x, np.inf))(x),
                                  [0.0, -0.5, 0.5, 0.0])
    np.testing.assert_array_equal(symdiff.grad(lambda x: np.linalg.norm(x, 1))(x),
                                  [1.0, -1.0, 1.0, 0.0])
    np.testing.assert_array_equal(symdiff.grad(lambda x: np.linalg.norm(x, 2))(np.zeros(3)),
                                  np.zeros(3))
    np.testing.assert_allclose(symdiff.grad(lambda a: np.linalg.norm(a, 2))(np.eye(3)),
                               np.eye(3) / 3, atol=1e-12)  # three singular values tie
    np.testing.assert_array_equal(symdiff.grad(lambda a: np.linalg.norm(a, "nuc"))(
        np.zeros((2, 3))), np.zeros((2, 3)))
    m = np.array([[1.0, -2.0], [-2.0, 1.0]])  # both columns sum to 3
    np.testing.assert_array_equal(symdiff.grad(lambda a: np.linalg.norm(a, 1))(m),
                                  0.5 * np.sign(m))


def test_nuclear_norm_of_a_rank_deficient_matrix_drops_the_zero_singular_value():
    a = np.outer([1.0, 2.0, 2.0], [0.0, 3.0, 4.0])  # rank one
    got = symdiff.grad(lambda a: np.linalg.norm(a, "nuc"))(a)
    np.testing.assert_allclose(got, a / np.linalg.norm(a), atol=1e-12)


# ---- a written module runs without symdiff ----------------------------------------------
MODULE = '''\
import numpy as np
import scipy.linalg
import symdiff


@symdiff.grad(wrt=("a", "b"))
def loss(a, b, x):
    k = np.einsum("ij,kj->ik", a, a) + 4.0 * np.eye(3)
    y = scipy.linalg.cho_solve(scipy.linalg.cho_factor(k), b)
    s = np.linalg.svd(a, compute_uv=False)
    return np.sum(y * x) + np.linalg.det(k) + np.sum(s) + np.linalg.norm(a, 1)
'''

RUN = '''\
import json, sys
sys.modules["symdiff"] = None
import numpy as np
ns = {"__name__": "written"}
exec(compile(open(sys.argv[1]).read(), sys.argv[1], "exec"), ns)
rng = np.random.default_rng(0)
a, b, x = rng.normal(size=(3, 2)), rng.normal(size=3), rng.normal(size=3)
print(json.dumps([g.tolist() for g in ns["grad_loss"](a, b, x)]))
'''


def test_a_written_module_with_linear_algebra_runs_without_symdiff(tmp_path):
    source, out = tmp_path / "linear.py", tmp_path / "linear_grad.py"
    source.write_text(MODULE)
    root = __import__("pathlib").Path(__file__).resolve().parent.parent
    subprocess.run([sys.executable, str(root / "cli.py"), str(source), "-o", str(out)],
                   check=True, cwd=root, capture_output=True)
    done = subprocess.run([sys.executable, "-c", RUN, str(out)], capture_output=True,
                          text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    a_bar, b_bar = (np.array(g) for g in json.loads(done.stdout))
    rng = np.random.default_rng(0)
    a, b, x = rng.normal(size=(3, 2)), rng.normal(size=3), rng.normal(size=3)
    check_grads(linear_loss, (a, b, x), wrt=(0, 1), order=1)
    expected = symdiff.grad(linear_loss, wrt=(0, 1))(a, b, x)
    np.testing.assert_allclose(a_bar, expected[0], rtol=1e-12)
    np.testing.assert_allclose(b_bar, expected[1], rtol=1e-12)


def linear_loss(a, b, x):  # MODULE's function
    k = np.einsum("ij,kj->ik", a, a) + 4.0 * np.eye(3)
    y = scipy.linalg.cho_solve(scipy.linalg.cho_factor(k), b)
    s = np.linalg.svd(a, compute_uv=False)
    return np.sum(y * x) + np.linalg.det(k) + np.sum(s) + np.linalg.norm(a, 1)


# ---- more ill-conditioned matrices: spectra and the pseudo-inverse --------------------------
def test_eigvalsh_and_svdvals_gradients_on_ill_conditioned_matrices():
    """V diag(w_bar) V^T (folded onto the triangle read) and U diag(s_bar) V^T,
    against the decompositions in 50 digits."""
    weights = RNG.normal(size=4)
    w, v = mpmath.eigsy(_mp(ILL_SPD))
    v = _np(v)[:, np.argsort([float(x) for x in w])]
    symmetric = v @ np.diag(weights) @ v.T
    expected = symmetric * (2.0 * np.tri(4) - np.eye(4))
    got = symdiff.grad(lambda a: np.linalg.eigvalsh(a) @ weights)(ILL_SPD)
    assert _relative_error(got, expected) < 1e-9
    u, s, vh = (_np(m) for m in mpmath.svd_r(_mp(ILL)))
    got = symdiff.grad(lambda a: np.linalg.svd(a, compute_uv=False) @ weights)(ILL)
    assert _relative_error(got, u @ np.diag(weights) @ vh) < 1e-9


def test_pinv_of_an_ill_conditioned_matrix_has_the_inverse_s_gradient():
    g = RNG.normal(size=(4, 4))
    inverse = _np(_mp(ILL) ** -1)
    expected = -inverse.T @ g @ inverse.T
    got = symdiff.grad(lambda a: np.sum(g * np.linalg.pinv(a)))(ILL)
    assert _relative_error(got, expected) < 1e-6  # (pinv goes through the SVD: cond^2 eps)


# ---- einsum: random subscripts, against NumPy's reading of them ------------------------------
def _random_subscripts(rng):
    """Two or three operands over labels i..m (some repeated in an operand,
    some with ...), an output explicit or implicit."""
    labels = "ijklm"
    sizes = {label: int(rng.integers(1, 4)) for label in labels}
    terms, shapes = [], []
    for _ in range(int(rng.integers(1, 4))):
        term = list(rng.choice(list(labels), size=int(rng.integers(0, 4))))
        ellipsis = rng.random() < 0.3
        shapes.append(((2,) if ellipsis else ()) + tuple(sizes[x] for x in term))
        terms.append(("..." if ellipsis else "") + "".join(term))
    text = ",".join(terms)
    if rng.random() < 0.5:
        present = sorted({x for t in terms for x in t if x != "."})
        kept = [x for x in present if rng.random() < 0.5]
        text += "->" + ("..." if "..." in text else "") + "".join(kept)
    return text, shapes


@pytest.mark.parametrize("seed", range(12))
def test_einsum_random_subscripts(seed):
    rng = np.random.default_rng(seed)
    text, shapes = _random_subscripts(rng)
    args = tuple(rng.normal(size=s) for s in shapes)
    weights = rng.normal(size=np.shape(np.einsum(text, *args)))
    if len(args) == 1:
        def f(a):
            return np.sum(weights * np.einsum(text, a))
    elif len(args) == 2:
        def f(a, b):
            return np.sum(weights * np.einsum(text, a, b))
    else:
        def f(a, b, c):
            return np.sum(weights * np.einsum(text, a, b, c))
    check_grads(f, args, order=1)


def test_einsum_gradients_are_einsums_with_the_users_optimize():
    def product(a, b):
        return np.sum(np.einsum("ij,jk->ik", a, b) ** 2)

    def chosen(a, b):
        return np.sum(np.einsum("ij,jk->ik", a, b, optimize="optimal") ** 2)

    def rows(a, b):
        return np.sum(np.einsum("ij,ij->i", a, b) ** 2)

    text = symdiff.source(symdiff.grad(product, wrt=(0, 1)))
    assert "np.einsum('ik,jk->ij', t_bar, b, optimize=True)" in text  # it contracts k
    text = symdiff.source(symdiff.grad(chosen, wrt=(0, 1)))
    assert text.count("optimize='optimal'") == 3
    text = symdiff.source(symdiff.grad(rows, wrt=(0, 1)))
    assert "np.einsum('i,ij->ij', t_bar, b)" in text  # a product: no path to find
