"""L2-regularised logistic regression, labels in {-1, +1}, gradient in (w, b)."""
import numpy as np

from .base import Case, Spelling


def logistic(w, b, X, y, lam):  # the spelling of earlier runs
    z = X @ w + b
    return np.mean(np.logaddexp(0.0, -y * z)) + 0.5 * lam * np.sum(w ** 2)


def logistic_matmul_norm(w, b, X, y, lam):  # issue 16's: softplus by log1p, w @ w
    z = X @ w + b
    return np.mean(np.log1p(np.exp(-y * z))) + 0.5 * lam * (w @ w)


def logistic_dot(w, b, X, y, lam):  # np.dot everywhere, the sigmoid written out
    p = 1.0 / (1.0 + np.exp(-y * (np.dot(X, w) + b)))
    return -np.mean(np.log(p)) + lam / 2 * np.dot(w, w)


def logistic_methods(w, b, X, y, lam):  # methods: X.dot, .mean(), np.square(w).sum()
    margins = y * (X.dot(w) + b)
    return np.logaddexp(0, -margins).mean() + 0.5 * lam * np.square(w).sum()


def logistic_hand(w, b, X, y, lam):
    m = y * (X @ w + b)
    r = y * (0.5 * np.tanh(0.5 * m) - 0.5) / X.shape[0]   # -y * sigmoid(-m) / n
    return X.T @ r + lam * w, np.sum(r)


def _args(n, d):
    def make(rng):
        X = rng.standard_normal((n, d)) / np.sqrt(d)
        w_true = rng.standard_normal(d)
        y = np.where(X @ w_true + 0.3 * rng.standard_normal(n) > 0, 1.0, -1.0)
        return {"w": rng.standard_normal(d), "b": 0.1, "X": X, "y": y, "lam": 0.01}
    return make


CASE = Case(
    "logistic L2", ("w", "b"), logistic_hand,
    {"10x3": _args(10, 3), "1000x100": _args(1000, 100)},
    [Spelling("logaddexp, sum(w**2)", logistic),
     Spelling("log1p(exp), w @ w", logistic_matmul_norm),
     Spelling("sigmoid, np.dot(w, w)", logistic_dot),
     Spelling("methods, square.sum", logistic_methods)],
    why={
        "log1p(exp), w @ w":
            "`0.5 * lam * (w @ w)` becomes two helper calls "
            "(`_matmul_adjoint_a(multiply_lam, w, w) + _matmul_adjoint_b(...)`) for "
            "`lam * w`, and `_require_scalar(lam, w @ w)` computes `w @ w` again only to "
            "check it",
        "sigmoid, np.dot(w, w)":
            "`np.dot` through `_dot_adjoint_a/_b` (`np.tensordot`): three calls of 5-13 us "
            "where `lam * w` and `r @ X` would do; `np.dot(w, w)` computed only for the "
            "scalar check; `-log(1 / (1 + exp(t)))` differentiated step by step "
            "(`p_bar = -1/n/p`, `-(p * p_bar / add_exp_t)`, `exp_t * ...`) instead of one "
            "sigmoid",
        "methods, square.sum":
            "`X.dot(w)`'s adjoint via `_dot_adjoint_b` (`np.tensordot`) instead of "
            "`r @ X`, and a double negation kept (`np.tanh(-0.5 * -margins)`)",
    },
)
