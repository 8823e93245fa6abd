"""A 2-layer tanh MLP with softmax cross-entropy (one-hot labels), gradient in
every weight and bias; the softmax is where spellings differ most."""
import numpy as np

from .base import Case, Spelling

try:
    from scipy.special import logsumexp
except ImportError:  # the spelling that needs it is skipped
    logsumexp = None


def mlp(W1, b1, W2, b2, X, Y):  # the spelling of earlier runs: shift by the max
    h = np.tanh(X @ W1 + b1)
    logits = h @ W2 + b2
    logits = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -np.sum(Y * log_probs) / X.shape[0]


def mlp_logsumexp(W1, b1, W2, b2, X, Y):
    h = np.tanh(X @ W1 + b1)
    logits = h @ W2 + b2
    log_probs = logits - logsumexp(logits, axis=1, keepdims=True)
    return -np.mean(np.sum(Y * log_probs, axis=1))


def mlp_unshifted(W1, b1, W2, b2, X, Y):  # log(sum(exp)) as written in a textbook
    h = np.tanh(X @ W1 + b1)
    logits = h @ W2 + b2
    log_probs = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -np.sum(Y * log_probs) / X.shape[0]


def mlp_probs(W1, b1, W2, b2, X, Y):  # probabilities first, np.dot, methods
    h = np.tanh(np.dot(X, W1) + b1)
    z = np.dot(h, W2) + b2
    e = np.exp(z - z.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    return -np.mean(np.sum(Y * np.log(p), axis=1))


def mlp_hand(W1, b1, W2, b2, X, Y):
    h = np.tanh(X @ W1 + b1)
    logits = h @ W2 + b2
    logits -= np.max(logits, axis=1, keepdims=True)
    p = np.exp(logits)
    p /= np.sum(p, axis=1, keepdims=True)
    # general soft labels: d/dlogits = p * sum(Y) - Y (for one-hot rows, p - Y)
    d = (p * np.sum(Y, axis=1, keepdims=True) - Y) / X.shape[0]
    dz = d @ W2.T
    dz *= 1.0 - h * h
    return X.T @ dz, np.sum(dz, axis=0), h.T @ d, np.sum(d, axis=0)


def _args(batch, n_in, n_hidden, n_out):
    def make(rng):
        X = rng.standard_normal((batch, n_in))
        Y = np.eye(n_out)[rng.integers(0, n_out, batch)]
        return {"W1": rng.standard_normal((n_in, n_hidden)) / np.sqrt(n_in),
                "b1": 0.1 * rng.standard_normal(n_hidden),
                "W2": rng.standard_normal((n_hidden, n_out)) / np.sqrt(n_hidden),
                "b2": 0.1 * rng.standard_normal(n_out), "X": X, "Y": Y}
    return make


CASE = Case(
    "MLP tanh+softmax", ("W1", "b1", "W2", "b2"), mlp_hand,
    {"4:8-16-3": _args(4, 8, 16, 3), "128:784-256-10": _args(128, 784, 256, 10)},
    [Spelling("max-shift", mlp),
     Spelling("scipy logsumexp", mlp_logsumexp, needs=("scipy",)),
     Spelling("log(sum(exp))", mlp_unshifted),
     Spelling("softmax probs, np.dot", mlp_probs)],
    why={
        "scipy logsumexp":
            "at batch 4 scipy's logsumexp (~20 us) is most of the spelling's own forward "
            "pass (*f alone*); the gradient, which alone reads its value, computes it as "
            "NumPy's max-shifted form (docs/semantics.md, values only the gradient reads)",
        "softmax probs, np.dot":
            "three `np.dot` adjoints through `np.tensordot` (`_dot_adjoint_a/_b`, 6-7 us "
            "each at batch 4, against ~1 us for `h.T @ d`), and `log(e / sum(e))` "
            "differentiated through the quotient (`p_bar = log_p_bar / p`, `sum_e_bar`, "
            "two `_unreduce`) instead of simplified to `p - Y`",
    },
)
