"""Central finite differences, to check the hand-written reference gradients."""
from __future__ import annotations

import warnings

import numpy as np


def as_tuple(g, case):
    return tuple(g) if isinstance(case.wrt, tuple) else (g,)


def _with(args, pos, value):
    args = list(args)
    args[pos] = float(value) if isinstance(args[pos], float) else value
    return args


def fd_error(case, args, rng, max_coords=12, directions=3):
    """Largest error of the hand-written gradient against central differences.

    Each error is |fd - analytic| over the largest |analytic| entry of that
    argument (or 1, if larger), so large sums and tiny entries do not dominate.
    Small arguments are checked entry by entry; large ones on `max_coords`
    random entries plus `directions` random directions over all wrt arguments.
    """
    f = case.fd_ref(args) if case.fd_ref else case.fn
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        grads = [np.asarray(g, dtype=float) for g in as_tuple(case.hand(*args), case)]
        worst = 0.0
        for pos, g in zip(case.wrt_positions, grads):
            x = np.asarray(args[pos], dtype=float)
            scale = max(1.0, float(np.max(np.abs(g))))
            if x.size <= 400:
                idx = list(np.ndindex(x.shape))
            else:
                flat = rng.choice(x.size, size=max_coords, replace=False)
                idx = [np.unravel_index(i, x.shape) for i in flat]
            for i in idx:
                h = 1e-6 * max(1.0, abs(float(x[i])))
                up, down = x.copy(), x.copy()
                up[i] += h
                down[i] -= h
                fd = (f(*_with(args, pos, up)) - f(*_with(args, pos, down))) / (2 * h)
                worst = max(worst, abs(fd - g[i]) / scale)
        if sum(np.size(args[p]) for p in case.wrt_positions) > 400:
            for _ in range(directions):
                vs = [rng.standard_normal(np.shape(args[p])) for p in case.wrt_positions]
                norm = np.sqrt(sum(np.sum(v * v) for v in vs))
                vs = [v / norm for v in vs]
                h = 1e-5
                up, down = list(args), list(args)
                for p, v in zip(case.wrt_positions, vs):
                    up = _with(up, p, np.asarray(args[p]) + h * v)
                    down = _with(down, p, np.asarray(args[p]) - h * v)
                fd = (f(*up) - f(*down)) / (2 * h)
                exact = sum(float(np.sum(g * v)) for g, v in zip(grads, vs))
                worst = max(worst, abs(fd - exact) / max(1.0, abs(exact)))
    return worst


def rel_error(got, ref):
    """max over wrt arguments of max|got - ref| / max|ref| (normwise, max-norm)."""
    worst = 0.0
    if len(got) != len(ref):
        return float("inf")
    for a, b in zip(got, ref):
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        if a.shape != b.shape:
            return float("inf")
        denom = float(np.max(np.abs(b))) if b.size else 0.0
        err = float(np.max(np.abs(a - b))) if b.size else 0.0
        worst = max(worst, err / denom if denom > 0 else err)
    return worst
