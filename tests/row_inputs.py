"""Arguments for the rows of tests/primitive_rows.py: inside each function's
domain, away from its kinks, the same on every run."""
import contextlib

import numpy as np

_rng = np.random.default_rng(20261124)


def u(*shape):
    """Uniform in (-1, 1), none within 0.1 of 0 (sign, abs and ties are away)."""
    x = _rng.uniform(0.1, 1.0, size=shape) * _rng.choice([-1.0, 1.0], size=shape)
    return float(x) if not shape else x


def pos(*shape, lo=0.5, hi=2.0):
    x = _rng.uniform(lo, hi, size=shape)
    return float(x) if not shape else x


def inside(*shape):
    """Inside (-0.8, 0.8): arcsin, arctanh, tan."""
    return pos(*shape, lo=-0.8, hi=0.8)


def between(*shape):
    """Between integers: floor, ceil, round and friends are flat there."""
    return _rng.integers(-3, 3, size=shape) + _rng.uniform(0.2, 0.4, size=shape)


def matrix(*batch, n=3):
    """Well-conditioned square matrices (a stack for a ``batch`` shape)."""
    return np.eye(n) * 3.0 + _rng.uniform(-1, 1, size=batch + (n, n))


def spd(*batch, n=3):
    """Symmetric positive definite matrices, well conditioned."""
    x = _rng.uniform(-1, 1, size=batch + (n, n))
    return x @ np.swapaxes(x, -1, -2) + n * np.eye(n)


def lower(*batch, n=3):
    """Lower triangular, well conditioned (its upper triangle is not zero:
    the functions that read one triangle must ignore the other)."""
    return matrix(*batch, n=n)


@contextlib.contextmanager
def own_draws(seed):
    """Rows drawn inside take their inputs from a generator of their own, so a
    family's rows added or changed leave every other family's inputs as they were."""
    global _rng
    saved, _rng = _rng, np.random.default_rng(seed)
    try:
        yield
    finally:
        _rng = saved
