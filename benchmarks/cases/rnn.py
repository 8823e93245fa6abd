"""A tanh recurrence written as a Python loop, loss on the final state; gradient
in the recurrent matrix W, the input matrix U and the bias b."""
import numpy as np

from .base import Case, Spelling


def rnn(W, U, b, xs, target):  # the spelling of earlier runs
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + U @ xs[t] + b)
    return 0.5 * np.sum((h - target) ** 2)


def rnn_rows(W, U, b, xs, target):  # loop over the rows, np.dot, a dot for the loss
    h = np.zeros(W.shape[0])
    for x in xs:
        h = np.tanh(np.dot(W, h) + np.dot(U, x) + b)
    err = h - target
    return 0.5 * np.dot(err, err)


def rnn_projected(W, U, b, xs, target):  # inputs projected once, before the loop
    inputs = xs @ U.T + b
    h = np.zeros(W.shape[0])
    for t in range(len(xs)):
        h = np.tanh(W @ h + inputs[t])
    return 0.5 * np.sum(np.square(h - target))


def rnn_row_vectors(W, U, b, xs, target):  # states as row vectors: h @ W.T
    h = np.zeros(W.shape[0])
    for t in range(xs.shape[0]):
        h = np.tanh(h @ W.T + xs[t] @ U.T + b)
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


def _args(hidden, steps, n_in):
    def make(rng):
        return {"W": rng.standard_normal((hidden, hidden)) / np.sqrt(hidden),
                "U": rng.standard_normal((hidden, n_in)) / np.sqrt(n_in),
                "b": 0.1 * rng.standard_normal(hidden),
                "xs": rng.standard_normal((steps, n_in)),
                "target": 0.5 * rng.standard_normal(hidden)}
    return make


CASE = Case(
    "rnn for-loop", ("W", "U", "b"), rnn_hand,
    {"4x5": _args(4, 5, 3), "32x50": _args(32, 50, 16)},
    [Spelling("W @ h, range", rnn),
     Spelling("for x in xs, np.dot", rnn_rows),
     Spelling("inputs projected first", rnn_projected),
     Spelling("row vectors h @ W.T", rnn_row_vectors)],
    why={
        "W @ h, range":
            "four `_sum_to` calls per step (the shapes of `W @ h`, `U @ x`, their sum and "
            "`b` are not known when compiling; a hand-written loop assumes they match) and "
            "a helper call per step for `W.T @ g`",
        "for x in xs, np.dot":
            "`np.dot`'s adjoints go through the generic `_dot_adjoint_a/_b` "
            "(`np.tensordot`, 4-5 us a call against ~1 us for `g @ W` or an outer "
            "product), three per step, and the `W`, `U` gradients are added up step by "
            "step (`W_bar += ...`) instead of one product after the loop as for `@`",
        "inputs projected first":
            "the gradient of `inputs[t]` is a full-size scatter per step "
            "(`_unindex_add(g, inputs, np.s_[t])`, `np.zeros` + `np.add.at`, then "
            "`inputs_bar += ...`): quadratic in the number of steps, where "
            "`inputs_bar[t] = g` would do",
        "row vectors h @ W.T":
            "the loop multiplies by `W.T`, not by `W`, so the after-the-loop product "
            "does not apply: each step forms two outer products "
            "(`_matmul_adjoint_b(g, h, T_W)`) and adds `T_W_bar.T` into `W_bar`; the "
            "tape keeps `W.T` and `U.T` per step",
    },
)
