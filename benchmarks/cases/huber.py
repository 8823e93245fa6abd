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
            "the gradient is `np.clip(r, -delta, delta) if delta > 0 else np.sign(r) * "
            "delta`: a bound known only when the code runs decides the case (the "
            "hand-written gradient assumes delta > 0); at n=10 that test and the "
            "dispatch on the arguments are the difference, at 10^6 none",
        "np.minimum, param":
            "as `param delta, where`: `np.clip(r, -delta, delta) if delta > 0 else "
            "np.sign(r) * delta` (for delta <= 0, minimum(|r|, delta) is delta)",
    },
)
