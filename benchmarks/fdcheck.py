"""Central finite differences, to check the hand-written reference gradients."""
from __future__ import annotations

import warnings

import numpy as np

from cases import as_tuple, positional


def _with(args, name, value):
    args = dict(args)
    args[name] = float(value) if isinstance(args[name], float) else value
    return args


def fd_error(case, fn, args, rng, max_coords=12, directions=3):
    """Largest error of the hand-written gradient against central differences of fn.

    `args` is the dict of named arguments. Each error is |fd - analytic| over the
    largest |analytic| entry of that argument (or 1, if larger), so large sums
    and tiny entries do not dominate. Small arguments are checked entry by
    entry; large ones on `max_coords` random entries plus `directions` random
    directions over all wrt arguments.
    """
    f = case.fd_ref(args) if case.fd_ref else fn

    def value(a):
        return f(*positional(f, a))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        grads = [np.asarray(g, dtype=float)
                 for g in as_tuple(case.hand(*positional(case.hand, args)), case)]
        worst = 0.0
        for name, g in zip(case.wrt, grads):
            x = np.asarray(args[name], dtype=float)
            scale = max(1.0, float(np.max(np.abs(g))))
            if x.size <= 400:
                idx = list(np.ndindex(x.shape))
                step = 1e-6
            else:
                flat = rng.choice(x.size, size=max_coords, replace=False)
                idx = [np.unravel_index(i, x.shape) for i in flat]
                # f is a sum of ~x.size terms: rounding in f is ~1e-16 * |f|, so a
                # larger step keeps it (divided by the step) below the tolerance
                step = 1e-5
            for i in idx:
                h = step * max(1.0, abs(float(x[i])))
                up, down = x.copy(), x.copy()
                up[i] += h
                down[i] -= h
                fd = (value(_with(args, name, up)) - value(_with(args, name, down))) / (2 * h)
                worst = max(worst, abs(fd - g[i]) / scale)
        if sum(np.size(args[n]) for n in case.wrt) > 400:
            for _ in range(directions):
                vs = [rng.standard_normal(np.shape(args[n])) for n in case.wrt]
                norm = np.sqrt(sum(np.sum(v * v) for v in vs))
                vs = [v / norm for v in vs]
                h = 1e-5
                up, down = dict(args), dict(args)
                for n, v in zip(case.wrt, vs):
                    up = _with(up, n, np.asarray(args[n]) + h * v)
                    down = _with(down, n, np.asarray(args[n]) - h * v)
                fd = (value(up) - value(down)) / (2 * h)
                exact = sum(float(np.sum(g * v)) for g, v in zip(grads, vs))
                worst = max(worst, abs(fd - exact) / max(1.0, abs(exact)))
    return worst


def rel_error(got, ref):
    """max over wrt arguments of max|got - ref| / max|ref| (normwise, max-norm);
    NaN if one has a NaN or infinity where the other does not (a comparison with
    NaN is false, so a plain max would hide it)."""
    worst = 0.0
    if len(got) != len(ref):
        return float("inf")
    for a, b in zip(got, ref):
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        if a.shape != b.shape:
            return float("inf")
        if not np.array_equal(np.isfinite(a), np.isfinite(b)):
            return float("nan")  # NaN or inf where the other has a number (or reverse)
        finite = np.isfinite(b)
        a, b = a[finite], b[finite]
        denom = float(np.max(np.abs(b))) if b.size else 0.0
        err = float(np.max(np.abs(a - b))) if b.size else 0.0
        worst = max(worst, err / denom if denom > 0 else err)
    return worst


def value_gap(a, b):
    """Relative difference of two function values (scalars)."""
    a, b = float(a), float(b)
    return abs(a - b) / max(abs(b), 1e-300)
