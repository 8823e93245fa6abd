"""Negative log-likelihood of data X under a mixture of isotropic Gaussians,
in the mixture logits, the means and the log standard deviations."""
import numpy as np

from .base import Case, Spelling

try:
    from scipy.special import logsumexp
except ImportError:  # the spelling that needs it is skipped
    logsumexp = None


def gmm_logsumexp(logits, means, log_sigmas, X):
    d = X.shape[1]
    log_weights = logits - logsumexp(logits)
    sqdist = np.sum((X[:, None, :] - means[None, :, :]) ** 2, axis=2)
    log_pdf = (-0.5 * sqdist * np.exp(-2 * log_sigmas) - d * log_sigmas
               - 0.5 * d * np.log(2 * np.pi))
    return -np.sum(logsumexp(log_weights + log_pdf, axis=1))


def gmm_max_shift(logits, means, log_sigmas, X):  # logsumexp written out
    d = X.shape[1]
    log_weights = logits - np.max(logits)
    log_weights = log_weights - np.log(np.sum(np.exp(log_weights)))
    diff = X[:, None, :] - means
    a = (log_weights - 0.5 * np.sum(diff ** 2, axis=-1) / np.exp(2 * log_sigmas)
         - d * log_sigmas - 0.5 * d * np.log(2 * np.pi))
    m = np.max(a, axis=1)
    return -np.sum(m + np.log(np.sum(np.exp(a - m[:, None]), axis=1)))


def gmm_densities(logits, means, log_sigmas, X):  # in probability space
    d = X.shape[1]
    weights = np.exp(logits) / np.sum(np.exp(logits))
    var = np.exp(2 * log_sigmas)
    sqdist = np.sum((X[:, None, :] - means) ** 2, axis=2)
    dens = weights * np.exp(-0.5 * sqdist / var) / (2 * np.pi * var) ** (d / 2)
    return -np.sum(np.log(np.sum(dens, axis=1)))


def gmm_hand(logits, means, log_sigmas, X):
    n, d = X.shape
    inv_var = np.exp(-2.0 * log_sigmas)
    sqdist = (np.sum(X * X, axis=1)[:, None] - 2.0 * (X @ means.T)
              + np.sum(means * means, axis=1))
    a = (logits - d * log_sigmas) - 0.5 * sqdist * inv_var   # + constants, which cancel
    a -= np.max(a, axis=1, keepdims=True)
    R = np.exp(a)
    R /= np.sum(R, axis=1, keepdims=True)                   # responsibilities
    Nk = np.sum(R, axis=0)
    weights = np.exp(logits - np.max(logits))
    weights /= np.sum(weights)
    return (n * weights - Nk,
            (Nk[:, None] * means - R.T @ X) * inv_var[:, None],
            d * Nk - inv_var * np.sum(R * sqdist, axis=0))


def _args(n, k, d):
    def make(rng):
        centres = 3.0 * rng.standard_normal((k, d))
        X = centres[rng.integers(0, k, n)] + rng.standard_normal((n, d))
        return {"logits": 0.3 * rng.standard_normal(k),
                "means": centres + 0.5 * rng.standard_normal((k, d)),
                "log_sigmas": 0.2 * rng.standard_normal(k), "X": X}
    return make


CASE = Case(
    "GMM log-likelihood", ("logits", "means", "log_sigmas"), gmm_hand,
    {"16x3x2": _args(16, 3, 2), "20000x8x4": _args(20000, 8, 4)},
    [Spelling("scipy logsumexp", gmm_logsumexp, needs=("scipy",)),
     Spelling("max-shift", gmm_max_shift),
     Spelling("densities, log(sum)", gmm_densities)],
    why={
        "max-shift":
            "the spelling broadcasts `X[:, None, :] - means` to (N, K, d): at 20000 x 8 x 4 "
            "the function alone costs 1.8x the whole hand-written gradient, which expands "
            "the distances into one matrix product (a change of value the compiler does not "
            "make: |x|^2 - 2 x.m + |m|^2 cancels where x is near m); the gradient itself is "
            "cheaper than the function (the distances an einsum, the means' adjoint a stack "
            "of matrix products)",
        "scipy logsumexp":
            "as the max-shift spelling, the function alone 2.4x the hand-written gradient "
            "(SciPy's logsumexp; the gradient computes it, which only it reads, as NumPy's "
            "max-shifted form)",
        "densities, log(sum)":
            "as the max-shift spelling: the (N, K, d) subtraction in the forward pass",
    },
)
