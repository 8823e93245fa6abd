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
            "the generated code is the hand-written one's: the states in one preallocated "
            "array (`hs[t + 1] = h`), the step gradients written by index (`t_bars[t] = "
            "t_bar`), then `W_bar = t_bars.T @ hs[:-1]` and `U_bar = t_bars.T @ xs` (xs "
            "read as it is, not saved), `b_bar = t_bars.sum(axis=0)`",
        "for x in xs, np.dot":
            "as `W @ h, range`",
        "row vectors h @ W.T":
            "as `W @ h, range`, for `W.T` and `U.T` (the loop multiplies by `W_t`, made "
            "before it)",
    },
)
