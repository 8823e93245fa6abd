"""The Huber loss of residuals r: quadratic inside |r| <= delta, linear outside.
Its gradient is clip(r, -delta, delta) however the loss is written."""
import numpy as np

from .base import Case, Spelling


def huber(r):  # the spelling of earlier runs: delta = 1 as a literal
    a = np.abs(r)
    return np.sum(np.where(a <= 1.0, 0.5 * r ** 2, a - 0.5))


def huber_delta(r, delta):  # the textbook form, delta a parameter (issue 16)
    a = np.abs(r)
    return np.sum(np.where(a <= delta, 0.5 * r * r, delta * (a - 0.5 * delta)))


def huber_halves(r):  # r**2 / 2, a strict <, abs written twice
    return np.sum(np.where(np.abs(r) < 1.0, r ** 2 / 2, np.abs(r) - 1 / 2))


def huber_minimum(r, delta):  # branch-free: quadratic part up to delta, linear rest
    a = np.abs(r)
    q = np.minimum(a, delta)
    return np.sum(0.5 * q ** 2 + delta * (a - q))


def huber_hand(r, delta):
    return np.clip(r, -delta, delta)


def _args(n):
    return lambda rng: {"r": 3.0 * rng.standard_normal(n), "delta": 1.0}


CASE = Case(
    "huber", ("r",), huber_hand,
    {"n=10": _args(10), "n=1e6": _args(10 ** 6)},
    [Spelling("literal 1.0, where", huber),
     Spelling("param delta, where", huber_delta),
     Spelling("r**2/2, <", huber_halves),
     Spelling("np.minimum, param", huber_minimum)],
    why={
        "param delta, where":
            "`delta` is not a literal, so the `where(|r| <= c, ...)` -> `np.clip` fold does "
            "not fire: the gradient computes the forward `np.where` only to shape "
            "`np.full_like(..., 1.0)`, then three `np.where(mask, ..., 0.0)` with a random "
            "mask (~2.5 ms each per 10^6) and `np.sign(r) * a_bar`: ~11 full passes, four "
            "of them branchy selects, against one `np.clip`",
        "np.minimum, param":
            "`np.minimum(a, delta)`'s tie-splitting share `_step(delta, a)` (two "
            "comparisons, an add and a NaN scan: ~2.5 ms per 10^6), "
            "`np.full_like(0.5 * q ** 2 + delta * (a - q), 1.0)` computed for its shape, and "
            "`q_bar`, `a_bar`, `np.sign(r) * a_bar` unfused: ~12 passes for "
            "`np.clip(r, -delta, delta)`",
    },
)
