"""Benchmark cases: one function for symdiff, one hand-written NumPy gradient each.

Every function here is plain NumPy, written the way a user would write it; the
hand-written gradients are what a careful person would write by hand (fused
where NumPy allows it, no needless temporaries, no work on zero gradients).
`run.py` checks each hand-written gradient against central finite differences
before it times anything, so a wrong reference cannot hide a wrong symdiff.

A case is a `Case`: the function, `wrt`, the hand-written gradient (same
signature, returns one array for a single `wrt` or a tuple for a tuple `wrt`),
one argument factory per size, optional gradient overrides, and optionally an
`fd_ref` factory that builds the function to finite-difference when the true
derivative is not the one asked for (straight-through quantisation).
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Callable

import numpy as np


@dataclass
class Case:
    name: str
    fn: Callable
    wrt: object
    hand: Callable
    sizes: dict                     # label -> make_args(rng) -> tuple of arguments
    overrides: dict | None = None
    fd_ref: Callable | None = None  # fd_ref(args) -> function to finite-difference
    note: str = ""
    others: bool = True             # whether autograd/jax/torch can express it as is
    why: str = ""                   # why symdiff is slower here, where it is
    wrt_names: tuple = field(init=False)

    def __post_init__(self):
        params = list(inspect.signature(self.fn).parameters)
        items = self.wrt if isinstance(self.wrt, tuple) else (self.wrt,)
        self.wrt_names = tuple(params[i] if isinstance(i, int) else i for i in items)
        self.wrt_positions = tuple(params.index(n) for n in self.wrt_names)


# ---------------------------------------------------------------- Rosenbrock
def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def rosenbrock_hand(x):
    head = x[:-1]
    t = x[1:] - head * head
    g = np.empty_like(x)
    g[:-1] = -400.0 * head * t - 2.0 * (1.0 - head)
    g[-1] = 0.0
    g[1:] += 200.0 * t
    return g


def _rosen_args(n):
    return lambda rng: (rng.uniform(-1.5, 1.5, n),)


# ---------------------------------------------------- L2-regularised logistic regression
def logistic(w, b, X, y, lam):
    z = X @ w + b
    return np.mean(np.logaddexp(0.0, -y * z)) + 0.5 * lam * np.sum(w ** 2)


def logistic_hand(w, b, X, y, lam):
    m = y * (X @ w + b)
    r = y * (0.5 * np.tanh(0.5 * m) - 0.5) / X.shape[0]   # -y * sigmoid(-m) / n
    return X.T @ r + lam * w, np.sum(r)


def _logistic_args(n, d):
    def make(rng):
        X = rng.standard_normal((n, d)) / np.sqrt(d)
        w_true = rng.standard_normal(d)
        y = np.where(X @ w_true + 0.3 * rng.standard_normal(n) > 0, 1.0, -1.0)
        return rng.standard_normal(d), 0.1, X, y, 0.01
    return make


# ------------------------------------------- 2-layer tanh MLP, softmax cross-entropy
def mlp(W1, b1, W2, b2, X, Y):
    h = np.tanh(X @ W1 + b1)
    logits = h @ W2 + b2
    logits = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -np.sum(Y * log_probs) / X.shape[0]


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


def _mlp_args(batch, n_in, n_hidden, n_out):
    def make(rng):
        X = rng.standard_normal((batch, n_in))
        Y = np.eye(n_out)[rng.integers(0, n_out, batch)]
        return (rng.standard_normal((n_in, n_hidden)) / np.sqrt(n_in),
                0.1 * rng.standard_normal(n_hidden),
                rng.standard_normal((n_hidden, n_out)) / np.sqrt(n_hidden),
                0.1 * rng.standard_normal(n_out), X, Y)
    return make


# ------------------------------------------------------------- Huber (np.where)
def huber(r):
    a = np.abs(r)
    return np.sum(np.where(a <= 1.0, 0.5 * r ** 2, a - 0.5))


def huber_hand(r):
    return np.clip(r, -1.0, 1.0)


def _huber_args(n):
    return lambda rng: (3.0 * rng.standard_normal(n),)


# ------------------------------------------------- sum(where(x > 0, sqrt(x), 0))
def sqrt_where(x):
    return np.sum(np.where(x > 0, np.sqrt(x), 0.0))


def sqrt_where_hand(x):
    positive = x > 0
    with np.errstate(divide="ignore"):
        return np.where(positive, 0.5 / np.sqrt(np.maximum(x, 0.0)), 0.0)


def _sqrt_args(n):
    # away from 0 so that central differences are accurate; half negative
    return lambda rng: (rng.choice([-1.0, 1.0], n) * rng.uniform(0.05, 2.0, n),)


# ----------------------------------------- a 45-operation scalar expression of 3 floats
def scalar45(a, b, c):
    d = a * b + np.sin(c) / (1.0 + a ** 2)
    e = np.sqrt(d ** 2 + 1.0) - np.log(1.0 + np.exp(-b))
    f = np.tanh(a - c) * np.cos(b * c) + d / (e + 2.0)
    g = np.exp(-0.5 * (a - 1.0) ** 2) * np.arctan(f) + np.log1p(c ** 2)
    h = (d * e - f * g) / (1.0 + g ** 2) + np.sinh(0.1 * a)
    return h * d + e * f - g + c


def scalar45_hand(a, b, c):
    # forward
    sc = np.sin(c)
    pa = 1.0 + a * a
    d = a * b + sc / pa
    sq = np.sqrt(d * d + 1.0)
    en = np.exp(-b)
    e = sq - np.log(1.0 + en)
    th = np.tanh(a - c)
    bc = b * c
    co = np.cos(bc)
    e2 = e + 2.0
    f = th * co + d / e2
    ga = np.exp(-0.5 * (a - 1.0) ** 2)
    at = np.arctan(f)
    g = ga * at + np.log1p(c * c)
    num = d * e - f * g
    den = 1.0 + g * g
    h = num / den + np.sinh(0.1 * a)
    # backward: out = h * d + e * f - g + c
    d_b, e_b, f_b, g_b, c_b = h, f, e, -1.0, 1.0
    num_b = d / den                                  # h_b = d
    g_b -= 2.0 * g * d * num / (den * den)
    a_b = 0.1 * d * np.cosh(0.1 * a)
    d_b += num_b * e
    e_b += num_b * d
    f_b -= num_b * g
    g_b -= num_b * f
    # g = ga * at + log1p(c^2)
    f_b += g_b * ga / (1.0 + f * f)
    c_b += g_b * 2.0 * c / (1.0 + c * c)
    a_b -= g_b * at * ga * (a - 1.0)
    # f = th * co + d / e2
    th_b = f_b * co * (1.0 - th * th)
    a_b += th_b
    c_b -= th_b
    bc_b = -f_b * th * np.sin(bc)
    b_b = bc_b * c
    c_b += bc_b * b
    d_b += f_b / e2
    e_b -= f_b * d / (e2 * e2)
    # e = sqrt(d^2 + 1) - log(1 + en)
    d_b += e_b * d / sq
    b_b += e_b * en / (1.0 + en)
    # d = a * b + sc / pa
    a_b += d_b * (b - 2.0 * a * sc / (pa * pa))
    b_b += d_b * a
    c_b += d_b * np.cos(c) / pa
    return a_b, b_b, c_b


# ------------------------------------------- tanh recurrence with a Python for loop
def rnn(W, U, b, xs, target):
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t] + b)
    return 0.5 * np.sum((h - target) ** 2)


def rnn_hand(W, U, b, xs, target):
    steps, hidden = xs.shape[0], W.shape[0]
    hs = np.zeros((steps + 1, hidden))     # hs[t] is the state before step t
    for t in range(steps):
        hs[t + 1] = np.tanh(W @ hs[t] + U @ xs[t] + b)
    dzs = np.empty((steps, hidden))
    dh = hs[steps] - target
    for t in range(steps - 1, -1, -1):
        dz = dh * (1.0 - hs[t + 1] * hs[t + 1])
        dzs[t] = dz
        dh = dz @ W
    return dzs.T @ hs[:-1], dzs.T @ xs, np.sum(dzs, axis=0)


def _rnn_args(hidden, steps, n_in):
    def make(rng):
        return (rng.standard_normal((hidden, hidden)) / np.sqrt(hidden),
                rng.standard_normal((hidden, n_in)) / np.sqrt(n_in),
                0.1 * rng.standard_normal(hidden),
                rng.standard_normal((steps, n_in)),
                0.5 * rng.standard_normal(hidden))
    return make


# ------------------------- straight-through quantisation: floor's gradient overridden
def quantize(x, y):
    q = np.floor(x * 8.0) / 8.0
    return np.sum((q - y) ** 2) + 0.01 * np.sum(x ** 2)


def quantize_hand(x, y):
    # d floor(u)/du := 1, so dq/dx = 1
    return 2.0 * (np.floor(x * 8.0) / 8.0 - y) + 0.02 * x


def quantize_fd_ref(args):
    """The function whose true derivative at args is the straight-through one:
    floor(u) replaced by u + (floor(u0) - u0), u0 frozen at the given point."""
    x0, _ = args
    u0 = x0 * 8.0
    offset = np.floor(u0) - u0

    def ref(x, y):
        q = (x * 8.0 + offset) / 8.0
        return np.sum((q - y) ** 2) + 0.01 * np.sum(x ** 2)
    return ref


def _quant_args(n):
    return lambda rng: (rng.standard_normal(n), rng.standard_normal(n))


# ---------------------------------------------------------------------- the table
CASES = [
    Case("rosenbrock", rosenbrock, 0, rosenbrock_hand,
         {"n=10": _rosen_args(10), "n=1e6": _rosen_args(10 ** 6)},
         why="at n=10 the argument check and the call filling the gradient "
             "buffer (`_unindex_sum`) are ~0.5 us of a 7 us gradient"),
    Case("logistic L2", logistic, ("w", "b"), logistic_hand,
         {"10x3": _logistic_args(10, 3), "1000x100": _logistic_args(1000, 100)}),
    Case("MLP tanh+softmax", mlp, ("W1", "b1", "W2", "b2"), mlp_hand,
         {"4:8-16-3": _mlp_args(4, 8, 16, 3), "128:784-256-10": _mlp_args(128, 784, 256, 10)}),
    Case("huber (where)", huber, 0, huber_hand,
         {"n=10": _huber_args(10), "n=1e6": _huber_args(10 ** 6)},
         why="at n=10 the argument check is ~0.15 us of a 3 us gradient; the "
             "code is otherwise the hand-written `np.clip`"),
    Case("sqrt where", sqrt_where, 0, sqrt_where_hand,
         {"n=10": _sqrt_args(10), "n=1e6": _sqrt_args(10 ** 6)}),
    Case("scalar 45 ops", scalar45, (0, 1, 2), scalar45_hand,
         {"3 floats": lambda rng: tuple(float(v) for v in rng.uniform(-1.0, 1.0, 3))},
         why="about ten more NumPy-scalar operations than the hand-written chain "
             "rule (each ~0.1 us), and two check calls"),
    Case("rnn for-loop", rnn, ("W", "U", "b"), rnn_hand,
         {"4x5": _rnn_args(4, 5, 3), "32x50": _rnn_args(32, 50, 16)},
         why="three `_sum_to` per step: the shapes of `W @ h`, `U @ x` and `b` are "
             "not known when compiling (a hand-written loop assumes they match); "
             "and a helper call per step for `W.T @ g` at unknown ranks"),
    Case("straight-through floor", quantize, 0, quantize_hand,
         {"n=10": _quant_args(10), "n=1e5": _quant_args(10 ** 5)},
         overrides={"floor": "identity"}, fd_ref=quantize_fd_ref, others=False,
         note="overrides={'floor': 'identity'}",
         why="at n=10 the argument check and a `_sum_to` (the shape of `y` is not "
             "known) are ~0.5 us of a 4 us gradient"),
]


def count_ops(fn):
    """Arithmetic operators and calls in fn's body (for the 45-operation case)."""
    import ast
    import textwrap
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    n = 0
    for node in ast.walk(tree):
        if isinstance(node, (ast.BinOp, ast.Call)):
            n += 1
        elif isinstance(node, ast.UnaryOp) and not isinstance(node.operand, ast.Constant):
            n += 1
    return n
