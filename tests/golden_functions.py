"""Canonical functions whose generated gradients are kept as golden files."""
import numpy as np


def piecewise(x, w):
    z = x * w
    h = np.where(z > 0, z, 0.1 * z)
    return np.sum(h ** 2)


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def logistic(w, X, y, lam):
    z = X @ w
    loss = np.mean(np.logaddexp(0.0, z) - y * z)
    return loss + lam * np.sum(w ** 2)


def mlp(W1, b1, W2, b2, X, Y):
    h = np.tanh(X @ W1 + b1)
    logits = h @ W2 + b2
    logits = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -np.sum(Y * log_probs) / X.shape[0]


def huber(r):
    a = np.abs(r)
    return np.sum(np.where(a <= 1.0, 0.5 * r ** 2, a - 0.5))


def sqrt_where(x):
    return np.sum(np.where(x > 0, np.sqrt(x), 0.0))


def clip_norm(v, w):
    n2 = np.sum(v ** 2)
    if n2 > 1:
        v = v / np.sqrt(n2)
    return np.sum(v * w)


def relu_layer(x, W):
    return np.sum(np.maximum(W @ x, 0.0))


def _softplus(t):
    return np.logaddexp(0.0, t)


def uses_helper(x):
    y = _softplus(x) * np.exp(-x)
    return np.sum(y)


def scalar_expression(a, b, c):
    d = a * b + np.sin(c) / (1.0 + a ** 2)
    e = np.sqrt(d ** 2 + 1.0) - np.log(1.0 + np.exp(-b))
    return d * e + c ** 3


def rnn(W, U, b, xs, target):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t] + b)
    return 0.5 * np.sum((h - target) ** 2)


GOLDEN = {
    "piecewise": (piecewise, ("x", "w")),
    "rosenbrock": (rosenbrock, 0),
    "logistic": (logistic, "w"),
    "mlp": (mlp, ("W1", "b1", "W2", "b2")),
    "huber": (huber, 0),
    "sqrt_where": (sqrt_where, 0),
    "clip_norm": (clip_norm, ("v", "w")),
    "relu_layer": (relu_layer, "W"),
    "uses_helper": (uses_helper, 0),
    "scalar_expression": (scalar_expression, ("a", "b", "c")),
    "rnn": (rnn, ("W", "U", "b")),
}


def _arguments():
    """Arguments each canonical function is specialised for (its golden file
    under golden/specialised/): arrays of the ranks a user passes."""
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal(5), rng.standard_normal(5)
    X = rng.standard_normal((6, 3))
    Y = np.eye(2)[[0, 1, 1, 0, 1, 0]]
    return {
        "piecewise": (x, w),
        "rosenbrock": (x,),
        "logistic": (rng.standard_normal(3), X, (X[:, 0] > 0).astype(float), 0.1),
        "mlp": (rng.standard_normal((3, 4)), rng.standard_normal(4),
                rng.standard_normal((4, 2)), rng.standard_normal(2), X, Y),
        "huber": (x,),
        "sqrt_where": (x,),
        "clip_norm": (x, w),
        "relu_layer": (rng.standard_normal(3), rng.standard_normal((4, 3))),
        "uses_helper": (x,),
        "scalar_expression": (0.3, -1.2, 0.7),
        "rnn": (rng.standard_normal((4, 4)), rng.standard_normal((4, 3)),
                rng.standard_normal(4), rng.standard_normal((5, 3)), rng.standard_normal(4)),
    }


SPECIALISED_ARGS = _arguments()
