"""Gaussian-process regression: the negative log marginal likelihood of y under a
squared-exponential kernel with noise, as a function of the log hyperparameters
theta = (log lengthscale, log signal std, log noise std). Cholesky and triangular
solves (GPML, Algorithm 2.1), or a log-determinant and a solve."""
import numpy as np

from .base import Case, Spelling

try:
    import scipy.linalg
except ImportError:  # the spellings and the reference that need it are skipped
    scipy = None


def gp_cholesky(theta, X, y):  # GPML Algorithm 2.1
    ell, sf2, sn2 = np.exp(theta[0]), np.exp(2 * theta[1]), np.exp(2 * theta[2])
    sqdist = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = sf2 * np.exp(-0.5 * sqdist / ell ** 2) + sn2 * np.eye(len(y))
    L = np.linalg.cholesky(K)
    v = scipy.linalg.solve_triangular(L, y, lower=True)
    return 0.5 * v @ v + np.sum(np.log(np.diag(L))) + 0.5 * len(y) * np.log(2 * np.pi)


def gp_cho_solve(theta, X, y):  # scipy's cho_factor / cho_solve
    ell, sf2, sn2 = np.exp(theta[0]), np.exp(2 * theta[1]), np.exp(2 * theta[2])
    diff = X[:, None, :] - X[None, :, :]
    K = sf2 * np.exp(-0.5 * np.sum(diff * diff, axis=2) / ell ** 2) + sn2 * np.eye(len(y))
    factor = scipy.linalg.cho_factor(K, lower=True)
    alpha = scipy.linalg.cho_solve(factor, y)
    logdet = 2.0 * np.sum(np.log(np.diag(factor[0])))
    return 0.5 * y @ alpha + 0.5 * logdet + 0.5 * len(y) * np.log(2 * np.pi)


def gp_slogdet(theta, X, y):  # squared distances by expansion, slogdet and solve
    ell, sf2, sn2 = np.exp(theta[0]), np.exp(2 * theta[1]), np.exp(2 * theta[2])
    sq = np.sum(X ** 2, axis=1)
    sqdist = sq[:, None] + sq[None, :] - 2.0 * X @ X.T
    K = sf2 * np.exp(-0.5 * sqdist / ell ** 2) + sn2 * np.eye(X.shape[0])
    sign, logdet = np.linalg.slogdet(K)
    return 0.5 * y @ np.linalg.solve(K, y) + 0.5 * logdet + 0.5 * len(y) * np.log(2 * np.pi)


def gp_expanded(theta, X, y):  # distances by expansion (as scikit-learn), SciPy's factor
    ell, sf2, sn2 = np.exp(theta[0]), np.exp(2 * theta[1]), np.exp(2 * theta[2])
    sq = np.sum(X * X, axis=1)
    sqdist = np.maximum(sq[:, None] + sq[None, :] - 2.0 * (X @ X.T), 0.0)
    K = sf2 * np.exp(-0.5 * sqdist / ell ** 2) + sn2 * np.eye(len(y))
    L = scipy.linalg.cholesky(K, lower=True)
    alpha = scipy.linalg.cho_solve((L, True), y)
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L))) + 0.5 * len(y) * np.log(2 * np.pi)


def gp_hand(theta, X, y):
    n = len(y)
    ell2, sf2, sn2 = np.exp(2 * theta[0]), np.exp(2 * theta[1]), np.exp(2 * theta[2])
    sq = np.sum(X * X, axis=1)
    sqdist = np.maximum(sq[:, None] + sq[None, :] - 2.0 * (X @ X.T), 0.0)
    Kf = sf2 * np.exp(-0.5 / ell2 * sqdist)
    K = Kf.copy()
    K.flat[::n + 1] += sn2
    L = np.linalg.cholesky(K)
    K_inv = scipy.linalg.lapack.dpotri(L, lower=1)[0]  # K^-1's lower triangle, from L
    alpha = scipy.linalg.cho_solve((L, True), y)
    # d nll / dK = (K^-1 - alpha alpha^T) / 2 =: W / 2; d nll / d theta_j = sum(W * dK_j) / 2,
    # over the lower triangle: its entries below the diagonal count twice
    W = (K_inv - np.outer(alpha, alpha)) * (2.0 * np.tri(n) - np.eye(n))
    WKf = W * Kf
    return np.array([0.5 * np.sum(WKf * sqdist) / ell2, np.sum(WKf), sn2 * np.trace(W)])


def _args(n, d):
    def make(rng):
        X = rng.uniform(0.0, 5.0, (n, d))
        y = np.sin(X.sum(axis=1)) + 0.3 * rng.standard_normal(n)
        theta = np.log([1.0, 1.0, 0.3]) + 0.1 * rng.standard_normal(3)
        return {"theta": theta, "X": X, "y": y}
    return make


CASE = Case(
    "GP marginal likelihood", ("theta",), gp_hand,
    {"n=10": _args(10, 2), "n=400": _args(400, 3)},
    [Spelling("cholesky, solve_triangular", gp_cholesky),
     Spelling("cho_factor, cho_solve", gp_cho_solve),
     Spelling("slogdet, solve", gp_slogdet),
     Spelling("expanded, scipy cholesky", gp_expanded)],
    needs=("scipy",),
    why={
        "cholesky, solve_triangular":
            "the spelling's distances broadcast to (n, n, d): at n=400 the function alone "
            "costs 1.3x the whole hand-written gradient, which expands them into one matrix "
            "product (a change of value the compiler does not make); the Cholesky adjoint is "
            "the hand-written one's (K^-1 by potri, minus an outer product); at n=10, SciPy's "
            "per-call cost: the user's solve_triangular (~10 us with its finite check) and "
            "one more for L^-T v",
        "cho_factor, cho_solve":
            "as the cholesky spelling: (n, n, d) distances, the function alone 1.3x the "
            "hand-written gradient at n=400",
        "slogdet, solve":
            "slogdet's gradient is K^-1 by LU (np.linalg.inv: twice the work of a "
            "Cholesky factor and potri), where the hand-written gradient knows K is "
            "positive definite (a general K could not be factored so)",
    },
)
