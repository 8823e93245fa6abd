"""Linear-algebra workloads: symdiff's gradient against a hand-written one.

    python benchmarks/linalg.py           # both sizes of each
    python benchmarks/linalg.py --quick   # the small sizes only

A Gaussian process's negative log marginal likelihood in its log
hyperparameters (GPML Algorithm 2.1), spelled four ways (np.linalg.cholesky or
SciPy's with solve_triangular, cho_factor/cho_solve, slogdet/solve), and a
least-squares fit of a bilinear form x_n^T A z_n written with np.einsum. The
hand-written gradients are what a careful person writes (the GP's from K^-1:
d nll / dK = (K^-1 - alpha alpha^T) / 2); each is checked against central
differences before anything is timed. Ratios are symdiff / hand-written,
interleaved in one process (timing.py); "f alone" is the function itself,
the part of the gradient's time that is the spelling's forward pass.
"""
from __future__ import annotations

import os
import statistics
import sys

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # before NumPy is imported

import numpy as np  # noqa: E402
import scipy.linalg  # noqa: E402

import symdiff  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import interleaved  # noqa: E402


# ---- a Gaussian process's marginal likelihood -----------------------------------------------
def gp_cholesky(theta, X, y):
    ell, sf2, sn2 = np.exp(theta[0]), np.exp(2 * theta[1]), np.exp(2 * theta[2])
    sqdist = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = sf2 * np.exp(-0.5 * sqdist / ell ** 2) + sn2 * np.eye(len(y))
    L = np.linalg.cholesky(K)
    v = scipy.linalg.solve_triangular(L, y, lower=True)
    logdet = 2.0 * np.sum(np.log(np.einsum("ii->i", L)))
    return 0.5 * v @ v + 0.5 * logdet + 0.5 * len(y) * np.log(2 * np.pi)


def gp_scipy_cholesky(theta, X, y):
    ell, sf2, sn2 = np.exp(theta[0]), np.exp(2 * theta[1]), np.exp(2 * theta[2])
    sqdist = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = sf2 * np.exp(-0.5 * sqdist / ell ** 2) + sn2 * np.eye(len(y))
    L = scipy.linalg.cholesky(K, lower=True)
    v = scipy.linalg.solve_triangular(L, y, lower=True)
    logdet = 2.0 * np.sum(np.log(np.einsum("ii->i", L)))
    return 0.5 * v @ v + 0.5 * logdet + 0.5 * len(y) * np.log(2 * np.pi)


def gp_cho_solve(theta, X, y):
    ell, sf2, sn2 = np.exp(theta[0]), np.exp(2 * theta[1]), np.exp(2 * theta[2])
    sqdist = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = sf2 * np.exp(-0.5 * sqdist / ell ** 2) + sn2 * np.eye(len(y))
    factor = scipy.linalg.cho_factor(K, lower=True)
    alpha = scipy.linalg.cho_solve(factor, y)
    logdet = 2.0 * np.sum(np.log(np.einsum("ii->i", factor[0])))
    return 0.5 * y @ alpha + 0.5 * logdet + 0.5 * len(y) * np.log(2 * np.pi)


def gp_slogdet(theta, X, y):
    ell, sf2, sn2 = np.exp(theta[0]), np.exp(2 * theta[1]), np.exp(2 * theta[2])
    sqdist = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = sf2 * np.exp(-0.5 * sqdist / ell ** 2) + sn2 * np.eye(len(y))
    _, logdet = np.linalg.slogdet(K)
    return 0.5 * y @ np.linalg.solve(K, y) + 0.5 * logdet + 0.5 * len(y) * np.log(2 * np.pi)


def gp_hand(theta, X, y):
    n = len(y)
    ell2, sf2, sn2 = np.exp(2 * theta[0]), np.exp(2 * theta[1]), np.exp(2 * theta[2])
    sq = np.sum(X * X, axis=1)
    sqdist = np.maximum(sq[:, None] + sq[None, :] - 2.0 * (X @ X.T), 0.0)
    Kf = sf2 * np.exp(-0.5 / ell2 * sqdist)
    K = Kf.copy()
    K.flat[::n + 1] += sn2
    L = np.linalg.cholesky(K)
    L_inv = scipy.linalg.solve_triangular(L, np.eye(n), lower=True)
    K_inv = L_inv.T @ L_inv
    alpha = K_inv @ y
    W = K_inv - np.outer(alpha, alpha)  # 2 d nll / dK
    WKf = W * Kf
    return np.array([0.5 * np.sum(WKf * sqdist) / ell2, np.sum(WKf), sn2 * np.trace(W)])


