"""Independent reference derivatives: central finite differences in float64."""
import warnings

import numpy as np


def numeric_grad(f, args, wrt=0, eps=1e-6):
    """d f / d args[wrt] by central differences, entry by entry.

    The user's own function may warn in a branch `where` does not take; that
    is its business, not the gradient's, so warnings are silenced here only.
    """
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return _numeric_grad(f, args, wrt, eps)


def _numeric_grad(f, args, wrt, eps):
    args = list(args)
    x = np.asarray(args[wrt], dtype=float)
    grad = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = eps
        hi = args[:wrt] + [_like(args[wrt], x + step)] + args[wrt + 1:]
        lo = args[:wrt] + [_like(args[wrt], x - step)] + args[wrt + 1:]
        grad[i] = (f(*hi) - f(*lo)) / (2 * eps)
    return grad if np.ndim(args[wrt]) else float(grad)


def _like(original, value):
    return float(value) if isinstance(original, float) else value


def assert_grad(f, df, args, wrt=0, rtol=1e-6, atol=1e-7):
    """``df(*args)`` matches finite differences of ``f``, with the input's shape."""
    got = df(*args)
    wrts = wrt if isinstance(wrt, tuple) else (wrt,)
    gots = got if isinstance(wrt, tuple) else (got,)
    assert len(gots) == len(wrts)
    for w, g in zip(wrts, gots):
        expected = numeric_grad(f, args, w)
        assert np.shape(g) == np.shape(args[w]), (np.shape(g), np.shape(args[w]))
        np.testing.assert_allclose(g, expected, rtol=rtol, atol=atol)
    return got