def _gp_args(n, d):
    def make(rng):
        X = rng.uniform(0.0, 5.0, (n, d))
        y = np.sin(X.sum(axis=1)) + 0.3 * rng.standard_normal(n)
        return np.log([1.0, 1.0, 0.3]) + 0.1 * rng.standard_normal(3), X, y
    return make


# ---- a bilinear form ----------------------------------------------------------------------
def bilinear_einsum(A, X, Z, t):
    s = np.einsum("ni,ij,nj->n", X, A, Z)
    return 0.5 * np.sum((s - t) ** 2)


def bilinear_einsum_optimize(A, X, Z, t):
    s = np.einsum("ni,ij,nj->n", X, A, Z, optimize=True)
    return 0.5 * np.sum((s - t) ** 2)


def bilinear_rowwise(A, X, Z, t):
    r = np.einsum("ij,ij->i", X @ A, Z) - t
    return 0.5 * (r @ r)


def bilinear_hand(A, X, Z, t):
    r = np.einsum("ij,ij->i", X @ A, Z) - t
    return X.T @ (r[:, None] * Z)


def _bilinear_args(n, d):
    def make(rng):
        return (rng.standard_normal((d, d)) / d, rng.standard_normal((n, d)),
                rng.standard_normal((n, d)), rng.standard_normal(n))
    return make


CASES = [
    ("GP marginal likelihood", gp_hand,
     [gp_cholesky, gp_scipy_cholesky, gp_cho_solve, gp_slogdet],
     {"n=10": _gp_args(10, 2), "n=400": _gp_args(400, 3)}),
    ("bilinear form (einsum)", bilinear_hand,
     [bilinear_einsum, bilinear_einsum_optimize, bilinear_rowwise],
     {"8x3": _bilinear_args(8, 3), "20000x32": _bilinear_args(20000, 32)}),
]


def _fd_error(f, hand, args, rng, directions=3, step=1e-6):
    """The hand-written gradient against central differences along random
    directions, relative to the gradient's largest entry."""
    g = hand(*args)
    worst = 0.0
    for _ in range(directions):
        u = rng.standard_normal(np.shape(args[0]))
        moved = [f(args[0] + s * step * u, *args[1:]) for s in (1, -1)]
        fd = (moved[0] - moved[1]) / (2 * step)
        worst = max(worst, abs(fd - np.sum(g * u)) / max(1.0, np.max(np.abs(g))))
    return worst


def main(quick=False):
    # the steady malloc state of a process that has handled large arrays
    # (README.md: a freed 16 MiB block raises glibc's mmap threshold)
    block = np.zeros(1 << 21)
    del block
    rng = np.random.default_rng(0)
    print(f"{'case':24s} {'size':9s} {'spelling':26s} {'ratio':>6s} {'symdiff':>10s} "
          f"{'hand':>10s} {'f alone':>10s}  max rel err")
    for name, hand, spellings, sizes in CASES:
        for label, make in list(sizes.items())[:1 if quick else None]:
            args = make(rng)
            error = _fd_error(spellings[0], hand, args, rng)
            if error > 1e-4:
                raise SystemExit(f"{name} {label}: the hand-written gradient is off ({error:.1e})")
            for f in spellings:
                gradient = symdiff.grad(f)
                got, want = gradient(*args), hand(*args)
                err = np.max(np.abs(got - want)) / np.max(np.abs(want))
                _, per = interleaved([gradient, hand, f], args, rounds=5 if quick else 11)
                ratio = statistics.median(a / b for a, b in zip(per[0], per[1]))
                ms = [statistics.median(p) * 1e3 for p in per]
                print(f"{name:24s} {label:9s} {f.__name__:26s} {ratio:6.2f} {ms[0]:8.3f}ms "
                      f"{ms[1]:8.3f}ms {ms[2]:8.3f}ms  {err:.1e}", flush=True)


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
